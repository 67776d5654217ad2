"""Read CSV data (optionally gzip-compressed) and apply ``where`` filters."""
from __future__ import annotations

import bz2
import contextlib
import csv
import ctypes
import gzip
import hashlib
import io
import lzma
import re
import sys
import time
import unicodedata
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from fairspec.errors import DataError, cell_text


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_table(path: Path, allow_no_rows: bool = False) -> pd.DataFrame:
    """The table at ``path`` (CSV, ``.csv.gz`` too); empty cells become missing values.

    A header with no rows below it is an error unless ``allow_no_rows`` (a file to score may
    hold no one; one to train on or to check a spec against may not)."""
    started = time.perf_counter()
    path = Path(path)
    digest = _refuse_unreadable(path)
    # the fields of every record are counted first: pandas reads a record with one more field
    # than the header (a delimiter at the end of each line) by making the first column the row
    # index, so every column after it shifts one place, and pads a short record with missing values
    # (a plain file's records are counted on its bytes, in the pass that looks for leading zeros)
    counted, may_lead_with_zero = _scan_bytes(path)
    header_line, lines, lone_cr = ((1, np.arange(2, counted + 2, dtype=np.int64), False) if counted is not None
                                   else _record_lines(path))
    if header_line is None:
        # pandas' "No columns to parse from file" does not say that there is nothing to read
        raise DataError(f"{path}: error: cannot read the data as CSV: the file is empty (it needs a header line "
                        f"naming the columns)")
    with _read_errors(path):
        read_from = _with_line_feeds(path) if lone_cr else (lambda: path)
        frame = pd.read_csv(read_from(), **_CSV_OPTIONS)
        names = _header_names(read_from())
        distinct = {}
        frame = _typed(frame, lambda columns: pd.read_csv(read_from(), dtype=str, usecols=columns, **_CSV_OPTIONS),
                       lambda: may_lead_with_zero, distinct)
    if frame.shape[1] == 0 or (len(frame) == 0 and not allow_no_rows):
        raise DataError(f"{path}: error: the data file has no rows")
    if len(lines) != len(frame):
        raise _inconsistent(path, len(lines), len(frame))
    if (lines != np.arange(len(frame)) + 2).any():
        # errors name a row's line as its index + 2 (see prepare.line_of), which holds only while
        # each record is one line and no line is blank; otherwise the index carries the line
        frame.index = pd.Index(lines - 2)
    frame = _named(frame, names, path, header_line, distinct)
    # the file is read several times over (records counted, then parsed); hashed before and
    # after, the hash is of the bytes every reading saw.  model.json records it as the data
    # trained on: hashed again at training, it could name a file written in between (found in
    # review: a model trained on 6,172 rows named the hash of the 3,172 left on disk)
    _refuse_changed(path, digest)
    frame.attrs[SHA256] = digest
    return_freed_memory()
    frame.attrs[READ_SECONDS] = time.perf_counter() - started
    return frame


def return_freed_memory() -> None:
    """Give the memory the C allocator holds free back to the system (glibc's ``malloc_trim``;
    elsewhere nothing).

    pandas parses a large file on several threads, and glibc gives each thread its own heap
    (arena).  The parser's buffers freed there stay in the process, and only those threads
    could reuse them: on a file of a million rows that was 90 MB beside a 112 MB frame, held
    for the whole run and counted in its peak.  ``malloc_trim(0)`` returns every arena's free
    pages (Dask's workers call it for the same reason); it takes a few milliseconds."""
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # a C library without it (musl)
        return
    trim(0)


def read_table_chunks(path: Path, rows: int, allow_no_rows: bool = False):
    """The table :func:`read_table` reads, as consecutive frames of at most ``rows`` rows, so
    that a file larger than memory can be scored and audited (``fairspec predict``).

    Each frame's cells are what :func:`read_table` gives, except that a column is typed by the
    cells of its frame, not of the file: a column of numbers with one text cell is text in that
    frame alone.  Every reader of a frame reads a cell by its own text (a category by
    :func:`fairspec.data.prepare.category_text`, a number by :func:`numbers_of`), so the values,
    and a row's prediction, are the same.  The index is the row's line - 2, as
    :func:`read_table`'s, so errors name the file's line.  The file is checked as
    :func:`read_table` checks it, before the first frame (its records counted on its bytes
    without keeping them, for a plain file; a line number per record, 8 bytes each, for one
    with quoted fields), and again after the last (its hash, and its row count).  A file with
    lone carriage-return line ends (old Mac) is read whole, as :func:`read_table` reads it."""
    path = Path(path)
    digest = _refuse_unreadable(path)
    counted, may_lead_with_zero = _scan_bytes(path)
    header_line, lines, lone_cr = (1, None, False) if counted is not None else _record_lines(path)
    if header_line is None:
        raise DataError(f"{path}: error: cannot read the data as CSV: the file is empty (it needs a header line "
                        f"naming the columns)")
    if lone_cr:
        yield read_table(path, allow_no_rows)
        return
    total = counted if counted is not None else len(lines)
    with _read_errors(path):
        names = _header_names(path)
        texts = pd.read_csv(path, dtype=str, chunksize=rows, **_CSV_OPTIONS) if may_lead_with_zero else None
        start = 0
        for frame in pd.read_csv(path, chunksize=rows, **_CSV_OPTIONS):
            text = None if texts is None else next(texts)
            # the text of this chunk's rows: from the text reader beside it, or (a whole number
            # beyond 64 bits in a file where no field can lead with a zero) read for the columns
            frame = _typed(frame, (lambda columns, text=text, at=start, n=len(frame): text[columns]
                                   if text is not None else
                                   pd.read_csv(path, dtype=str, usecols=columns, skiprows=range(1, at + 1), nrows=n,
                                               **_CSV_OPTIONS)), lambda: texts is not None)
            if frame.shape[1] == 0:
                raise DataError(f"{path}: error: the data file has no rows")
            if start + len(frame) > total:
                raise _inconsistent(path, total, start + len(frame))
            at = np.arange(start, start + len(frame))
            frame.index = pd.Index(at if lines is None else lines[at] - 2)
            yield _named(frame, names, path, header_line)
            start += len(frame)
    if start == 0 and not allow_no_rows:
        raise DataError(f"{path}: error: the data file has no rows")
    if start != total:
        raise _inconsistent(path, total, start)
    _refuse_changed(path, digest)


