"""The exceptions fairspec raises, one class per kind of failure.

Library code raises; only :mod:`fairspec.cli` prints, and it maps each class to an
exit code (see ``EXIT_CODES``).  Every message is meant to be read by a user as is.
"""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field


#: control characters a terminal acts on (C0 but tab and newline, DEL, C1): an escape sequence in
#: a column name or a path from someone else's file could retitle the window or write the
#: clipboard (OSC 52) when a message quoting it was printed (found in review)
_TERMINAL_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0))}


def visible(text: str) -> str:
    """``text`` for a terminal: every control character but tab and newline as ``\\xNN``."""
    return text.translate(_TERMINAL_CONTROLS)


class FairspecError(Exception):
    """Base class of every error fairspec reports to a user."""

    exit_code = 1


def cell_text(value, limit: int = 60) -> str:
    """A data cell as a message quotes it: ``repr`` of its text, its middle cut out past
    ``limit`` characters, so a 5,000-character cell does not bury the message around it."""
    text = repr(str(value))
    if len(text) <= limit:
        return text
    keep = (limit - 1) // 2
    return f"{text[:keep]}…{text[-keep:]} ({len(str(value)):,} characters)"


#: the grammar's NAME (grammars/fairspec.lark); any other column name is written in backquotes
_BARE_NAME = re.compile(r"[^\W\d]\w*")


def written_name(column: str) -> str:
    """``column`` as a spec must write it: bare when it is a NAME, else in backquotes, so a
    hint quoting it (``where `c-charge degree` in [...]``) can be pasted into the spec."""
    return column if _BARE_NAME.fullmatch(column) else f"`{column}`"


def written_number(value: float | int) -> str:
    """A number with every digit it holds and no more: the shortest text that reads back as it
    (``:g`` keeps six digits, so a bound of 0.05000001 printed as 0.05 and 1234567 s as
    1.23457e+06 s), a whole float without its ``.0``."""
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def finite_at_least_zero(value) -> bool:
    """Whether ``value`` is a number (not a bool; numpy's count) that is finite and at least 0,
    as a time limit, a gap, a cost or a fairness bound must be."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


@dataclass(frozen=True)
class Span:
    """Where a construct stands in a spec file (1-based line and column)."""

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None


class FeatureError(ValueError):
    """A model file's content error about one feature, which an estimator's loader knows only by
    its index: ``template`` holds ``{feature}``, and whoever knows the features' names (the
    pipeline's encoder) says it by name with :meth:`named`."""

    def __init__(self, template: str, feature: int):
        super().__init__(template.format(feature=feature))
        self.template, self.feature = template, feature

    def named(self, names) -> str:
        return self.template.format(feature=repr(names[self.feature]))


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a spec: a message, where it is, and an optional hint."""

    message: str
    span: Span | None = None
    hint: str | None = None
    severity: str = "error"


def in_spec_order(diagnostics) -> list[Diagnostic]:
    """``diagnostics`` in the order of the places they point at (those without one first), so a
    user reads them top to bottom, as they read the spec."""
    return sorted(diagnostics, key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))


#: characters other tools end a line at, shown as a space so the caret stays under its column
_BREAKS_AS_SPACES = {ord(c): " " for c in "\r\f\v\x85\u2028\u2029"}


#: longest source line quoted whole; a longer one is cut to a window around the caret
QUOTED_LINE_WIDTH = 100
#: most diagnostics one error lists; the count of the others follows them
MAX_DIAGNOSTICS = 20


def _window(text: str, start: int, width: int) -> tuple[str, int, int]:
    """``text`` cut to about :data:`QUOTED_LINE_WIDTH` characters around ``start`` (0-based),
    with ``...`` where it was cut; returns the text, the caret's offset in it, and its width.
    A spec line of 20,000 values quoted whole under each of its errors made 50 MB of output."""
    if len(text) <= QUOTED_LINE_WIDTH:
        return text, start, width
    lo = max(0, min(start - QUOTED_LINE_WIDTH // 3, len(text) - QUOTED_LINE_WIDTH))
    hi = lo + QUOTED_LINE_WIDTH
    head = "..." if lo > 0 else ""
    tail = "..." if hi < len(text) else ""
    return head + text[lo:hi] + tail, len(head) + start - lo, max(1, min(width, hi - start))


def render_diagnostic(diag: Diagnostic, source: str | None, filename: str) -> str:
    """``FILE:LINE:COL: error: message`` + the source line + a caret + ``hint: ...``."""
    if diag.span is None:
        head = f"{filename}: {diag.severity}: {diag.message}"
        return head + (f"\n  hint: {diag.hint}" if diag.hint else "")
    line, col = diag.span.line, diag.span.column
    out = [f"{filename}:{line}:{col}: {diag.severity}: {diag.message}"]
    if source is not None:
        # the parser counts only "\n" as a line break; str.splitlines() would also break at "\r",
        # "\f", "\v", U+0085, U+2028 and U+2029 and quote another line than the one named
        lines = source.split("\n")
        if 1 <= line <= len(lines):
            text = lines[line - 1].removesuffix("\r").expandtabs(1).translate(_BREAKS_AS_SPACES)
            width = 1
            if diag.span.end_line == line and diag.span.end_column and diag.span.end_column > col:
                width = diag.span.end_column - col
            text, offset, width = _window(text, col - 1, width)
            out.append(f"  {text}")
            out.append("  " + " " * offset + "^" * width)
    if diag.hint:
        out.append(f"  hint: {diag.hint}")
    return "\n".join(out)


class SpecError(FairspecError):
    """A spec that cannot be used; carries one or more diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic], source: str | None = None, filename: str = "<spec>"):
        self.diagnostics = list(diagnostics)
        self.source = source
        self.filename = filename
        super().__init__(self.render())

    def render(self) -> str:
        shown = [render_diagnostic(d, self.source, self.filename) for d in self.diagnostics[:MAX_DIAGNOSTICS]]
        if len(self.diagnostics) > MAX_DIAGNOSTICS:
            more = self.diagnostics[MAX_DIAGNOSTICS:]
            errors = sum(d.severity == "error" for d in more)
            shown.append(f"{self.filename}: ... and {len(more)} more ({errors} errors) not shown; "
                         f"fix these and check again")
        return "\n".join(shown)


