"""Every group against a reference group: counts, rates with intervals, differences and ratios.

A gap (:mod:`fairspec.metrics.groups`) says how far apart the two extreme groups are on the
one rate a criterion compares.  A reviewer also asks how each group fares against one named
group, on every rate, as fairlearn's ``MetricFrame`` and Aequitas' bias report show it.  For
each group g and its confusion counts (TP, FP, FN, TN over the group's rows):

* ``selection_rate`` = (TP + FP) / n        ``accuracy``  = (TP + TN) / n
* ``tpr``            = TP / (TP + FN)       ``fnr``       = FN / (TP + FN)
* ``fpr``            = FP / (FP + TN)       ``precision`` = TP / (TP + FP)

each with its equal-tailed Jeffreys interval at :data:`LEVEL` (the interval
:mod:`fairspec.metrics.intervals` builds its gap intervals from; Brown, Cai and DasGupta 2001),
and against the reference group r: the difference ``rate_g − rate_r`` and the ratio
``rate_g / rate_r`` (``None`` where either rate is undefined or ``rate_r`` is 0).  These
intervals are each group's own, at 95 % each, not simultaneous: they say how well a rate is
measured, while the gap intervals say whether a gap is settled.

The reference group is the spec's (``reference "Caucasian"``) or, by default, the group with
the most rows used (ties: the first by name).  The largest group's rates are the best
measured, and the choice does not move with the outcome of a fit.

The four-fifths rule (the US EEOC's Uniform Guidelines, 29 CFR 1607.4(D)) reads a selection
rate below four fifths of the highest group's as evidence of adverse impact.  It is reported
whatever criterion the spec declares: :func:`four_fifths` gives the lowest selection rate over
the highest, and each group's selection-rate ratio to the reference is flagged when it is
below 0.8 or above 1.25 (the reference's rate is then below four fifths of this group's).
The Guidelines' selection is the favourable decision (hired, approved).  When the spec says
the positive class is adverse (``target two_year_recid positive 1 adverse``: a recidivism
flag), the favourable decision is the negative prediction, and the rule reads each group's
``favourable_rate`` = (FN + TN) / n = 1 − selection rate in its place
(:func:`four_fifths_rate`), and the block's ``rate`` says so.  A block without ``rate`` read the
selection rate: so do files written before the spec could say, and a favourable or unsaid
positive class writes the block as they did.
"""
from __future__ import annotations

import numpy as np

from fairspec.metrics.groups import GroupCounts, group_labels, zero_one_labels
from fairspec.metrics.intervals import LEVEL, jeffreys_interval

#: the rates compared with the reference group, in the order the report shows them
RATES = ("selection_rate", "tpr", "fpr", "fnr", "precision", "accuracy")
COUNTS = ("tp", "fp", "fn", "tn")
#: the four-fifths rule's threshold on a selection-rate ratio
FOUR_FIFTHS = 0.8
#: the rates the four-fifths rule can read: the selection rate (the positive class is
#: favourable, or the spec does not say) or the rate of negative predictions (it is adverse)
FOUR_FIFTHS_RATES = ("selection_rate", "favourable_rate")


def four_fifths_rate(outcome: str | None) -> str:
    """The rate the four-fifths rule reads for the spec's ``outcome`` (favourable, adverse or None):
    the rate of the favourable decision, which is the negative prediction when the positive
    class is adverse; the selection rate otherwise, as before the spec could say."""
    return "favourable_rate" if outcome == "adverse" else "selection_rate"


def _check_rule_rate(rate: str) -> None:
    if rate not in FOUR_FIFTHS_RATES:
        raise ValueError(f"the four-fifths rule reads one of {FOUR_FIFTHS_RATES}, not {rate!r}")


def rule_rate(counts: dict[str, int], rate: str = "selection_rate") -> float | None:
    """A group's ``rate`` (one of :data:`FOUR_FIFTHS_RATES`) from its confusion counts; None
    for a group without rows."""
    _check_rule_rate(rate)
    tp, fp, fn, tn = (int(counts[k]) for k in COUNTS)
    n = tp + fp + fn + tn
    if n == 0:
        return None
    return (tp + fp) / n if rate == "selection_rate" else (fn + tn) / n


def confusion_by_group(y_true, y_pred, groups) -> dict[str, dict[str, int]]:
    """``{group: {"tp", "fp", "fn", "tn"}}`` of 0/1 ``y_true`` and ``y_pred``; groups keyed as
    metrics.json keys them (:func:`fairspec.metrics.groups.group_labels`)."""
    y_true, y_pred = zero_one_labels(y_true, "y_true"), zero_one_labels(y_pred, "y_pred")
    c = GroupCounts.of(y_true, y_pred, group_labels(groups))
    return {str(name): {"tp": int(c.true_positives[i]), "fp": int(c.false_positives[i]),
                        "fn": int(c.positives[i] - c.true_positives[i]),
                        "tn": int(c.negatives[i] - c.false_positives[i])}
            for i, name in enumerate(c.names)}


