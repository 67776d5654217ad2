"""The checks of derived and labelled groups: ``protected age bins [25, 45]``, ``protected sex
from personal_status { [...] as "male" ... }`` and ``labels status { "A11" as "..." }``.

They are part of :func:`fairspec.dsl.check.check_spec` (which calls :func:`check_rules`
without data and :func:`check_in_data` / :func:`check_labels_in_data` with it), so each
mistake is reported with the others, at the edge, value or name it is about.  The groups
themselves are made by :mod:`fairspec.data.groups`; :func:`group_column` turns a spec's rule
into the :class:`~fairspec.data.groups.GroupColumn` that reads them.
"""
from __future__ import annotations

import difflib

import numpy as np
import pandas as pd

from fairspec.data.groups import GroupColumn, bin_labels, whole_numbers
from fairspec.data.prepare import category_text, line_of, value_texts
from fairspec.data.table import column_kind, feature_kind, is_true_false, numbers_of, value_mask, values_present
from fairspec.dsl import ast
from fairspec.dsl.check import (HINT_DID_YOU_MEAN, HINT_FILTER_UNQUOTE, HINT_FILTER_VALUES, PROTECTED_HAS_MISSING,
                                PROTECTED_ONE_GROUP, TARGET_AS_PROTECTED, _distinct, _is_number_like, _quote,
                                _spec_word, _text_cells, _text_sample, _values_text)
from fairspec.errors import Diagnostic, written_name, written_number

# ---- messages ------------------------------------------------------------------------------
BIN_EDGE_OUT_OF_ORDER = ("bin edge {edge} is not above the edge before it ({previous}): edges go from low to high, "
                         "each once")
BINS_NOT_NUMERIC = "bins need a numeric column, but '{column}' holds {what}"
HINT_BINS_NOT_NUMERIC = "name groups of its values instead: protected {name} from {column} {{ [...] as \"...\" }}"
HINT_BINS_MISSING = ("leave those rows out with a where filter, e.g. where {column} >= {low} (a missing value "
                     "passes no comparison)")
BIN_EMPTY = ("bin '{bin}' of '{column}' holds no row after filtering (the rows kept have {column} from {low} "
             "to {high})")
HINT_BIN_EMPTY = "move or remove this edge: a bin with no row is no group to compare"
DERIVED_NAME_IS_COLUMN = ("'{name}' is a column of the data, so it cannot also name the groups derived from "
                          "'{column}'")
HINT_DERIVED_NAME = "give the derived groups a name of their own, e.g. protected {suggestion} from {column} ..."
MERGED_NO_GROUPS = "'{name} from {column}' lists no group: write each as [values] as \"name\""
MERGED_NAME_EMPTY = "the name of a group is empty: name it with some text"
MERGED_NAME_TWICE = ("group \"{label}\" of '{name}' is named twice (first on line {line}): list all its values in "
                     "one [...]")
MERGED_VALUE_TWICE = ("value {value} of '{column}' is listed twice, first in group \"{group}\" on line {line}: each "
                      "value belongs to one group")
MERGED_VALUE_ABSENT = "value {value} of group \"{group}\" matches no row of column '{column}'"
MERGED_VALUES_UNLISTED = ("{rows:,} row(s) kept have a value of '{column}' that no group of '{name}' lists: {values}; "
                          "every row must belong to a group")
HINT_MERGED_UNLISTED = "list each in a group, or leave its rows out: where {column} not in [{values}]"
MERGED_GROUP_EMPTY = "group \"{label}\" of '{name}' holds no row after filtering"
HINT_MERGED_GROUP_EMPTY = "the where filters leave out every row of its values: remove the group, or loosen the filters"
LABELS_TWICE = "column '{column}' is labelled twice (first on line {line}): put all its labels in one labels statement"
LABELS_UNUSED = ("labels for column '{column}', which the spec uses neither as a feature nor as a protected attribute: "
                 "they would show nowhere")
