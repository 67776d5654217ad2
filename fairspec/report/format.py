"""Numbers and values as the report prints them: every number becomes text here, once.

A rate prints with three decimals and a gap with four (:func:`fmt_rate`, :func:`fmt_gap`),
the same everywhere on the page; a gap read against a bound prints with more digits where
four would put it on the wrong side of the bound (:func:`fmt_gap_against`); a coefficient or
a ratio with three significant digits (:func:`fmt_sig`).  ``—`` (:data:`UNDEFINED`) stands for
a value that does not exist.  Strings stay raw: escaping them is the template engine's job.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from fairspec.errors import written_number
from fairspec.metrics.groups import MET_TOLERANCE

#: shown for a value that does not exist (TPR of a group with no positives, no test split)
UNDEFINED = "—"

@dataclass(frozen=True)
class RecordTable:
    """A list of uniform records (say, the phases of a solver run) as a small table."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    #: (column, what it means) for the columns that have a meaning, in column order
    legend: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class KeyValue:
    """One row of a key/value table; long structured values also come as a table or a block."""

    key: str
    value: str
    table: RecordTable | None = None
    block: str | None = None  # indented JSON, shown folded in a <pre>
    #: what the key means, for a reviewer (fit-log entries: fairspec.report.fit_log_terms)
    meaning: str = ""


def fmt_rate(value, digits: int = 3) -> str:
    """A rate/score in [0, 1] with fixed decimals; ``—`` when undefined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return UNDEFINED
    return f"{float(value):.{digits}f}"


def fmt_share(value) -> str:
    """A share of rows as :func:`fmt_rate`, but a group with rows never reads as 0.000."""
    if isinstance(value, (int, float)) and 0 < value < 0.0005:
        return "<0.001"
    return fmt_rate(value)


def fmt_gap(value) -> str:
    return fmt_rate(value, 4)


def fmt_gap_against(value, bound, digits: int = 4) -> str:
    """:func:`fmt_gap` (``digits`` decimals), with more digits where those would print a gap on
    the wrong side of ``bound``: one that exceeds it as the bound itself ("0.0500 exceeds the
    bound 0.05" for 0.050025), or one within a bound of more than four decimals as above it
    ("0.0013 is within the bound 0.001255" for 0.0012549)."""
    text = fmt_rate(value, digits)
    if bound is None or text == UNDEFINED:
        return text
    exceeds = value > bound + MET_TOLERANCE
    if (exceeds and float(text) <= bound) or (not exceeds and float(text) > bound + MET_TOLERANCE):
        return f"{float(value):.10g}"
    return text


def fmt_interval(interval, bound=None) -> str:
    """``[low, high]`` of a gap as ``low to high``; ``—`` when there is none.  Each end is
    printed against ``bound`` (:func:`fmt_gap_against`): an end of 0.05004 had printed as
    0.0500 in "its interval, 0.0000 to 0.0500, reaches above the bound 0.05" (found in review)."""
    if not interval or any(v is None for v in interval):
        return UNDEFINED
    return f"{fmt_gap_against(interval[0], bound)} to {fmt_gap_against(interval[1], bound)}"


def fmt_count(value) -> str:
    if value is None:
        return UNDEFINED
    return f"{int(value):,}"


def fmt_number(value) -> str:
    """A setting as the user wrote it (0.025, 120, 1e-4)."""
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return written_number(value)
    return str(value)


def fmt_seconds(value) -> str:
    if value is None:
        return UNDEFINED
    return f"{float(value):.2f} s"


def fmt_value(value) -> str:
    """Any JSON value for a key/value table: scalars as text, containers as compact JSON."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    if isinstance(value, float):
        # a measurement to six digits, but a whole number (a count a log stored as a float,
        # 1234567.0) in full: ``.6g`` wrote it as 1.23457e+06
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return fmt_number(value)


def key_value(key, value, terms: dict | None = None, record_terms: dict | None = None) -> KeyValue:
    """A fit-log or parameter entry: lists of records become tables, long JSON a folded block;
    ``terms`` gives the key's meaning, ``record_terms`` those of a records table's columns."""
    key = str(key)
    meaning = (terms or {}).get(key, "")
    if (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
            and all(isinstance(x, (str, int, float, bool, type(None))) for v in value for x in v.values())):
        # the files are written with sorted keys, so a report re-rendered from them sees the
        # records' keys in another order than the run that wrote them: a fixed order (``name``
        # first, it says which record a row is, then alphabetical) keeps the two pages the same
        columns = sorted({str(c) for record in value for c in record}, key=lambda c: (c != "name", c))
        rows = tuple(tuple(fmt_value({str(k): x for k, x in r.items()}.get(c)) for c in columns) for r in value)
        legend = tuple((c, (record_terms or {})[c]) for c in columns if c in (record_terms or {}))
        return KeyValue(key, f"{len(value)} entries", table=RecordTable(tuple(columns), rows, legend),
                        meaning=meaning)
    text = fmt_value(value)
    if isinstance(value, (dict, list, tuple)) and len(text) > 80:
        block = json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2, default=str)
        summary = f"{len(value)} {'keys' if isinstance(value, dict) else 'entries'}"
        return KeyValue(key, summary, block=block, meaning=meaning)
    return KeyValue(key, text, meaning=meaning)


def _group_list(names) -> str:
    """``Group "Asian"`` / ``Groups "Asian" and "Other"`` / ``Groups "a", "b" and 3 more``."""
    quoted = [f'"{n}"' for n in names]
    head = "Group" if len(quoted) == 1 else "Groups"
    if len(quoted) > 4:
        return f"{head} {', '.join(quoted[:3])} and {len(quoted) - 3} more"
    if len(quoted) == 1:
        return f"{head} {quoted[0]}"
    return f"{head} {', '.join(quoted[:-1])} and {quoted[-1]}"



def fmt_sig(value, digits: int = 3, signed: bool = False) -> str:
    """``value`` with ``digits`` significant digits and no exponent for everyday sizes
    (0.000335, 1.28, -0.755, 12,300); ``signed`` prints a + before a positive value."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return UNDEFINED
    value = float(value)
    if value == 0:
        return "0"
    rounded = round(value, digits - 1 - math.floor(math.log10(abs(value))))
    decimals = max(digits - 1 - math.floor(math.log10(abs(rounded))), 0)  # 9.996 rounds to 10.0
    text = f"{rounded:,.{decimals}f}"
    return ("+" if signed and value > 0 else "") + text.replace("-", "−")


def fmt_percent(value, digits: int = 0) -> str:
    """A share as a percentage, "34 %"; ``—`` when undefined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return UNDEFINED
    return f"{100 * float(value):.{digits}f} %"


def fmt_signed(value, digits: int = 3) -> str:
    """A difference of rates with its sign, "+0.152", "−0.040"; ``—`` when undefined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return UNDEFINED
    text = f"{abs(float(value)):.{digits}f}"
    if float(text) == 0:
        return f"{0:.{digits}f}"
    return ("+" if value > 0 else "−") + text


def fmt_ratio(value) -> str:
    """A ratio of two rates, "0.66×"; ``—`` when undefined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return UNDEFINED
    return f"{float(value):.2f}×"


def fmt_rate_interval(interval) -> str:
    """A rate's interval, "0.41–0.49"; ``—`` when there is none."""
    if not interval or any(v is None for v in interval):
        return UNDEFINED
    return f"{fmt_rate(interval[0])}–{fmt_rate(interval[1])}"
