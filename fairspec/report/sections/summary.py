"""The summary: one screen a reviewer can sign from.

For one run: the verdict on the declared criterion (MET, NOT MET or INCONCLUSIVE,
:mod:`fairspec.report.verdict`) with what it rests on; the direction of the gap in words, naming
the group on its worse side when the spec says whether the positive class is favourable or
adverse (:func:`direction`); the four-fifths rule on selection rates whatever the criterion;
and the model's accuracy beside the same model trained without the criterion and beside
predicting the majority class for every row, the rows the verdict is read on first.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairspec.metrics.groups import GAP_RATES
from fairspec.metrics.intervals import jeffreys_interval
from fairspec.report.format import (UNDEFINED, fmt_gap, fmt_gap_against, fmt_interval, fmt_percent, fmt_rate,
                                    fmt_rate_interval)
from fairspec.report.sections.groups import four_fifths_text, split_title
from fairspec.report.verdict import FairnessView
from fairspec.report.words import RATE_NAMES, OutcomeWords


@dataclass(frozen=True)
class Direction:
    """Which group is on which side of a gap: ``worse`` is the disadvantaged group (None when
    the spec does not say whether the positive class is favourable or adverse)."""

    rate: str
    highest: str
    lowest: str
    worse: str | None
    sentence: str


@dataclass(frozen=True)
class HeadlineRow:
    """One line of the summary's comparison: this model, without the criterion, the majority class."""

    name: str
    cells: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class SummaryView:
    fairness: FairnessView
    direction: str
    outcome: str
    four_fifths: str
    four_fifths_flagged: bool
    #: columns: the verdict's rows (test), then training rows
    columns: tuple[str, ...]
    headline: tuple[HeadlineRow, ...]
    reference: str = ""
    #: the four-fifths card's title: which rate the rule read
    four_fifths_title: str = "Four-fifths rule on selection rates"


def majority_rate(block: dict | None) -> float | None:
    """The accuracy of predicting the block's more common class for every row."""
    groups = (block or {}).get("groups") or {}
    n = sum(g.get("count") or 0 for g in groups.values())
    if not n or any(g.get("base_rate") is None for g in groups.values() if g.get("count")):
        return None
    positive = sum((g.get("count") or 0) * (g.get("base_rate") or 0) for g in groups.values()) / n
    return max(positive, 1 - positive)


def accuracy_interval(block: dict | None, level: float = 0.95) -> list[float] | None:
    """The Jeffreys interval of a block's accuracy (its correct rows out of ``n``)."""
    if not block or block.get("accuracy") is None or not block.get("n"):
        return None
    n = int(block["n"])
    correct = round(float(block["accuracy"]) * n)
    low, high = jeffreys_interval(np.array([float(correct)]), np.array([float(n)]), level)
    return [float(low[0]), float(high[0])]


def direction(block: dict | None, criterion: str | None, outcome: OutcomeWords, rows: str = "test rows",
              labels: dict | None = None) -> Direction | None:
    """The criterion's rate (the larger-gap one under equalized odds; selection rate without a
    criterion) at its highest and lowest group, in words, naming the disadvantaged group when
    ``outcome`` says which side is worse.  None when fewer than two groups have the rate.
    ``labels`` are the readable names of coded groups (metrics.json's ``data_summary.group_labels``)."""

    def _quoted(name: str) -> str:
        label = (labels or {}).get(name)
        return f"\u201c{name}\u201d" + (f" ({label})" if label and label != name else "")

    groups = (block or {}).get("groups") or {}
    rates = GAP_RATES.get(str(criterion), ("selection_rate",))

    def spread(rate):
        present = {g: v.get(rate) for g, v in groups.items() if v.get(rate) is not None}
        return (max(present.values()) - min(present.values())) if len(present) >= 2 else -1, present

    rate = max(rates, key=lambda r: spread(r)[0])
    width, present = spread(rate)
    if width < 0:
        return None
    highest = max(present, key=lambda g: (present[g], g))
    lowest = min(present, key=lambda g: (present[g], g))
    worse_high = outcome.worse_is_higher(rate)
    worse = None if worse_high is None else (highest if worse_high else lowest)
    better = None if worse is None else (lowest if worse == highest else highest)
    predicted = f"predicted {outcome.positive_class}" + ("" if outcome.outcome is None else f" ({outcome.outcome})")
    among = {"tpr": f"Of the {rows} with {outcome.positive_class}, ",
             "fpr": f"Of the {rows} with {outcome.negative_class}, "}.get(rate, f"Of the {rows}, ")
    verb = "predicted correctly" if rate == "accuracy" else predicted
    first, second = (worse, better) if worse is not None else (highest, lowest)
    others = " (the other groups lie between)" if len(present) > 2 else ""
    said = (f"{among}{fmt_percent(present[first])} of {_quoted(first)} rows were {verb}, against "
            f"{fmt_percent(present[second])} of {_quoted(second)} rows{others}.")
    if worse is not None:
        lead = (f"{_quoted(worse)} is on the worse side of the {RATE_NAMES[rate]} gap "
                f"({fmt_gap(present[highest] - present[lowest])}): ")
    else:
        lead = (f"The {RATE_NAMES[rate]} gap ({fmt_gap(present[highest] - present[lowest])}) runs from "
                f"{_quoted(highest)} (highest) to {_quoted(lowest)} (lowest); the spec does not say which side is "
                f"worse. ")
    return Direction(rate, highest, lowest, worse, lead + said)