LABELS_ON_DERIVED = "the groups of '{column}' are {how}: labels name the values of a column taken as it is"
LABELS_ON_NUMERIC = ("labels name the codes of a categorical column, but feature '{column}' is {how}numeric: a model "
                     "reads its values as numbers, never as codes")
HINT_LABELS_ON_NUMERIC = "declare it categorical (features {{ {column} categorical }}) if its numbers are codes"
LABEL_VALUE_TWICE = "value {value} of '{column}' is labelled twice (first on line {line})"
LABEL_EMPTY = "the label of {value} is empty: write the text to show for it"
LABEL_SAME_TEXT = ("values {first} and {value} of '{column}' are both labelled \"{text}\": they would read as one but "
                   "stay two {what}")
HINT_LABEL_SAME_TEXT_GROUP = ("to make them one group, merge them: protected {column}_group from {column} "
                              "{{ [{first}, {value}] as \"{text}\" ... }}")
LABEL_VALUE_ABSENT = "labelled value {value} matches no row of column '{column}'"
#: a numeric protected column with more distinct values than this is warned about, and the hints
#: that would list its values propose bins instead
MANY_VALUES = 10
MANY_VALUE_GROUPS = ("protected attribute '{column}' is numeric with {count} distinct values in the rows kept: each "
                     "value is a group of its own, most of them small")
HINT_BINS = "bin it into a few groups, e.g. {line} (bins are closed on the left: {names})"
#: what replaces the `where` filter of a hint for a group that is a bin or a merged group
HINT_REGROUP_BINS = "other edges in `{name} bins [...]`"
HINT_REGROUP_MERGED = "`data \"...\" where {column} not in [...]` or other groups in `{name} from {column} {{ ... }}`"


def group_column(spec: ast.Spec, name: str, table: pd.DataFrame) -> GroupColumn:
    """How protected attribute ``name`` of ``spec`` reads its groups from ``table``'s rows: a
    column as it is (with its ``labels``, if any), bins (named from the data: see
    :func:`~fairspec.data.groups.bin_labels`) or merged values."""
    rule = spec.protected.derivation(name)
    if rule is None:
        given = next((entry for entry in spec.labels if entry.column.value == name), None)
        pairs = tuple((e.value, e.text) for e in given.entries) if given is not None else ()
        return GroupColumn(name, name, labels=pairs)
    if rule.bins:
        return GroupColumn(name, rule.column.value, edges=tuple(rule.bins),
                           bin_labels=bin_labels(rule.bins, whole_numbers(table[rule.column.value], rule.bins)))
    return GroupColumn(name, rule.column.value, merged=tuple((m.label, tuple(m.values)) for m in rule.merged))


# ---- without data ----------------------------------------------------------------------------
def check_rules(checker) -> None:
    """The rules' own consistency: bin edges in order, each merged value and group name once,
    labels once per column and value, and labels only where they can show."""
    spec = checker.spec
    target = spec.target.column.value
    for rule in spec.protected.derived:
        if rule.column.value == target and rule.column.value != rule.name.value:
            checker.add(TARGET_AS_PROTECTED.format(column=target), rule.column.span)
        for i in range(1, len(rule.bins)):
            if not rule.bins[i] > rule.bins[i - 1]:
                checker.add(BIN_EDGE_OUT_OF_ORDER.format(edge=_spec_word(rule.bins[i]),
                                                         previous=_spec_word(rule.bins[i - 1])),
                            _at(rule.edge_spans, i, rule.span))
        if not rule.bins and not rule.merged:
            checker.add(MERGED_NO_GROUPS.format(name=rule.name.value, column=rule.column.value), rule.span)
        names: dict[str, ast.MergedGroup] = {}
        values: dict[str, tuple[ast.MergedGroup, object]] = {}
        for group in rule.merged:
            if not group.label.strip():
                checker.add(MERGED_NAME_EMPTY, group.span)
            elif group.label in names:
                checker.add(MERGED_NAME_TWICE.format(label=group.label, name=rule.name.value,
                                                     line=_line(names[group.label].span)), group.span)
            names.setdefault(group.label, group)
            for j, value in enumerate(group.values):
                key = category_text(value)
                if key in values:
                    first = values[key][0]
                    checker.add(MERGED_VALUE_TWICE.format(value=_spec_word(value), column=rule.column.value,
                                                          group=first.label, line=_line(first.span)),
                                _at(group.value_spans, j, group.span))
                values.setdefault(key, (group, value))
    check_labels(checker)


