"""Heuristic trees for the MIP's start, and a lower bound on its optimum.

**Exact trees for a linear objective.**  When every route class ``r`` has a cost
``c0_r`` for predicting 0 and ``c1_r`` for predicting 1, a tree's cost is a sum over its
leaves of ``min(Σ_leaf c0, Σ_leaf c1)``, and the best tree of depth ``D`` over the candidates
decomposes: the best depth-``D`` tree on a set of rows is the best root split followed by the
best depth-``D-1`` trees on its two sides.  :func:`optimal_tree` computes it exactly for
``D <= 3`` by counting: with ``B`` the class x candidate split matrix and ``a`` a cost vector,
``M = Bᵀ diag(a) B`` holds in ``M[s, t]`` the cost of the rows both ``s`` and ``t`` send left,
from which all four leaves of every depth-2 tree (``s`` at the root, ``t`` below it) follow by
inclusion-exclusion; depth 3 repeats this for each root split on its two sides
(``O(K³·R)`` for ``K`` candidates and ``R`` classes, in ``2K`` matrix products).  Costs are
integers (:func:`integer_costs`), so the products are exact in floating point, ties fall to
the first candidate, and the tree does not depend on the BLAS library or its threads.  Depth 4
is beyond it: the root is then chosen among the :data:`DEPTH4_ROOTS` best depth-3 roots, a
heuristic, and no bound is claimed.

**Fairness by Lagrangian multipliers.**  ``err/N`` is such a linear objective; the gap is
not.  But for multipliers ``μ_{k,g}`` with ``Σ_g μ_{k,g} = 0`` for each rate ``k``,
``Σ_g μ_{k,g} rate_{k,g} <= (Σ_g μ⁺_{k,g}) · gap_k`` (the positive weights sit on rates at
most ``max_g``, the negative on rates at least ``min_g``).  Hence, for every tree ``T``:

* under ``penalty λ``, if ``Σ_{k,g} μ⁺_{k,g} <= λ``:
  ``err/N + λ·gap  >=  err/N + Σ_{k,g} μ_{k,g} rate_{k,g}``;
* under ``gap <= ε``, for every feasible ``T``:
  ``err/N  >=  err/N + Σ_{k,g} μ_{k,g} rate_{k,g} - ε Σ_{k,g} μ⁺_{k,g}``.

The right-hand sides are linear in ``ŷ`` (``rate`` is, :mod:`.objective`), so their minimum
over all trees, ``L(μ)``, is one exact DP, and ``L(μ)`` is a lower bound on the fair
optimum: the Lagrangian dual of the paper's eq. 8 (penalty) or of its constrained form.
:func:`lagrangian_trees` searches ``μ``: for two groups and one rate, ``μ = (t, -t)`` and
``L`` is concave in ``t``, maximised by bisection on the sign of its supergradient (the gap
``rate_a - rate_b`` of the minimising tree, shifted by ``∓ε`` for a bound); otherwise by
projected supergradient ascent.  Every tree met is scored with the true objective, and the
best becomes a candidate start; the largest ``L`` is the bound.  The dual can fall short of
the optimum (a duality gap): then the MIP has work to do.

**Greedy.**  CART's rule over the same candidates (the split with the lowest weighted Gini
impurity of its children, labels ignored), leaves labelled by the costs: the other start the
issue names, and the only one at depth 4 and beyond when the DP is not run there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from fairspec.models.mip_forest.objective import Objective, TreeValue
from fairspec.models.mip_forest.structure import HeapTree

#: the largest depth :func:`optimal_tree` solves exactly
EXACT_DEPTH = 3
#: at depth 4, the root is chosen among this many of the best depth-3 roots (module docstring)
DEPTH4_ROOTS = 4
#: integer costs are kept below this, so every sum the DP forms is exact in float64
COST_CEILING = 2.0 ** 50
#: most cost units per row of loss (a power of two: 1/N of the objective is this many units)
MAX_SCALE = 2.0 ** 24
#: DP solves of the Lagrangian search, at most
LAGRANGIAN_STEPS = 14


def integer_costs(objective: Objective, mu: dict | None = None) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(c0, c1, unit, slack)``: the class costs of ``err/N + Σ μ_{k,g} rate_{k,g}`` (less the
    constant ``Σ μ b/den``) as whole numbers of ``unit`` (a share of the objective), and the
    most the rounding can move any tree's cost, in units of the objective."""
    neg, pos = objective.negatives, objective.positives
    n = max(objective.n, 1.0)
    extra = np.zeros(len(neg))
    weight = 0.0
    for (rate, g), m in (mu or {}).items():
        if m == 0:
            continue
        term = next(t for t in objective.terms[rate] if t.group == g)
        extra += m * term.a / term.den
        weight += abs(m)
    scale = MAX_SCALE
    while scale > 1 and n * scale * (1.0 + weight * n) > COST_CEILING:
        scale /= 2
    unit = 1.0 / (n * scale)
    c0 = pos * scale
    c1 = neg * scale + np.round(extra * n * scale)
    slack = 0.5 * len(neg) * unit if mu else 0.0
    return c0, c1, unit, slack


