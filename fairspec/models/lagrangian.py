"""A bound met by a Lagrange multiplier: the cost-sensitive rows of a fairness constraint.

Agarwal, Beygelzimer, Dudík, Langford & Wallach, "A Reductions Approach to Fair
Classification" (ICML 2018), write a constrained classification problem as the saddle point of
its Lagrangian ``L(Q, λ) = err(Q) + λᵀ(M·μ(Q) - c)`` (their eq. 4) and show that the best
response of the classifier to a fixed ``λ`` is a *cost-sensitive* classification (their
Sec. 3.2 and Example 3 for demographic parity).  ExponentiatedGradient plays the saddle point
and returns a randomised mix of classifiers; a family here fits one deterministic model at one
multiplier, and the multiplier is chosen elsewhere (MP-Boost: on the training rows; the tree:
by the calibration's inner folds, :mod:`fairspec.calibration`).  Used by every family that
learns from weighted rows, so it lives above them.

Our gap is the largest difference of a rate between two groups.  Every rate of
:mod:`fairspec.registry.criteria` is linear in the predictions ``h(x_i) ∈ {0, 1}``:

    rate_g(h) = const_g + Σ_{i ∈ g} a_i·h(x_i),
    a_i = 1/n_g                       selection rate (n_g: the group's rows)
    a_i = y_i/n_{g,1}                 true-positive rate (n_{g,1}: its positives)
    a_i = (1 - y_i)/n_{g,0}           false-positive rate
    a_i = (2·y_i - 1)/n_g             accuracy (1{h = y} = 1 - y + (2y - 1)·h)

(:func:`rate_coefficients`).  With ``H`` and ``Lo`` the groups of the highest and the lowest
rate of the unconstrained model, the binding constraint of each rate is
``rate_H(h) - rate_Lo(h) <= ε``; one multiplier ``λ >= 0`` on the sum of the rates' constraints
(equalized odds has two) gives

    L(h, λ) = (1/n)·Σ_i 1{h(x_i) ≠ y_i} + λ·Σ_rates (rate_H(h) - rate_Lo(h) - ε)
            = const + (1/n)·Σ_i h(x_i)·((1 - 2·y_i) + λ·d_i),
    d_i = n·Σ_rates (a_i·1{i ∈ H} - a_i·1{i ∈ Lo})                        (:func:`multiplier_slopes`)

— Agarwal et al.'s costs ``C¹_i - C⁰_i`` written for one pair of groups per rate instead of
every group against the mean.  Minimising over ``h`` is the weighted classification (their
Sec. 3.2; Zadrozny, Langford & Abe 2003)

    ŷ_i = 1{(2·y_i - 1) > λ·d_i},     w_i = |(2·y_i - 1) - λ·d_i|          (:func:`cost_sensitive_rows`).

``λ = 0`` gives ``ŷ = y`` and ``w = 1``: the unconstrained problem.  As ``λ`` grows, the rows that
raise the favoured group's rate lose weight and the rows that raise the other's gain it; at
``λ₀ = min_i (2·y_i - 1)/d_i`` over the rows where that ratio is positive
(:func:`flip_multiplier`) a whole group-and-label cell's targets flip (under equal opportunity
the positives of ``H``, at ``λ₀ = n_{H,1}/n``).  Multipliers are given as shares ``s`` of ``λ₀``,
which makes one grid of shares mean the same on any data.  The prediction never reads the
group: ``λ·d`` moves the *training targets*, and the model learns them from the features.
Rows with ``w_i = 0`` (a cost tie) carry no information.
"""
from __future__ import annotations

import numpy as np

from fairspec.registry.criteria import group_rate

#: the rates a multiplier can move (every rate of the criteria)
RATES = ("selection_rate", "tpr", "fpr", "accuracy")


