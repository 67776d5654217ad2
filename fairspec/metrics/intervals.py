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

A gap is not a rate but a largest difference, ``max over groups g, h of |r_g − r_h|`` (over
the TPR and FPR pairs together for equalized odds), and it is 0 exactly when the rates agree.
Quantiles of the posterior draws of the gap itself would never reach 0: under a continuous
prior two groups' rates are never equal, so the 2.5 % quantile of ``|r_a − r_b|`` is above
0 even when the measured rates are identical, and a model with no gap at all (one that
predicts 0 for everyone) would get an interval that excludes its true gap every time.  The
interval is therefore built from the *signed* pairwise differences ``d_gh = r_g − r_h``,
whose posteriors do pass through 0:

1. a simultaneous region: one equal-tailed range ``[L_gh, U_gh]`` per pair, all cut at the
   same tail depth τ, with τ the largest depth at which a share ``level`` of the draws lies
   inside every range at once (each draw's depth is the smallest, over the pairs, of the
   share of draws at least as far out on its side; τ is the ``1 − level`` quantile of those
   depths).  With one pair (two groups, one rate) this is the equal-tailed ``level`` range
   of ``d``;
2. its image under the gap: ``gap = max |d_gh|`` lies between the largest distance from 0
   to a range, ``max_gh dist(0, [L_gh, U_gh])``, and the largest end in absolute value,
   ``max_gh max(|L_gh|, |U_gh|)``.  When every range contains 0 the interval starts at 0.

The gap lies in the interval whenever the differences lie in the region, so the interval
covers at least as often as the region does.  The draws are seeded, so the same predictions
give the same interval.

The interval is about which rows landed in the test set, for this model; it says nothing of
how another training sample would have changed the model.  With many groups the region needs
every pair at once, so the interval widens with their number, which is the honest answer: a
gap over many small groups is not known to be small.
"""
from __future__ import annotations

import numpy as np

from fairspec.metrics.groups import GAP_RATES, GroupCounts, group_labels

#: the interval's coverage
LEVEL = 0.95
#: posterior draws; the ends of a 95% interval then move between seeds by a standard deviation
#: of 0.0007 (lower) and 0.0017 (upper) on the compas example's test rows (30 seeds)
DRAWS = 4000


def difference_draws(counts: GroupCounts, *, draws: int = DRAWS, seed: int = 0) -> dict[str, np.ndarray | None]:
    """Posterior draws of the signed differences ``r_g − r_h`` behind every gap of
    :data:`GAP_RATES`: an array of shape ``(draws, pairs)`` per gap (every pair of groups
    that have the rate, for each of the gap's rates), or None where a rate has fewer than two
    groups; following the module's derivation."""
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
        parts = []
        for name in names:
            values, present = rates[name]
            groups = np.flatnonzero(present)
            if len(groups) < 2:
                break
            g, h = np.triu_indices(len(groups), k=1)
            parts.append(values[:, groups[g]] - values[:, groups[h]])
        result[gap] = np.hstack(parts) if len(parts) == len(names) else None
    return result


def simultaneous_ranges(differences: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """``(L, U)`` per column of ``differences`` (draws × pairs): equal-tailed ranges cut at one
    tail depth, chosen so that a share ``level`` of the draws lies in every range at once
    (step 1 of the module's derivation)."""
    n = differences.shape[0]
    order = np.argsort(differences, axis=0, kind="stable")
    ordered = np.take_along_axis(differences, order, axis=0)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n)[:, None], axis=0)
    # a draw's depth in a column: how many draws lie at least as far out on its side
    depth = np.minimum(rank + 1, n - rank).min(axis=1)
    # the largest depth t with #(depth >= t) >= level·n: the (n − ⌈level·n⌉)-th smallest depth
    inside = int(np.ceil(level * n - 1e-9))
    tau = int(np.sort(depth)[n - inside]) if inside > 0 else n // 2
    return ordered[tau - 1], ordered[n - tau]


def gap_interval(differences: np.ndarray, level: float) -> list[float]:
    """The interval of ``max |d|`` over the columns of ``differences`` (step 2)."""
    low, high = simultaneous_ranges(differences, level)
    distance = np.where(low > 0, low, np.where(high < 0, -high, 0.0))
    return [float(distance.max()), float(np.maximum(np.abs(low), np.abs(high)).max())]


def gap_intervals(y_true, y_pred, groups, *, seed: int = 0, level: float = LEVEL, draws: int = DRAWS) -> dict:
    """The metrics.json block's ``gap_intervals``: ``{"method", "level", "draws", "seed",
    "gaps": {gap: [low, high] or None}}`` for 0/1 ``y_true`` and ``y_pred`` and one group
    label per row (see docs/ARTIFACTS.md)."""
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    y_true = np.asarray(y_true).astype(int).ravel()
    y_pred = np.asarray(y_pred).astype(int).ravel()
    counts = GroupCounts.of(y_true, y_pred, group_labels(groups))
    gaps = {gap: None if d is None else gap_interval(d, level)
            for gap, d in difference_draws(counts, draws=draws, seed=seed).items()}
    return {"method": "jeffreys", "level": level, "draws": draws, "seed": seed, "gaps": gaps}
