"""A bound met by a Lagrange multiplier: the cost-sensitive rows of a fairness constraint.

Agarwal, Beygelzimer, Dudík, Langford & Wallach, "A Reductions Approach to Fair
Classification" (ICML 2018), write a constrained classification problem as the saddle point of
its Lagrangian ``L(Q, λ) = err(Q) + λᵀ(M·μ(Q) - c)`` (their eq. 4) and show that the best
response of the classifier to a fixed ``λ`` is a *cost-sensitive* classification (their
Sec. 3.2 and Example 3 for demographic parity).  ExponentiatedGradient plays the saddle point
and returns a randomised mix of classifiers; here one deterministic model is fitted at one
multiplier, and the multiplier is chosen on the training rows (:mod:`.estimator`).

Our gap is the largest difference of a rate between two groups.  With ``H`` and ``Lo`` the groups
of the highest and the lowest rate of the unconstrained model, the binding constraint is

    μ_H(h) - μ_Lo(h) <= ε,    μ_g(h) = (1/n_g)·Σ_{i: a_i = g} h(x_i)            (demographic parity)

(``n_g`` the group's rows; for equal opportunity the sums and ``n_{g,1}`` run over the
positives of the group only).  For ``h ∈ {0, 1}`` and ``λ >= 0``,

    L(h, λ) = (1/n)·Σ_i 1{h(x_i) ≠ y_i} + λ·(μ_H(h) - μ_Lo(h) - ε)
            = (1/n)·Σ_i [h(x_i)·C¹_i + (1 - h(x_i))·C⁰_i] - λ·ε,

    C⁰_i = 1{y_i = 1},   C¹_i = 1{y_i = 0} + δ_i,
    δ_i = λ·n·(1{a_i = H}/n_H - 1{a_i = Lo}/n_Lo)                  (demographic parity)
    δ_i = λ·n·y_i·(1{a_i = H}/n_{H,1} - 1{a_i = Lo}/n_{Lo,1})      (equal opportunity)

— Agarwal et al.'s costs ``C¹_i = 1{Y_i ≠ 1} + λ_{A_i}/p_{A_i} - Σ_a λ_a`` written for one pair
of groups instead of every group against the mean (``λ_H = λ``, ``λ_Lo = -λ``, no mean term).
Since ``Σ_i [h·C¹ + (1 - h)·C⁰] = Σ_i C⁰_i + Σ_i h(x_i)·(C¹_i - C⁰_i)``, minimising over ``h`` is
the weighted classification (their Sec. 3.2; Zadrozny, Langford & Abe 2003)

    ŷ_i = 1{C⁰_i > C¹_i} = 1{(2·y_i - 1) > δ_i},     w_i = |C⁰_i - C¹_i| = |(2·y_i - 1) - δ_i|.

So a row of the favoured group ``H`` costs ``λ·n/n_H`` more to predict positive and one of
``Lo`` as much less: under demographic parity a positive of ``H`` loses weight (and becomes a
negative once ``λ > n_H/n``), a negative of ``Lo`` likewise; a negative of ``H`` and a positive of
``Lo`` gain weight.  ``λ = 0`` gives ``ŷ = y`` and ``w = 1``: the unconstrained problem.

The boosting rounds fit ``ŷ`` under the weighted exponential loss ``Σ_i w_i·exp(-(2ŷ_i - 1)·F(x_i))``
(:func:`fairspec.models.mp_boost.boosting.boost`, ``fit_labels`` and ``row_weights``): the row
probabilities ``L_A`` become ``∝ w_i·exp(-(2ŷ_i - 1)·F_i)``, the trees learn ``ŷ``, and every
statistic that reads the true labels (out-of-patch accuracy, importances, the adversary)
still reads ``y``.  The prediction never reads the group: ``δ`` moves the *training targets*,
and the trees learn them from the features.  Rows with ``w_i = 0`` (a cost tie) carry no
information and are never drawn.
"""
from __future__ import annotations

import numpy as np


def extreme_groups(predicted: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int,
                   positives_only: bool) -> tuple[int, int] | None:
    """``(H, Lo)``: the groups with the highest and the lowest rate of ``predicted``
    (selection rate, or true-positive rate when ``positives_only``); the first of equals.
    None when fewer than two groups have a rate or all rates are equal."""
    keep = (y == 1) if positives_only else np.ones(len(y), dtype=bool)
    den = np.bincount(groups[keep], minlength=n_groups).astype(float)
    num = np.bincount(groups[keep], weights=predicted[keep].astype(float), minlength=n_groups)
    present = np.flatnonzero(den > 0)
    if len(present) < 2:
        return None
    rates = num[present] / den[present]
    high, low = int(present[np.argmax(rates)]), int(present[np.argmin(rates)])
    if rates.max() == rates.min():
        return None
    return high, low


def flip_multiplier(y: np.ndarray, groups: np.ndarray, high: int, low: int, positives_only: bool) -> float:
    """``λ₀``, the smallest multiplier at which some row's target ``ŷ`` flips: ``|δ_i| = 1`` first
    for the smaller of the constrained rows of ``H`` (positives turn negative) and of ``Lo``
    (negatives turn positive) under demographic parity, ``n_{H,1}/n`` under equal opportunity
    (``Lo``'s positives only gain weight).  Past it the targets of a whole group-and-label cell
    are the other label: :mod:`.estimator` searches multipliers below it."""
    y = np.asarray(y, dtype=np.int64)
    groups = np.asarray(groups, dtype=np.int64)
    n = len(y)
    if positives_only:
        return float(np.count_nonzero((y == 1) & (groups == high))) / n
    return float(min(np.count_nonzero(groups == high), np.count_nonzero(groups == low))) / n


def cost_sensitive_rows(y: np.ndarray, groups: np.ndarray, high: int, low: int, multiplier: float,
                        positives_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(ŷ, w)`` of every row for the multiplier ``λ`` of the constraint
    ``rate_high - rate_low <= ε`` (module docstring): ``ŷ_i = 1{(2y_i - 1) > δ_i}``,
    ``w_i = |(2y_i - 1) - δ_i|``."""
    y = np.asarray(y, dtype=np.int64)
    groups = np.asarray(groups, dtype=np.int64)
    n = len(y)
    cond = (y == 1) if positives_only else np.ones(n, dtype=bool)
    n_high = float(np.count_nonzero(cond & (groups == high)))
    n_low = float(np.count_nonzero(cond & (groups == low)))
    delta = np.zeros(n)
    delta[cond & (groups == high)] = multiplier * n / n_high
    delta[cond & (groups == low)] = -multiplier * n / n_low
    margin = (2.0 * y - 1.0) - delta  # C⁰ - C¹
    return (margin > 0).astype(np.int64), np.abs(margin)
