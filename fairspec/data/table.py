"""Read CSV data (optionally gzip-compressed) and apply ``where`` filters."""
from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import lzma
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from fairspec.errors import DataError


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_table(path: Path) -> pd.DataFrame:
    """The table at ``path`` (CSV, ``.csv.gz`` too); empty cells become missing values."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: error: data file not found")
    try:
        # Only an empty cell is missing (as the README says): pandas' default NA words ("NA",
        # "None", "null", "nan", ...) can be real categories, which must not silently vanish;
        # in a feature declared numeric they are text, and the checker says where.
        options = dict(skipinitialspace=True, keep_default_na=False, na_values=[""])
        frame = pd.read_csv(path, **options)
        names = pd.read_csv(path, nrows=1, header=None, dtype=str, **options).iloc[0].tolist()
        coded = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
                 and not pd.api.types.is_bool_dtype(frame[c])]
        if coded:
            text = pd.read_csv(path, dtype=str, usecols=coded, **options)
            for column in coded:
                # codes written with a leading zero ("01", "007": zones, zip codes) are text: read as
                # numbers they would become "1" and "7", and a file holding no other text would read
                # its codes differently from one that does, so a row's category, and its prediction,
                # would depend on the other rows of the file
                if text[column].dropna().str.match(r"[+-]?0\d").any():
                    frame[column] = text[column]
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError, ValueError) as exc:
        raise DataError(f"{path}: error: cannot read the data as CSV: {exc}") from None
    if frame.shape[1] == 0 or len(frame) == 0:
        raise DataError(f"{path}: error: the data file has no rows")
    lines = _record_lines(path, len(frame))
    if lines is not None:
        # errors name a row's line as its index + 2 (see prepare.line_of), which holds only while
        # each record is one line and no line is blank; otherwise the index carries the line
        frame.index = pd.Index(lines - 2)
    repeated = sorted({str(n) for n in names if names.count(n) > 1})
    if repeated:
        # pandas would rename the second one "month.1" and the spec would silently read the first
        raise DataError(f"{path}: error: line 1: column name(s) {', '.join(map(repr, repeated))} appear more than "
                        f"once in the header")
    return frame


_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _record_lines(path: Path, records: int) -> np.ndarray | None:
    """The line of the file on which each data record starts, or None when it is row + 2.

    pandas skips blank lines and lets a quoted field span lines, so its row numbers then drift
    from the file's lines. Counting newlines tells cheaply whether that happened; only then is
    the file read again with the standard csv reader, whose ``line_num`` follows the physical
    lines. If the two readers disagree on the number of records, None: no line is better than
    a wrong one, and the row number is still close.
    """
    opener = _OPENERS.get(path.suffix.lower(), open)
    with opener(path, "rb") as fh:
        data = fh.read()
    newlines = data.count(b"\n")
    if newlines + (not data.endswith(b"\n")) - 1 == records and b"\r" not in data.replace(b"\r\n", b""):
        return None
    starts = []
    with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh, skipinitialspace=True)
        before = 0
        for row in reader:
            start, before = before + 1, reader.line_num
            if len(row) > 1 or (row and row[0].strip()):  # a blank line, which pandas skips
                starts.append(start)
    starts = starts[1:]  # the header
    return np.asarray(starts, dtype=np.int64) if len(starts) == records else None


def column_kind(series: pd.Series) -> str:
    """``numeric`` for numbers (bool too), else ``categorical``."""
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        return "numeric"
    return "categorical"


def coerce_like(value, series: pd.Series):
    """``value`` as written in a spec, converted to the column's type when it can be.

    A spec writes ``positive 1`` or ``positive ">50K"``; a CSV column of 0/1 is read as
    integers, so ``"1"`` must match ``1`` and ``1`` must match ``"1"`` in a text column.
    """
    if column_kind(series) == "numeric":
        try:
            return float(value)
        except (TypeError, ValueError):
            return value
    return str(value) if not isinstance(value, str) else value


def _equal_mask(series: pd.Series, value) -> np.ndarray:
    target = coerce_like(value, series)
    if column_kind(series) == "numeric" and isinstance(target, float):
        return (series.astype(float) == target).to_numpy()
    return (series.astype("string") == str(target)).fillna(False).to_numpy(dtype=bool)


def value_mask(series: pd.Series, op: str, values: Sequence) -> np.ndarray:
    """Rows of ``series`` satisfying ``op values`` (missing values satisfy nothing but ``!=``/``not in``)."""
    if op in ("in", "not in"):
        mask = np.zeros(len(series), dtype=bool)
        for v in values:
            mask |= _equal_mask(series, v)
        return ~mask if op == "not in" else mask
    (value,) = values
    if op == "==":
        return _equal_mask(series, value)
    if op == "!=":
        return ~_equal_mask(series, value)
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        return {"<": numbers < value, "<=": numbers <= value, ">": numbers > value, ">=": numbers >= value}[op]


def apply_filters(frame: pd.DataFrame, filters: Sequence[tuple[str, str, Sequence]]) -> pd.DataFrame:
    """Keep the rows that pass every ``(column, op, values)`` filter.

    The index is kept, so an error about a row can still name its line in the file.
    """
    mask = np.ones(len(frame), dtype=bool)
    for column, op, values in filters:
        if column not in frame.columns:
            raise DataError(f"error: filter on unknown column {column!r}")
        mask &= value_mask(frame[column], op, values)
    return frame.loc[mask]