def _leaf_cost(a0: float, a1: float) -> tuple[float, int]:
    return (a0, 0) if a0 <= a1 else (a1, 1)


def _depth1(B: np.ndarray, a0: np.ndarray, a1: np.ndarray):
    """Best depth-1 tree on cost vectors ``a0``/``a1`` (zero outside the node's rows)."""
    l0, l1 = B.T @ a0, B.T @ a1
    t0, t1 = a0.sum(), a1.sum()
    cost = np.minimum(l0, l1) + np.minimum(t0 - l0, t1 - l1)
    s = int(np.argmin(cost))
    return float(cost[s]), [s], [int(l1[s] < l0[s]), int(t1 - l1[s] < t0 - l0[s])]


def _depth2_table(B: np.ndarray, a0: np.ndarray, a1: np.ndarray):
    """Every depth-2 tree's best cost, per root split: ``(total[s], s2_left[s], s2_right[s],
    the four pieces for the labels)``."""
    m0 = (B * a0[:, None]).T @ B
    m1 = (B * a1[:, None]).T @ B
    v0, v1 = np.diag(m0), np.diag(m1)
    t0, t1 = a0.sum(), a1.sum()
    ll0, ll1 = m0, m1                                        # s left, t left
    lr0, lr1 = v0[:, None] - m0, v1[:, None] - m1            # s left, t right
    rl0, rl1 = v0[None, :] - m0, v1[None, :] - m1            # s right, t left
    rr0 = t0 - v0[:, None] - v0[None, :] + m0                 # s right, t right
    rr1 = t1 - v1[:, None] - v1[None, :] + m1
    cost_left = np.minimum(ll0, ll1) + np.minimum(lr0, lr1)
    cost_right = np.minimum(rl0, rl1) + np.minimum(rr0, rr1)
    s2l = np.argmin(cost_left, axis=1)
    s2r = np.argmin(cost_right, axis=1)
    idx = np.arange(B.shape[1])
    total = cost_left[idx, s2l] + cost_right[idx, s2r]
    return total, s2l, s2r, (ll0, ll1, lr0, lr1, rl0, rl1, rr0, rr1)


def _depth2(B: np.ndarray, a0: np.ndarray, a1: np.ndarray):
    total, s2l, s2r, (ll0, ll1, lr0, lr1, rl0, rl1, rr0, rr1) = _depth2_table(B, a0, a1)
    s = int(np.argmin(total))
    tl, tr = int(s2l[s]), int(s2r[s])
    labels = [int(ll1[s, tl] < ll0[s, tl]), int(lr1[s, tl] < lr0[s, tl]),
              int(rl1[s, tr] < rl0[s, tr]), int(rr1[s, tr] < rr0[s, tr])]
    return float(total[s]), [s, tl, tr], labels


def _depth3_roots(B: np.ndarray, a0: np.ndarray, a1: np.ndarray) -> np.ndarray:
    """The best depth-3 cost for every root split."""
    K = B.shape[1]
    costs = np.empty(K)
    live = (a0 != 0) | (a1 != 0)
    for s in range(K):
        side = B[:, s] > 0
        costs[s] = sum(_depth2_table(B[rows], a0[rows], a1[rows])[0].min()
                       for rows in (live & side, live & ~side))
    return costs


def _subtree(B, a0, a1, depth):
    """(cost, splits in heap order, labels) of the best tree of ``depth`` on the weighted rows."""
    if depth == 0:
        cost, label = _leaf_cost(float(a0.sum()), float(a1.sum()))
        return cost, [], [label]
    if depth == 1:
        return _depth1(B, a0, a1)
    if depth == 2:
        return _depth2(B, a0, a1)
    if depth == 3:
        roots = [int(np.argmin(_depth3_roots(B, a0, a1)))]
    else:
        # depth 4 and beyond: the most promising roots by their depth-3 trees (a heuristic)
        roots = [int(s) for s in np.argsort(_depth3_roots(B, a0, a1), kind="stable")[:DEPTH4_ROOTS]]
    best = None
    for s in roots:
        side = B[:, s]
        left = _subtree(B, a0 * side, a1 * side, depth - 1)
        right = _subtree(B, a0 * (1.0 - side), a1 * (1.0 - side), depth - 1)
        cost = left[0] + right[0]
        if best is None or cost < best[0]:
            best = (cost, s, left, right)
    cost, s, left, right = best
    return cost, _merge_heaps(s, left[1], right[1], depth), left[2] + right[2]


