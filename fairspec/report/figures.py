"""The report's figures: matplotlib drawings written as inline SVG text.

SVG keeps text as text (searchable, selectable, sharp in print) and needs no JavaScript; the
page stays one self-contained file.  Each figure is a :class:`matplotlib.figure.Figure` made
directly, not through ``pyplot``: no backend is chosen and no global figure list is touched, so
rendering a report never changes the plotting state of the program that asked for it, and a
figure is freed with the last reference to it (``Figure.savefig`` uses the SVG canvas).

What makes the output safe and reproducible (:func:`svg_text`):

* every label is a user string (a group, a feature, a setting) and goes through
  :func:`shown`: invisible and bidirectional control characters become ``[U+202E]`` as in the
  rest of the page, and mathtext is off (``text.parse_math``), so a ``$`` is a dollar sign;
* matplotlib escapes text as XML; the result is then parsed (:func:`checked`) and refused
  if it holds anything but plain SVG drawing and text: no script, no event attribute, no link,
  no ``foreignObject``, no style sheet (its global ``*`` rule would reach the page);
* ``svg.hashsalt`` is set per figure (its ids are unique on the page and the same every run),
  the date, comments and metadata are dropped, and coordinates keep two decimals;
* fonts are not embedded (``svg.fonttype = 'none'``): the page's CSS names the face.
"""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn (:func:`styled`), not with this module
    from matplotlib.figure import Figure

#: colours safe for the common colour-vision deficiencies (Okabe and Ito, 2008), each darker
#: than 3:1 against white; a group is also told by its marker, never by colour alone
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8A6100", "#3B3B3B", "#5B3FA0", "#8C2D04")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h")
#: inches; at 96 px per inch a figure is 614 px wide, half the 1,015 px text column of the page
WIDTH = 6.4
RC = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "path.simplify": True,
}
#: SVG elements a figure may hold; anything else is refused
ALLOWED_ELEMENTS = frozenset({"svg", "g", "path", "defs", "clipPath", "rect", "text", "tspan", "use", "title",
                              "desc", "polyline", "line", "circle", "ellipse", "polygon"})


class FigureError(ValueError):
    """A figure's SVG held something other than drawing and text."""


def shown(text) -> str:
    """A label as the page shows user strings: invisible characters by their code point."""
    from fairspec.report.render import INVISIBLE  # render imports the context, which imports this

    return str(text).translate(INVISIBLE)


def styled(settings: dict | None = None):
    """``matplotlib.rc_context`` with the report's settings (:data:`RC`, then ``settings``).

    matplotlib is imported here, on the first figure, not with the report's modules: a run
    imports them before it trains, and matplotlib's 0.5 s and 40 MB then came before the data
    was read and stayed under the training's peak memory."""
    import matplotlib

    return matplotlib.rc_context({**RC, **(settings or {})})


