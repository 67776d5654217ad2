"""Turn table columns into the float matrix every model family reads, and back-fill gaps.

Encoding (one rule for every family, so a model file stays readable):

* a numeric feature is a float column, ``NaN`` where the value is missing;
* a categorical feature is the integer code of its value among the categories seen in
  training (sorted by their text); a value never seen in training is treated as missing,
  because no split or rule of the model can speak about it.  A value's text does not depend
  on the column's dtype (see :func:`category_text`): pandas reads a column of whole numbers
  with one empty cell as floats, and ``2.0`` must still be the category ``"2"``.

Imputation (``missing impute(...)``) is fitted on the training rows only and stored in
the model file as plain numbers: means or medians per numeric column and the most
frequent code per categorical column; for kNN, the training rows themselves are stored so
that prediction re-runs scikit-learn's ``KNNImputer`` on exactly the same reference set.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairspec.data.table import BOOL_WORDS, LEADING_ZERO, NUMBERS_AS_READ, numbers_of, plain_number
from fairspec.errors import DataError, cell_text


def _plain_number(value) -> str:
    """``inf`` or ``-inf`` as a reader writes it, not numpy's ``np.float64(inf)``."""
    return str(float(value)) if isinstance(value, (float, np.floating)) else repr(value)


def line_of(frame: pd.DataFrame | pd.Series, position: int) -> int:
    """The line of the CSV a row came from (header is line 1).

    ``read_table`` gives each row the index line - 2 (the row number, unless blank lines or
    multi-line fields shift it); an index of other labels falls back to the position.
    """
    label = frame.index[position]
    return int(label) + 2 if isinstance(label, (int, np.integer)) else position + 2


#: the feature kinds a model file may name
FEATURE_KINDS = ("numeric", "categorical")


def category_text(value) -> str:
    """The text of a (present) categorical value: one text per value, whatever the other cells
    of its column.

    pandas types a column by all of its cells, so one cell arrives differently with different
    neighbours: ``2`` as ``2.0`` beside an empty cell; ``1.0`` as the number 1 among numbers
    but as the text "1.0" beside a word; ``true`` as the bool True among bools but as "true"
    beside a word.  Each must be one category wherever it is read, or a row's prediction
    depends on the other rows of the file it is scored in (found in review: a file to score
    holding ``true``/``false`` alone read them as "True"/"False", categories a model trained
    beside ``unknown`` did not have, and scored them as missing).  So:

    * a number is its shortest exact text, a whole one without ``.0`` (``2.0`` -> "2");
    * a text that spells a number exactly is that number's text (:func:`_number_text`:
      "1.0", "+1" and "1e0" are "1", "3.50" is "3.5"; a code with a leading zero, "07", stays
      as written, as :func:`fairspec.data.table.read_table` reads it);
    * True and False, and the words pandas reads as them (``true``, ``TRUE``, ...), are
      "True" and "False";
    * any other text is itself.
    """
    if isinstance(value, str):
        word = BOOL_WORDS.get(value.strip())
        if word is not None:
            return "True" if word else "False"
        number = _number_text(value)
        return value if number is None else number
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _texts_of(present: pd.Series) -> set[str]:
    """The :func:`category_text` of every cell of ``present`` (a column without missing values).

    Each distinct value is written once where one type holds them all, so that equal values
    have one text: written cell by cell, a categorical column of a million rows took seconds to
    fit.  A column of mixed types is written cell by cell, as ``1``, ``1.0`` and True are one
    value to pandas but three texts."""
    dtype = present.dtype
    one_type = ((isinstance(dtype, np.dtype) and dtype.kind in "biuf") or isinstance(dtype, pd.StringDtype)
                or (dtype == object and pd.api.types.infer_dtype(present, skipna=False) == "string"))
    # tolist(): the Python values iterating the column gives (a float32 cell as a float's text)
    return {category_text(v) for v in (present.unique().tolist() if one_type else present)}


#: whole numbers beyond this have no exact float, so two of them could read as one number
_EXACT_INTEGERS = 2.0 ** 53


def _number_text(text: str) -> str | None:
    """The text :func:`category_text` gives the number ``text`` spells (``"13"`` for ``"13.0"``,
    ``"1.5"`` for ``"1.50"``), or None when it spells none exactly.

    A column is typed by the whole file: with one text cell in it ("unknown") every cell stays
    text, so a cell ``13.0`` stayed "13.0" and missed the category "13" that the same cell,
    read in a file of numbers, matched: one row changed how the others were scored (found in
    review)."""
    if "_" in text:  # float() reads 1_000 as 1000; a category spelled so is a name, not a number
        return None
    if re.match(LEADING_ZERO, text):
        # a code with a leading zero is text wherever it is read (read_table): "07" is not the
        # category "7", nor "007" the cell 7 (both had matched, silently; found in review)
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    if not np.isfinite(number) or abs(number) >= _EXACT_INTEGERS:
        return None
    return category_text(number)


