"""The groups section: every group's rates with intervals, against the reference group, and the gaps.

For each split, the rows the verdict is read on first (test, or out of fold), then the training
rows: a table of each group's rates with their 95 % intervals (:mod:`fairspec.metrics.disparity`),
a table of each group against the reference group (difference and ratio on every rate, the
four-fifths flag on the selection-rate ratio, or on the favourable-prediction rate's when the
spec says the positive class is adverse), the confusion counts, and the gaps between groups
with the test gap's interval.  A metrics.json written before fairspec measured the
disparities shows the rates alone.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from fairspec.metrics.disparity import FOUR_FIFTHS, RATES, four_fifths_flag, rule_rate
from fairspec.report.format import (UNDEFINED, KeyValue, fmt_count, fmt_gap, fmt_gap_against, fmt_interval,
                                    fmt_rate, fmt_rate_interval, fmt_ratio, fmt_signed)
from fairspec.report.sections.base import RunDocuments
from fairspec.report.words import ABROCA_OF_LABELS, AUC_OF_LABELS, GAP_TITLES, RATE_HEADINGS, OutcomeWords, \
    outcome_words

GROUP_COLUMNS = ("Group", "Rows", "Base rate", "Selection rate", "TPR", "FPR", "FNR", "Accuracy")
GROUP_RATE_KEYS = ("base_rate", "selection_rate", "tpr", "fpr", "fnr", "accuracy")
#: the AUC of a score that only ranks the rows (the rule set's): a reviewer must not read it as
#: a probability model's
AUC_OF_RANKING = "AUC (of a ranking score, not a probability)"


@dataclass(frozen=True)
class GroupRow:
    name: str
    cells: tuple[str, ...]  # aligned with the table's columns after the first
    #: the group's readable name from the spec's ``labels`` (metrics.json
    #: ``data_summary.group_labels``), shown beside ``name``; "" when it has none
    label: str = ""


@dataclass(frozen=True)
class RateCell:
    value: str
    interval: str = ""


@dataclass(frozen=True)
class RateRow:
    """One group's rates with their intervals."""

    name: str
    rows: str
    base_rate: str
    cells: tuple[RateCell, ...]  # one per RATES
    is_reference: bool = False
    label: str = ""


@dataclass(frozen=True)
class CompareRow:
    """One group against the reference: difference and ratio per rate, and the four-fifths flag."""

    name: str
    cells: tuple[RateCell, ...]  # value: the difference, interval: the ratio
    four_fifths: str  # "" (passes), or why it is flagged
    is_reference: bool = False
    label: str = ""


@dataclass(frozen=True)
class GapRow:
    name: str
    title: str
    values: tuple[str, ...]  # one per split, in GroupsView.splits order
    is_criterion: bool
    interval: str = UNDEFINED  # on the test rows, when metrics.json has intervals


@dataclass(frozen=True)
class SplitMetrics:
    """One split: overall scores, the per-group tables."""

    key: str  # "train" | "test"; the rates table's id is f"groups-{key}{suffix}"
    title: str
    table_id: str
    rows: str
    overall: tuple[KeyValue, ...]
    groups: tuple[GroupRow, ...]  # the rates without intervals (GROUP_COLUMNS), for older files
    rates: tuple[RateRow, ...] = ()
    compared: tuple[CompareRow, ...] = ()
    counts: tuple[GroupRow, ...] = ()  # TP, FP, FN, TN
    reference: str = ""
    reference_from: str = ""
    level: str = "95%"
    #: the four-fifths rule over all groups: "0.66 (Caucasian 0.30 against African-American 0.45): below 0.8"
    four_fifths: str = ""
    four_fifths_flagged: bool = False
    #: the comparison table's four-fifths column: which ratio it flags
    four_fifths_heading: str = "Four-fifths rule (selection-rate ratio)"


@dataclass(frozen=True)
class GroupsView:
    splits: tuple[SplitMetrics, ...]  # the verdict's rows first
    gaps: tuple[GapRow, ...]
    interval_title: str
    rate_headings: tuple[str, ...] = tuple(RATE_HEADINGS[r] for r in RATES)
    four_fifths_threshold: str = f"{FOUR_FIFTHS:g}"


def _balanced_accuracy(value) -> str:
    """Balanced accuracy, said to be below chance when it is: a constant or a random prediction
    scores 0.5, so a model below it does worse on its rows than not looking at them, which a
    reviewer reading 0.48 beside an accuracy of 0.70 (one class common) could miss."""
    text = fmt_rate(value)
    if isinstance(value, (int, float)) and math.isfinite(value) and value < 0.5:
        return f"{text} (below 0.5, what a constant or random prediction scores)"
    return text