def largest_group(rows: dict[str, int]) -> str:
    """The group with the most rows; among equals, the first by name."""
    return min(rows, key=lambda g: (-rows[g], g))


def _successes(counts: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Per rate, the group's successes and the rows the rate counts them among."""
    tp, fp, fn, tn = (counts[k] for k in COUNTS)
    n = tp + fp + fn + tn
    return {"selection_rate": (tp + fp, n), "tpr": (tp, tp + fn), "fpr": (fp, fp + tn),
            "fnr": (fn, tp + fn), "precision": (tp, tp + fp), "accuracy": (tp + tn, n)}


def group_rates(counts: dict[str, int], level: float = LEVEL) -> dict[str, tuple[float | None, list | None]]:
    """``{rate: (value, [low, high])}`` of one group's counts; ``(None, None)`` where the rate
    counts no row (TPR of a group without positives)."""
    out = {}
    for rate, (k, n) in _successes(counts).items():
        if n == 0:
            out[rate] = (None, None)
            continue
        low, high = jeffreys_interval(np.array([float(k)]), np.array([float(n)]), level)
        out[rate] = (k / n, [float(low[0]), float(high[0])])
    return out


def four_fifths(selection: dict[str, float | None], rate: str = "selection_rate") -> dict:
    """The lowest of the groups' ``selection`` rates over the highest, which groups those are,
    and whether the ratio is below :data:`FOUR_FIFTHS`; ratio ``None`` when fewer than two
    groups have a rate or the highest is 0 (nobody selected: no group is selected less).
    ``rate`` names what the rates are (:data:`FOUR_FIFTHS_RATES`), recorded unless it is the
    selection rate (the block as it was before the rule could read another)."""
    _check_rule_rate(rate)
    read = {} if rate == "selection_rate" else {"rate": rate}
    present = {g: r for g, r in selection.items() if r is not None}
    if len(present) < 2:
        return {"threshold": FOUR_FIFTHS, **read, "ratio": None, "lowest": None, "highest": None, "flagged": False}
    lowest = min(present, key=lambda g: (present[g], g))
    highest = max(present, key=lambda g: (present[g], g))
    ratio = None if present[highest] == 0 else present[lowest] / present[highest]
    return {"threshold": FOUR_FIFTHS, **read, "ratio": ratio, "lowest": lowest, "highest": highest,
            "flagged": ratio is not None and ratio < FOUR_FIFTHS}


def four_fifths_flag(ratio: float | None) -> bool:
    """Whether a group's selection-rate ratio to the reference fails the four-fifths rule one
    way or the other (below 0.8, or above 1.25: the reference is then selected less)."""
    return ratio is not None and (ratio < FOUR_FIFTHS or ratio > 1 / FOUR_FIFTHS)


def against_reference(confusion: dict[str, dict[str, int]], reference: str | None = None,
                      reference_from: str = "largest group", level: float = LEVEL,
                      outcome: str | None = None) -> dict:
    """The metrics.json block's ``disparities`` (see docs/ARTIFACTS.md): for each group its
    counts, rates, intervals, and differences and ratios to ``reference`` (default: the
    :func:`largest_group`, and ``reference_from`` says which rule chose it).  A reference that
    has no rows here (a group absent from the test rows) leaves differences and ratios
    ``None``.  The four-fifths rule reads the rate :func:`four_fifths_rate` gives for the
    spec's ``outcome``.  Deterministic: ``fairspec report`` recomputes it from the counts to
    check a file."""
    if reference is None:
        reference = largest_group({g: sum(c.values()) for g, c in confusion.items()})
    rates = {g: group_rates(c, level) for g, c in confusion.items()}
    rule = four_fifths_rate(outcome)
    ref = rates.get(reference)
    groups = {}
    for g, counts in confusion.items():
        entry: dict = {k: int(counts[k]) for k in COUNTS}
        for rate in RATES:
            value, interval = rates[g][rate]
            base = None if ref is None else ref[rate][0]
            entry[rate] = value
            entry[f"{rate}_interval"] = interval
            entry[f"{rate}_difference"] = None if value is None or base is None else value - base
            entry[f"{rate}_ratio"] = None if value is None or base is None or base == 0 else value / base
        groups[g] = entry
    return {"reference": reference, "reference_from": reference_from, "level": level,
            "rates": list(RATES), "groups": groups,
            "four_fifths": four_fifths({g: rule_rate(c, rule) for g, c in confusion.items()}, rule)}