def new_figure(height: float, width: float = WIDTH) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def checked(svg: str) -> str:
    """``svg`` if it parses as SVG made of drawing and text only; else :class:`FigureError`."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise FigureError(f"figure is not well-formed SVG: {exc}") from None
    for element in root.iter():
        if _local(element.tag) not in ALLOWED_ELEMENTS:
            raise FigureError(f"figure holds a <{_local(element.tag)}> element")
        for name, value in element.attrib.items():
            local = _local(name)
            if local.lower().startswith("on"):
                raise FigureError(f"figure holds an event attribute {local}")
            if local == "href" and not value.startswith("#"):
                raise FigureError("figure links outside itself")
    return svg


_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_DROP = (re.compile(r"<!--.*?-->", re.S), re.compile(r"<metadata>.*?</metadata>\s*", re.S),
         re.compile(r"<style[^>]*>.*?</style>\s*", re.S))
_FONT = re.compile(r"font-family: [^;\"]*(; )?")
_ATTRIBUTE = re.compile(r'(\s(?:d|x|y|x1|x2|y1|y2|width|height|transform|points)=")([^"]*)(")')
_LONG_NUMBER = re.compile(r"(-?\d+\.\d\d)\d+")


def svg_text(fig: Figure, name: str, label: str) -> str:
    """``fig`` as inline SVG: ``name`` salts its ids (unique on the page), ``label`` is its
    accessible name (``role="img"``); see the module docstring."""
    buffer = io.StringIO()
    with styled({"svg.hashsalt": f"fairspec-{name}"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = _PROLOG.sub("", buffer.getvalue(), count=1)
    for pattern in _DROP:
        svg = pattern.sub("", svg)
    svg = _FONT.sub("", svg).replace(' style=""', "")
    svg = _ATTRIBUTE.sub(lambda m: m.group(1) + _LONG_NUMBER.sub(r"\1", m.group(2)) + m.group(3), svg)
    svg = re.sub(r"\n\s*", "\n", svg)
    # the accessible name, escaped for an attribute; the figure's own <title> is its caption
    label = (shown(label).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;"))
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{label}" class="figure-svg" ', 1)
    return checked(svg)


def short(text, most: int = 40) -> str:
    """A label for a legend: at most ``most`` characters (the tables beside name it in full)."""
    text = shown(text)
    return text if len(text) <= most else text[:most - 1] + "…"


# --------------------------------------------------------------------------- accuracy against gap

#: a point's state -> (marker, colour, legend text); the marker tells the state without colour
STATE_STYLE = {
    "met": ("o", "#17663a", "met"),
    "inconclusive": ("D", "#8A6100", "inconclusive"),
    "not met": ("X", "#a3201b", "not met"),
    None: ("o", "#4a5560", "no bound"),
}


@dataclass(frozen=True)
class FrontierPoint:
    """One model on the accuracy-against-gap chart; intervals are ``(low, high)`` or None."""

    label: str
    gap: float
    accuracy: float
    gap_interval: tuple[float, float] | None = None
    accuracy_interval: tuple[float, float] | None = None
    state: str | None = None
    unconstrained: bool = False


def non_dominated(points: list[FrontierPoint]) -> list[bool]:
    """Per point, whether no other point is at least as accurate with at most its gap, and
    better on one of the two (point estimates)."""
    out = []
    for p in points:
        out.append(not any((q.accuracy >= p.accuracy and q.gap <= p.gap) and (q.accuracy > p.accuracy or q.gap < p.gap)
                           for q in points))
    return out


def frontier_figure(points: list[FrontierPoint], *, x_label: str, y_label: str, majority: float | None = None,
                    bounds=(), height: float = 4.4) -> Figure:
    """Accuracy against the gap, both with their intervals as whiskers: the non-dominated models
    joined, the unconstrained model a star, the majority-class rate a dashed line and each bound
    a dotted one.  The axes start where the data and the majority rate put them, never zoomed
    to the points alone: the gap axis from 0, the accuracy axis from below the majority rate.
    Points at one spot share one label; labels are placed where they overprint no other
    (:func:`place_labels`)."""
    front = non_dominated(points)
    with styled():
        fig = new_figure(height)
        ax = fig.add_subplot()
        highs = [p.gap_interval[1] if p.gap_interval else p.gap for p in points] + [float(b) for b in bounds]
        x_high = max(highs + [0.05]) * 1.08
        lows = [p.accuracy_interval[0] if p.accuracy_interval else p.accuracy for p in points]
        tops = [p.accuracy_interval[1] if p.accuracy_interval else p.accuracy for p in points]
        y_low = min(lows + ([majority] if majority is not None else [])) - 0.02
        y_high = max(tops) + 0.02
        ax.set_xlim(0, x_high)
        ax.set_ylim(max(0.0, y_low), min(1.0, y_high))
        if majority is not None:
            ax.axhline(majority, color="#5c6670", linestyle=(0, (5, 3)), linewidth=1,
                       label=f"majority-class rate {majority:.3f}")
        for k, bound in enumerate(sorted({float(b) for b in bounds})):
            ax.axvline(bound, color="#1f5f99", linestyle=(0, (1, 2)), linewidth=1,
                       label="bound" + ("s" if len(set(bounds)) > 1 else "") if k == 0 else None)
        joined = sorted((p for p, f in zip(points, front) if f), key=lambda p: p.gap)
        if len(joined) > 1:
            ax.plot([p.gap for p in joined], [p.accuracy for p in joined], color="#9aa6b2", linewidth=1.5,
                    zorder=1, label="not dominated, joined")
        seen = set()
        for p, f in zip(points, front):
            marker, colour, legend = ("*", "#3B3B3B", "without the criterion") if p.unconstrained \
                else STATE_STYLE.get(p.state, STATE_STYLE[None])
            xerr = None if not p.gap_interval else [[p.gap - p.gap_interval[0]], [p.gap_interval[1] - p.gap]]
            yerr = None if not p.accuracy_interval else [[p.accuracy - p.accuracy_interval[0]],
                                                          [p.accuracy_interval[1] - p.accuracy]]
            ax.errorbar([p.gap], [p.accuracy], xerr=xerr, yerr=yerr, fmt="none", ecolor=colour, elinewidth=0.9,
                        capsize=2, alpha=0.8, zorder=2)
            key = (marker, colour, f)
            ax.plot([p.gap], [p.accuracy], linestyle="none", marker=marker, markersize=11 if p.unconstrained else 7,
                    markerfacecolor=colour if f else "white", markeredgecolor=colour, markeredgewidth=1.4, zorder=3,
                    label=(legend + ("" if f else ", dominated")) if key not in seen else None)
            seen.add(key)
        ax.set_xlabel(shown(x_label))
        ax.set_ylabel(shown(y_label))
        ax.grid(True, color="#e6eaee", linewidth=0.6)
        fig.legend(loc="outside lower center", ncol=3, frameon=False, fontsize=7.5)
        place_labels(fig, ax, points)
    return fig


#: where a point's label may go, in points from the point, tried in order: right and up, right
#: and down, left and up, left and down, then further out
LABEL_OFFSETS = ((7, 4, "left"), (7, -12, "left"), (-7, 4, "right"), (-7, -12, "right"),
                 (7, 14, "left"), (7, -22, "left"), (-7, 14, "right"), (-7, -22, "right"),
                 (7, 24, "left"), (7, -32, "left"), (-7, 24, "right"), (-7, -32, "right"))


def place_labels(fig: Figure, ax, points: list[FrontierPoint]) -> list:
    """Label every spot once (points at one spot share a label, "λ = 5, λ = 1e9"), each at the
    first of :data:`LABEL_OFFSETS` where it overprints no label placed before and stays inside
    the axes; measured with the Agg renderer, in the fonts the SVG names.  Returns the labels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()  # the constrained layout fixes the axes before anything is measured
    spots: dict[tuple[float, float], list[str]] = {}
    for p in points:
        spots.setdefault((round(p.gap, 9), round(p.accuracy, 9)), []).append(short(p.label, 24))
    inside = ax.get_window_extent(renderer)
    placed, texts = [], []
    for (x, y), names in spots.items():
        text = None
        for dx, dy, ha in LABEL_OFFSETS:
            if text is not None:
                text.remove()
            text = ax.annotate(", ".join(names), (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha,
                               fontsize=8, color="#1d2329")
            box = text.get_window_extent(renderer)
            if box.x0 >= inside.x0 and box.x1 <= inside.x1 and box.y0 >= inside.y0 and box.y1 <= inside.y1 and \
                    not any(box.overlaps(other) for other in placed):
                break
        placed.append(text.get_window_extent(renderer))
        texts.append(text)
    return texts


def frontier_svg(points: list[FrontierPoint], *, name: str, label: str, x_label: str, y_label: str,
                 majority: float | None = None, bounds=(), height: float = 4.4) -> str:
    """:func:`frontier_figure` as inline SVG (:func:`svg_text`)."""
    fig = frontier_figure(points, x_label=x_label, y_label=y_label, majority=majority, bounds=bounds, height=height)
    return svg_text(fig, name, label)