#: how every reader of a data file reads its cells: only an empty cell is missing (as the
#: README says).  pandas' default NA words ("NA", "None", "null", "nan", ...) can be real
#: categories, which must not silently vanish; in a feature declared numeric they are text,
#: and the checker says where.
_CSV_OPTIONS = dict(skipinitialspace=True, keep_default_na=False, na_values=[""])


def _refuse_unreadable(path: Path) -> str:
    """A ``DataError`` for a path that is no readable CSV file (a folder, a pipe, a format
    fairspec does not read, damaged compression, UTF-16); else the file's SHA-256."""
    if path.is_dir():
        # "not found" would send the user looking for a file that is there, as a folder
        raise DataError(f"{path}: error: this is a directory, not a data file: name the CSV file inside it")
    if path.exists() and not path.is_file():
        # a pipe (cat f | fairspec predict M /dev/stdin) or a device: there, but "not found"
        # sent the user looking for a file; the file is read twice (its records are counted
        # first), which a pipe cannot be
        raise DataError(f"{path}: error: not a regular file (a pipe or a device): fairspec reads its data from a "
                        f"file; save the rows to one and name it")
    if not path.is_file():
        raise DataError(f"{path}: error: data file not found")
    digest = file_sha256(path)
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
    if suffix in _OPENERS and not _begins_as(path, _STREAM_START[suffix]):
        # the decompressor's own words ("Not a gzipped file (b'se')") do not say what to do
        held = f"it is {magic[0]}-compressed" if magic is not None else "a file that is not compressed is named .csv"
        raise DataError(f"{path}: error: the file's name ends in {suffix}, but the file is not "
                        f"{_FORMAT_OF[suffix]}-compressed: rename it to match what it holds ({held})")
    _refuse_damaged_stream(path, suffix)
    if _utf16_encoded(path):
        # read as UTF-8 it is one field per line of NULs, with a line count that is no line of
        # the file ("line 402" of 401), or raw NUL bytes printed in "unknown column" hints
        raise DataError(f"{path}: error: the file is UTF-16 text, not UTF-8 (save it as UTF-8; spreadsheets call "
                        f"UTF-16 \"Unicode text\")")
    return digest


@contextlib.contextmanager
def _read_errors(path: Path):
    """pandas' and the decompressors' failures as a ``DataError`` naming the file."""
    try:
        yield
    except UnicodeDecodeError:
        raise DataError(f"{path}: error: line {_first_non_utf8_line(path)}: the file is not UTF-8 text "
                        "(save it as UTF-8)") from None
    except (pd.errors.ParserError, OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as exc:
        raise _unreadable(path, exc) from None


def _header_names(source) -> list:
    """The header's names as the file writes them (NaN for an empty one)."""
    return pd.read_csv(source, nrows=1, header=None, dtype=str, **_CSV_OPTIONS).iloc[0].tolist()


def _typed(frame: pd.DataFrame, text_of, may_lead_with_zero, distinct: dict | None = None) -> pd.DataFrame:
    """``frame`` (as pandas typed it) with the columns read again as text where pandas' types
    would lose what the cells say; ``text_of(columns)`` reads those columns of the same rows
    as text, and ``may_lead_with_zero()`` says whether a field of the file may begin with a
    leading zero (:func:`_may_hold_leading_zero`; when not, the numeric columns are not read
    again).  ``distinct``, when given, receives each text column's distinct present cells (for
    :func:`_named`, which reads them again)."""
    coded = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
             and not pd.api.types.is_bool_dtype(frame[c])]
    if coded and not may_lead_with_zero():
        coded = []
    wide = [c for c in frame.columns if _holds_wide_integers(frame[c])]
    if coded or wide:
        text = text_of(coded + wide)
        text.index = frame.index  # the same rows (a chunk's text may be numbered from 0)
        for column in coded:
            # codes written with a leading zero ("01", "007": zones, zip codes) are text: read as
            # numbers they would become "1" and "7", and a file holding no other text would read
            # its codes differently from one that does, so a row's category, and its prediction,
            # would depend on the other rows of the file
            if holds_leading_zero(text[column]):
                frame[column] = text[column]
        for column in wide:
            frame[column] = _numbers_or_text(_empty_as_missing(text[column]))
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]) and column not in wide:
            # read from the column's distinct cells (a few, where the column holds a million)
            present = _present_distinct(frame[column])
            if (present == "").any():
                frame[column] = _empty_as_missing(frame[column])
                present = present[present != ""]
            frame[column] = _numbers_or_text(frame[column], present)
            if distinct is not None and frame[column].dtype != float:
                distinct[column] = present
    return frame