@dataclass
class FeatureEncoder:
    """Maps named columns to a float matrix; JSON-able (``to_json``/``from_json``)."""

    names: list[str]
    kinds: list[str]
    categories: list[list[str] | None] = field(default_factory=list)

    @classmethod
    def fit(cls, frame: pd.DataFrame, names: list[str], kinds: list[str]) -> "FeatureEncoder":
        categories = []
        for name, kind in zip(names, kinds):
            if kind == "categorical":
                categories.append(sorted(_texts_of(frame[name].dropna())))
            else:
                categories.append(None)
        return cls(list(names), list(kinds), categories)

    @property
    def categorical_indices(self) -> list[int]:
        return [j for j, k in enumerate(self.kinds) if k == "categorical"]

    @property
    def category_names(self) -> dict[int, list[str]]:
        return {j: c for j, c in enumerate(self.categories) if c is not None}

    def transform(self, frame: pd.DataFrame, *, source: str = "data") -> np.ndarray:
        missing = [n for n in self.names if n not in frame.columns]
        if missing:
            raise DataError(f"{source}: error: missing column(s) the model needs: {', '.join(missing)}")
        X = np.empty((len(frame), len(self.names)), dtype=float)
        for j, (name, kind, cats) in enumerate(zip(self.names, self.kinds, self.categories)):
            col = frame[name]
            if kind == "categorical":
                X[:, j] = _category_codes(col, _category_lookup(cats))[0]
            else:
                numbers = numbers_of(col)
                # (a numeric column is its own numbers: no cell of it can fail to be one)
                bad = None if numbers is col else numbers.isna().to_numpy() & col.notna().to_numpy()
                if bad is not None and bad.any():
                    pos = int(np.flatnonzero(bad)[0])
                    cell = col.iloc[pos]
                    plain = plain_number(str(cell))
                    raise DataError(f"{source}: error: column {name!r}, line {line_of(frame, pos)}: "
                                    f"{cell_text(cell)} is not a number (the column is numeric)"
                                    + (f"; {NUMBERS_AS_READ}: write {plain} for {cell_text(cell)}"
                                       if plain is not None else ""))
                values = numbers.to_numpy(dtype=float)
                infinite = np.isinf(values)
                if infinite.any():
                    # the checker refuses these in training data; a scored file must not slip one past
                    pos = int(np.flatnonzero(infinite)[0])
                    raise DataError(f"{source}: error: column {name!r}, line {line_of(frame, pos)}: "
                                    f"{_plain_number(col.iloc[pos])} is not a finite number (a cell written inf or "
                                    f"Infinity reads as infinity, as does a number past about 1.8e308, such as "
                                    f"1e400)")
                X[:, j] = values
        return X

    def unseen_categories(self, frame: pd.DataFrame) -> dict[str, tuple[int, list[str]]]:
        """Per categorical feature of ``frame`` with values training never saw (which
        :meth:`transform` reads as missing): how many rows hold one, and the distinct values
        in order of first appearance.  A scorer says so: a rule printed ``color != red`` is
        false on a missing value, so ``purple`` is not scored as the text reads."""
        found = {}
        for name, kind, cats in zip(self.names, self.kinds, self.categories):
            if kind != "categorical" or name not in frame.columns:
                continue
            _, unseen = _category_codes(frame[name], _category_lookup(cats))
            if unseen:
                found[name] = (sum(unseen.values()), list(unseen))
        return found

    def to_json(self) -> dict:
        return {"names": self.names, "kinds": self.kinds, "categories": self.categories}

    @classmethod
    def from_json(cls, doc: dict) -> "FeatureEncoder":
        """The encoder stored in a model file; ``ValueError`` if it cannot be the one training wrote.

        A model file is data from outside: columns that do not line up would leave columns of
        the matrix unset and score garbage, so every feature must have one kind it knows and
        categories exactly when it is categorical.
        """
        names, kinds, categories = doc["names"], doc["kinds"], doc["categories"]
        for key, value in (("names", names), ("kinds", kinds), ("categories", categories)):
            if not isinstance(value, list):
                raise ValueError(f"encoder {key} must be a list, got {type(value).__name__}")
        if not all(isinstance(n, str) for n in names):
            raise ValueError("encoder names must be text")
        if not len(names) == len(kinds) == len(categories):
            raise ValueError(f"encoder lists differ in length: {len(names)} names, {len(kinds)} kinds, "
                             f"{len(categories)} categories")
        for name, kind, cats in zip(names, kinds, categories):
            if kind not in FEATURE_KINDS:
                raise ValueError(f"feature {name!r} has unknown kind {kind!r} (kinds: {', '.join(FEATURE_KINDS)})")
            if kind == "numeric" and cats is not None:
                raise ValueError(f"numeric feature {name!r} must have categories null")
            if kind == "categorical" and not (isinstance(cats, list) and all(isinstance(c, str) for c in cats)):
                raise ValueError(f"categorical feature {name!r} must have a list of text categories")
            if kind == "categorical":
                # a cell is looked up by its category_text, so "1" and "1.0" (or "true" and
                # "True") are one category: two codes for it leave the second unreachable, and
                # a rule on that code true of no row (training lists each text once)
                seen: dict[str, str] = {}
                for c in cats:
                    text = category_text(c)
                    if text in seen:
                        spelt = repr(c) if seen[text] == c else f"{seen[text]!r} and {c!r}, both {text!r}"
                        raise ValueError(f"categorical feature {name!r} lists a category twice ({spelt})")
                    seen[text] = c
        return cls(list(names), list(kinds), [None if c is None else list(c) for c in categories])