def check_labels(checker) -> None:
    spec = checker.spec
    features = {f.name.value: f for f in (*spec.features, *spec.privileged)}
    plain = {a.value for a in spec.protected.attributes if spec.protected.derivation(a.value) is None}
    seen: dict[str, ast.Labels] = {}
    for labels in spec.labels:
        column = labels.column.value
        if column in seen:
            checker.add(LABELS_TWICE.format(column=column, line=_line(seen[column].span)), labels.column.span)
            continue
        seen[column] = labels
        rule = spec.protected.derivation(column)
        if column not in features and column not in plain:
            if rule is not None:
                how = "bins named by their edges" if rule.bins else f"named in '{column} from {rule.column.value}'"
                checker.add(LABELS_ON_DERIVED.format(column=column, how=how), labels.column.span)
            else:
                checker.add(LABELS_UNUSED.format(column=column), labels.column.span)
            continue
        feature = features.get(column)
        if feature is not None and feature.kind == "numeric" and column not in plain:
            checker.add(LABELS_ON_NUMERIC.format(column=column, how="declared "), labels.column.span,
                        HINT_LABELS_ON_NUMERIC.format(column=written_name(column)))
            continue
        values: dict[str, ast.Label] = {}
        texts: dict[str, ast.Label] = {}
        for entry in labels.entries:
            key = category_text(entry.value)
            if key in values:
                checker.add(LABEL_VALUE_TWICE.format(value=_spec_word(entry.value), column=column,
                                                     line=_line(values[key].span)), entry.span)
                continue
            values[key] = entry
            if not entry.text.strip():
                checker.add(LABEL_EMPTY.format(value=_spec_word(entry.value)), entry.text_span or entry.span)
            elif entry.text in texts:
                first = texts[entry.text]
                protected = column in plain
                checker.add(LABEL_SAME_TEXT.format(first=_spec_word(first.value), value=_spec_word(entry.value),
                                                   column=column, text=entry.text,
                                                   what="groups" if protected else "categories"),
                            entry.text_span or entry.span,
                            HINT_LABEL_SAME_TEXT_GROUP.format(column=column, first=_quote(first.value),
                                                              value=_quote(entry.value), text=entry.text)
                            if protected else None)
            texts.setdefault(entry.text, entry)


# ---- against the data ------------------------------------------------------------------------
def check_in_data(checker, rows: pd.DataFrame) -> list[GroupColumn] | None:
    """Each protected attribute against the data (``rows``: those the filters keep); the
    attributes' :class:`GroupColumn`, in order, when every one of them can be read, else None."""
    spec, table = checker.spec, checker.table
    columns = []
    for attribute in spec.protected.attributes:
        rule = spec.protected.derivation(attribute.value)
        if rule is None:
            if not checker.column_exists(attribute, "protected attribute"):
                columns.append(None)
                continue
            if len(rows):
                checker.check_protected(attribute, rows[attribute.value])
            columns.append(group_column(spec, attribute.value, table))
            continue
        before = len(checker.problems)
        if rule.name.value != rule.column.value and rule.name.value in table.columns:
            checker.add(DERIVED_NAME_IS_COLUMN.format(name=rule.name.value, column=rule.column.value), rule.name.span,
                        HINT_DERIVED_NAME.format(suggestion=_free_name(rule.name.value, table),
                                                 column=rule.column.value))
        role = f"groups of '{rule.name.value}'" if rule.name.value != rule.column.value else "protected attribute"
        if checker.column_exists(rule.column, role):
            if rule.bins:
                _check_bins(checker, rule, rows)
            else:
                _check_merged(checker, rule, rows)
        if len(checker.problems) > before:
            columns.append(None)
            continue
        group = group_column(spec, attribute.value, table)
        texts = group.group_texts(rows)
        if len(rows) and len(set(texts)) == 1:
            checker.add(PROTECTED_ONE_GROUP.format(column=attribute.value, group=str(texts[0])), attribute.span)
        columns.append(group)
    return None if any(c is None for c in columns) else columns


