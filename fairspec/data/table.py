"""Read CSV data (optionally gzip-compressed) and apply ``where`` filters."""
from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import lzma
import re
import unicodedata
import zlib
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
    suffix = path.suffix.lower()
    if suffix in _UNREAD_SUFFIXES:
        # pandas would guess a decompressor from these too, but the line check below could not
        # follow it, and a .tar or .zip can hold several files
        raise DataError(f"{path}: error: fairspec reads CSV files, plain or compressed as .gz, .bz2 or .xz, "
                        f"not {suffix} files")
    # a compressed file under a plain name (data.csv holding gzip bytes) would be read as text
    # and fail on its "fields"; its first bytes say what it is
    magic = _compression_of(path)
    if magic is not None and suffix not in _OPENERS:
        raise DataError(f"{path}: error: the file is {magic[0]}-compressed, but its name does not end in "
                        f"{magic[1]}: rename it (data.csv{magic[1]}), or decompress it")
    # the fields of every record are counted first: pandas reads a record with one more field
    # than the header (a delimiter at the end of each line) by making the first column the row
    # index, so every column after it shifts one place, and pads a short record with missing values
    lines = _record_lines(path)
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
                if text[column].dropna().str.match(LEADING_ZERO).any():
                    frame[column] = text[column]
    except UnicodeDecodeError:
        raise DataError(f"{path}: error: line {_first_non_utf8_line(path)}: the file is not UTF-8 text "
                        "(save it as UTF-8)") from None
    except (pd.errors.ParserError, OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as exc:
        raise DataError(f"{path}: error: cannot read the data as CSV: {exc}") from None
    if frame.shape[1] == 0 or len(frame) == 0:
        raise DataError(f"{path}: error: the data file has no rows")
    if len(lines) != len(frame):
        lines = None  # the two readers disagree: no line is better than a wrong one
    if lines is not None and (lines != np.arange(len(frame)) + 2).any():
        # errors name a row's line as its index + 2 (see prepare.line_of), which holds only while
        # each record is one line and no line is blank; otherwise the index carries the line
        frame.index = pd.Index(lines - 2)
    # one spelling per text: a header or cell saved on macOS may spell "ç" as "c" and a
    # combining cedilla (NFD), which looks the same as the spec's "ç" (NFC) but is not equal to
    # it, so the column was "unknown", with the hint "did you mean 'raçe'?" (parse_spec
    # normalises the spec's text the same way)
    names = [unicodedata.normalize("NFC", n) if isinstance(n, str) else n for n in names]
    frame.columns = [unicodedata.normalize("NFC", c) if isinstance(c, str) else c for c in frame.columns]
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]):  # object under pandas 2, str under pandas 3
            respelt = {v: unicodedata.normalize("NFC", v) for v in frame[column].dropna().unique()
                       if isinstance(v, str) and not v.isascii()}
            respelt = {v: w for v, w in respelt.items() if v != w}
            if respelt:  # the distinct values only: most columns are ASCII and cost one pass
                frame[column] = frame[column].replace(respelt)
    repeated = sorted({str(n) for n in names if names.count(n) > 1})
    if repeated:
        # pandas would rename the second one "month.1" and the spec would silently read the first
        raise DataError(f"{path}: error: line 1: column name(s) {', '.join(map(repr, repeated))} appear more than "
                        f"once in the header")
    return frame


#: how a code written with a leading zero begins ("01", "-007"); read_table reads a column holding one as text
LEADING_ZERO = r"[+-]?0\d"

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_UNREAD_SUFFIXES = {".zip", ".zst", ".tar", ".7z", ".z", ".lz4", ".br"}


#: first bytes of each compressed format read_table reads: (name, suffix)
#: (bzip2's "BZh" could begin a header; its block magic "1AY&SY" follows the level digit)
_MAGIC = {b"\x1f\x8b": ("gzip", ".gz"), b"\xfd7zXZ\x00": ("xz", ".xz")}
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")


def _compression_of(path: Path) -> tuple[str, str] | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(10)
    except OSError:
        return None  # reading fails next, with its own error
    if _BZIP2.match(head):
        return "bzip2", ".bz2"
    return next((kind for magic, kind in _MAGIC.items() if head.startswith(magic)), None)


def _record_lines(path: Path) -> np.ndarray:
    """The line of the file on which each data record starts (the header's record excluded).

    pandas skips blank lines and lets a quoted field span lines, so its row numbers can drift
    from the file's lines; the standard csv reader's ``line_num`` follows the physical lines.
    Every record must have as many fields as the header: otherwise a ``DataError`` names the
    record's line (and, for a record that runs over several lines, the double quote that made
    it do so: a stray one swallows the lines up to the next).
    """
    opener = _OPENERS.get(path.suffix.lower(), open)
    starts, width = [], None
    try:
        with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as fh:
            # strict: a quote that closes a field must be followed by a delimiter, which is what
            # a stray quote in mid-field breaks (pandas reads on, merging the lines in between)
            reader = csv.reader(fh, skipinitialspace=True, strict=True)
            before = 0
            for row in _rows_or_quote_error(reader, path, lambda: before):
                start, before = before + 1, reader.line_num
                if not (len(row) > 1 or (row and row[0].strip())):  # a blank line, which pandas skips
                    continue
                if width is None:
                    width = len(row)
                elif len(row) != width:
                    raise DataError(_field_count_error(path, start, reader.line_num, len(row), width, row))
                starts.append(start)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, csv.Error) as exc:
        raise DataError(f"{path}: error: cannot read the data as CSV: {exc}") from None
    return np.asarray(starts[1:], dtype=np.int64)


def _rows_or_quote_error(reader, path: Path, last_line):
    """``reader``'s records; its quoting error as a ``DataError`` naming where the record began."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error:
            start, end = last_line() + 1, reader.line_num
            if end == start:
                raise DataError(f"{path}: error: line {start}: text follows a quoted field before the next "
                                f"delimiter (a quote inside a field is written twice, \"\")") from None
            raise DataError(f"{path}: error: lines {start}-{end}: {_runaway_quote(start, end)}") from None


def _runaway_quote(start: int, end: int) -> str:
    """Why one record runs from line ``start`` to line ``end``, and how to write a quote."""
    return (f"a quote opening a field on line {start} is closed only by the next quote in the file, on line "
            f"{end} (a quote inside a field is written twice, \"\")")


def _first_non_utf8_line(path: Path) -> int:
    """The line holding the first byte that is not UTF-8 (pandas' message gives an offset
    within a buffer, not in the file)."""
    with _OPENERS.get(path.suffix.lower(), open)(path, "rb") as fh:
        data = fh.read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1
    return 1


def _field_count_error(path: Path, start: int, end: int, fields: int, width: int, row: list) -> str:
    message = f"{path}: error: line {start}: {fields} fields, the header has {width}"
    if end > start:
        return f"{message}; the record runs on to line {end}: {_runaway_quote(start, end)}"
    if fields == width + 1 and row[-1] == "":
        return message + " (the line ends with a delimiter)"
    return message


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
