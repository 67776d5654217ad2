"""The figures section: per-group rates with intervals, ROC curves by group, calibration by group.

All three are drawn on the rows the verdict is read on (test, out of fold, or the training rows
without either) from metrics.json: the rates and intervals of ``disparities``, the curves of
``roc`` and ``calibration`` (:mod:`fairspec.metrics.curves`).  Calibration is drawn only for a
score that is a probability (``score_kind``); the rule set's score ranks rows and is not one.
Each figure has a caption saying what it shows and a table beside it (the groups section)
holding its numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairspec.metrics.intervals import jeffreys_interval
from fairspec.report.figures import COLOURS, MARKERS, new_figure, short, styled, svg_text
from fairspec.report.format import fmt_gap
from fairspec.report.sections.base import RunDocuments
from fairspec.report.words import RATE_HEADINGS

#: the rates drawn per group (FNR is 1 − TPR: it adds nothing to a figure)
FIGURE_RATES = ("selection_rate", "tpr", "fpr", "precision", "accuracy")


@dataclass(frozen=True)
class FigureView:
    key: str
    title: str
    svg: str  # checked SVG text (fairspec.report.figures.checked)
    caption: str
    wide: bool = True


@dataclass(frozen=True)
class FiguresView:
    figures: tuple[FigureView, ...]
    rows: str  # "test rows"


def _style(k: int) -> tuple[str, str]:
    return COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]


def rates_figure(disparities: dict, name: str, rows: str) -> FigureView | None:
    """Each group's rates as dots with their intervals as whiskers, one band per rate."""
    groups = list((disparities or {}).get("groups") or {})
    if not groups:
        return None
    entries = disparities["groups"]
    k = len(groups)
    with styled():
        fig = new_figure(0.5 + 0.42 * len(FIGURE_RATES) * max(1.0, k / 4) + 0.25 * k, 4.3)
        ax = fig.add_subplot()
        for j, g in enumerate(groups):
            colour, marker = _style(j)
            offset = (j - (k - 1) / 2) * (0.7 / max(k, 1))
            ys, xs, lo, hi = [], [], [], []
            for i, rate in enumerate(FIGURE_RATES):
                value, interval = entries[g].get(rate), entries[g].get(f"{rate}_interval")
                if value is None:
                    continue
                ys.append(len(FIGURE_RATES) - 1 - i + offset)
                xs.append(value)
                lo.append(value - interval[0] if interval else 0.0)
                hi.append(interval[1] - value if interval else 0.0)
            label = short(g, 30) + (" (reference)" if g == disparities.get("reference") else "")
            ax.errorbar(xs, ys, xerr=[lo, hi], fmt=marker, color=colour, markersize=5.5, elinewidth=1.1,
                        capsize=2.5, label=label)
        ax.set_yticks(range(len(FIGURE_RATES)), [RATE_HEADINGS[r] for r in reversed(FIGURE_RATES)])
        ax.set_xlim(0, 1)
        ax.set_xlabel("rate (dot) and its 95% interval")
        ax.grid(True, axis="x", color="#e6eaee", linewidth=0.6)
        ax.set_ylim(-0.6, len(FIGURE_RATES) - 0.4)
        wide = max(len(short(g, 30)) for g in groups) > 18
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1 if wide else min(k, 2), frameon=False)
        svg = svg_text(fig, f"rates{name}", f"Each group's rates on the {rows} with their 95% intervals")
    return FigureView("rates", "Rates by group", svg,
                      f"Each group's selection rate, TPR, FPR, precision and accuracy on the {rows}; the whiskers are "
                      "each rate's own 95% interval (Jeffreys), so two groups whose whiskers overlap may still differ. "
                      "Groups are told apart by marker shape as well as colour.")