def _check_bins(checker, rule: ast.DerivedGroups, rows: pd.DataFrame) -> None:
    column = rule.column.value
    series = checker.table[column]
    if is_true_false(series) or column_kind(series) != "numeric":
        present = series.dropna()
        text = _text_cells(present)
        what = ("true/false" if is_true_false(series)
                else "text such as {} (first on line {})".format(*_text_sample(present, text)) if text.any()
                else "text")
        name = rule.name.value if rule.name.value != column else f"{rule.name.value}_group"
        checker.add(BINS_NOT_NUMERIC.format(column=column, what=what), rule.column.span,
                    HINT_BINS_NOT_NUMERIC.format(name=name, column=written_name(column)))
        return
    if any(not rule.bins[i] > rule.bins[i - 1] for i in range(1, len(rule.bins))):
        return  # said without the data
    if not len(rows):
        return
    kept = rows[column]
    missing = kept.isna().to_numpy()
    if missing.any():
        checker.add(PROTECTED_HAS_MISSING.format(column=column, count=int(missing.sum()),
                                                 line=line_of(kept, int(np.flatnonzero(missing)[0]))),
                    rule.column.span,
                    HINT_BINS_MISSING.format(column=written_name(column),
                                             low=_spec_word(float(np.nanmin(numbers_of(kept).to_numpy(dtype=float)))))
                    if (~missing).any() else None)
        return
    numbers = numbers_of(kept).to_numpy(dtype=float)
    index = np.searchsorted(np.asarray(rule.bins, dtype=float), numbers, side="right")
    counts = np.bincount(index, minlength=len(rule.bins) + 1)
    names = bin_labels(rule.bins, whole_numbers(checker.table[column], rule.bins))
    for b in np.flatnonzero(counts == 0):
        edge = min(int(b), len(rule.bins) - 1)  # the bin's upper edge; the last bin's lower one
        checker.add(BIN_EMPTY.format(bin=names[b], column=column, low=written_number(float(numbers.min())),
                                     high=written_number(float(numbers.max()))),
                    _at(rule.edge_spans, edge, rule.span), HINT_BIN_EMPTY)


def _check_merged(checker, rule: ast.DerivedGroups, rows: pd.DataFrame) -> None:
    column = rule.column.value
    series = checker.table[column]
    listed = [v for group in rule.merged for v in group.values]
    for group in rule.merged:
        present = values_present(series, list(group.values))
        for j, (value, found) in enumerate(zip(group.values, present)):
            if not found:
                checker.add(MERGED_VALUE_ABSENT.format(value=_spec_word(value), group=group.label, column=column),
                            _at(group.value_spans, j, group.span), _absent_value_hint(series, value, listed))
    if not len(rows):
        return
    kept = rows[column]
    listed = np.zeros(len(kept), dtype=bool)
    for group in rule.merged:
        mask = value_mask(kept, "in", list(group.values))
        if not mask.any() and all(values_present(series, list(group.values))):
            checker.add(MERGED_GROUP_EMPTY.format(label=group.label, name=rule.name.value), group.span,
                        HINT_MERGED_GROUP_EMPTY)
        listed |= mask
    missing = kept.isna().to_numpy()
    if missing.any():
        checker.add(PROTECTED_HAS_MISSING.format(column=column, count=int(missing.sum()),
                                                 line=line_of(kept, int(np.flatnonzero(missing)[0]))),
                    rule.column.span)
    unlisted = ~listed & ~missing
    if unlisted.any():
        cells = kept[unlisted]
        texts = pd.Series(value_texts(cells), index=cells.index)
        counts = texts.value_counts(sort=False)
        first = {t: line_of(kept, int(np.flatnonzero(unlisted)[i])) for i, t in
                 reversed(list(enumerate(texts)))}
        originals = {t: v for t, v in zip(reversed(list(texts)), reversed(list(cells)))}
        shown = _values_text(list(counts.index), lambda t: f"{_quote(originals[t])} ({counts[t]:,} rows, first on "
                                                          f"line {first[t]})")
        checker.add(MERGED_VALUES_UNLISTED.format(rows=int(unlisted.sum()), column=column, name=rule.name.value,
                                                  values=shown),
                    rule.name.span,
                    HINT_MERGED_UNLISTED.format(column=written_name(column),
                                                values=", ".join(_quote(originals[t]) for t in counts.index)))


