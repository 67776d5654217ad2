"""The decision threshold that meets a fairness bound on the training rows.

The ensemble predicts the positive class where its score ``F(x)`` exceeds a threshold ``τ``
(0 unless a bound says otherwise).  One threshold for every row: prediction never reads the
protected attribute.  Raising ``τ`` far enough predicts every row negative, lowering it every
row positive, and both have no demographic-parity or equal-opportunity gap at all, so some
``τ`` always meets a bound ``gap <= ε`` on the training rows; :func:`choose_threshold` returns
the most accurate such ``τ``.

All thresholds are scored at once: the distinct training scores ``u_1 < ... < u_K`` cut the line
into ``K + 1`` intervals, and predicting positive above the ``k``-th cut is a suffix of the sorted
scores, so the positives of every group and label under every cut are suffix sums of one
``(K, 2·groups)`` count table.  The threshold of a cut is the midpoint between the two scores it
separates, or the lower of two adjacent floats (below the lowest score: 1 below it; above the
highest: the highest score itself, as ``F > τ`` is then false for every row).
"""
from __future__ import annotations

import numpy as np

from fairspec.registry.criteria import MET_TOLERANCE


def threshold_table(score: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int, positives_only: bool):
    """``(thresholds, accuracy, gap)`` of every cut (module docstring), lowest threshold first."""
    u, cell = np.unique(score, return_inverse=True)
    K = len(u)
    counts = np.bincount(cell * 2 * n_groups + 2 * groups + y, minlength=K * 2 * n_groups).reshape(K, 2 * n_groups)
    # positives when the k lowest distinct scores are predicted negative: suffix sums, k = 0..K
    above = np.vstack([np.cumsum(counts[::-1], axis=0)[::-1], np.zeros((1, 2 * n_groups))])
    total = counts.sum(axis=0)
    neg_rows, pos_rows = total[0::2], total[1::2]  # per group
    pred_neg_label, pred_pos_label = above[:, 0::2], above[:, 1::2]  # (K+1, groups)
    correct = pred_pos_label.sum(axis=1) + (neg_rows.sum() - pred_neg_label.sum(axis=1))
    accuracy = correct / max(len(score), 1)
    if positives_only:
        num, den = pred_pos_label, pos_rows
    else:
        num, den = pred_neg_label + pred_pos_label, neg_rows + pos_rows
    present = den > 0
    if present.sum() >= 2:
        rates = num[:, present] / den[present]
        gap = rates.max(axis=1) - rates.min(axis=1)
    else:
        gap = np.zeros(K + 1)
    thresholds = np.empty(K + 1)
    thresholds[0] = u[0] - 1.0
    mid = u[:-1] + (u[1:] - u[:-1]) / 2.0
    thresholds[1:K] = np.where(mid < u[1:], mid, u[:-1])  # adjacent floats: the midpoint rounds up
    thresholds[K] = u[-1]
    return thresholds, accuracy, gap


def choose_threshold(score: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int, positives_only: bool,
                     bound: float) -> tuple[float, float, float]:
    """``(τ, training accuracy, training gap)`` of the most accurate threshold whose training
    gap meets ``bound`` (ties: the threshold nearest 0, the ensemble's own)."""
    thresholds, accuracy, gap = threshold_table(score, np.asarray(y, np.int64), np.asarray(groups, np.int64),
                                                n_groups, positives_only)
    ok = gap <= bound + MET_TOLERANCE
    best = accuracy[ok].max()
    candidates = np.flatnonzero(ok & (accuracy >= best))
    k = candidates[np.argmin(np.abs(thresholds[candidates]))]
    return float(thresholds[k]), float(accuracy[k]), float(gap[k])