def _present_distinct(series: pd.Series) -> np.ndarray:
    """The distinct present cells of ``series`` (as ``series.dropna().unique()``, in an object array)."""
    cells = np.asarray(series.unique(), dtype=object)
    return cells[~pd.isna(cells)]


def _inconsistent(path: Path, records: int, rows: int) -> DataError:
    # the two readers disagree: rows would not line up with the file's records (a scored
    # file's predictions with its rows), and every line an error named would be wrong
    return DataError(f"{path}: error: cannot read the data as CSV consistently: the file holds {records} "
                     f"record(s) below its header, but pandas read {rows} row(s); save it again as "
                     f"plain CSV, one record per line")


def _named(frame: pd.DataFrame, names: list, path: Path, header_line: int,
           distinct: dict | None = None) -> pd.DataFrame:
    """``frame`` with its names and text cells in one spelling (NFC), refused when the header
    names a column twice, and with :data:`UNNAMED`; ``distinct`` the text columns' distinct
    present cells where :func:`_typed` found them."""
    # one spelling per text: a header or cell saved on macOS may spell "ç" as "c" and a
    # combining cedilla (NFD), which looks the same as the spec's "ç" (NFC) but is not equal to
    # it, so the column was "unknown", with the hint "did you mean 'raçe'?" (parse_spec
    # normalises the spec's text the same way)
    names = [unicodedata.normalize("NFC", n) if isinstance(n, str) else n for n in names]
    distinct = dict(distinct or {})
    distinct = {unicodedata.normalize("NFC", c) if isinstance(c, str) else c: cells for c, cells in distinct.items()}
    frame.columns = [unicodedata.normalize("NFC", c) if isinstance(c, str) else c for c in frame.columns]
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]):  # object under pandas 2, str under pandas 3
            cells = distinct[column] if column in distinct else frame[column].dropna().unique()
            respelt = {v: unicodedata.normalize("NFC", v) for v in cells if isinstance(v, str) and not v.isascii()}
            respelt = {v: w for v, w in respelt.items() if v != w}
            if respelt:  # the distinct values only: most columns are ASCII and cost one pass
                frame[column] = frame[column].replace(respelt)
    # an empty name is no name (pandas calls it "Unnamed: 2"), so two of them (an export's
    # empty columns at the end of each line) are not one name twice: no spec can name either
    repeated = sorted({n for n in names if isinstance(n, str) and names.count(n) > 1})
    if repeated:
        # pandas would rename the second one "month.1" and the spec would silently read the first
        raise DataError(f"{path}: error: line {header_line}: column name(s) {', '.join(map(repr, repeated))} "
                        f"appear more than once in the header")
    # the names pandas made up for empty ones, which a message listing the columns must not
    # present as the file's ("the data has the columns: age, Unnamed: 1, ...")
    frame.attrs[UNNAMED] = {c: i + 1 for i, (c, n) in enumerate(zip(frame.columns, names)) if not isinstance(n, str)}
    return frame


def _refuse_changed(path: Path, digest: str) -> None:
    if file_sha256(path) != digest:
        raise DataError(f"{path}: error: the file changed while it was read; read it again once nothing is "
                        f"writing it")


#: ``DataFrame.attrs`` key of :func:`read_table`'s columns whose header is empty, by position (from 1)
UNNAMED = "fairspec_unnamed_columns"
#: ``DataFrame.attrs`` key of the SHA-256 of the bytes :func:`read_table` read
SHA256 = "fairspec_sha256"
#: ``DataFrame.attrs`` keys of the seconds :func:`read_table` took, and those the spec's checks
#: against the table took (set by whoever ran them): metrics.json's timing counts them
READ_SECONDS = "fairspec_read_seconds"
CHECK_SECONDS = "fairspec_check_seconds"
#: ``DataFrame.attrs`` key of the seconds a command spent before reading the table (importing
#: its modules, reading the spec; set by the command line), which metrics.json's timing counts too
STARTUP_SECONDS = "fairspec_startup_seconds"


#: a whole number as a cell writes one
_WHOLE = re.compile(r"[+-]?\d+")

#: how a code written with a leading zero begins ("01", "-007"); read_table reads a column holding one as text
LEADING_ZERO = r"[+-]?0\d"

_LEADING_ZERO = re.compile(LEADING_ZERO)
_ZERO, _PLUS, _MINUS = (ord(c) for c in "0+-")


