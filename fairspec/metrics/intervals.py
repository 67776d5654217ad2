"""How far a measured fairness gap can be trusted: an interval for each gap on the test rows.

A test gap is measured on a sample.  With 150 positives in the smallest group a TPR moves by
0.007 per row, and a gap of 0.071 against a bound of 0.05 may be chance; with 2 positives it
is nearly meaningless.  :func:`gap_intervals` gives, for each gap of
:data:`fairspec.metrics.groups.GAP_RATES`, the range of population gaps the test rows are
consistent with, so a reviewer can tell the two apart.

Derivation.  Fix the model and a group g.  Its test rows hold n⁺ positives and n⁻ negatives;
the model predicts 1 for TP of the positives and FP of the negatives.  Rows are drawn
independently, so TP ~ Binomial(n⁺, TPR_g) and FP ~ Binomial(n⁻, FPR_g), independent of each
other and of the other groups.  With Jeffreys' prior Beta(½, ½) on each rate the posteriors
are

    TPR_g | TP ~ Beta(TP + ½, n⁺ − TP + ½),      FPR_g | FP ~ Beta(FP + ½, n⁻ − FP + ½)

(the Jeffreys interval for one proportion; Brown, Cai and DasGupta, "Interval estimation
for a binomial proportion", Statistical Science 16(2), 2001, recommend it for its coverage
close to nominal even for small n, where the Wald and bootstrap intervals collapse: a group
with 1 positive predicted 0 has bootstrap TPR 0 in every resample).  The other rates are
functions of these two and of the group's share of positives q_g = n⁺ / (n⁺ + n⁻), held at
its observed value (the holdout and the folds are stratified by target and group, so the
split fixes it):

    selection_g = q_g TPR_g + (1 − q_g) FPR_g,      accuracy_g = q_g TPR_g + (1 − q_g)(1 − FPR_g).

Each posterior draw of every group's (TPR_g, FPR_g) gives every gap as the metrics define it
(largest minus smallest rate over the groups that have it; equalized odds the larger of the
TPR and FPR gaps), and the interval is the equal-tailed ``level`` range of those draws.  The
draws are seeded, so the same predictions give the same interval.

The interval is about which rows landed in the test set, for this model; it says nothing of
how another training sample would have changed the model.  With many groups the range of the
draws sits above the measured gap (a maximum over noisy rates is biased upward), which is the
honest answer: a gap over many small groups is not known to be small.
"""
from __future__ import annotations

import numpy as np

from fairspec.metrics.groups import GAP_RATES, GroupCounts, group_labels

#: the interval's coverage
LEVEL = 0.95
#: posterior draws; the ends of a 95% interval then move between seeds by a standard deviation
#: of 0.0007 (lower) and 0.0017 (upper) on the compas example's test rows (30 seeds)
DRAWS = 4000


def _gap(rates: np.ndarray, present: np.ndarray) -> np.ndarray | None:
    """Per draw, max − min over the groups (columns) in ``present``; None with fewer than two."""
    if present.sum() < 2:
        return None
    kept = rates[:, present]
    return kept.max(axis=1) - kept.min(axis=1)


def gap_draws(counts: GroupCounts, *, draws: int = DRAWS, seed: int = 0) -> dict[str, np.ndarray | None]:
    """Posterior draws of every gap of :data:`GAP_RATES` (``draws`` values each, or None
    where fewer than two groups have the rate), following the module's derivation."""
    rng = np.random.default_rng(seed)
    tpr = rng.beta(counts.true_positives + 0.5, counts.positives - counts.true_positives + 0.5,
                   size=(draws, len(counts.names)))
    fpr = rng.beta(counts.false_positives + 0.5, counts.negatives - counts.false_positives + 0.5,
                   size=(draws, len(counts.names)))
    share = counts.positives / np.maximum(counts.rows, 1)
    rates = {
        "tpr": (tpr, counts.positives > 0),
        "fpr": (fpr, counts.negatives > 0),
        "selection_rate": (share * tpr + (1 - share) * fpr, counts.rows > 0),
        "accuracy": (share * tpr + (1 - share) * (1 - fpr), counts.rows > 0),
    }
    result: dict[str, np.ndarray | None] = {}
    for gap, names in GAP_RATES.items():
        parts = [_gap(*rates[name]) for name in names]
        result[gap] = None if any(p is None for p in parts) else np.max(parts, axis=0)
    return result


def gap_intervals(y_true, y_pred, groups, *, seed: int = 0, level: float = LEVEL, draws: int = DRAWS) -> dict:
    """The metrics.json block's ``gap_intervals``: ``{"method", "level", "draws", "seed",
    "gaps": {gap: [low, high] or None}}`` for 0/1 ``y_true`` and ``y_pred`` and one group
    label per row (see docs/ARTIFACTS.md)."""
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    y_true = np.asarray(y_true).astype(int).ravel()
    y_pred = np.asarray(y_pred).astype(int).ravel()
    counts = GroupCounts.of(y_true, y_pred, group_labels(groups))
    tail = (1 - level) / 2
    gaps = {}
    for gap, values in gap_draws(counts, draws=draws, seed=seed).items():
        gaps[gap] = None if values is None else [float(q) for q in np.quantile(values, [tail, 1 - tail])]
    return {"method": "jeffreys", "level": level, "draws": draws, "seed": seed, "gaps": gaps}