def check_labels_in_data(checker) -> None:
    """Each labelled value is a value of its column, and a feature with labels is categorical."""
    spec, table = checker.spec, checker.table
    features = {f.name.value: f for f in (*spec.features, *spec.privileged)}
    plain = {a.value for a in spec.protected.attributes if spec.protected.derivation(a.value) is None}
    done = set()
    for labels in spec.labels:
        column = labels.column.value
        if column in done or (column not in features and column not in plain):
            continue  # said without the data
        done.add(column)
        feature = features.get(column)
        if feature is not None and feature.kind == "numeric" and column not in plain:
            continue  # said without the data
        if not checker.column_exists(labels.column, "labels"):
            continue
        series = table[column]
        if (feature is not None and feature.kind is None and column not in plain
                and feature_kind(series) == "numeric"):
            checker.add(LABELS_ON_NUMERIC.format(column=column, how="read as "), labels.column.span,
                        HINT_LABELS_ON_NUMERIC.format(column=written_name(column)))
            continue
        values = [entry.value for entry in labels.entries]
        for entry, found in zip(labels.entries, values_present(series, values)):
            if not found:
                checker.add(LABEL_VALUE_ABSENT.format(value=_spec_word(entry.value), column=column), entry.span,
                            _absent_value_hint(series, entry.value, values))


def _absent_value_hint(series: pd.Series, value, listed: list) -> str:
    """The hint for ``value``, which no cell of ``series`` holds: a number written in quotes, the
    closest value by spelling that ``listed`` (the values the rule names) does not name yet
    (``A95`` is no typo of ``A94`` when A94 is in another group), or the column's values."""
    if column_kind(series) == "numeric" and isinstance(value, str) and _is_number_like(value):
        return HINT_FILTER_UNQUOTE
    distinct = _distinct(series)
    named = set(map(category_text, listed))
    free = [str(v) for v in distinct if category_text(v) not in named]
    close = [] if isinstance(value, (int, float)) else difflib.get_close_matches(str(value), free, n=1, cutoff=0.6)
    if close:
        return HINT_DID_YOU_MEAN.format(name=close[0])
    return HINT_FILTER_VALUES.format(values=_values_text(distinct))


# ---- hints and warnings that propose bins ---------------------------------------------------
def many_values(series: pd.Series) -> bool:
    """Whether ``series`` (a protected column's kept rows) is numeric with more than
    :data:`MANY_VALUES` distinct values: one group per value is then rarely what is meant."""
    if is_true_false(series) or column_kind(series) != "numeric":
        return False
    return series.dropna().nunique() > MANY_VALUES