#: what pandas infers for a column whose present cells share one type: their values are equal
#: exactly when their texts are, so a column is coded through its distinct values.  A column of
#: mixed types (1 and True are equal in Python, their texts are not) is coded cell by cell.
_ONE_TYPE = frozenset({"string", "integer", "floating", "boolean", "empty"})


def _category_codes(col: pd.Series, lookup: dict[str, int]) -> tuple[np.ndarray, dict[str, int]]:
    """Each cell's category code (NaN for a missing value or a category ``lookup`` lacks), and
    the present cells it lacks, as the file writes them, with their row counts, in order of
    first appearance."""
    if pd.api.types.infer_dtype(col, skipna=True) in _ONE_TYPE:
        codes, values = pd.factorize(col, use_na_sentinel=True)  # -1 marks a missing cell
    else:
        # a column of mixed types (1 and True are equal in Python, their texts are not), coded
        # through each cell's exact type and value
        cells = col.to_numpy(dtype=object)
        missing = pd.isna(cells)
        keys = list(dict.fromkeys((type(v), v) for v, m in zip(cells, missing) if not m))
        position = {k: i for i, k in enumerate(keys)}
        codes = np.array([-1 if m else position[(type(v), v)] for v, m in zip(cells, missing)], dtype=np.intp)
        values = [v for _, v in keys]
    found = [lookup.get(category_text(v)) for v in values]  # None: a category training never saw
    by_value = np.array([np.nan if c is None else c for c in found] + [np.nan], dtype=float)
    coded = by_value[codes]  # codes of -1 pick the last entry, NaN
    counts = np.bincount(codes[codes >= 0], minlength=len(values))
    unseen: dict[str, int] = {}
    for i, v in enumerate(values):
        if found[i] is None:
            written = v if isinstance(v, str) else category_text(v)
            unseen[written] = unseen.get(written, 0) + int(counts[i])
    return coded, unseen


def _category_lookup(categories: list[str]) -> dict[str, int]:
    """Category text -> code, for a cell's :func:`category_text`.  A model file written before
    categories took that text may hold another spelling of one ("2.0", "1.50", "true"); each
    also answers to its :func:`category_text`, the first of two spellings of one value winning."""
    lookup = {c: i for i, c in enumerate(categories)}
    for i, c in enumerate(categories):
        lookup.setdefault(category_text(c), i)
    return lookup


@dataclass
class Imputer:
    """Fills missing values: ``mean`` / ``median`` / ``knn`` for numeric columns, the mode for categorical."""

    method: str
    k: int = 5
    fill: list[float] = field(default_factory=list)
    categorical: list[int] = field(default_factory=list)
    reference: list[list[float | None]] | None = None

    @classmethod
    def fit(cls, X: np.ndarray, categorical: list[int], method: str, k: int | None = None) -> "Imputer":
        fill = []
        for j in range(X.shape[1]):
            col = X[:, j][~np.isnan(X[:, j])]
            if col.size == 0:
                fill.append(0.0)
            elif j in categorical:
                values, counts = np.unique(col, return_counts=True)
                fill.append(float(values[np.argmax(counts)]))
            elif method == "mean":
                fill.append(float(col.mean()))
            else:
                fill.append(float(np.median(col)))
        reference = None
        if method == "knn":
            reference = [[None if np.isnan(v) else float(v) for v in row] for row in X]
        return cls(method=method, k=int(k or 5), fill=fill, categorical=list(categorical), reference=reference)

    def transform(self, X: np.ndarray) -> np.ndarray:
        X = np.array(X, dtype=float, copy=True)
        if self.method == "knn" and np.isnan(X).any():
            from sklearn.impute import KNNImputer

            numeric = [j for j in range(X.shape[1]) if j not in self.categorical]
            if numeric:
                ref = np.array([[np.nan if v is None else v for v in row] for row in self.reference], dtype=float)
                knn = KNNImputer(n_neighbors=self.k, keep_empty_features=True).fit(ref[:, numeric])
                X[:, numeric] = knn.transform(X[:, numeric])
        for j, value in enumerate(self.fill):
            column = X[:, j]
            column[np.isnan(column)] = value
        return X

    def to_json(self) -> dict:
        return {"method": self.method, "k": self.k, "fill": self.fill, "categorical": self.categorical,
                "reference": self.reference}

    @classmethod
    def from_json(cls, doc: dict) -> "Imputer":
        return cls(method=doc["method"], k=int(doc["k"]), fill=[float(v) for v in doc["fill"]],
                   categorical=list(doc["categorical"]), reference=doc.get("reference"))