def _row(name: str, blocks: list[dict | None], criterion: str | None, bound, note: str = "") -> HeadlineRow:
    cells = []
    for i, block in enumerate(blocks):
        if not block:
            cells += [UNDEFINED, UNDEFINED]
            continue
        accuracy = fmt_rate(block.get("accuracy"))
        interval = accuracy_interval(block) if i == 0 else None
        cells.append(accuracy + (f" ({fmt_rate_interval(interval)})" if interval else ""))
        gap = (block.get("gaps") or {}).get(criterion) if criterion else None
        gap_text = fmt_gap_against(gap, bound) if criterion else UNDEFINED
        gap_interval = ((block.get("gap_intervals") or {}).get("gaps") or {}).get(criterion) if criterion else None
        if gap_interval and i == 0:
            gap_text += f" ({fmt_interval(gap_interval, bound)})"
        cells.append(gap_text)
    return HeadlineRow(name, tuple(cells), note)


def build(model_doc: dict, metrics_doc: dict, fairness: FairnessView, outcome: OutcomeWords) -> SummaryView:
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    keys = [k for k in ("test", "train") if metrics_doc.get(k)]
    verdict_block = metrics_doc.get(keys[0]) if keys else None
    rows = split_title(keys[0], kind).lower() if keys else "rows"
    f = metrics_doc.get("fairness") or {}
    criterion, bound = f.get("criterion"), f.get("bound")
    found = direction(verdict_block, criterion, outcome, rows,
                      (metrics_doc.get("data_summary") or {}).get("group_labels"))
    block_rule = ((verdict_block or {}).get("disparities", {}).get("four_fifths")
                  if isinstance((verdict_block or {}).get("disparities"), dict) else None)
    rule, flagged = four_fifths_text(block_rule, outcome)
    blocks = [metrics_doc.get(k) for k in keys]
    headline = [_row("This model", blocks, criterion, bound)]
    unconstrained = metrics_doc.get("unconstrained")
    if isinstance(unconstrained, dict):
        if unconstrained.get("error"):
            headline.append(HeadlineRow("The same model without the criterion", (UNDEFINED,) * (2 * len(keys)),
                                        f"no usable model: {unconstrained['error']}"))
        else:
            headline.append(_row("The same model without the criterion", [unconstrained.get(k) for k in keys],
                                 criterion, bound, "same family, data and split, no criterion"))
    elif criterion is not None and fairness.form in ("audit", "none"):
        headline.append(HeadlineRow("The same model without the criterion", (), "this model: the criterion is "
                                                                                "audited, not enforced"))
    majority = [majority_rate(b) for b in blocks]
    headline.append(HeadlineRow("Predict the majority class for every row",
                                tuple(c for m in majority for c in (fmt_rate(m), UNDEFINED)),
                                "ignores every feature"))
    columns = []
    for k in keys:
        title = split_title(k, kind).lower()
        columns += [f"Accuracy, {title}" + (" (95% interval)" if k == keys[0] else ""),
                    f"{criterion or 'criterion'} gap, {title}" + (" (interval)" if k == keys[0] else "")]
    d = (verdict_block or {}).get("disparities")
    reference = ""
    if isinstance(d, dict):
        reference = d.get("reference") or ""
    return SummaryView(fairness=fairness, direction=found.sentence if found else "", outcome=outcome.statement,
                       four_fifths=rule, four_fifths_flagged=flagged,
                       four_fifths_title=("Four-fifths rule on favourable-prediction rates"
                                          if isinstance(block_rule, dict) and block_rule.get("rate") == "favourable_rate"
                                          else "Four-fifths rule on selection rates"),
                       columns=tuple(columns),
                       headline=tuple(headline), reference=reference)

