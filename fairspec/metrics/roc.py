"""ABROCA: the absolute area between the ROC curves of two groups.

Gardner, Brooks & Baker (2019), "Evaluating the Fairness of Predictive Student Models
Through Slicing Analysis", LAK'19, define (their Eq. 1)

    ABROCA = ∫_0^1 | ROC_b(t) - ROC_c(t) | dt

where ``ROC_g(t)`` is the true-positive rate of group ``g`` at false-positive rate ``t``.
It is threshold-free: it compares the scores, not one cut of them.  Unlike a rate gap it is
0 only when both groups get the same ROC curve, and at most 1.

The paper integrates numerically after interpolating each curve on a grid.  We integrate
exactly instead.  Each empirical ROC curve (the points of every distinct score threshold,
joined by straight lines, which is what ties in the scores mean) is piecewise linear in
``t``, with vertical jumps where several positives share one threshold while the FPR does
not move.  Merge the breakpoints of both curves into ``0 = x_0 < x_1 < ... < x_m = 1``.
On each open interval ``(x_k, x_{k+1})`` both curves are linear, hence so is their
difference ``d``; it starts at the right limit ``d_L = d(x_k^+)`` and ends at the left limit
``d_R = d(x_{k+1}^-)`` (jumps happen only at breakpoints and have measure zero).  With
``h = x_{k+1} - x_k``:

* if ``d_L`` and ``d_R`` have the same sign (or one is 0): ``∫|d| = h (|d_L| + |d_R|) / 2``
  (a trapezoid);
* otherwise ``d`` crosses 0 at ``h |d_L| / (|d_L| + |d_R|)`` from the left end and the
  area is two triangles: ``∫|d| = h (d_L² + d_R²) / (2 (|d_L| + |d_R|))``.

Summing over intervals gives ABROCA exactly (up to floating point), whatever the grids.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from fairspec.metrics.auc import roc_curve_points


def roc_points(y_true: np.ndarray, y_score: np.ndarray, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    """The empirical ROC curve ``(fpr, tpr)``, fpr non-decreasing, from (0, 0) to (1, 1).

    ``y_true`` must hold both classes.  Consecutive points with the same FPR form a
    vertical jump; they stay in order of increasing TPR.
    """
    fpr, tpr = roc_curve_points(y_true, y_score, sample_weight, drop_intermediate=False)
    return fpr.astype(float), tpr.astype(float)


def _right_limit(fpr: np.ndarray, tpr: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``ROC(x^+)``: after a vertical jump at ``x`` the curve continues from its top point."""
    i = np.searchsorted(fpr, x, side="right") - 1  # last point with fpr <= x
    i = np.clip(i, 0, len(fpr) - 1)
    j = np.minimum(i + 1, len(fpr) - 1)
    span = fpr[j] - fpr[i]
    frac = np.where(span > 0, (x - fpr[i]) / np.where(span > 0, span, 1.0), 0.0)
    return tpr[i] + frac * (tpr[j] - tpr[i])


def _left_limit(fpr: np.ndarray, tpr: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``ROC(x^-)``: the curve arrives at ``x`` at the bottom point of a vertical jump."""
    j = np.searchsorted(fpr, x, side="left")  # first point with fpr >= x
    j = np.clip(j, 0, len(fpr) - 1)
    i = np.maximum(j - 1, 0)
    span = fpr[j] - fpr[i]
    frac = np.where(span > 0, (x - fpr[i]) / np.where(span > 0, span, 1.0), 1.0)
    return tpr[i] + frac * (tpr[j] - tpr[i])


def area_between_curves(curve_a: tuple[np.ndarray, np.ndarray],
                        curve_b: tuple[np.ndarray, np.ndarray]) -> float:
    """``∫_0^1 |TPR_a(t) - TPR_b(t)| dt`` of two piecewise-linear ROC curves, exactly."""
    fa, ta = curve_a
    fb, tb = curve_b
    x = np.union1d(fa, fb)
    x = x[(x >= 0.0) & (x <= 1.0)]
    lo, hi = x[:-1], x[1:]
    d_left = _right_limit(fa, ta, lo) - _right_limit(fb, tb, lo)
    d_right = _left_limit(fa, ta, hi) - _left_limit(fb, tb, hi)
    h = hi - lo
    a_l, a_r = np.abs(d_left), np.abs(d_right)
    same_sign = d_left * d_right >= 0
    denom = np.where(same_sign, 1.0, a_l + a_r)
    area = np.where(same_sign, h * (a_l + a_r) / 2.0, h * (d_left ** 2 + d_right ** 2) / (2.0 * denom))
    return float(area.sum())


def _group_masks(groups: np.ndarray):
    """Each distinct group's rows, in sorted order of the groups.  Groups that are all text are
    told apart by their codes (:func:`fairspec.metrics.groups.distinct_labels`); any other
    array by ``==``, as it compares its values (a NaN label is no group)."""
    from fairspec.metrics.groups import all_text, distinct_labels  # here: groups imports this module

    names, index = distinct_labels(groups)
    if all_text(groups):
        for i in range(len(names)):
            yield index == i
    else:
        for g in names:
            yield groups == g


def abroca(y_true, y_score, groups, sample_weight=None) -> float | None:
    """ABROCA between the groups; with more than two groups, the largest pairwise value.

    A group whose rows hold only one class has no ROC curve and is left out (the same rule
    as for the rate gaps); ``None`` when fewer than two groups have a curve.  ``sample_weight``
    (whole numbers) counts each row that many times: rows of equal group, class and score
    merged into one with their count give the same curves, exactly (each curve's points are
    cumulative counts divided by the totals).
    """
    y_true = np.asarray(y_true).astype(int)
    y_score = np.asarray(y_score, dtype=float)
    groups = np.asarray(groups)
    weight = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    curves = []
    for mask in _group_masks(groups):
        positives = float((y_true[mask] * weight[mask]).sum())
        if 0 < positives < float(weight[mask].sum()):
            curves.append(roc_points(y_true[mask], y_score[mask], None if sample_weight is None else weight[mask]))
    if len(curves) < 2:
        return None
    return max(area_between_curves(a, b) for a, b in combinations(curves, 2))
