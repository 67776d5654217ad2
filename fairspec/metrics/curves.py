"""The curves the report draws per group: ROC curves and calibration bins.

Both are measured once, on the test rows, and written to metrics.json, so that ``fairspec
report`` redraws them from the file.  ABROCA (:mod:`fairspec.metrics.roc`) is computed on the
full curves; the figure needs fewer points, so each group's curve keeps at most
:data:`ROC_POINTS` of its vertices (always its first and last), rounded to four decimals: a
drawn line 0.0001 off is invisible, and ``drop_intermediate`` has already removed the points
that lie on a straight segment.

Calibration (a reliability diagram) is meaningful only where the score claims to be a
probability: :data:`CALIBRATION_BINS` equal-width bins of the score on [0, 1], and per group
and bin the mean score, the positives and the rows; a bin with no row of the group is left
out.  The report draws the observed share of positives against the mean score with a Jeffreys
interval from the counts.
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_curve

from fairspec.metrics.groups import distinct_labels, group_labels, zero_one_labels

#: the most vertices of one group's ROC curve kept for the figure
ROC_POINTS = 60
#: equal-width bins of the score for the calibration figure
CALIBRATION_BINS = 10


def _thinned(fpr: np.ndarray, tpr: np.ndarray, most: int) -> list[list[float]]:
    if len(fpr) > most:
        keep = np.unique(np.linspace(0, len(fpr) - 1, most).round().astype(int))
        fpr, tpr = fpr[keep], tpr[keep]
    return [[round(float(x), 4), round(float(y), 4)] for x, y in zip(fpr, tpr)]


def roc_by_group(y_true, y_score, groups, most: int = ROC_POINTS) -> dict:
    """``{"groups": {group: [[fpr, tpr], ...]}}`` from (0, 0) to (1, 1), for every group whose rows
    hold both classes (a one-class group has no ROC curve, as ABROCA leaves it out)."""
    y_true = zero_one_labels(y_true, "y_true")
    score = np.asarray(y_score, dtype=float).ravel()
    names, index = distinct_labels(group_labels(groups))
    out = {}
    for i, name in enumerate(names):
        rows = index == i
        positives = int(y_true[rows].sum())
        if 0 < positives < int(rows.sum()):
            fpr, tpr, _ = roc_curve(y_true[rows], score[rows], drop_intermediate=True)
            out[str(name)] = _thinned(fpr, tpr, most)
    return {"groups": out}


def calibration_by_group(y_true, y_score, groups, bins: int = CALIBRATION_BINS) -> dict:
    """``{"bins": bins, "groups": {group: [[mean score, positives, rows], ...]}}``, one entry per
    non-empty bin of ``[k/bins, (k+1)/bins)`` (the last bin holds 1)."""
    y_true = zero_one_labels(y_true, "y_true")
    score = np.asarray(y_score, dtype=float).ravel()
    names, index = distinct_labels(group_labels(groups))
    which = np.minimum((np.clip(score, 0.0, 1.0) * bins).astype(int), bins - 1)
    out = {}
    for i, name in enumerate(names):
        rows = index == i
        n = np.bincount(which[rows], minlength=bins)
        positives = np.bincount(which[rows], weights=y_true[rows], minlength=bins)
        total = np.bincount(which[rows], weights=score[rows], minlength=bins)
        out[str(name)] = [[round(float(total[k] / n[k]), 4), int(positives[k]), int(n[k])]
                          for k in range(bins) if n[k] > 0]
    return {"bins": bins, "groups": out}
