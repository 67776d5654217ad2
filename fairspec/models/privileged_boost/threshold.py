"""A fairness bound met by the decision threshold, chosen on the training rows.

The deployed model reads no group (the protected attribute is at most privileged
information), so one threshold ``t`` serves every row: ``ŷ = [p > t]``.  Every distinct
threshold is one cut of the rows sorted by score; per group, cumulative counts of positives
and negatives above each cut give every cut's selection rates, TPRs, FPRs and accuracies at
once, hence its gap and its accuracy.  The threshold kept is

* 1/2 when the gap at 1/2 already meets the bound (the bound does not bind, and the model
  predicts as it would without it);
* otherwise the cut of highest training accuracy among those whose gap meets the bound
  (ties: the one nearest 1/2).

Predicting one class for every row (``t = 0`` or ``t = 1``) has no gap in selection rates,
TPRs or FPRs, so a bound on those is always met; accuracy parity may admit no threshold at
all, and then no model is returned (:class:`~fairspec.errors.NoUsableModelError`).
The bound holds on the training rows; on unseen rows it is measured, not promised.
"""
from __future__ import annotations

import numpy as np

from fairspec.errors import NoUsableModelError
from fairspec.registry.criteria import MET_TOLERANCE, Criterion

DEFAULT_THRESHOLD = 0.5


def cut_statistics(p: np.ndarray, y: np.ndarray, codes: np.ndarray, n_groups: int):
    """``(thresholds, rates, accuracy)`` of every distinct threshold: ``thresholds`` descending
    from 1 (nothing positive) to 0 (everything positive), ``rates[name]`` an array ``(cuts,
    groups)`` (NaN where a group has no row in the rate's condition), ``accuracy`` per cut."""
    order = np.argsort(-p, kind="stable")
    ps, ys, gs = p[order], y[order], codes[order]
    # a cut after position i (0-based) makes rows 0..i positive; only between distinct scores
    ends = np.flatnonzero(np.r_[ps[1:] != ps[:-1], True])
    onehot_pos = np.zeros((len(p), n_groups))
    onehot_pos[np.arange(len(p)), gs] = ys
    onehot_neg = np.zeros((len(p), n_groups))
    onehot_neg[np.arange(len(p)), gs] = 1 - ys
    tp = np.vstack([np.zeros(n_groups), np.cumsum(onehot_pos, axis=0)[ends]])
    fp = np.vstack([np.zeros(n_groups), np.cumsum(onehot_neg, axis=0)[ends]])
    P = onehot_pos.sum(axis=0)
    N = onehot_neg.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = {
            "selection_rate": (tp + fp) / (P + N),
            "tpr": tp / P,
            "fpr": fp / N,
            "accuracy": (tp + (N - fp)) / (P + N),
        }
    rates = {k: np.where(np.isfinite(v), v, np.nan) for k, v in rates.items()}
    accuracy = (tp.sum(axis=1) + (N.sum() - fp.sum(axis=1))) / len(p)
    # ŷ = [p > t]: nothing positive at t = 1; the cut after position i at t = the next lower
    # score (every row of a lower or equal score stays negative); everything positive at t = 0
    thresholds = np.r_[1.0, ps[ends[:-1] + 1], 0.0]
    return thresholds, rates, accuracy


def choose_threshold(p: np.ndarray, y: np.ndarray, groups: np.ndarray, criterion: Criterion) -> tuple[float, dict]:
    """The threshold meeting ``criterion.bound`` on these rows (module docstring), and a log."""
    y = np.asarray(y, dtype=int)
    pred = (p > DEFAULT_THRESHOLD).astype(int)
    gap_default = criterion.gap(y, pred, groups)
    log = {"threshold_gap_at_half": gap_default}
    if criterion.allows(gap_default):
        log["threshold_chosen_for_bound"] = False
        return DEFAULT_THRESHOLD, log
    names, codes = np.unique(groups, return_inverse=True)
    thresholds, rates, accuracy = cut_statistics(p, y, codes, len(names))
    gap = np.zeros(len(thresholds))
    for rate in criterion.rates:
        r = rates[rate]
        with np.errstate(invalid="ignore"):
            gap = np.maximum(gap, np.nanmax(r, axis=1) - np.nanmin(r, axis=1))
    feasible = gap <= criterion.bound + MET_TOLERANCE
    if not feasible.any():
        raise NoUsableModelError(f"no decision threshold meets {criterion.label()} on the training rows (the "
                                 f"smallest gap over all thresholds is {float(np.nanmin(gap)):.4g})")
    best = np.flatnonzero(feasible & (accuracy >= accuracy[feasible].max() - 1e-12))
    pick = best[np.argmin(np.abs(thresholds[best] - DEFAULT_THRESHOLD))]
    t = float(thresholds[pick])
    log["threshold_chosen_for_bound"] = True
    return t, log
