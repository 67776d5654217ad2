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
with 1 positive predicted 0 has bootstrap TPR 0 in every resample).  The selection rate and
the accuracy get the same kind of posterior, of the group's S predicted positives and C
correct predictions among its n rows: Beta(S + ½, n − S + ½) and Beta(C + ½, n − C + ½).
(Built as q_g TPR_g + (1 − q_g) FPR_g, with the share of positives q_g held fixed, a sum of
two posteriors has so little mass near 0 that a small group with one predicted positive among
ten rows rules out a selection rate of 0.02.)

A gap is not a rate but a largest difference, ``max over groups g, h of |r_g − r_h|`` (over
the TPR and FPR pairs together for equalized odds), and it is 0 exactly when the rates agree.
Quantiles of the posterior draws of the gap itself would never reach 0: under a continuous
prior two groups' rates are never equal, so the 2.5 % quantile of ``|r_a − r_b|`` is above
0 even when the measured rates are identical, and a model with no gap at all (one that
predicts 0 for everyone) would get an interval that excludes its true gap every time.  So
the interval is the image, under the gap, of a region that holds the rates (or their
differences) all at once with probability ``level``, and it takes one of two forms:

*Few pairs* (at most :data:`MAX_PAIRS`: two or three groups, or two under equalized odds):
the signed differences ``d_gh = r_g − r_h`` of the draws, whose posteriors do pass through 0.

1. a simultaneous region: one equal-tailed range ``[L_gh, U_gh]`` per pair, all cut at the
   same tail depth τ, with τ the largest depth at which a share ``level`` of the draws lies
   inside every range at once (each draw's depth is the smallest, over the pairs, of the
   share of draws at least as far out on its side; τ is the ``1 − level`` quantile of those
   depths).  With one pair this is the equal-tailed ``level`` range of ``d``.  Each range is
   then widened, if need be, to hold the measured difference, and, when some group's rate is
   measured at exactly 0 or 1, joined with the same ranges computed from the draws with every
   such rate pinned at its measured value: together the analogue of Brown, Cai and DasGupta's
   boundary rule for the Jeffreys interval (lower end 0 when no row is a success, upper end 1
   when all are).  A group with no predicted positive has a posterior with little mass near
   0; without the widening it can push the range off 0 when the rates agree exactly, and
   without the pinned draws the range of its difference to another group stops short of the
   difference its rate at exactly 0 gives (the coverage measured without them is in
   benchmarks/README.md, "Gap intervals"; ``tests/metrics`` checks the coverage);
2. its image under the gap: ``gap = max |d_gh|`` lies between the largest distance from 0
   to a range, ``max_gh dist(0, [L_gh, U_gh])``, and the largest end in absolute value,
   ``max_gh max(|L_gh|, |U_gh|)``.  When every range contains 0 the interval starts at 0.

