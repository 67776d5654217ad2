"""Fair leaf relabelling: the leaf labels that maximise training accuracy under a gap bound.

After a tree (or forest) is grown, its structure is kept and only the label of each leaf is
chosen again, as a small MIP (Pyomo, solved by HiGHS through :mod:`fairspec.solvers.highs`):

    max   Σ_r w_r [ŷ_r = y_r]
    s.t.  rate_g(ŷ) - rate_h(ŷ) <= ε     for every rate of the criterion and groups g, h

with ``z_l ∈ {0, 1}`` the label of leaf ``l``.  In the spirit of the post-processing
relabelling of Kamiran, Calders & Pechenizkiy (2010), but exact instead of greedy.

How a row's prediction depends on the leaf labels.  A row that reaches a single leaf with
weight 1 (every row of a plain MIA/majority tree) predicts ``ŷ_r = z_l``: linear, no extra
variable; such rows are aggregated per leaf, so the MIP has one binary per leaf.  A row that
reaches several leaves (fractional cases, a forest's trees) predicts by a weighted vote
``s_r = Σ_l a_rl z_l`` (the ``a_rl`` of one row sum to 1; for a forest ``a_rl`` is the
tree's routing weight divided by the number of trees):

    ŷ_r = 1  iff  s_r > 1/2 + τ          (τ = 1e-7, see :data:`VOTE_TOL`)

which the MIP models exactly with one binary ``v_k`` per distinct routing pattern ``k``:

    s_k >= (1/2 + 2τ) · v_k              (v_k = 1 needs a majority)
    v_k >= 2 (s_k - 1/2 - τ)             (a majority forces v_k = 1)

(the second: ``s_k - 1/2 - τ <= 1/2``, so the right side is at most 1).  The only
approximation is the open interval ``s ∈ (1/2 + τ, 1/2 + 2τ)``, where neither value of
``v`` is feasible; the rates and accuracy are therefore recomputed after the solve with the
estimator's own prediction rule and reported next to the MIP's.

The group gap: with ``rmax``/``rmin`` continuous, ``rmin <= rate_g <= rmax`` for every group
that has rows in the rate's condition, and ``rmax - rmin <= ε`` (one pair per rate; equalized
odds has two).  Rates are linear in ``ŷ`` because their denominators are data.
"""
from __future__ import annotations

import time

import numpy as np
import pyomo.environ as pyo

from fairspec.errors import NoUsableModelError
from fairspec.models.tree.split_search import VOTE_TOL
from fairspec.solvers import highs



def vote_labels(rows: np.ndarray, leaves: np.ndarray, weights: np.ndarray, leaf_label: np.ndarray,
                n_rows: int) -> np.ndarray:
    """ŷ of every row from its (leaf, weight) routing and the leaf labels."""
    s = np.bincount(rows, weights=weights * leaf_label[leaves], minlength=n_rows)
    return (s > 0.5 + VOTE_TOL).astype(int)


def _rate_parts(rate: str, y: np.ndarray, in_group: np.ndarray):
    """(rows in the condition, coefficient of ŷ, constant) so that rate·den = Σ coef·ŷ + const."""
    if rate == "selection_rate":
        cond = in_group
        return cond, np.ones(len(y)), np.zeros(len(y))
    if rate == "tpr":
        return in_group & (y == 1), np.ones(len(y)), np.zeros(len(y))
    if rate == "fpr":
        return in_group & (y == 0), np.ones(len(y)), np.zeros(len(y))
    # accuracy: [ŷ = y] = y·ŷ + (1 - y)(1 - ŷ) = (2y - 1)·ŷ + (1 - y)
    return in_group, (2.0 * y - 1.0), (1.0 - y)


