"""Render a :class:`~fairspec.report.context.ReportContext` to one self-contained HTML file.

One Jinja2 environment, templates under ``fairspec/report/templates``; autoescape is on for
every template and string, and nothing marks text as safe, so spec text, column names,
category names and paths always reach the page escaped.  Undefined names fail loudly
(``StrictUndefined``) instead of rendering as empty text.
"""
from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

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
    target = Path(path)
    html = render_report(context)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(html)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; a report is meant to be shared like any other output file
        os.chmod(tmp_name, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    return target