def rate_coefficients(rate: str, y: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """``a_i``: each row's coefficient in its own group's ``rate`` (module docstring); 0 for a
    row the rate does not count, or whose group has no row it counts."""
    y = np.asarray(y, dtype=np.int64)
    groups = np.asarray(groups, dtype=np.int64)
    if rate not in RATES:
        raise ValueError(f"no Lagrangian rows for the rate {rate!r}; known: {', '.join(RATES)}")
    counted = {"tpr": y == 1, "fpr": y == 0}.get(rate, np.ones(len(y), dtype=bool))
    den = np.bincount(groups[counted], minlength=n_groups).astype(float)
    per_row = np.where(counted, 1.0, 0.0) / np.where(den[groups] > 0, den[groups], np.inf)
    return per_row * (2.0 * y - 1.0) if rate == "accuracy" else per_row


def extreme_groups(predicted: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int,
                   rate: str) -> tuple[int, int] | None:
    """``(H, Lo)``: the groups with the highest and the lowest ``rate`` of ``predicted`` (the
    criteria's own :func:`~fairspec.registry.criteria.group_rate`; the first of equals); None when
    fewer than two groups have the rate or all are equal."""
    groups = np.asarray(groups, dtype=np.int64)
    predicted = np.asarray(predicted).astype(int)
    rates = {g: group_rate(rate, np.asarray(y), predicted, groups == g) for g in range(n_groups)}
    present = [g for g, r in rates.items() if r is not None]
    if len(present) < 2:
        return None
    values = [rates[g] for g in present]
    if max(values) == min(values):
        return None
    return present[int(np.argmax(values))], present[int(np.argmin(values))]


def multiplier_slopes(y: np.ndarray, groups: np.ndarray, n_groups: int, pairs) -> np.ndarray:
    """``d_i`` (module docstring) for ``pairs``, a list of ``(rate, H, Lo)``: how much one unit of
    the multiplier adds to the cost of predicting row ``i`` positive, times ``n``."""
    y = np.asarray(y, dtype=np.int64)
    groups = np.asarray(groups, dtype=np.int64)
    d = np.zeros(len(y))
    for rate, high, low in pairs:
        a = rate_coefficients(rate, y, groups, n_groups)
        d += len(y) * a * ((groups == high).astype(float) - (groups == low).astype(float))
    return d


def flip_multiplier(y: np.ndarray, slopes: np.ndarray) -> float | None:
    """``λ₀``: the smallest multiplier at which some row's target ``ŷ`` flips; None when none
    ever does (no slope opposes a label)."""
    sign = 2.0 * np.asarray(y, float) - 1.0
    slopes = np.asarray(slopes, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = np.where(slopes != 0, sign / slopes, np.inf)
    crossing = crossing[crossing > 0]
    return float(crossing.min()) if len(crossing) else None


def cost_sensitive_rows(y: np.ndarray, slopes: np.ndarray, multiplier: float) -> tuple[np.ndarray, np.ndarray]:
    """``(ŷ, w)`` of every row at the multiplier ``λ``: ``ŷ_i = 1{(2y_i - 1) > λ·d_i}``,
    ``w_i = |(2y_i - 1) - λ·d_i|``."""
    margin = (2.0 * np.asarray(y, float) - 1.0) - float(multiplier) * np.asarray(slopes, float)
    return (margin > 0).astype(np.int64), np.abs(margin)


def lagrangian_rows(predicted: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int, rates,
                    share: float) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The cost-sensitive rows ``(ŷ, w, λ)`` at ``λ = share·λ₀`` for the constraints of ``rates``
    between the groups that ``predicted`` (the unconstrained model's labels) sets furthest apart;
    None when no rate has two groups apart or no target can flip."""
    pairs = []
    for rate in rates:
        pair = extreme_groups(predicted, y, groups, n_groups, rate)
        if pair is not None:
            pairs.append((rate, *pair))
    if not pairs:
        return None
    slopes = multiplier_slopes(y, groups, n_groups, pairs)
    base = flip_multiplier(y, slopes)
    if base is None:
        return None
    labels, weights = cost_sensitive_rows(y, slopes, share * base)
    return labels, weights, share * base
