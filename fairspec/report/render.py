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


@lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("fairspec", "report/templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
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