def holds_leading_zero(text: pd.Series) -> bool:
    """Whether a present cell of ``text`` (cell texts) begins as a code with a leading zero, as
    ``text.str.match(LEADING_ZERO).any()`` says.

    The pattern is matched only on the cells whose first three characters could begin such a
    code: matched on every cell, one by one in Python, it had taken half the time of reading a
    file of a million rows (every numeric column is checked)."""
    # its distinct cells: a column holds few of them, and each says the same wherever it is
    cells = text.dropna().unique()
    cells = cells.to_numpy(dtype=object) if hasattr(cells, "to_numpy") else np.asarray(cells, dtype=object)
    if len(cells) == 0:
        return False
    heads = cells.astype("U3").view(np.uint32).reshape(len(cells), 3)  # code points, 0 past a cell's end
    first, second, third = heads[:, 0], heads[:, 1], heads[:, 2]
    candidates = (((first == _ZERO) & _may_be_digit(second))
                  | (((first == _PLUS) | (first == _MINUS)) & (second == _ZERO) & _may_be_digit(third)))
    return any(isinstance(cell, str) and _LEADING_ZERO.match(cell) for cell in cells[candidates])


def _may_be_digit(code_points: np.ndarray) -> np.ndarray:
    # the pattern's \d takes every Unicode digit: those outside ASCII are left to the pattern
    return ((code_points >= _ZERO) & (code_points <= ord("9"))) | (code_points > 127)


#: numbers as people write them for people, which no reader here takes as numbers: digits in
#: groups of three (1,234 or 1 234), a decimal comma (3,5), a currency or a percent sign
_GROUPED = re.compile(r"([+-]?\d{1,3}(?:[, \u00a0\u202f]\d{3})+)(\.\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")
_CURRENCY = re.compile(r"([+-]?)\s*[$\u20ac\u00a3\u00a5]\s*(.+)")
_PERCENT = re.compile(r"(.+?)\s*%")
NUMBERS_AS_READ = ("numbers are read as digits with a decimal point, without digit-group separators, currency or "
                   "percent signs")


def plain_number(text: str) -> str | None:
    """``text`` written as a number the readers take (``"1234"`` for ``"1,234"``, ``"3.5"`` for
    ``"3,5"``, ``"120"`` for ``"$120"`` and ``"12"`` for ``"12%"``), or None when it is no
    number written for people.

    pandas and ``float`` take only a sign, digits, a decimal point and an exponent, so one
    ``1,234`` makes a column of amounts text.  The checker's hint had then said "declare it
    categorical", which would make the amounts unordered categories; it now names the cell
    and its plain spelling.  ``1,234`` is read as grouped digits, not as 1.234 with a decimal
    comma: a hint says which spelling it means, so the reader sees the guess."""
    text = text.strip()
    sign = ""
    marked = _CURRENCY.fullmatch(text)
    if marked:
        sign, text = marked[1], marked[2].strip()
    else:
        marked = _PERCENT.fullmatch(text)
        if marked:
            text = marked[1]
    grouped = _GROUPED.fullmatch(text)
    if grouped:
        plain = re.sub(r"[^\d+-]", "", grouped[1]) + (grouped[2] or "")
    elif _DECIMAL_COMMA.fullmatch(text):
        plain = text.replace(",", ".")
    elif marked:
        plain = text
    else:
        return None
    plain = sign + plain
    try:
        float(plain)
    except ValueError:  # "$-" or "--5%": not a number after all
        return None
    return plain

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_UNREAD_SUFFIXES = {".zip", ".zst", ".tar", ".7z", ".z", ".lz4", ".br"}


#: first bytes of each compressed format read_table reads: (name, suffix)
#: (bzip2's "BZh" could begin a header; its block magic "1AY&SY" follows the level digit)
_MAGIC = {b"\x1f\x8b": ("gzip", ".gz"), b"\xfd7zXZ\x00": ("xz", ".xz")}
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")


#: how every stream of each compressed format read_table reads begins, an empty one's too
#: (an empty bzip2 stream has no block, so only "BZh"); an empty file is left to read as empty
_STREAM_START = {".gz": b"\x1f\x8b", ".bz2": b"BZh", ".xz": b"\xfd7zXZ\x00"}
_FORMAT_OF = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


def _begins_as(path: Path, start: bytes) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(start))
    except OSError:
        return True  # reading fails next, with its own error
    return head == b"" or head == start


def _compression_of(path: Path) -> tuple[str, str] | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(10)
    except OSError:
        return None  # reading fails next, with its own error
    if _BZIP2.match(head):
        return "bzip2", ".bz2"
    return next((kind for magic, kind in _MAGIC.items() if head.startswith(magic)), None)


def _utf16_encoded(path: Path) -> bool:
    """Whether the file (decompressed) begins with a UTF-16 byte-order mark, or as ASCII text in
    UTF-16 does: every other byte NUL.  A NUL byte here and there is left to the line check."""
    try:
        with _OPENERS.get(path.suffix.lower(), open)(path, "rb") as fh:
            head = fh.read(64)
    except (OSError, EOFError, lzma.LZMAError, zlib.error):
        return False  # reading fails next, with its own error
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    halves = (head[0::2], head[1::2])
    return len(head) >= 8 and any(half.count(0) >= 0.75 * len(half) for half in halves)


