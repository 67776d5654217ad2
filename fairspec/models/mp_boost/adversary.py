"""The adversary of Fair MP-Boost: how well the new tree's output reveals each row's group.

Fair MP-Boost (Little, Halder Lina & Allen, arXiv 2404.01521) draws rows with probabilities
``p̃ = (1 - α)·L_A + α·L_F``; ``L_F`` comes from an adversary that predicts the protected
attribute from the output of the tree just fitted, and rows whose group it predicts well are
drawn more often.  We take ``L_F(i)`` to be the probability the adversary gives row ``i``'s own
group, ``P(S = s_i | h(x_i))`` (``exp(-log loss)``), normalised to sum 1 over the rows.

A tree's output takes one value per leaf (a few more under fractional routing), so the rows
are first counted per *cell* (distinct output) and group: the adversary is fitted on that
small table, weighted by the counts, which is the same fit as on the rows one by one, and
each row then reads its cell's probability.  Per round that is one ``bincount`` over the rows
and one gather, however the adversary is fitted.

:data:`ADVERSARIES` is the extension point: a name, as the spec's ``adversary`` parameter
writes it, and a function ``(z, counts) -> probabilities`` from the cells' outputs ``z`` and
their ``(cells, groups)`` row counts to each cell's ``(cells, groups)`` group probabilities.

``logistic`` (the paper's default): a (multinomial, for more than two groups) logistic
regression of the group on ``[1, z]``, fitted by :data:`NEWTON_STEPS` Newton steps from the
groups' prior.  A ridge of :data:`RIDGE_PER_ROW` per row on the standardised coefficients keeps
the slope finite when the output separates the groups (a tree with two leaves, one per group).

``group_rates``: the Bayes adversary of a tree: each cell's own group shares.
"""
from __future__ import annotations

import numpy as np

NEWTON_STEPS = 6
RIDGE_PER_ROW = 1e-4


def _softmax_last_zero(eta: np.ndarray) -> np.ndarray:
    """Scores ``(C, K)`` of the first ``K`` groups, the last group's fixed at 0 -> ``(C, K+1)``."""
    full = np.concatenate([eta, np.zeros((eta.shape[0], 1))], axis=1)
    full = np.exp(full - full.max(axis=1, keepdims=True))
    return full / full.sum(axis=1, keepdims=True)


def logistic_adversary(z: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Group probabilities per cell from a logistic regression of the group on ``[1, z]``
    fitted to the rows that ``counts`` (cells x groups) tallies."""
    n_cells, n_groups = counts.shape
    total = counts.sum()
    per_group = counts.sum(axis=0)
    if total <= 0 or (per_group > 0).sum() < 2:
        return np.full((n_cells, n_groups), 1.0)
    rows = counts.sum(axis=1)
    mean = (rows * z).sum() / total
    sd = np.sqrt((rows * (z - mean) ** 2).sum() / total)
    x = (z - mean) / sd if sd > 0 else np.zeros(n_cells)
    if n_groups == 2:
        return _binary_logistic(x, counts, total)
    X = np.column_stack([np.ones(n_cells), x])  # (C, 2)
    K = n_groups - 1
    prior = np.maximum(per_group, 0.5) / total
    B = np.zeros((2, K))
    B[0] = np.log(prior[:K] / prior[K])
    ridge = RIDGE_PER_ROW * total
    eye = np.eye(K)
    for _ in range(NEWTON_STEPS):
        P = _softmax_last_zero(X @ B)[:, :K]  # (C, K)
        grad = X.T @ (counts[:, :K] - rows[:, None] * P) - ridge * B  # (2, K)
        W = rows[:, None, None] * P[:, :, None] * (eye[None] - P[:, None, :])  # (C, K, K)
        H = np.einsum("ca,cb,ckl->akbl", X, X, W).reshape(2 * K, 2 * K) + ridge * np.eye(2 * K)
        try:
            step = np.linalg.solve(H, grad.reshape(2 * K))
        except np.linalg.LinAlgError:
            break
        B += step.reshape(2, K)
    return _softmax_last_zero(X @ B)


def _binary_logistic(x: np.ndarray, counts: np.ndarray, total: float) -> np.ndarray:
    """Two groups: :func:`logistic_adversary`'s fit with the 2x2 Newton system written out
    (the same iterates; the general path's einsum and solve cost more than the fit here)."""
    rows = counts.sum(axis=1)
    k = counts[:, 0]  # the first group is modelled, the second is the reference
    ridge = RIDGE_PER_ROW * total
    prior = max(k.sum(), 0.5) / total
    a, b = np.log(prior / max(1.0 - prior, 0.5 / total)), 0.0
    for _ in range(NEWTON_STEPS):
        pr = 1.0 / (1.0 + np.exp(-(a + b * x)))
        r = k - rows * pr
        w = rows * pr * (1.0 - pr)
        wx = w * x
        g0, g1 = r.sum() - ridge * a, r @ x - ridge * b
        h00, h01, h11 = w.sum() + ridge, wx.sum(), wx @ x + ridge
        det = h00 * h11 - h01 * h01
        if not det > 0:
            break
        a += (h11 * g0 - h01 * g1) / det
        b += (h00 * g1 - h01 * g0) / det
    pr = 1.0 / (1.0 + np.exp(-(a + b * x)))
    return np.column_stack([pr, 1.0 - pr])


def group_rate_adversary(z: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Group probabilities per cell: the cell's own group shares (the Bayes adversary)."""
    rows = counts.sum(axis=1, keepdims=True)
    return np.where(rows > 0, counts / np.maximum(rows, 1e-300), 1.0)


ADVERSARIES = {"logistic": logistic_adversary, "group_rates": group_rate_adversary}


def fairness_weights(cell: np.ndarray, z: np.ndarray, groups: np.ndarray, n_groups: int, y: np.ndarray,
                     positives_only: bool, adversary: str) -> np.ndarray:
    """``L_F``: the adversary's probability of each row's own group, normalised to sum 1.

    ``cell`` is each row's cell (distinct tree output) and ``z`` each cell's output.
    ``positives_only`` (equal opportunity, the paper's TPR variant): the adversary is fitted on
    the positive rows and scores them; a negative row, which the criterion does not compare,
    gets the positives' mean, so the negatives keep the share of the draw they would have had
    uniformly (a zero would leave a fairness-only round, α = 1, without negative rows).
    """
    n_cells = len(z)
    key = cell * n_groups + groups
    fit = ADVERSARIES[adversary]
    if positives_only:
        pos = y == 1
        counts = np.bincount(key[pos], minlength=n_cells * n_groups).reshape(n_cells, n_groups).astype(float)
        own = fit(z, counts).reshape(-1)[key]
        mean_pos = own[pos].mean() if pos.any() else 1.0
        own = np.where(pos, own, mean_pos)
    else:
        counts = np.bincount(key, minlength=n_cells * n_groups).reshape(n_cells, n_groups).astype(float)
        own = fit(z, counts).reshape(-1)[key]
    total = own.sum()
    return own / total if total > 0 else np.full(len(own), 1.0 / max(len(own), 1))
