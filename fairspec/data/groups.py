"""Protected groups from data columns, and readable names for coded values.

A protected attribute's group of a row is, by the attribute's :class:`GroupColumn`:

* a column's own value (``protected race``), as :func:`fairspec.data.prepare.group_labels`
  writes it, optionally shown under a readable label (``labels race { ... }``);
* the bin of a numeric column (``protected age bins [25, 45]``).  Bins are closed on the left:
  edges ``e1 < ... < ek`` make the groups ``x < e1``, ``e1 <= x < e2``, ..., ``x >= ek``, the
  half-open intervals that ``numpy.searchsorted(edges, x, side="right")`` numbers 0 ... k, so
  an edge belongs to the bin it starts;
* the named group a row's value is listed in (``protected sex from personal_status {
  ["A91", "A93", "A94"] as "male" ... }``), values matched as a ``where ... in [...]`` filter
  matches them (:func:`fairspec.data.table.value_mask`).

Several attributes make intersectional groups, joined as :func:`~fairspec.data.prepare.joined_labels`
joins them.  Only training and evaluation read these columns: a model never takes its groups as an
input, so prediction needs neither the protected columns nor the columns groups are derived from.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairspec.data.prepare import category_text, joined_labels, line_of, value_texts
from fairspec.data.table import numbers_of, value_mask
from fairspec.errors import DataError, cell_text, written_number


@dataclass(frozen=True)
class GroupColumn:
    """How one protected attribute's group is read from a row (see the module docstring).

    ``name`` is the attribute's name (what the report calls it), ``column`` the data column
    read.  At most one of ``edges`` (bins; ``bin_labels`` names them, one more than the edges)
    and ``merged`` (``(group, values)`` pairs) is set; ``labels`` (``(value, label)`` pairs)
    only names the values of a column taken as it is."""

    name: str
    column: str
    edges: tuple = ()
    bin_labels: tuple[str, ...] = ()
    merged: tuple[tuple[str, tuple], ...] = ()
    labels: tuple[tuple[object, str], ...] = ()

    @property
    def kind(self) -> str:
        """``bins``, ``merged`` or ``column``."""
        return "bins" if self.edges else "merged" if self.merged else "column"

    def group_texts(self, frame: pd.DataFrame) -> np.ndarray:
        """Each row's group, as text.  A row a derived attribute puts in no group (a missing
        value, a value no merged group lists) is a :class:`DataError` naming its line; the
        checker refuses such data first, so this only guards a caller that skipped it."""
        series = frame[self.column]
        if self.kind == "column":
            return value_texts(series)
        if self.kind == "bins":
            numbers = numbers_of(series).to_numpy(dtype=float)
            outside = np.isnan(numbers)
            index = np.searchsorted(np.asarray(self.edges, dtype=float), numbers, side="right")
            texts = np.asarray(self.bin_labels, dtype=object)[np.minimum(index, len(self.bin_labels) - 1)]
        else:
            texts = np.full(len(series), None, dtype=object)
            for group, values in self.merged:
                texts[value_mask(series, "in", list(values)) & np.equal(texts, None)] = group
            outside = np.equal(texts, None)
        if outside.any():
            first = int(np.flatnonzero(outside)[0])
            raise DataError(f"error: column {self.column!r}, line {line_of(frame, first)}: "
                            f"{cell_text(series.iloc[first])} is in no group of protected attribute {self.name!r}")
        return texts.astype(str)

    def readable_texts(self, frame: pd.DataFrame) -> np.ndarray:
        """Each row's group as the report shows it: :meth:`group_texts`, a labelled value's
        label in its place."""
        texts = self.group_texts(frame).astype(object)
        for value, label in self.labels:
            texts[value_mask(frame[self.column], "==", [value])] = label
        return texts.astype(str)

    def to_json(self) -> dict:
        """The attribute's definition as model.json records it (``schema.groups``)."""
        doc = {"name": self.name, "column": self.column, "kind": self.kind}
        if self.kind == "bins":
            doc.update(edges=list(self.edges), closed="left", groups=list(self.bin_labels))
        elif self.kind == "merged":
            doc["groups"] = {group: list(values) for group, values in self.merged}
        if self.labels:
            doc["labels"] = {category_text(value): label for value, label in self.labels}
        return doc


def bin_labels(edges, whole: bool) -> tuple[str, ...]:
    """The names of the bins ``edges`` make (closed on the left): ``< 25``, ``25–44``, ``≥ 45``
    when the column holds whole numbers only and the edges are whole (``25 to < 45`` otherwise:
    a value such as 44.5 would fall between "25–44" and "45")."""
    shown = [written_number(float(e)) for e in edges]
    names = [f"< {shown[0]}"]
    for (lo, hi), (lo_text, _) in zip(zip(edges, edges[1:]), zip(shown, shown[1:])):
        if whole:
            last = written_number(float(hi) - 1)
            names.append(lo_text if float(hi) - 1 == float(lo) else f"{lo_text}–{last}")
        else:
            names.append(f"{lo_text} to < {written_number(float(hi))}")
    names.append(f"≥ {shown[-1]}")
    return tuple(names)


def whole_numbers(series: pd.Series, edges) -> bool:
    """Whether every present value of ``series`` and every edge is a whole number (so a bin
    can be named by its first and last value)."""
    numbers = numbers_of(series.dropna()).to_numpy(dtype=float)
    numbers = numbers[np.isfinite(numbers)]
    return bool(np.all(numbers == np.round(numbers))) and all(float(e).is_integer() for e in edges)


def derived_group_labels(frame: pd.DataFrame, groups: list[GroupColumn]) -> np.ndarray:
    """One group label per row, intersectional groups joined (:func:`joined_labels`)."""
    return joined_labels([g.group_texts(frame) for g in groups])


def readable_group_labels(frame: pd.DataFrame, groups: list[GroupColumn]) -> dict[str, str]:
    """Group label -> the label shown for it, for every group of ``frame`` that a ``labels``
    statement renames (``"A91"`` -> ``"male: divorced/separated"``, ``"A91 & 25–44"`` ->
    ``"male: divorced/separated & 25–44"``); the others are shown as they are."""
    if not any(g.labels for g in groups) or not len(frame):
        return {}
    keys = derived_group_labels(frame, groups)
    shown = joined_labels([g.readable_texts(frame) for g in groups])
    pairs = pd.unique(pd.Series(list(zip(keys, shown)), dtype=object))
    return {str(k): str(s) for k, s in sorted(pairs) if k != s}
