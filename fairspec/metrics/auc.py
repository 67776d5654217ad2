"""The ROC curve and its area from counts, in numpy alone (``fairspec predict --metrics``).

Scoring a file with a saved model must not import scikit-learn: ``sklearn.metrics`` imports
SciPy's statistics, about 1.5 s of a command that takes five.  This module computes what
scikit-learn's ``roc_curve`` and ``roc_auc_score`` compute, in the same order of operations,
so the values are theirs to the last bit (``tests/metrics/test_auc.py`` compares them):

* rows sorted by score, highest first; one ROC point at the end of each run of equal scores,
  with the cumulative weight of positives (TP) and of negatives (FP) up to it (Fawcett 2006,
  Algorithm 1; the cumulative sums are in float64, as scikit-learn's);
* ``drop_intermediate``: a point where neither cumulative count bends (second difference 0)
  lies on the segment between its neighbours and is dropped, as scikit-learn drops it before
  integrating (the area is the same number mathematically, not always in floating point);
* (0, 0) prepended, FPR = FP / FP_total, TPR = TP / TP_total;
* the area by the trapezoidal rule, ``sum(dx * (y[1:] + y[:-1]) / 2.0)`` (``scipy.integrate.trapezoid``).

Rows of weight 0 are left out, as scikit-learn leaves them out.  Ties within a score are
summed in another order than scikit-learn's only when the weights are not whole numbers
(whole-number sums below 2**53 are exact in any order); every caller weighs rows by counts.
"""
from __future__ import annotations

import numpy as np


def roc_counts(y_true, y_score, sample_weight=None, *, drop_intermediate: bool = True
               ) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative false- and true-positive weights ``(fps, tps)`` at each distinct score,
    highest first, with (0, 0) prepended: the ROC curve before it is divided by the totals."""
    y = np.asarray(y_true).reshape(-1)
    score = np.asarray(y_score, dtype=float).reshape(-1)
    if len(y) != len(score) or (sample_weight is not None and len(sample_weight) != len(y)):
        raise ValueError("y_true, y_score and sample_weight must have one entry per row")
    if not np.all(np.isfinite(score)):
        raise ValueError("y_score holds a NaN or an infinite value")
    positive = (y == 1).astype(np.float64)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if weight is not None:
        keep = weight != 0
        positive, score, weight = positive[keep], score[keep], weight[keep]
    order = np.argsort(-score, kind="stable")  # highest first; ties keep the rows' order
    score, positive = score[order], positive[order]
    ends = np.r_[np.flatnonzero(np.diff(score)), len(score) - 1]
    if weight is None:
        tps = np.cumsum(positive, dtype=np.float64)[ends]
        fps = 1 + ends.astype(np.float64) - tps
    else:
        weight = weight[order]
        tps = np.cumsum(positive * weight, dtype=np.float64)[ends]
        fps = np.cumsum((1 - positive) * weight, dtype=np.float64)[ends]
    if drop_intermediate and len(fps) > 2:
        bends = np.flatnonzero(np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True])
        fps, tps = fps[bends], tps[bends]
    return np.r_[0.0, fps], np.r_[0.0, tps]


def roc_curve_points(y_true, y_score, sample_weight=None, *, drop_intermediate: bool = True
                     ) -> tuple[np.ndarray, np.ndarray]:
    """``(fpr, tpr)`` as ``sklearn.metrics.roc_curve`` returns them; ``y_true`` holds 0/1 and
    both classes (a curve of one class is undefined)."""
    fps, tps = roc_counts(y_true, y_score, sample_weight, drop_intermediate=drop_intermediate)
    if fps[-1] <= 0 or tps[-1] <= 0:
        raise ValueError("a ROC curve needs rows of both classes")
    return fps / fps[-1], tps / tps[-1]


def roc_auc(y_true, y_score, sample_weight=None) -> float:
    """``sklearn.metrics.roc_auc_score`` of 0/1 labels ``y_true`` (both classes present)."""
    fpr, tpr = roc_curve_points(y_true, y_score, sample_weight)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0, dtype=np.float64))