def _record_lines(path: Path) -> tuple[int | None, np.ndarray, bool]:
    """The header's line (None for a file without one), the line of the file on which each
    data record starts, and whether some line ends in a lone carriage return (old Mac line ends).

    pandas skips blank lines and lets a quoted field span lines, so its row numbers can drift
    from the file's lines; the standard csv reader's ``line_num`` follows the physical lines.
    Every record must have as many fields as the header: otherwise a ``DataError`` names the
    record's line (and, for a record that runs over several lines, the double quote that made
    it do so: a stray one swallows the lines up to the next).
    """
    plain = _plain_record_lines(path)
    if plain is not None:
        return 1, plain, False
    opener = _OPENERS.get(path.suffix.lower(), open)
    starts, width = [], None
    # the csv module refuses a field over 128 KiB ("field larger than field limit"), which pandas
    # reads: a long free-text cell was reported as a misplaced quote
    field_limit = csv.field_size_limit(_FIELD_LIMIT)
    try:
        with opener(path, "rt", newline="", encoding="utf-8-sig", errors="replace") as fh:
            # strict: a quote that closes a field must be followed by a delimiter, which is what
            # a stray quote in mid-field breaks (pandas reads on, merging the lines in between)
            lines = _LastLine(fh)
            reader = csv.reader(lines, skipinitialspace=True, strict=True)
            before = 0
            for row in _rows_or_quote_error(reader, path, lambda: before):
                start, before = before + 1, reader.line_num
                # a blank line, which pandas skips; pandas counts only spaces and tabs as blank, and
                # reads a line holding a form feed or a no-break space as a record, and one holding
                # a quote ("" is one empty field: a short record), so this must too, or the two
                # readers' row counts differ and every error after it named no line or a wrong one
                if not (len(row) > 1 or (row and row[0].strip(" \t")) or (row and '"' in lines.last)):
                    continue
                if width is None:
                    width, header = len(row), row
                    if width == 1:
                        _refuse_other_separator(path, start, row[0])
                elif len(row) != width:
                    raise DataError(_field_count_error(path, start, reader.line_num, len(row), width, row, header))
                starts.append(start)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, csv.Error) as exc:
        raise _unreadable(path, exc) from None
    finally:
        csv.field_size_limit(field_limit)
    return (starts[0] if starts else None), np.asarray(starts[1:], dtype=np.int64), lines.lone_cr


#: the csv module's field size limit while counting records: larger than any cell of a table
#: (it must fit a C long, 32 bits on Windows)
_FIELD_LIMIT = 2**31 - 1


#: bytes read at a time by :func:`_scan_bytes`
_SCAN_BLOCK = 1 << 22
_LF, _CR, _COMMA = (ord(c) for c in "\n\r,")


def _line_blocks(path: Path):
    """The (decompressed) bytes of ``path`` in blocks of whole lines (the last may lack its end)."""
    carry = b""
    with _OPENERS.get(path.suffix.lower(), open)(path, "rb") as fh:
        while True:
            block = fh.read(_SCAN_BLOCK)
            data = carry + block
            end = data.rfind(b"\n") + 1 if block else len(data)
            if end:
                yield data[:end]
            carry = data[end:]
            if not block:
                return


def _plain_record_lines(path: Path) -> np.ndarray | None:
    """:func:`_record_lines`'s record lines for a plain file, found with array operations on its
    bytes, or None when the file is not plain and the csv reader must read it.

    Plain: no double quote, no NUL byte, no carriage return but in a CRLF line end, and every
    line (the header's too) holding the same number of commas, at least one.  In such a file
    each line is one record, none is blank, and every record has the header's fields: the
    header is line 1 and record i starts on line i + 2, which the csv reader counts record by
    record (half the time of reading a file of a million rows).  Anything else, a field-count
    error included, is left to the csv reader, whose messages name the line."""
    records = _plain_record_count(path)
    return None if records is None else np.arange(2, records + 2, dtype=np.int64)


def _plain_record_count(path: Path) -> int | None:
    """The number of records below the header of a plain file (:func:`_plain_record_lines`),
    or None for any other."""
    return _scan_bytes(path, leading_zero=False)[0]


def _may_hold_leading_zero(path: Path) -> bool:
    """False only when no field of the file can begin as :data:`LEADING_ZERO` does: after each
    comma and line end (and at the start), no ``0`` before a digit or a byte past ASCII, with
    or without a sign, and no space, tab or quote that could come before one.  A superset of
    the cells :func:`holds_leading_zero` looks for, found on the bytes: matched on a million
    cells per numeric column, read a second time as text, it had taken a third of reading the
    file."""
    return _scan_bytes(path, plain=False)[1]