def relabel_leaves(rows: np.ndarray, leaves: np.ndarray, weights: np.ndarray, n_leaves_total: int,
                   y: np.ndarray, groups: np.ndarray, rates: tuple[str, ...], bound: float, *,
                   sample_weight: np.ndarray | None = None, time_limit: float = 60.0, mip_gap: float = 1e-4,
                   threads: int = 1, seed: int = 0, initial_labels: np.ndarray | None = None):
    """Solve the relabelling MIP.

    ``rows, leaves, weights`` is the routing of the training rows (row ``r`` reaches leaf
    ``leaves[i]`` with weight ``weights[i]``); ``leaves`` index ``0..n_leaves_total-1``.
    Returns ``(labels per leaf index, log dict)``; raises :class:`NoUsableModelError` when the
    bound cannot be met or no solution is found in time.  ``time_limit`` bounds the whole
    relabelling, building the model included, not only HiGHS's run.
    """
    start = time.perf_counter()
    n = len(y)
    y = np.asarray(y).astype(int)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    _, g = np.unique(np.asarray(groups), return_inverse=True)
    n_groups = int(g.max()) + 1 if n else 0

    # rows reaching one leaf with weight 1 are "simple": ŷ_r = z_leaf
    per_row = np.bincount(rows, minlength=n)
    first = np.full(n, -1)
    order = np.argsort(rows, kind="stable")
    r_sorted, l_sorted, w_sorted = rows[order], leaves[order], weights[order]
    starts = np.searchsorted(r_sorted, np.arange(n))
    simple = (per_row == 1) & np.isclose(w_sorted[np.minimum(starts, len(r_sorted) - 1)], 1.0)
    first[simple] = l_sorted[starts[simple]]
    complex_rows = np.flatnonzero(~simple)
    # distinct routing patterns of the complex rows
    pattern_of_row = np.full(n, -1)
    patterns: list[tuple[tuple[int, ...], tuple[float, ...]]] = []
    index: dict = {}
    for r in complex_rows:  # one Python step per multi-leaf row, not in the growth hot path
        a, b = starts[r], starts[r] + per_row[r]
        key = (tuple(l_sorted[a:b].tolist()), tuple(np.round(w_sorted[a:b], 12).tolist()))
        k = index.get(key)
        if k is None:
            k = index[key] = len(patterns)
            patterns.append(key)
        pattern_of_row[r] = k
    used_leaves = np.unique(leaves)

    m = pyo.ConcreteModel(name="fair_leaf_relabelling")
    m.L = pyo.Set(initialize=used_leaves.tolist())
    m.K = pyo.RangeSet(0, len(patterns) - 1) if patterns else pyo.Set(initialize=[])
    m.z = pyo.Var(m.L, domain=pyo.Binary)
    m.v = pyo.Var(m.K, domain=pyo.Binary)

    def pred_expr_coeffs(mask: np.ndarray, coef: np.ndarray):
        """Σ_r∈mask coef_r·sw_r·ŷ_r as {leaf: c} + {pattern: c}."""
        cl = np.bincount(first[mask & simple], weights=(coef * sw)[mask & simple], minlength=n_leaves_total)
        cm = mask & ~simple
        ck = np.bincount(pattern_of_row[cm], weights=(coef * sw)[cm], minlength=len(patterns)) if patterns else np.zeros(0)
        return cl, ck

    def linear(cl, ck, const=0.0):
        return (sum(float(cl[l]) * m.z[l] for l in used_leaves if cl[l] != 0)
                + sum(float(ck[k]) * m.v[k] for k in range(len(patterns)) if ck[k] != 0) + const)

    # accuracy = Σ sw·[(2y-1)·ŷ + (1-y)]
    all_rows = np.ones(n, bool)
    cl, ck = pred_expr_coeffs(all_rows, 2.0 * y - 1.0)
    const_acc = float((sw * (1 - y)).sum())
    m.obj = pyo.Objective(expr=linear(cl, ck, const_acc), sense=pyo.maximize)

    m.vote = pyo.ConstraintList()
    for k, (ls, ws) in enumerate(patterns):
        s = sum(wt * m.z[l] for l, wt in zip(ls, ws))
        m.vote.add(s >= (0.5 + 2 * VOTE_TOL) * m.v[k])
        m.vote.add(m.v[k] >= 2.0 * (s - 0.5 - VOTE_TOL))

    m.fair = pyo.ConstraintList()
    m.rmax = pyo.Var(list(rates), bounds=(0.0, 1.0))
    m.rmin = pyo.Var(list(rates), bounds=(0.0, 1.0))
    n_constrained = 0
    for rate in rates:
        dens = []
        for gi in range(n_groups):
            cond, coef, const = _rate_parts(rate, y, g == gi)
            den = float(sw[cond].sum())
            if den <= 0:
                continue
            dens.append(gi)
            cl, ck = pred_expr_coeffs(cond, coef)
            expr = linear(cl / den, ck / den, float((sw * const)[cond].sum()) / den)
            m.fair.add(expr <= m.rmax[rate])
            m.fair.add(expr >= m.rmin[rate])
        if len(dens) >= 2:
            m.fair.add(m.rmax[rate] - m.rmin[rate] <= float(bound))
            n_constrained += 1

    if initial_labels is not None:
        for l in used_leaves:
            m.z[l].set_value(int(initial_labels[l]))
    built = time.perf_counter()
    # HiGHS gets what building and loading the model leave of the limit (before, it had the
    # whole limit to itself: a 50-tree forest on adult with a 60 s limit took 73 s to fit)
    solver_seconds = max(highs.seconds_to_solve(time_limit - (built - start), built - start), 0.01)
    res = highs.solve(m, time_limit=solver_seconds, mip_gap=mip_gap, threads=threads, seed=seed)
    if not res.has_solution:
        if res.status == highs.INFEASIBLE:
            raise NoUsableModelError(
                f"no labelling of the tree's {len(used_leaves)} leaves meets the fairness bound {bound:g} "
                f"on the training data (HiGHS proved the relabelling MIP infeasible); loosen the bound "
                f"or grow a deeper tree")
        raise NoUsableModelError(
            f"the leaf-relabelling MIP found no labelling in the {solver_seconds:.3g} s the time limit left "
            f"it (status {res.status}); raise the solver's time_limit")
    labels = np.zeros(n_leaves_total)
    for l in used_leaves:
        labels[l] = 1.0 if pyo.value(m.z[l]) > 0.5 else 0.0
    log = {"relabel_status": res.status, "relabel_mip_gap": res.mip_gap,
           "relabel_objective": res.objective, "relabel_bound": res.bound,
           "relabel_seconds": round(time.perf_counter() - start, 3), "relabel_leaves": int(len(used_leaves)),
           "relabel_vote_patterns": len(patterns), "relabel_constrained_rates": n_constrained}
    return labels, log