def roc_figure(block: dict, name: str, rows: str) -> FigureView | None:
    """Each group's ROC curve, with ABROCA (the area between the curves) in the title."""
    curves = (block.get("roc") or {}).get("groups") or {}
    if not curves:
        return None
    abroca = (block.get("gaps") or {}).get("abroca")
    labels_only = block.get("score_kind") == "labels"
    with styled():
        fig = new_figure(3.15, 2.95)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], color="#9aa6b2", linestyle=(0, (4, 3)), linewidth=0.9, label="chance")
        for j, (g, points) in enumerate(curves.items()):
            colour, marker = _style(j)
            fpr, tpr = zip(*points)
            ax.plot(fpr, tpr, color=colour, linewidth=1.4, marker=marker, markersize=3.5,
                    markevery=max(1, len(fpr) // 6), label=short(g, 24))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("false-positive rate")
        ax.set_ylabel("true-positive rate")
        ax.set_title(f"ABROCA {fmt_gap(abroca)}")
        ax.grid(True, color="#e6eaee", linewidth=0.6)
        ax.legend(loc="lower right", frameon=False, fontsize=7)
        svg = svg_text(fig, f"roc{name}", f"ROC curves by group on the {rows}; ABROCA {fmt_gap(abroca)}")
    caption = (f"ROC curves by group on the {rows}. ABROCA, {fmt_gap(abroca)}, is the area between the groups' "
               "curves (the largest over pairs of groups): 0 when every group's scores rank its rows alike.")
    if labels_only:
        caption += " The model scores every row 0 or 1, so each curve is one point joined to the corners."
    elif block.get("score_kind") == "ranking":
        caption += " The score ranks the rows; it is not a probability."
    return FigureView("roc", "ROC curves by group", svg, caption, wide=False)


def calibration_figure(block: dict, name: str, rows: str) -> FigureView | None:
    """Per group and score bin, the share of positive rows against the mean score."""
    calibration = block.get("calibration") or {}
    groups = calibration.get("groups") or {}
    if not groups or block.get("score_kind") != "probability":
        return None
    with styled():
        fig = new_figure(3.15, 2.95)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], color="#9aa6b2", linestyle=(0, (4, 3)), linewidth=0.9, label="perfectly calibrated")
        for j, (g, bins) in enumerate(groups.items()):
            colour, marker = _style(j)
            if not bins:
                continue
            mean = np.array([b[0] for b in bins], dtype=float)
            positives = np.array([b[1] for b in bins], dtype=float)
            n = np.array([b[2] for b in bins], dtype=float)
            low, high = jeffreys_interval(positives, n, 0.95)
            share = positives / n
            ax.errorbar(mean, share, yerr=[share - low, high - share], color=colour, marker=marker, markersize=4,
                        linewidth=1.1, elinewidth=0.8, capsize=2, label=short(g, 24))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("mean score in the bin")
        ax.set_ylabel("share of positive rows")
        ax.set_title(f"Calibration ({calibration.get('bins', 10)} score bins)")
        ax.grid(True, color="#e6eaee", linewidth=0.6)
        ax.legend(loc="upper left", frameon=False, fontsize=7)
        svg = svg_text(fig, f"calibration{name}", f"Calibration by group on the {rows}")
    return FigureView("calibration", "Calibration by group", svg,
                      f"Calibration on the {rows}: in each of {calibration.get('bins', 10)} equal-width bins of the "
                      "score, the share of positive rows (with its 95% interval) against the mean score. A group "
                      "whose points lie below the diagonal is scored higher than its outcomes warrant.", wide=False)


def build(docs: RunDocuments) -> FiguresView | None:
    metrics_doc = docs.metrics_doc
    key = "test" if metrics_doc.get("test") else "train"
    block = metrics_doc.get(key) or {}
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    rows = "training rows" if key == "train" else ("out-of-fold rows" if kind == "cv" else "test rows")
    figures = [f for f in (rates_figure(block.get("disparities"), docs.suffix, rows),
                           roc_figure(block, docs.suffix, rows),
                           calibration_figure(block, docs.suffix, rows)) if f is not None]
    return FiguresView(tuple(figures), rows) if figures else None