def suggested_edges(series: pd.Series, bins: int = 3) -> list:
    """Edges that cut the numbers of ``series`` into about ``bins`` groups of similar size: its
    quantiles, at two significant digits (whole numbers for a column of whole numbers), each
    bin holding rows."""
    numbers = numbers_of(series.dropna()).to_numpy(dtype=float)
    numbers = numbers[np.isfinite(numbers)]
    if numbers.size == 0:
        return []
    whole = bool(np.all(numbers == np.round(numbers)))
    edges = []
    for q in np.quantile(numbers, [i / bins for i in range(1, bins)]):
        edge = float(f"{q:.2g}")
        edge = float(round(edge)) if whole else edge
        if numbers.min() < edge <= numbers.max() and (not edges or edge > edges[-1]):
            if np.any((numbers >= (edges[-1] if edges else -np.inf)) & (numbers < edge)):
                edges.append(edge)
    return [int(e) if e.is_integer() else e for e in edges]


def suggested_bins(spec: ast.Spec, name: str, series: pd.Series) -> tuple[str, str] | None:
    """The protected statement with column ``name`` binned (``series``: its kept rows) at
    :func:`suggested_edges`, and the names of those bins; None when no edge fits."""
    edges = suggested_edges(series)
    if not edges:
        return None
    binned = f"{written_name(name)} bins [{', '.join(_spec_word(e) for e in edges)}]"
    parts = []
    for attribute in spec.protected.attributes:
        rule = spec.protected.derivation(attribute.value)
        written = written_name(attribute.value)
        if attribute.value == name and rule is None:
            parts.append(binned)
        elif rule is None:
            parts.append(written)
        elif rule.bins:
            source = "" if rule.column.value == attribute.value else f" from {written_name(rule.column.value)}"
            parts.append(f"{written}{source} bins [{', '.join(_spec_word(e) for e in rule.bins)}]")
        else:
            parts.append(f"{written} from {written_name(rule.column.value)} {{ ... }}")
    return "protected " + " * ".join(parts), ", ".join(bin_labels(edges, whole_numbers(series, edges)))


def bins_hint(spec: ast.Spec, name: str, series: pd.Series) -> str | None:
    """A hint proposing bins for protected column ``name``, numeric with many values, or None."""
    found = suggested_bins(spec, name, series)
    return None if found is None else HINT_BINS.format(line=found[0], names=found[1])


def many_values_warnings(doc, table: pd.DataFrame, rows: pd.DataFrame) -> list[Diagnostic]:
    """A warning per protected column taken as it is that is numeric with many distinct values
    in ``rows`` (the rows kept): ``protected age`` made 53 groups of German credit, most of a
    few rows, and nothing said so.  Its hint proposes bins."""
    spec, found = doc.spec, []
    for attribute in spec.protected.attributes:
        name = attribute.value
        if spec.protected.derivation(name) is not None or name not in rows.columns or not many_values(rows[name]):
            continue
        found.append(Diagnostic(MANY_VALUE_GROUPS.format(column=name, count=rows[name].nunique()), attribute.span,
                                bins_hint(spec, name, rows[name]), severity="warning"))
    return found


def regroup_examples(spec: ast.Spec, group: GroupColumn, rows: pd.DataFrame) -> str:
    """How a hint says to leave out or merge the groups of one attribute: a ``where`` filter for
    a column taken as it is, bins for one of many numbers, other edges or groups for a derived one."""
    if group.kind == "bins":
        return HINT_REGROUP_BINS.format(name=written_name(group.name))
    if group.kind == "merged":
        return HINT_REGROUP_MERGED.format(column=written_name(group.column), name=written_name(group.name))
    if group.column in rows.columns and many_values(rows[group.column]):
        found = suggested_bins(spec, group.column, rows[group.column])
        if found is not None:
            return f"`{found[0]}`"
    return f'`data "..." where {written_name(group.column)} in [...]`'


def _free_name(name: str, table: pd.DataFrame) -> str:
    """``name_group`` (or ``name_group2`` ...), a name no column of ``table`` has."""
    candidate, n = f"{name}_group", 2
    while candidate in table.columns:
        candidate, n = f"{name}_group{n}", n + 1
    return candidate


def _at(spans: tuple, i: int, fallback):
    return spans[i] if i < len(spans) and spans[i] is not None else fallback


def _line(span) -> int | str:
    return span.line if span is not None else "?"