def auc_name(block: dict) -> str:
    """What the block's AUC is of: 0/1 labels, a ranking score, or a probability."""
    if block.get("scores_are_labels"):
        return AUC_OF_LABELS
    if block.get("score_kind") == "ranking":
        return AUC_OF_RANKING
    return "AUC"


def split_title(key: str, evaluation_kind: str | None) -> str:
    if key == "train":
        return "Training rows"
    return "Out-of-fold rows (cross-validation)" if evaluation_kind == "cv" else "Test rows"


def favourable_predictions(outcome: OutcomeWords | None) -> str:
    """What a favourable prediction is when the positive class is adverse: "predicted two_year_recid = 0"."""
    return "predicted negative" if outcome is None else f"predicted {outcome.negative_class}"


def four_fifths_text(rule: dict | None, outcome: OutcomeWords | None = None) -> tuple[str, bool]:
    """The four-fifths rule over every group, in words naming the rate it read (the block's
    ``rate``; a block without one read the selection rate), and whether it is flagged."""
    if not rule or rule.get("ratio") is None:
        return "", False
    if rule.get("rate", "selection_rate") == "favourable_rate":
        said = (f"{fmt_rate(rule['ratio'], 2)}: the lowest rate of favourable predictions "
                f"({favourable_predictions(outcome)}, as the positive class is adverse), "
                f"\u201c{rule['lowest']}\u201d, over the highest, \u201c{rule['highest']}\u201d")
    else:
        said = (f"{fmt_rate(rule['ratio'], 2)}: the lowest selection rate (\u201c{rule['lowest']}\u201d) over the "
                f"highest (\u201c{rule['highest']}\u201d)")
    if rule.get("flagged"):
        return said + f", below {FOUR_FIFTHS:g}: the four-fifths rule flags it", True
    return said + f", at least {FOUR_FIFTHS:g}: the four-fifths rule does not flag it", False


def group_label(summary: dict, name) -> str:
    """The readable name the spec's ``labels`` give group ``name`` ("" when none)."""
    label = (summary.get("group_labels") or {}).get(str(name))
    return str(label) if isinstance(label, str) else ""


def _compare_flag(rate: str, entry: dict, reference_entry: dict | None) -> str:
    """A group's four-fifths flag against the reference, "" when it passes: on the selection-rate
    ratio the table shows, or on the favourable-prediction rates' ratio, which it does not show
    and the flag therefore states."""
    if rate != "favourable_rate":
        ratio = entry.get("selection_rate_ratio")
        if not four_fifths_flag(ratio):
            return ""
        return (f"below {FOUR_FIFTHS:g} ✗" if ratio < FOUR_FIFTHS
                else f"above {1 / FOUR_FIFTHS:g} ✗ (the reference is selected less)")
    mine = rule_rate(entry, rate)
    base = None if reference_entry is None else rule_rate(reference_entry, rate)
    ratio = None if mine is None or base is None or base == 0 else mine / base
    if not four_fifths_flag(ratio):
        return "" if ratio is None else f"{fmt_ratio(ratio)} passes ✓"
    return (f"{fmt_ratio(ratio)} below {FOUR_FIFTHS:g} ✗" if ratio < FOUR_FIFTHS
            else f"{fmt_ratio(ratio)} above {1 / FOUR_FIFTHS:g} ✗ (the reference is predicted favourably less)")