def rows_without_missing(frame: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Mask of rows with every named column present (``missing drop``)."""
    return frame[names].notna().all(axis=1).to_numpy()


def first_missing(X: np.ndarray, names: list[str]) -> tuple[str, int] | None:
    """(column, row position) of the first missing value, or None."""
    rows, cols = np.nonzero(np.isnan(X))
    if rows.size == 0:
        return None
    order = np.lexsort((cols, rows))[0]
    return names[cols[order]], int(rows[order])


def group_labels(frame: pd.DataFrame, protected: list[str]) -> np.ndarray:
    """One label per row: the protected value, or ``a & b`` for intersectional groups.

    Groups are told apart by their labels, so the join must not merge two groups: with a value
    ``x`` / ``y & z`` and another ``x & y`` / ``z`` both would read ``x & y & z``.  In an
    intersectional label a value holding ``&`` or ``"`` is therefore written in double quotes
    (a ``"`` inside doubled): ``x & "y & z"`` and ``"x & y" & z``."""
    return joined_labels([value_texts(frame[c]) for c in protected])


def value_texts(column: pd.Series) -> np.ndarray:
    """A protected column's values as text, whole floats as whole numbers: a column of group
    codes with one empty cell reads as floats even after a filter drops that row, and its
    groups were then "1.0" and "2.0" where the data says 1 and 2."""
    if column.dtype.kind == "f":
        return column.map(category_text).to_numpy(dtype=str)
    return column.astype(str).to_numpy()


def joined_labels(parts: list[np.ndarray]) -> np.ndarray:
    """Per row, the values of ``parts`` (string arrays, one per protected column) joined into
    one group label, quoted as :func:`group_labels` says, so no two combinations share a label."""
    if len(parts) == 1:
        return _text_array(np.asarray(parts[0]))
    parts = [np.array([_quoted_if_ambiguous(v) for v in p], dtype=object) for p in parts]
    labels = np.asarray(parts[0]).astype(object)
    for p in parts[1:]:
        labels = labels + " & " + p
    return labels.astype(str)


def _text_array(values: np.ndarray) -> np.ndarray:
    """``values.astype(object).astype(str)`` (the same dtype and texts), each distinct text
    converted once: a protected column holds a few groups, and the conversion of a million
    Python strings, one by one, had taken a third of a second each time the groups were read."""
    if values.dtype.kind == "U":
        width = int(np.char.str_len(values).max(initial=1)) if values.size else 1
        return values.astype(f"<U{max(width, 1)}")
    if values.dtype == object and values.ndim == 1:
        codes, distinct = pd.factorize(values, use_na_sentinel=True)
        # equal texts are one group; values of other types (1 == 1.0 == True) or missing ones
        # are not merged by their text here
        if (codes >= 0).all() and all(type(v) is str for v in distinct):
            return np.asarray(distinct, dtype=object).astype(str)[codes]
    return values.astype(object).astype(str)


def _quoted_if_ambiguous(value: str) -> str:
    if "&" in value or '"' in value:
        return '"' + value.replace('"', '""') + '"'
    return value


def class_names(column: pd.Series, y: np.ndarray, positive) -> tuple[str, str]:
    """(negative, positive) as the data spells them, for a model's read-out: the positive
    value, and the one other value of the column, or ``not <positive>`` when it has several.
    Estimators are fitted on ``y`` (1 = positive); printed as 0/1, a tree's ``leaf: 1`` under
    ``target credit positive 0`` had read as credit 1, the opposite of what it predicts."""
    shown = category_text(positive)
    others = sorted(_texts_of(column[np.asarray(y) == 0].dropna()))  # by position, as y is
    return (others[0] if len(others) == 1 else f"not {shown}"), shown


def target_vector(frame: pd.DataFrame, target: str, positive) -> np.ndarray:
    from fairspec.data.table import value_mask

    return value_mask(frame[target], "==", [positive]).astype(int)