class SpecSyntaxError(SpecError):
    """The spec text does not follow the grammar."""


class SpecSemanticError(SpecError):
    """The spec parses but does not make sense against the language or the data."""


class DataError(FairspecError, ValueError):
    """The data cannot be read or does not fit the spec or the model (names column and row).

    Also a ``ValueError``: what scikit-learn raises for bad input, and what code written
    around scikit-learn estimators catches."""


class GroupWithoutRateError(DataError):
    """A group has no training row of the kind a bounded rate is a share of (no positive row
    for a TPR, no negative row for an FPR), so its rate, and the bound, are undefined."""


class ModelFileError(FairspecError, ValueError):
    """A model.json that cannot be read, or was written by an incompatible version.  A
    ValueError too, as a family's loader raises for a malformed document: a caller of
    ``estimator_from_json`` catches one type whichever family it loads."""


class RunsNotComparableError(FairspecError):
    """``fairspec report DIR DIR ...``: the runs were not trained and measured on the same
    data, rows and split, so their accuracies and gaps cannot be set side by side."""


class NotImplementedFamilyError(FairspecError):
    """A model family that the language names but this version cannot train."""


class NoUsableModelError(FairspecError):
    """The solver proved infeasibility, or the time limit passed with no incumbent."""

    exit_code = 3


class UnseenCategoryWarning(UserWarning):
    """Rows scored by a loaded model hold a category its training rows never had; the model
    reads it as a missing value.  ``fairspec predict`` prints ``source: warning: detail``."""

    def __init__(self, source: str, detail: str):
        super().__init__(f"{source}: {detail}")
        self.source = source
        self.detail = detail


class UsageError(FairspecError):
    """The command line itself is wrong."""

    exit_code = 2