def _split(key: str, block: dict, suffix: str, evaluation_kind: str | None,
           summary: dict | None = None, outcome: OutcomeWords | None = None) -> SplitMetrics:
    summary = summary or {}
    groups = tuple(
        GroupRow(str(name), (fmt_count(g.get("count")),) + tuple(fmt_rate(g.get(r)) for r in GROUP_RATE_KEYS),
                 group_label(summary, name))
        for name, g in (block.get("groups") or {}).items())
    overall = (KeyValue("Accuracy", fmt_rate(block.get("accuracy"))),
               KeyValue("Balanced accuracy", _balanced_accuracy(block.get("balanced_accuracy"))),
               KeyValue(auc_name(block), fmt_rate(block.get("auc"))))
    split = SplitMetrics(key=key, title=split_title(key, evaluation_kind), table_id=f"groups-{key}{suffix}",
                         rows=fmt_count(block.get("n")), overall=overall, groups=groups)
    d = block.get("disparities")
    if not isinstance(d, dict):
        return split
    reference = str(d.get("reference"))
    rule_rate_name = (d.get("four_fifths") or {}).get("rate", "selection_rate")
    reference_entry = (d.get("groups") or {}).get(reference)
    own = block.get("groups") or {}
    rates, compared, counts = [], [], []
    for name, entry in d.get("groups", {}).items():
        is_ref = name == reference
        rates.append(RateRow(name, fmt_count(sum(entry.get(k, 0) for k in ("tp", "fp", "fn", "tn"))),
                             fmt_rate((own.get(name) or {}).get("base_rate")),
                             tuple(RateCell(fmt_rate(entry.get(r)), fmt_rate_interval(entry.get(f"{r}_interval")))
                                   for r in RATES), is_ref, group_label(summary, name)))
        flag = _compare_flag(rule_rate_name, entry, reference_entry)
        compared.append(CompareRow(name, tuple(RateCell(fmt_signed(entry.get(f"{r}_difference")),
                                                        fmt_ratio(entry.get(f"{r}_ratio"))) for r in RATES),
                                   "reference" if is_ref else (flag or "passes ✓"), is_ref, group_label(summary, name)))
        counts.append(GroupRow(name, tuple(fmt_count(entry.get(k)) for k in ("tp", "fp", "fn", "tn")),
                               group_label(summary, name)))
    rule, flagged = four_fifths_text(d.get("four_fifths"), outcome)
    level = d.get("level")
    return SplitMetrics(**{**split.__dict__, "rates": tuple(rates), "compared": tuple(compared),
                           "counts": tuple(counts),
                           "reference": reference,
                           "reference_from": "named in the spec" if d.get("reference_from") == "spec"
                           else "the group with the most rows",
                           "level": f"{level:.0%}" if isinstance(level, float) else "95%",
                           "four_fifths": rule, "four_fifths_flagged": flagged,
                           "four_fifths_heading": "Four-fifths rule (favourable-prediction-rate ratio)"
                           if rule_rate_name == "favourable_rate" else split.four_fifths_heading})


def _gaps(blocks: list[dict], criterion: str | None, intervals: dict | None,
          bound: float | None = None, criterion_interval=None) -> tuple[GapRow, ...]:
    """One row per gap (the known ones first, then any others), one value per split, and the
    test rows' interval of each gap from ``intervals`` (a block's ``gap_intervals``); the
    criterion's gaps are printed against its ``bound`` (:func:`fmt_gap_against`), as the
    fairness block prints them, and its interval is ``criterion_interval`` when given: the
    fairness block's, which reaches 1 when a group has no test rows of the compared kind (the
    row had shown the interval over the measured groups, wholly within the bound, beside the
    block's "not measured on test"; found in review)."""
    names = list(GAP_TITLES)
    for block in blocks:
        names += [g for g in (block.get("gaps") or {}) if g not in names]
    def title(name):
        if name == "abroca" and any(b.get("scores_are_labels") for b in blocks):
            return ABROCA_OF_LABELS
        return GAP_TITLES.get(name, name)

    interval = ((intervals or {}).get("gaps") or {}).get
    def value(block, name):
        gap = (block.get("gaps") or {}).get(name)
        return fmt_gap_against(gap, bound) if name == criterion else fmt_gap(gap)

    def interval_of(name):
        if name == criterion:
            return fmt_interval(criterion_interval if criterion_interval is not None else interval(name), bound)
        return fmt_interval(interval(name), None)

    return tuple(GapRow(name, title(name), tuple(value(b, name) for b in blocks), name == criterion,
                        interval_of(name))
                 for name in names)




def build(docs: RunDocuments) -> GroupsView:
    metrics_doc = docs.metrics_doc
    fairness = metrics_doc.get("fairness") or {}
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    # the rows the verdict is read on first
    blocks = [(key, metrics_doc[key]) for key in ("test", "train") if metrics_doc.get(key)]
    outcome = outcome_words(docs.model_doc, metrics_doc)
    splits = tuple(_split(key, block, docs.suffix, kind, metrics_doc.get("data_summary") or {}, outcome)
                   for key, block in blocks)
    intervals = (metrics_doc.get("test") or {}).get("gap_intervals")
    level = intervals.get("level") if intervals else None
    verdict_rows = next((s.title.lower() for s in splits if s.key == "test"), "")
    return GroupsView(
        splits=splits,
        gaps=_gaps([b for _, b in blocks], fairness.get("criterion"), intervals, fairness.get("bound"),
                   fairness.get("interval_test") if intervals else None),
        interval_title=f"{level:.0%} interval, {verdict_rows}" if level is not None and verdict_rows else "")