*More pairs*: a simultaneous region over hundreds of pairs needs tail depths far finer than
any affordable number of draws resolves (with 4000 draws, τ reaches a single draw by 12
groups under equalized odds, and the region then covers far less than ``level``), and the
pairs grow with the square of the groups.  So each group's rate gets its own Jeffreys
interval, computed exactly (Beta quantiles, with the boundary rule above) at level
``level^(1/m)`` for the gap's ``m`` group-and-rate intervals: the groups are independent,
so all ``m`` hold at once with probability ``level`` (for equalized odds a group's TPR and
FPR are independent too).  A rate's range of groups then lies in
``[max(0, max_g l_g − min_h u_h), max_g u_g − min_h l_h]``, and the gap (the larger of its
rates' ranges) between the largest low end and the largest high end.

Either way the gap lies in the interval whenever the rates lie in the region, so the interval
covers at least as often as the region does, and it always holds the measured gap.  The
draws are seeded, so the same predictions give the same interval.

Coverage (measured in benchmarks/README.md, "Gap intervals"): close to ``level`` for a true
gap above 0, a little under it where the rates truly agree and each counts 5–10 rows.  The
region is a posterior one: the Jeffreys posteriors cover close to ``level`` on average, not at every
rate and size (a single group's Jeffreys interval at 95% covers 85–89 times in 100 at its
worst rates), and the equal-tailed range of a difference of two such posteriors excludes 0
more often than 5% when both counts are tiny (3 of 5 against 0 of 5 is outside it, where
Fisher's exact test gives p = 0.17).  The report calls the interval a range of gaps the test
rows are consistent with, not a guarantee.

The interval is about which rows landed in the test set, for this model; it says nothing of
how another training sample would have changed the model.  With many groups the region needs
every group at once, so the interval widens with their number, which is the honest answer: a
gap over many small groups is not known to be small.
"""
from __future__ import annotations

import numpy as np

from fairspec.metrics.groups import GAP_RATES, GroupCounts, group_labels, zero_one_labels

#: the interval's coverage
LEVEL = 0.95
#: posterior draws; the ends of a 95% interval then move between seeds by under 0.002 on the
#: bundled examples' test rows (benchmarks/README.md, "Gap intervals")
DRAWS = 4000
#: the most signed differences the draws bound together: at 4000 draws and a level of 0.95,
#: three pairs leave each range's tails some 40 draws deep (a Bonferroni bound); past it the
#: per-group form (module docstring) takes over
MAX_PAIRS = 3


def _successes(counts: GroupCounts) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per rate, each group's successes and the rows the rate counts them among."""
    return {"tpr": (counts.true_positives, counts.positives), "fpr": (counts.false_positives, counts.negatives),
            "selection_rate": (counts.selected, counts.rows), "accuracy": (counts.correct, counts.rows)}


def _measured(counts: GroupCounts) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each rate's measured value per group (0 where undefined) and which groups have it."""
    return {name: (np.divide(k, n, out=np.zeros(len(n)), where=n > 0), n > 0)
            for name, (k, n) in _successes(counts).items()}


def _pairs(present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    groups = np.flatnonzero(present)
    g, h = np.triu_indices(len(groups), k=1)
    return groups[g], groups[h]


def n_pairs(counts: GroupCounts, gap: str) -> int | None:
    """How many signed differences the gap compares (None: fewer than two groups have a rate)."""
    total = 0
    for name in GAP_RATES[gap]:
        k = int(_measured(counts)[name][1].sum())
        if k < 2:
            return None
        total += k * (k - 1) // 2
    return total


def has_boundary_rate(counts: GroupCounts) -> bool:
    """Whether some group's measured rate is exactly 0 or 1 (no success, or all)."""
    return any(bool(((n > 0) & ((k == 0) | (k == n))).any()) for k, n in _successes(counts).values())


def difference_draws(counts: GroupCounts, *, draws: int = DRAWS, seed: int = 0,
                     pin_boundaries: bool = False) -> dict[str, np.ndarray | None]:
    """Posterior draws of the signed differences ``r_g − r_h`` behind every gap of
    :data:`GAP_RATES`: an array of shape ``(draws, pairs)`` per gap (every pair of groups
    that have the rate, for each of the gap's rates), or None where a rate has fewer than two
    groups; following the module's derivation.  ``pin_boundaries`` sets every rate measured
    at 0 or 1 to exactly that value in every draw (step 1's boundary rule); the other draws
    are the same as without it."""
    rng = np.random.default_rng(seed)
    values = {name: rng.beta(k + 0.5, n - k + 0.5, size=(draws, len(counts.names)))
              for name, (k, n) in _successes(counts).items()}
    if pin_boundaries:
        for name, (k, n) in _successes(counts).items():
            values[name][:, (n > 0) & (k == 0)] = 0.0
            values[name][:, (n > 0) & (k == n)] = 1.0
    measured = _measured(counts)
    result: dict[str, np.ndarray | None] = {}
    for gap, names in GAP_RATES.items():
        parts = []
        for name in names:
            g, h = _pairs(measured[name][1])
            if len(g) == 0:
                break
            parts.append(values[name][:, g] - values[name][:, h])
        result[gap] = np.hstack(parts) if len(parts) == len(names) else None
    return result


def measured_differences(counts: GroupCounts, gap: str) -> np.ndarray:
    """The measured ``r_g − r_h``, in the column order of :func:`difference_draws`."""
    measured = _measured(counts)
    parts = []
    for name in GAP_RATES[gap]:
        value, present = measured[name]
        g, h = _pairs(present)
        parts.append(value[g] - value[h])
    return np.concatenate(parts)


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
    tau = int(np.sort(depth)[n - inside]) if inside > 0 else max(n // 2, 1)
    return ordered[tau - 1], ordered[n - tau]


def gap_interval(differences: np.ndarray, level: float, measured: np.ndarray | None = None,
                 pinned: np.ndarray | None = None) -> list[float]:
    """The interval of ``max |d|`` over the columns of ``differences`` (step 2), each column's
    range first joined with that of the ``pinned`` draws and widened to hold its ``measured``
    difference (step 1's boundary rule)."""
    low, high = simultaneous_ranges(differences, level)
    if pinned is not None:
        pinned_low, pinned_high = simultaneous_ranges(pinned, level)
        low, high = np.minimum(low, pinned_low), np.maximum(high, pinned_high)
    if measured is not None:
        low, high = np.minimum(low, measured), np.maximum(high, measured)
    distance = np.where(low > 0, low, np.where(high < 0, -high, 0.0))
    return [float(distance.max()), float(np.maximum(np.abs(low), np.abs(high)).max())]


def jeffreys_interval(successes: np.ndarray, trials: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed Jeffreys intervals of ``successes`` out of ``trials`` (every trials > 0),
    with Brown, Cai and DasGupta's boundary rule: 0 below when none succeed, 1 above when all do.
    The quantiles are ``scipy.special.betaincinv``, the function ``scipy.stats.beta.ppf`` calls
    (Boost's ``ibeta_inv``; the same bits, ``tests/metrics/test_metrics_intervals.py``):
    ``scipy.stats`` takes 1.5 s to import, a third of ``fairspec predict --metrics``."""
    from scipy.special import betaincinv

    a, b = successes + 0.5, trials - successes + 0.5
    tail = (1 - level) / 2
    low = np.where(successes == 0, 0.0, betaincinv(a, b, tail))
    high = np.where(successes == trials, 1.0, betaincinv(a, b, 1 - tail))
    return low, high


def box_gap_interval(counts: GroupCounts, gap: str, level: float) -> list[float]:
    """The many-pairs form: every group's rate in an exact Jeffreys interval, all at once with
    probability ``level``, and the range of rates those intervals allow."""
    successes = _successes(counts)
    names = GAP_RATES[gap]
    kept = {name: successes[name][1] > 0 for name in names}
    m = sum(int(k.sum()) for k in kept.values())
    lows, highs = [], []
    for name in names:
        k, n = (np.asarray(v, dtype=float)[kept[name]] for v in successes[name])
        low, high = jeffreys_interval(k, n, level ** (1.0 / m))
        lows.append(max(0.0, float(low.max() - high.min())))
        highs.append(float(high.max() - low.min()))
    return [max(lows), max(highs)]


def gap_intervals(y_true, y_pred, groups, *, seed: int = 0, level: float = LEVEL, draws: int = DRAWS) -> dict:
    """The metrics.json block's ``gap_intervals``: ``{"method", "level", "draws", "seed",
    "gaps": {gap: [low, high] or None}}`` for 0/1 ``y_true`` and ``y_pred`` and one group
    label per row (see docs/ARTIFACTS.md)."""
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    y_true, y_pred = zero_one_labels(y_true, "y_true"), zero_one_labels(y_pred, "y_pred")
    return gap_intervals_of_counts(GroupCounts.of(y_true, y_pred, group_labels(groups)), seed=seed, level=level,
                                   draws=draws)


def gap_intervals_of_counts(counts: GroupCounts, *, seed: int = 0, level: float = LEVEL, draws: int = DRAWS) -> dict:
    """:func:`gap_intervals` from the per-group counts alone, which is all it reads (so counts
    merged chunk by chunk give the same intervals)."""
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    sizes = {gap: n_pairs(counts, gap) for gap in GAP_RATES}
    few_pairs = any(p is not None and p <= MAX_PAIRS for p in sizes.values())
    draws_of = difference_draws(counts, draws=draws, seed=seed) if few_pairs else {}
    pinned_of = (difference_draws(counts, draws=draws, seed=seed, pin_boundaries=True)
                 if few_pairs and has_boundary_rate(counts) else {})
    gaps = {}
    for gap, pairs in sizes.items():
        if pairs is None:
            gaps[gap] = None
        elif pairs <= MAX_PAIRS:
            gaps[gap] = gap_interval(draws_of[gap], level, measured_differences(counts, gap), pinned_of.get(gap))
        else:
            gaps[gap] = box_gap_interval(counts, gap, level)
    return {"method": "jeffreys", "level": level, "draws": draws, "seed": seed, "gaps": gaps}