def _merge_heaps(root: int, left: list, right: list, depth: int) -> list:
    """Heap order of a tree from its root split and its two subtrees' heap orders."""
    out, li, ri = [root], 0, 0
    for level in range(1, depth):
        width = 2 ** (level - 1)
        out += left[li:li + width] + right[ri:ri + width]
        li += width
        ri += width
    return out


def optimal_tree(left: np.ndarray, c0: np.ndarray, c1: np.ndarray, depth: int) -> tuple[float, HeapTree]:
    """The tree of ``depth`` with the least ``Σ_leaves min(Σ c0, Σ c1)`` (exact for depth <= 3;
    module docstring), on the class x candidate split matrix ``left``."""
    B = left.astype(float)
    if B.shape[1] == 0:  # no candidate splits these rows: a tree of leaves that agree
        cost, label = _leaf_cost(float(c0.sum()), float(c1.sum()))
        return cost, HeapTree(np.zeros(2 ** depth - 1, dtype=np.int64), np.full(2 ** depth, label, dtype=np.int64))
    # one BLAS thread: the products are small, and OpenBLAS's threads spinning for a core on a
    # busy machine made a depth-3 DP on compas take 23 s instead of 0.15 s
    with threadpool_limits(limits=1, user_api="blas"):
        cost, splits, labels = _subtree(B, np.asarray(c0, float), np.asarray(c1, float), depth)
    return cost, HeapTree(np.asarray(splits, dtype=np.int64), np.asarray(labels, dtype=np.int64))


def greedy_tree(left: np.ndarray, objective: Objective, depth: int) -> HeapTree:
    """CART's greedy rule over the candidates (module docstring); leaves take the label of
    fewer errors (ties: 0)."""
    n_leaves = 2 ** depth
    splits = np.zeros(n_leaves - 1, dtype=np.int64)
    labels = np.zeros(n_leaves, dtype=np.int64)
    neg, pos = objective.negatives, objective.positives
    B = left.astype(float)
    node_rows = {0: np.ones(len(neg), dtype=bool)}
    for v in range(n_leaves - 1):
        rows = node_rows.pop(v)
        s = _gini_split(B, neg * rows, pos * rows) if B.shape[1] else 0
        side = left[:, s] if B.shape[1] else np.zeros(len(neg), dtype=bool)
        splits[v] = s
        node_rows[2 * v + 1] = rows & side
        node_rows[2 * v + 2] = rows & ~side
    for leaf in range(n_leaves):
        rows = node_rows[n_leaves - 1 + leaf]
        labels[leaf] = int(pos[rows].sum() > neg[rows].sum())
    return HeapTree(splits, labels)


def _gini_split(B: np.ndarray, neg: np.ndarray, pos: np.ndarray) -> int:
    ln, lp = B.T @ neg, B.T @ pos
    tn, tp = neg.sum(), pos.sum()
    rn, rp = tn - ln, tp - lp

    def weighted_gini(a, b):
        w = a + b
        with np.errstate(invalid="ignore", divide="ignore"):
            g = np.where(w > 0, 2.0 * a * b / np.where(w > 0, w, 1.0), 0.0)
        return g

    return int(np.argmin(weighted_gini(ln, lp) + weighted_gini(rn, rp)))


@dataclass
class HeuristicResult:
    """The trees the heuristics found, each with its value, and the bound they prove."""

    trees: list = field(default_factory=list)  # [(name, HeapTree, TreeValue)]
    #: a lower bound on the objective of every tree over the candidates (None: none proved)
    bound: float | None = None
    dp_solves: int = 0

    def add(self, name: str, tree: HeapTree, value: TreeValue) -> None:
        if all(t.key() != tree.key() for _, t, _ in self.trees):
            self.trees.append((name, tree, value))

    def best(self, objective: Objective):
        best = None
        for name, tree, value in self.trees:
            if best is None or objective.better(value, best[2]):
                best = (name, tree, value)
        return best if best is not None and best[2].meets_bound else None


def lagrangian_trees(left: np.ndarray, objective: Objective, depth: int, result: HeuristicResult,
                     steps: int = LAGRANGIAN_STEPS) -> None:
    """Add to ``result`` the DP trees of the multiplier search (module docstring) and, at a
    depth the DP solves exactly, the best dual bound found; at most ``steps`` DP solves."""
    search = _Search(left, objective, depth, result)
    plain = search.solve({})
    if objective.form == "none" or not objective.compared:
        return
    if objective.form == "bound" and plain.meets_bound:
        return  # the unconstrained optimum meets the bound: it is the constrained optimum
    rates = list(objective.compared)
    if len(rates) == 1 and len(objective.compared[rates[0]]) == 2:
        _bisect(search, rates[0], plain, steps - 1)
    else:
        _ascend(search, plain, steps - 1)