def _scan_bytes(path: Path, plain: bool = True, leading_zero: bool = True) -> tuple[int | None, bool]:
    """``(_plain_record_count(path), _may_hold_leading_zero(path))`` in one pass over the bytes
    (each is None or True when not asked for).  Both read where the fields begin, the positions
    of the commas and line ends, found once per block: as two passes they had taken a quarter
    of reading a file of a million rows."""
    space, tab, quote = (ord(c) for c in ' \t"')
    lines, width, may_lead = 0, None, not leading_zero
    try:
        for body in _line_blocks(path):
            has_cr = b"\r" in body
            if plain and (b'"' in body or b"\x00" in body or (has_cr and body.count(b"\r") != body.count(b"\r\n"))):
                plain = False
            if not plain and may_lead:
                break
            codes = np.frombuffer(body + b"\n\n\n", dtype=np.uint8)  # past the end: no field begins there
            cut = codes[:-3]
            separators = cut == _COMMA
            separators |= cut == _LF
            if has_cr and not may_lead:
                separators |= cut == _CR  # a lone CR (old Mac) ends a line for the field starts
            at = np.flatnonzero(separators)  # where each comma and line end is
            if not may_lead:
                starts = np.concatenate(([0], at + 1))
                first, second, third = codes[starts], codes[starts + 1], codes[starts + 2]
                signed = (first == _PLUS) | (first == _MINUS)
                may_lead = bool((((first == _ZERO) & _may_be_digit(second))
                                 | (signed & (second == _ZERO) & _may_be_digit(third))
                                 | (first == space) | (first == tab) | (first == quote)).any())
            if plain:
                kinds = cut[at]
                ends = np.flatnonzero(kinds == _LF)  # (a CR of the CRLF before each is no comma)
                commas_before = np.cumsum(kinds == _COMMA)
                counted = commas_before[ends] if len(ends) else np.zeros(0, dtype=np.int64)
                if cut[-1] != _LF:  # the last line, without a line end: its commas are the rest
                    counted = np.append(counted, commas_before[-1] if len(kinds) else 0)
                commas = np.diff(counted, prepend=0)
                width = commas[0] if width is None else width
                if width == 0 or (commas != width).any():
                    plain = False
                else:
                    lines += len(commas)
    except (OSError, EOFError, lzma.LZMAError, zlib.error):
        # the csv reader meets it again and says what it is
        return None, True
    records = (lines - 1 if lines >= 2 else None) if plain else None
    return records, (True if not leading_zero else may_lead)


class _LastLine:
    """A file's lines, keeping the last one read: the csv reader's row ``['']`` is both a line
    of spaces and a line ``""``, which only the text tells apart."""

    def __init__(self, fh):
        self._fh = fh
        self.last = ""
        self.lone_cr = False

    def __iter__(self):
        return self

    def __next__(self) -> str:
        self.last = next(self._fh)
        self.lone_cr = self.lone_cr or self.last.endswith("\r")
        return self.last


def _with_line_feeds(path: Path):
    """A function giving the text of ``path`` as a fresh stream, every line end a line feed.

    pandas' C reader misreads a file whose lines end in lone carriage returns (old Mac) after a
    blank line: the next record's cells shift one column left, or a record of empty cells
    vanishes (found in review: a scored file then had fewer predictions than rows).  Python's
    universal newlines read ``\r``, ``\r\n`` and ``\n`` alike; a carriage return inside a
    quoted cell becomes a line feed, the only change."""
    with _OPENERS.get(path.suffix.lower(), open)(path, "rt", encoding="utf-8-sig", newline=None) as fh:
        text = fh.read()
    return lambda: io.StringIO(text)


def _refuse_other_separator(path: Path, line: int, header: str) -> None:
    """A header read as one column that holds a ``;``, a tab or a ``|``: a file separated by
    that, which the checker would report as every column of the spec unknown."""
    separator = next((s for s in (";", "\t", "|") if s in header), None)
    if separator is not None:
        raise DataError(f"{path}: error: line {line}: the header is one column, {cell_text(header)}: fairspec "
                        f"reads comma-separated files, and this one seems to separate its fields with "
                        f"{separator!r} (save it with commas)")


#: the words pandas reads as True and False in a column of them alone (its default
#: ``true_values`` and ``false_values``)
BOOL_WORDS = {"True": 1.0, "true": 1.0, "TRUE": 1.0, "False": 0.0, "false": 0.0, "FALSE": 0.0}


def numbers_of(series: pd.Series) -> pd.Series:
    """The cells of a numeric column as floats, NaN where a cell is missing or is text that is
    no number.  True and False are 1 and 0, as bools or as the words pandas reads as bools.

    A column of ``true``/``false`` alone is read as bools and trains as 1/0; in a file to
    score, one other cell (``1``, or a stray ``yes``) keeps the whole column as text, and the
    words had then been refused as "not a number", the message naming a valid ``true`` instead
    of the stray cell (found in review)."""
    if ptypes.is_bool_dtype(series.dtype):
        return series.astype(float)
    if ptypes.is_numeric_dtype(series.dtype):
        return series
    spelled = series.astype(object).map(
        lambda v: BOOL_WORDS.get(v.strip(), v) if isinstance(v, str) else float(v) if isinstance(v, bool) else v)
    return pd.to_numeric(spelled, errors="coerce")


def _holds_wide_integers(series: pd.Series) -> bool:
    """Whether pandas left ``series`` as Python integers: it does so for whole numbers beyond 64
    bits (up to 4,300 digits), which then read as categories and crash ``pd.to_numeric``."""
    if series.dtype != object:
        return False
    return any(isinstance(v, int) and not isinstance(v, bool) for v in series.dropna().unique())


