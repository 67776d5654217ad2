"""Render a :class:`~fairspec.report.context.ReportContext` to one self-contained HTML file.

One Jinja2 environment, templates under ``fairspec/report/templates``; autoescape is on for
every template and string, and nothing marks text as safe, so spec text, column names,
category names and paths always reach the page escaped.  Undefined names fail loudly
(``StrictUndefined``) instead of rendering as empty text.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from fairspec.files import write_atomic
from fairspec.report.context import GROUP_COLUMNS, ReportContext

TEMPLATE = "report.html.jinja"


#: Unicode's bidirectional controls (LRM, RLM, ALM, the embeddings and overrides, the isolates):
#: escaped HTML still obeys them, so a category named "small\u202e 12" would print the rest of
#: its sentence, numbers included, right to left.  Shown as visible code points instead.
BIDI_CONTROLS = {c: f"[U+{c:04X}]" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def visible_bidi(value):
    """``value`` with every bidirectional control shown as ``[U+202E]``: Jinja's ``finalize``,
    run on every ``{{ ... }}`` of the templates.  Markup (a macro's output) passes as it is:
    the expressions inside the macro went through here already."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return value.translate(BIDI_CONTROLS)
    return value


@lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("fairspec", "report/templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        finalize=visible_bidi,
    )


def render_report(context: ReportContext) -> str:
    """The report as an HTML string."""
    return environment().get_template(TEMPLATE).render(ctx=context, group_columns=GROUP_COLUMNS)


def write_report(path: str | os.PathLike, context: ReportContext) -> Path:
    """Render and write atomically: a temp file in the same directory, then ``os.replace``.

    The page is rendered completely before any file is touched, so a failure while
    rendering leaves an existing report as it was; a failure while writing removes the temp
    file.  Readers see either the old file or the new one, never half of one.
    """
    html = render_report(context)
    return write_atomic(path, html)