class _Search:
    """One DP solve per multiplier vector ``μ`` (a dict ``(rate, group) -> μ``): its tree goes
    into the result, its dual value into the bound."""

    def __init__(self, left, objective: Objective, depth: int, result: HeuristicResult):
        self.left, self.objective, self.depth, self.result = left, objective, depth, result
        self.exact = depth <= EXACT_DEPTH
        self.term = {(t.rate, t.group): t for terms in objective.compared.values() for t in terms}

    def solve(self, mu: dict) -> TreeValue:
        objective = self.objective
        c0, c1, unit, slack = integer_costs(objective, mu)
        cost, tree = optimal_tree(self.left, c0, c1, self.depth)
        self.result.dp_solves += 1
        value = objective.value(tree.predict(self.left))
        self.result.add("lagrangian dynamic programme" if mu else "dynamic programme", tree, value)
        constant = sum(m * self.term[key].b / self.term[key].den for key, m in mu.items())
        positive = sum(m for m in mu.values() if m > 0)
        dual = cost * unit + constant - slack - (objective.eps * positive if objective.form == "bound" else 0.0)
        if self.exact and (self.result.bound is None or dual > self.result.bound):
            self.result.bound = dual
        return value


def _bisect(search: _Search, rate: str, plain: TreeValue, steps: int) -> None:
    """Two groups, one rate: ``μ = (t, -t)`` on the rate's groups ``a, b``; ``L(t)`` is
    concave, with supergradient ``d - ε·sign(t)`` (``d = rate_a - rate_b`` of the minimising
    tree; no ``ε`` under a penalty, where ``|t| <= λ``)."""
    objective = search.objective
    ga, gb = (t.group for t in objective.compared[rate])
    eps = objective.eps if objective.form == "bound" else 0.0

    def slope(t: float) -> float:
        value = search.solve({(rate, ga): t, (rate, gb): -t})
        a, b = value.rates[rate]
        return (a - b) - eps * np.sign(t)

    a, b = plain.rates[rate]
    sign = 1.0 if a - b > 0 else -1.0  # L rises from t = 0 on this side
    if objective.form == "penalty":
        lo, hi = 0.0, sign * objective.lam
        if steps <= 0:
            return
        steps -= 1
        if sign * slope(hi) >= 0:
            return  # L still rises at |t| = λ: the bound is there
    else:
        lo, hi = 0.0, sign * 1.0
        while True:  # widen until the slope turns
            if steps <= 0:
                return
            steps -= 1
            if sign * slope(hi) <= 0:
                break
            lo, hi = hi, 4.0 * hi
    while steps > 0:
        mid = 0.5 * (lo + hi)
        steps -= 1
        d = slope(mid)
        if d == 0:
            return
        if sign * d > 0:
            lo = mid
        else:
            hi = mid


def _ascend(search: _Search, plain: TreeValue, steps: int) -> None:
    """Projected supergradient ascent on ``μ`` (several groups or rates): the supergradient of
    ``L`` in ``μ_{k,g}`` is ``rate_{k,g}`` of the minimising tree (less ``ε`` where ``μ > 0``
    under a bound); each step is projected back onto ``Σ_g μ_{k,g} = 0`` (and, under a
    penalty, scaled into ``Σ μ⁺ <= λ``)."""
    objective = search.objective
    keys = list(search.term)
    mu = {key: 0.0 for key in keys}
    value = plain
    scale = objective.lam if objective.form == "penalty" else 1.0
    for step in range(steps):
        grad = {}
        for rate, terms in objective.compared.items():
            for t, r in zip(terms, value.rates[rate]):
                grad[(rate, t.group)] = r - (objective.eps if objective.form == "bound" and mu[(rate, t.group)] > 0
                                             else 0.0)
        size = max(abs(g) for g in grad.values())
        if size <= 0:
            return
        eta = scale / (size * math.sqrt(step + 1.0))
        mu = {key: mu[key] + eta * grad[key] for key in keys}
        for rate, terms in objective.compared.items():
            mean = sum(mu[(rate, t.group)] for t in terms) / len(terms)
            for t in terms:
                mu[(rate, t.group)] -= mean
        if objective.form == "penalty":
            positive = sum(m for m in mu.values() if m > 0)
            if positive > objective.lam:
                mu = {key: m * objective.lam / positive for key, m in mu.items()}
        value = search.solve(mu)