def _empty_as_missing(text: pd.Series) -> pd.Series:
    """``text`` with its empty cells missing: pandas gives up on its ``na_values`` in a text column
    holding a whole number beyond 64 bits, and reads its empty cells as "", a category (or a
    group: a missing protected value then passed the checker)."""
    empty = (text == "").to_numpy(dtype=bool, na_value=False)
    return text.mask(empty) if empty.any() else text


def _numbers_or_text(text: pd.Series, present: np.ndarray | None = None) -> pd.Series:
    """A column of cell texts as floats when every present cell is a number, else as the text.
    ``present``: its distinct present cells, when known (:func:`_present_distinct`).

    pandas reads a column holding a whole number beyond 64 bits as Python integers, or as
    text beside a decimal one; as floats, like the column of whole numbers with one empty
    cell, it is numeric, as the README says a column of numbers is (one too large for a float
    is infinite, as ``1e400`` is, and the checker names it)."""
    distinct = pd.Series(_present_distinct(text) if present is None else present, dtype=object)
    if distinct.empty or holds_leading_zero(distinct):
        return text  # codes with a leading zero are text (see read_table)
    numbers = pd.to_numeric(distinct, errors="coerce")
    if not numbers.notna().all():
        return text
    # whole numbers past 2**53 that one float would merge (ids ...901 and ...902, two groups,
    # had become one) keep the column as text; "1" and "1.0", one number twice, do not count
    wide = [(int(t), x) for t, x in zip(distinct, numbers.astype(float))  # (int() reads up to 4,300 digits)
            if abs(x) >= 2.0 ** 53 and len(str(t)) <= 4000 and _WHOLE.fullmatch(str(t).strip())]
    if len({i for i, _ in wide}) > len({x for _, x in wide}):
        return text
    return pd.to_numeric(text, errors="coerce").astype(float)


_DECOMPRESSORS = {".bz2": bz2.BZ2Decompressor, ".xz": lzma.LZMADecompressor}


def _refuse_damaged_stream(path: Path, suffix: str) -> None:
    """Refuse a .bz2 or .xz file with bytes after its last compressed stream that start no
    other, or one that ends inside a stream.

    Python's bz2 and lzma readers take bytes after a stream that are no stream as the end of
    the file, without a word: rows appended to a compressed file were silently dropped, where
    the same file as .gz is refused (:func:`_unreadable`; found in review).  The file is
    decompressed here once, stream by stream, its output thrown away (xz's stream padding,
    zero bytes between streams, is refused with the rest: Python's reader cannot read it)."""
    make = _DECOMPRESSORS.get(suffix)
    if make is None:
        return
    name = _FORMAT_OF[suffix]
    decompressor, streams = make(), 1
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            data = chunk
            while data:
                if decompressor.eof:
                    decompressor, streams = make(), streams + 1
                try:
                    # 16 MB of output at a time: a chunk of a well-compressed file can hold GBs
                    decompressor.decompress(data, max_length=1 << 24)
                    while not decompressor.eof and not decompressor.needs_input:
                        decompressor.decompress(b"", max_length=1 << 24)
                except (OSError, EOFError, lzma.LZMAError) as exc:
                    why = (f"the {name} data is followed by bytes that are not {name} (the file is damaged, or "
                           f"something was appended to it)" if streams > 1 else f"the {name} data is damaged ({exc})")
                    raise DataError(f"{path}: error: cannot read the data as CSV: {why}") from None
                data = decompressor.unused_data if decompressor.eof else b""
    if not decompressor.eof:
        raise DataError(f"{path}: error: cannot read the data as CSV: the {name} data ends before its end marker "
                        f"(the file is truncated)")


def _unreadable(path: Path, exc: Exception) -> DataError:
    """The error for a file that could not be read, in words rather than the decompressor's.

    gzip reads one member after another: the file's first bytes were checked to be gzip, so
    "Not a gzipped file (b'ga')" means bytes after the compressed data that start no member."""
    why = str(exc)
    if isinstance(exc, gzip.BadGzipFile) and why.startswith("Not a gzipped file"):
        why = ("the gzip data is followed by bytes that are not gzip (the file is damaged, or something was "
               "appended to it)")
    elif isinstance(exc, gzip.BadGzipFile) and why.startswith("CRC check failed"):
        why = "the gzip data is damaged: its checksum does not match what it holds"
    return DataError(f"{path}: error: cannot read the data as CSV: {why}")


