"""Render a :class:`~fairspec.report.context.ReportContext` to one self-contained HTML file.

One Jinja2 environment, templates under ``fairspec/report/templates``; autoescape is on for
every template and string, so spec text, column names, category names and paths always reach
the page escaped.  One thing is inserted as markup: a figure's SVG, through the ``svg`` filter
(:func:`svg_markup`), which parses it again and refuses anything but drawing and text
(:func:`fairspec.report.figures.checked`); the user strings inside it were escaped by
matplotlib's SVG writer.  Undefined names fail loudly (``StrictUndefined``) instead of
rendering as empty text.
"""
from __future__ import annotations

import os
import unicodedata
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from fairspec.files import write_atomic
from fairspec.report.context import GROUP_COLUMNS, ReportContext

TEMPLATE = "report.html.jinja"


def _invisible_characters() -> dict[int, str]:
    """Every format and control character (Unicode categories Cf and Cc) but tab, newline and
    carriage return, each mapped to its code point shown as ``[U+202E]``.

    Escaped HTML still obeys them or hides them: a bidirectional override (U+202E) prints the
    rest of a sentence, numbers included, right to left, and a zero-width space (U+200B) makes
    the group "Fe\u200bmale" read as "Female" beside a filter that left "Female" out (found in
    review).  Planes 0, 1 and 14 hold every such character Unicode assigns."""
    planes = (*range(0x20000), *range(0xE0000, 0xE1000))
    return {c: f"[U+{c:04X}]" for c in planes
            if unicodedata.category(chr(c)) in ("Cf", "Cc") and chr(c) not in "\t\n\r"}


#: what :func:`visible_invisibles` shows by its code point
INVISIBLE = _invisible_characters()


def visible_invisibles(value):
    """``value`` with every invisible character (:data:`INVISIBLE`) shown as ``[U+200B]``:
    Jinja's ``finalize``, run on every ``{{ ... }}`` of the templates.  Markup (a macro's
    output) passes as it is: the expressions inside the macro went through here already."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return value.translate(INVISIBLE)
    return value


def svg_markup(svg: str) -> Markup:
    """A figure's SVG as markup, once it has passed :func:`fairspec.report.figures.checked` here,
    where it is inserted: the one place the report marks a string as safe."""
    from fairspec.report.figures import checked

    return Markup(checked(str(svg)))  # noqa: S704 - parsed and refused unless drawing and text


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("fairspec", "report/templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        finalize=visible_invisibles,
    )
    env.filters["svg"] = svg_markup
    return env


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