def _rows_or_quote_error(reader, path: Path, last_line):
    """``reader``'s records; its quoting error as a ``DataError`` naming where the record began."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            start, end = last_line() + 1, reader.line_num
            if str(exc) == "unexpected end of data":
                # no quote closes it: "closed ... on line <the last line>" had named a quote that is not there
                lines = f"line {start}" if end == start else f"lines {start}-{end}"
                raise DataError(f"{path}: error: {lines}: a quote opening a field on line {start} is "
                                f"never closed: the field runs to the end of the file (a quote inside a field is "
                                f"written twice, \"\")") from None
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
        # every line end counts, as the csv reader's: a file with lone "\r" ends (old Mac) has no "\n"
        return len(_LINE_END.findall(data, 0, exc.start)) + 1
    return 1


_LINE_END = re.compile(rb"\r\n|\r|\n")


def _field_count_error(path: Path, start: int, end: int, fields: int, width: int, row: list, header: list) -> str:
    message = f"{path}: error: line {start}: {fields} field{'' if fields == 1 else 's'}, the header has {width}"
    if end > start:
        return f"{message}; the record runs on to line {end}: {_runaway_quote(start, end)}"
    if fields == width + 1 and row[-1] == "":
        return message + " (the line ends with a delimiter)"
    if fields == width - 1 and header[-1] == "":
        return message + " (the header line ends with a delimiter, which makes an unnamed last column)"
    return message


def column_kind(series: pd.Series) -> str:
    """``numeric`` for numbers (bool too), else ``categorical``.

    A True/False column with an empty cell is read as Python objects, not as bools: it is
    still True/False (one empty cell had made the column categorical, so that a model trained
    on it called a scored ``1`` a category never seen; found in review)."""
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        return "numeric"
    if series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) == "boolean":
        return "numeric"
    return "categorical"


def feature_kind(series: pd.Series) -> str:
    """The kind of an untyped feature: :func:`column_kind`, except that a column of numbers
    with true/false words among them (pandas reads it as text) is numeric, as :func:`numbers_of`
    reads it and as the README says a true/false column is (it had been categorical, with no
    word; found in review).  Filters and the target keep :func:`column_kind`: they compare
    cells as pandas typed them."""
    if column_kind(series) == "numeric" or _bool_words_among_numbers(series):
        return "numeric"
    return "categorical"


def _bool_words_among_numbers(series: pd.Series) -> bool:
    """Whether ``series`` is text only because true/false words sit among its numbers; a
    column of codes with a leading zero stays text."""
    present = series.dropna()
    if present.empty or not all(isinstance(v, str) for v in present.unique()):
        return False
    words = present.str.strip()
    if not words.isin(list(BOOL_WORDS)).any() or holds_leading_zero(words):
        return False
    return bool(numbers_of(present).notna().all())


def coerce_like(value, series: pd.Series):
    """``value`` as written in a spec, converted to the column's type when it can be.

    A spec writes ``positive 1`` or ``positive ">50K"``; a CSV column of 0/1 is read as
    integers, so ``"1"`` must match ``1`` and ``1`` must match ``"1"`` in a text column.
    """
    if column_kind(series) == "numeric":
        if isinstance(value, str) and value.strip() in BOOL_WORDS and is_true_false(series):
            # the file writes true/false, read as bools: "true" is True, as the file says (it had
            # been refused as absent while "True", which the file never writes, was accepted)
            return BOOL_WORDS[value.strip()]
        try:
            return float(value)
        except (TypeError, ValueError):
            return value
    return str(value) if not isinstance(value, str) else value


def is_true_false(series: pd.Series) -> bool:
    """Whether pandas read ``series`` as True/False (bools; objects beside an empty cell)."""
    return bool(pd.api.types.is_bool_dtype(series)
                or (series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) == "boolean"))


def _targets(series: pd.Series, values: Sequence) -> list[tuple[bool, object]]:
    """Each of ``values`` as the column's cells are compared with it (:func:`coerce_like`):
    ``(True, number)`` in a numeric column, ``(False, text)`` otherwise."""
    numeric = column_kind(series) == "numeric"
    targets = []
    for value in values:
        target = coerce_like(value, series)
        targets.append((True, target) if numeric and isinstance(target, float) else (False, str(target)))
    return targets


def _equal_mask(series: pd.Series, values: Sequence) -> np.ndarray:
    """Rows of ``series`` equal to one of ``values`` (:func:`_targets`).  The column is
    converted once for all the values: once per value, an allow-list of 10,000 ids took a
    minute to check (found in review)."""
    targets = _targets(series, values)
    numbers = [t for is_number, t in targets if is_number and not np.isnan(t)]
    texts = [t for is_number, t in targets if not is_number]
    mask = np.zeros(len(series), dtype=bool)
    if numbers:
        mask |= np.isin(series.astype(float).to_numpy(), numbers)
    if texts:
        mask |= series.astype("string").isin(texts).fillna(False).to_numpy(dtype=bool)
    return mask


def values_present(series: pd.Series, values: Sequence) -> list[bool]:
    """For each of ``values``, whether a row of ``series`` equals it, as ``value_mask``'s ``==``
    reads it; the column's distinct values are taken once for all of them."""
    targets = _targets(series, values)
    numbers = set(series.astype(float).dropna().tolist()) if any(n for n, _ in targets) else set()
    texts = set(series.astype("string").dropna().tolist()) if not all(n for n, _ in targets) else set()
    return [t in (numbers if is_number else texts) for is_number, t in targets]


def value_mask(series: pd.Series, op: str, values: Sequence) -> np.ndarray:
    """Rows of ``series`` satisfying ``op values`` (missing values satisfy nothing but ``!=``/``not in``)."""
    if op in ("in", "not in"):
        mask = _equal_mask(series, values)
        return ~mask if op == "not in" else mask
    (value,) = values
    if op == "==":
        return _equal_mask(series, [value])
    if op == "!=":
        return ~_equal_mask(series, [value])
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
    if mask.all():
        # every row kept: a shallow copy (pandas copies a column on its first write), where
        # .loc copied every column of a table that can be gigabytes, once per check
        return frame.copy(deep=False)
    return frame.loc[mask]
