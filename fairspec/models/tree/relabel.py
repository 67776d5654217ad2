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

For a forest, the same formulation also serves one tree at a time (:mod:`.forest_relabel`):
an ``offset`` adds the other trees' fixed share to each row's vote, and ``excess_cost`` makes
the bound elastic (``rmax - rmin <= ε + e``, ``e`` paid for in the objective).
"""
from __future__ import annotations

import time

import numpy as np
import pyomo.core as pyo  # the modelling classes alone (fairspec.solvers.highs says why)

from fairspec.errors import NoUsableModelError
from fairspec.models.tree.split_search import VOTE_TOL
from fairspec.solvers import highs



def vote_labels(rows: np.ndarray, leaves: np.ndarray, weights: np.ndarray, leaf_label: np.ndarray,
                n_rows: int, base: np.ndarray | None = None) -> np.ndarray:
    """ŷ of every row from its (leaf, weight) routing and the leaf labels (plus a fixed ``base``)."""
    s = np.bincount(rows, weights=weights * leaf_label[leaves], minlength=n_rows)
    if base is not None:
        s = s + base
    return (s > 0.5 + VOTE_TOL).astype(int)


def rate_parts(rate: str, y: np.ndarray, in_group: np.ndarray):
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


def rate_terms(rate: str, y: np.ndarray, group_codes: np.ndarray, sw: np.ndarray) -> list[tuple]:
    """``(rows in the condition, coef, Σ sw·const over them, den)`` of each group that has rows
    in the rate's condition, so that the group's rate is ``(Σ_cond sw·coef·ŷ + c0) / den``:
    the MIP's fairness rows, and the exact rates of a labelling (:func:`rate_values`)."""
    terms = []
    for gi in range(int(group_codes.max()) + 1 if len(group_codes) else 0):
        cond, coef, const = rate_parts(rate, y, group_codes == gi)
        den = float(sw[cond].sum())
        if den > 0:
            terms.append((cond, coef, float((sw * const)[cond].sum()), den))
    return terms


def rate_values(terms: list[tuple], yhat: np.ndarray, sw: np.ndarray) -> list[float]:
    """Each group's rate of the prediction ``yhat`` (``terms`` from :func:`rate_terms`)."""
    return [float((coef * sw * yhat)[cond].sum() + c0) / den for cond, coef, c0, den in terms]


def excess_over(values: list[float], bound: float) -> float:
    """How far the spread of a rate's group values exceeds ``bound`` (0 with fewer than two
    groups: there is no gap to bound)."""
    return max(max(values) - min(values) - float(bound), 0.0) if len(values) >= 2 else 0.0


def labelling_value(yhat: np.ndarray, y: np.ndarray, sw: np.ndarray, terms_of: dict, bound: float,
                    excess_cost: float | None) -> tuple[float, bool, dict]:
    """The relabelling MIP's objective of the prediction ``yhat`` (weighted accuracy, less
    ``excess_cost`` per unit of excess when the bound is elastic), whether it meets the hard
    bound, and each rate's group values (``terms_of``: rate -> :func:`rate_terms`).  One
    valuation for the MIP start, the fallbacks and the run that has no time for the MIP."""
    values_of = {rate: rate_values(terms, yhat, sw) or [0.0] for rate, terms in terms_of.items()}
    excess = sum(excess_over(values, bound) for values in values_of.values())
    accuracy = float((sw * (yhat == y)).sum())
    if excess_cost is not None:
        return accuracy - float(excess_cost) * excess, True, values_of
    return accuracy, excess <= 1e-9, values_of


def _canonical_rows(rows, leaves, weights, y, g, sw, base):
    """The same problem with its rows in an order fixed by their content alone.

    A MIP stopped by its work limit returns the best labelling found on HiGHS's path, and
    that path depends on the order of the model's variables and of the terms it sums: rows
    numbered first-come would make a reordered training file give another model.  Sorting
    rows by (routing, offset, label, group, weight) makes every vote pattern, coefficient
    and floating-point sum below the same for any order of the same rows: rows that tie on
    the whole key are interchangeable.  Only needed with fractional sample weights (it costs
    a 7-key sort of the rows, about a third of a forest's relabelling time on adult).  A row
    routed to one leaf is keyed by arrays; only rows split over several leaves get a tuple.
    """
    n = len(y)
    order = np.lexsort((leaves, rows))
    rows, leaves, weights = rows[order], leaves[order], weights[order]
    per_row = np.bincount(rows, minlength=n)
    starts = np.concatenate(([0], np.cumsum(per_row)))
    single = per_row == 1
    single_leaf = np.full(n, -1, dtype=np.int64)
    single_weight = np.zeros(n)
    single_leaf[single] = leaves[starts[:-1][single]]
    single_weight[single] = np.round(weights[starts[:-1][single]], 12)
    multi_rank = np.zeros(n, dtype=np.int64)
    multi = np.flatnonzero(~single)
    if len(multi):
        keys = [tuple(zip(leaves[starts[r]:starts[r + 1]].tolist(), np.round(weights[starts[r]:starts[r + 1]], 12).tolist()))
                for r in multi]
        rank = {key: i for i, key in enumerate(sorted(set(keys)), start=1)}
        multi_rank[multi] = [rank[key] for key in keys]
    canon = np.lexsort((sw, g, y, np.round(base, 12), single_weight, single_leaf, multi_rank))
    position = np.empty(n, dtype=np.int64)
    position[canon] = np.arange(n)
    # the routing entries ordered by their new row, so each row's leaves stay contiguous
    new_rows = position[rows]
    entry = np.lexsort((leaves, new_rows))
    return new_rows[entry], leaves[entry], weights[entry], y[canon], g[canon], sw[canon], base[canon]


def _out_of_time(rows, leaves, weights, n_leaves_total, y, g, sw, base, rates, bound, excess_cost,
                 initial_labels, fallback_labels, start):
    """:func:`relabel_leaves` when its time limit has passed before it began: the MIP is not
    built (building a forest's takes seconds, which would all be over the limit, and HiGHS would
    then stop at its first look at the clock with nothing), and the start, else the best
    fallback, that meets the bound is returned, valued by the exact vote as the MIP would value
    it.  Neither: :class:`NoUsableModelError`."""
    n = len(y)
    terms_of = {rate: rate_terms(rate, y, g, sw) for rate in rates}

    def value_of(labels) -> tuple[float, bool]:
        yhat = vote_labels(rows, leaves, weights, np.asarray(labels, float), n, base=base)
        return labelling_value(yhat, y, sw, terms_of, bound, excess_cost)[:2]

    used_leaves = np.unique(leaves)
    source, best, chosen = None, None, None
    named = ([("start", initial_labels)] if initial_labels is not None else []) + [
        ("fallback", labels) for labels in fallback_labels]
    for name, labels in named:
        value, ok = value_of(labels)
        if ok and (best is None or best < value - 1e-7):
            source, best, chosen = name, value, labels
    if source is None:
        raise NoUsableModelError(
            "the time limit had passed before the leaf-relabelling MIP could be built, and no labelling at "
            "hand meets the fairness bound; raise the solver's time_limit")
    labels = np.zeros(n_leaves_total)
    labels[used_leaves] = np.asarray(chosen, float)[used_leaves]
    log = {"relabel_status": highs.TIME_LIMIT_NO_SOLUTION, "relabel_mip_gap": None, "relabel_objective": best,
           "relabel_bound": None, "relabel_labels_from": source, "relabel_objective_of_mip": None,
           "relabel_seconds": round(time.perf_counter() - start, 3), "relabel_leaves": int(len(used_leaves)),
           "relabel_vote_patterns": None, "relabel_constrained_rates": None, "relabel_checkpoints": None,
           "relabel_not_run_because": "the time limit had passed before the MIP was built"}
    if initial_labels is not None:
        log["relabel_start_objective"] = value_of(initial_labels)[0]
        log["relabel_start_used"] = "kept (HiGHS was not run)" if source == "start" else "not feasible, not used"
    return labels, log


def relabel_leaves(rows: np.ndarray, leaves: np.ndarray, weights: np.ndarray, n_leaves_total: int,
                   y: np.ndarray, groups: np.ndarray, rates: tuple[str, ...], bound: float, *,
                   offset: np.ndarray | None = None, excess_cost: float | None = None,
                   sample_weight: np.ndarray | None = None, time_limit: float = 60.0, mip_gap: float = 1e-4,
                   threads: int = 1, seed: int = 0, initial_labels: np.ndarray | None = None,
                   fallback_labels: tuple = (), max_checkpoints: int | None = None,
                   reuse: dict | None = None):
    """Solve the relabelling MIP.

    ``rows, leaves, weights`` is the routing of the training rows (row ``r`` reaches leaf
    ``leaves[i]`` with weight ``weights[i]``); ``leaves`` index ``0..n_leaves_total-1``.
    ``offset`` (default 0) is the part of each row's vote that the leaves of this problem do
    not decide: the vote is ``s_r = offset_r + Σ_l a_rl z_l``, so a forest's leaves can be
    re-chosen one tree at a time with the other trees' votes fixed
    (:mod:`.forest_relabel`); a row whose prediction no free leaf can change is a constant.

    ``excess_cost`` makes the bound elastic: ``rmax - rmin <= ε + e`` with ``0 <= e`` and
    ``excess_cost · e`` taken off the objective, so the problem is always feasible and its
    optimum first lowers the excess over ε (when the cost is large, see
    :func:`.forest_relabel.lexicographic_excess_cost`).  Without it the bound is hard.

    ``initial_labels`` (one per leaf index) is handed to HiGHS as a MIP start, with the
    vote, rate and excess variables it implies; when HiGHS's answer is worse than that start
    (or it has none), the start is returned.  ``fallback_labels`` (labellings, one label per
    leaf index) are not handed to HiGHS, so its search is the one it makes without them; the
    best of them that meets the bound is returned when HiGHS finds no labelling, or only a
    worse one, in its limits.  Every leaf 0 (or 1) predicts one class for every row, so every
    group's selection rate, TPR and FPR is the same, and it meets any bound on them: a forest
    under a tight bound and a short clock had ended with "no usable model".

    Returns ``(labels per leaf index, log dict)``; raises :class:`NoUsableModelError` when the
    bound cannot be met or no solution is found in time.  ``time_limit`` is the budget of the
    whole relabelling: HiGHS gets what building and loading the model leave of it (at least
    0.01 s).  Building is not interrupted, so a model that takes longer to build than the
    limit overruns it by that much (a 50-tree forest on adult took 13–15 s to build against a
    3 s limit); HiGHS then stops at its first look at the clock, and the status says so.  With
    no time left at all (``time_limit <= 0``: a forest's descent used it up) nothing is built:
    the start or the best fallback that meets the bound is returned, with the status
    ``time_limit_no_solution`` (:func:`_out_of_time`).
    """
    start = time.perf_counter()
    if time_limit <= 0:
        n = len(y)
        sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        base = np.zeros(n) if offset is None else np.asarray(offset, float)
        _, g = np.unique(np.asarray(groups), return_inverse=True)
        return _out_of_time(rows, leaves, weights, n_leaves_total, np.asarray(y).astype(int), g, sw, base, rates,
                            bound, excess_cost, initial_labels, fallback_labels, start)
    mip = None if reuse is None else reuse.get("mip")
    if mip is None:
        mip = RelabellingMIP(rows, leaves, weights, n_leaves_total, y, groups, rates, offset=offset,
                             excess_cost=excess_cost, sample_weight=sample_weight, mip_gap=mip_gap, threads=threads,
                             seed=seed, max_checkpoints=max_checkpoints)
        if reuse is not None:
            reuse["mip"] = mip
    return mip.solve(bound, time_limit=time_limit, initial_labels=initial_labels, fallback_labels=fallback_labels,
                     start=start)


class RelabellingMIP:
    """The relabelling MIP of one routing (:func:`relabel_leaves`), built and loaded into HiGHS
    once, with the bound ε a mutable right-hand side: :meth:`solve` solves it at any ε.

    Why a re-solve gives what a fresh build gives.  :func:`fairspec.calibration` needs one
    labelling per candidate bound of the same grown tree, each exactly the one ``fit`` returns
    at that bound.  The MIP can have several optimal labellings (ties in the error count), and
    which one HiGHS returns depends on its search, so the re-solve must make the same search,
    not merely reach the same objective.  A single-threaded, seeded HiGHS run is a function of
    the model it holds, its options and its solver state.  The model: the Pyomo model is built
    with ε as a mutable parameter, so changing ε changes one row's upper bound in the loaded
    HiGHS model (APPSI's parameter update) to the value a fresh load would give, and nothing
    else (the same columns and rows in the same order).  The options: the same but the time
    limit, which changes nothing until it is reached (and then the status says so, and the fit
    is not called reproducible, as a fresh one's would not be).  The state: ``Highs.clearSolver`` before every re-solve drops
    the previous run's solution, basis, presolve and information, and a MIP run would otherwise
    take the previous optimum as its start (HiGHS uses a valid solution it holds as a MIP
    start); no MIP start is passed unless the caller asks for one, as a fresh call would.  The
    Pyomo variables are set as a fresh call sets them (fallbacks valued, then the start) before
    each solve.  ``tests/models/test_relabel_resolve.py`` checks, per bound, that a re-solve
    equals a fresh build (small tied problems, where a re-solve without ``clearSolver`` returns
    another optimum) and that ``fit_bound_path`` equals ``fit`` on compas, for a tree and a
    forest.

    What it saves: building the Pyomo model and loading it into HiGHS, which were about 60 % of
    a depth-4 tree's relabelling on compas (``benchmarks/README.md``, "Cost"); HiGHS's own solve
    is made every time.
    """

    def __init__(self, rows: np.ndarray, leaves: np.ndarray, weights: np.ndarray, n_leaves_total: int,
                 y: np.ndarray, groups: np.ndarray, rates: tuple[str, ...], *, offset: np.ndarray | None = None,
                 excess_cost: float | None = None, sample_weight: np.ndarray | None = None, mip_gap: float = 1e-4,
                 threads: int = 1, seed: int = 0, max_checkpoints: int | None = None):
        build_start = time.perf_counter()
        n = len(y)
        y = np.asarray(y).astype(int)
        sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        base = np.zeros(n) if offset is None else np.asarray(offset, float)
        _, g = np.unique(np.asarray(groups), return_inverse=True)
        if not np.array_equal(sw, np.round(sw)):
            # sums of fractional weights depend on their order (see _canonical_rows); sums of
            # whole ones are exact, and then numbering the vote patterns by content is enough
            rows, leaves, weights, y, g, sw, base = _canonical_rows(rows, leaves, weights, y, g, sw, base)

        # ŷ_r = [base_r + Σ a_rl z_l > 1/2 + τ]: a constant 1 when the base alone is a majority, a
        # constant 0 when not even every free leaf voting 1 makes one; "simple" when one free leaf
        # decides it (base <= 1/2 + τ < base + a, so ŷ_r = z_leaf); a vote pattern otherwise
        per_row = np.bincount(rows, minlength=n)
        reach = np.bincount(rows, weights=weights, minlength=n)
        always = base > 0.5 + VOTE_TOL
        free = ~always & (base + reach > 0.5 + VOTE_TOL)
        simple = free & (per_row == 1)
        first = np.full(n, -1)
        order = np.lexsort((leaves, rows))
        r_sorted, l_sorted, w_sorted = rows[order], leaves[order], weights[order]
        starts = np.searchsorted(r_sorted, np.arange(n))
        first[simple] = l_sorted[starts[simple]]
        complex_rows = np.flatnonzero(free & ~simple)
        # distinct routing patterns (and bases) of the complex rows
        pattern_of_row = np.full(n, -1)
        patterns: list[tuple[tuple[int, ...], tuple[float, ...], float]] = []
        index: dict = {}
        for r in complex_rows:  # one Python step per multi-leaf row, not in the growth hot path
            a, b = starts[r], starts[r] + per_row[r]
            key = (tuple(l_sorted[a:b].tolist()), tuple(np.round(w_sorted[a:b], 12).tolist()), round(float(base[r]), 12))
            k = index.get(key)
            if k is None:
                k = index[key] = len(patterns)
                patterns.append(key)
            pattern_of_row[r] = k
        # numbered by content, not by the first row showing them: the MIP's columns (and so
        # HiGHS's path when a work limit stops it) are the same for any order of the rows
        # the sorted routing is not read from here on: let go before the model is built (on a
        # large fit the relabelling is the peak of its memory)
        del order, r_sorted, l_sorted, w_sorted, starts, reach
        by_content = sorted(range(len(patterns)), key=patterns.__getitem__)
        renumber = np.empty(len(patterns), dtype=np.int64)
        renumber[by_content] = np.arange(len(patterns))
        patterns = [patterns[k] for k in by_content]
        pattern_of_row[complex_rows] = renumber[pattern_of_row[complex_rows]]
        used_leaves = np.unique(leaves)

        m = pyo.ConcreteModel(name="fair_leaf_relabelling")
        m.L = pyo.Set(initialize=used_leaves.tolist())
        m.K = pyo.RangeSet(0, len(patterns) - 1) if patterns else pyo.Set(initialize=[])
        m.z = pyo.Var(m.L, domain=pyo.Binary)
        m.v = pyo.Var(m.K, domain=pyo.Binary)

        def pred_expr_coeffs(mask: np.ndarray, coef: np.ndarray):
            """Σ_r∈mask coef_r·sw_r·ŷ_r as {leaf: c} + {pattern: c} + the constant of the rows predicted 1."""
            cl = np.bincount(first[mask & simple], weights=(coef * sw)[mask & simple], minlength=n_leaves_total)
            cm = mask & free & ~simple
            ck = np.bincount(pattern_of_row[cm], weights=(coef * sw)[cm], minlength=len(patterns)) if patterns else np.zeros(0)
            return cl, ck, float((coef * sw)[mask & always].sum())

        def linear(cl, ck, const=0.0):
            return (sum(float(cl[l]) * m.z[l] for l in used_leaves if cl[l] != 0)
                    + sum(float(ck[k]) * m.v[k] for k in range(len(patterns)) if ck[k] != 0) + const)

        # accuracy = Σ sw·[(2y-1)·ŷ + (1-y)]
        cl, ck, c1 = pred_expr_coeffs(np.ones(n, bool), 2.0 * y - 1.0)
        accuracy = linear(cl, ck, c1 + float((sw * (1 - y)).sum()))

        m.vote = pyo.ConstraintList()
        for k, (ls, ws, b) in enumerate(patterns):
            s = b + sum(wt * m.z[l] for l, wt in zip(ls, ws))
            m.vote.add(s >= (0.5 + 2 * VOTE_TOL) * m.v[k])
            m.vote.add(m.v[k] >= 2.0 * (s - 0.5 - VOTE_TOL))

        # ε, the only thing a re-solve changes (the class docstring)
        m.bound = pyo.Param(mutable=True, initialize=0.0, within=pyo.Reals)
        m.fair = pyo.ConstraintList()
        m.rmax = pyo.Var(list(rates), bounds=(0.0, 1.0))
        m.rmin = pyo.Var(list(rates), bounds=(0.0, 1.0))
        elastic = excess_cost is not None
        if elastic:
            m.excess = pyo.Var(list(rates), bounds=(0.0, 1.0))
        n_constrained = 0
        terms_of = {rate: rate_terms(rate, y, g, sw) for rate in rates}  # kept to value a start
        for rate, terms in terms_of.items():
            for cond, coef, c0, den in terms:
                cl, ck, c1 = pred_expr_coeffs(cond, coef)
                expr = linear(cl / den, ck / den, (c1 + c0) / den)
                m.fair.add(expr <= m.rmax[rate])
                m.fair.add(expr >= m.rmin[rate])
            if len(terms) >= 2:
                m.fair.add(m.rmax[rate] - m.rmin[rate] - (m.excess[rate] if elastic else 0.0) <= m.bound)
                n_constrained += 1
        m.obj = pyo.Objective(
            expr=accuracy - (float(excess_cost) * sum(m.excess[r] for r in rates) if elastic else 0.0),
            sense=pyo.maximize)
        self.m, self.rows, self.leaves, self.weights, self.n, self.y, self.sw, self.base = m, rows, leaves, weights, n, y, sw, base
        self.excess_cost, self.elastic, self.terms_of, self.patterns = excess_cost, elastic, terms_of, patterns
        self.used_leaves, self.n_leaves_total, self.n_constrained = used_leaves, n_leaves_total, n_constrained
        self.mip_gap, self.max_checkpoints = mip_gap, max_checkpoints
        self.session = highs.HighsSession(time_limit=60.0, mip_gap=mip_gap, threads=threads, seed=seed,
                                          max_checkpoints=max_checkpoints)
        self.solves = 0
        self.build_seconds = time.perf_counter() - build_start

    def _value_of(self, labels, bound) -> tuple[float, bool]:
        """Objective of a labelling by the exact vote, and whether it meets the hard bound;
        sets every variable to it (HiGHS reads a missing value as 0)."""
        m, patterns, elastic = self.m, self.patterns, self.elastic
        yhat = vote_labels(self.rows, self.leaves, self.weights, labels, self.n, base=self.base)
        value, ok, values_of = labelling_value(yhat, self.y, self.sw, self.terms_of, bound, self.excess_cost)
        for rate, values in values_of.items():
            m.rmax[rate].set_value(max(values))
            m.rmin[rate].set_value(min(values))
            if elastic:
                m.excess[rate].set_value(min(excess_over(values, bound), 1.0))
        for l in self.used_leaves:
            m.z[l].set_value(int(labels[l]))
        for k, (ls, ws, b) in enumerate(patterns):
            m.v[k].set_value(int(b + sum(wt * labels[l] for l, wt in zip(ls, ws)) > 0.5 + VOTE_TOL))
        return value, ok

    def solve(self, bound: float, *, time_limit: float = 60.0, initial_labels: np.ndarray | None = None,
              fallback_labels: tuple = (), start: float | None = None):
        """:func:`relabel_leaves` at ``bound`` on this MIP (its arguments and return value);
        ``start`` is when the caller's relabelling began (its ``time_limit`` counts from there)."""
        start = time.perf_counter() if start is None else start
        m, used_leaves, patterns = self.m, self.used_leaves, self.patterns
        m.bound.set_value(float(bound))
        value_of = lambda labels: self._value_of(labels, bound)  # noqa: E731
        fallback = None  # (objective, labels) of the best fallback labelling that meets the bound
        for candidate in fallback_labels:
            value, ok = value_of(np.asarray(candidate, float))
            if ok and (fallback is None or value > fallback[0] + 1e-9):
                fallback = (value, np.asarray(candidate, float))
        start_value, start_ok = (None, False)
        if initial_labels is not None:  # valued last: its values are the MIP start HiGHS reads
            start_value, start_ok = value_of(np.asarray(initial_labels, float))
        built = time.perf_counter()
        # HiGHS gets what building and loading the model leave of the limit (before, it had the
        # whole limit to itself: a 50-tree forest on adult with a 60 s limit took 73 s to fit); a
        # re-solve has nothing to load
        loading = built - start if self.solves == 0 else 0.0
        solver_seconds = max(highs.seconds_to_solve(time_limit - (built - start), loading), 0.01)
        if self.solves:
            # the previous run's solution would be HiGHS's MIP start: a fresh load has none
            self.session.highs.clearSolver()
        self.session.configure(time_limit=solver_seconds)
        res = self.session.solve(m, warmstart=start_ok)
        self.solves += 1
        # the labelling returned: HiGHS's, unless the start, then a fallback, scores better
        source, best = ("mip", res.objective) if res.has_solution else (None, None)
        for name, value in (("start", start_value if start_ok else None),
                            ("fallback", None if fallback is None else fallback[0])):
            if value is not None and (best is None or best < value - 1e-7):
                source, best = name, value
        if source is None:
            if res.status == highs.INFEASIBLE:
                raise NoUsableModelError(
                    f"no labelling of the {len(used_leaves)} leaves meets the fairness bound {bound:g} "
                    f"on the training data (HiGHS proved the relabelling MIP infeasible); loosen the bound "
                    f"or grow deeper (more leaves to label)")
            if res.status == highs.WORK_LIMIT_NO_SOLUTION:
                raise NoUsableModelError(
                    f"the leaf-relabelling MIP found no labelling within its work limit of {self.max_checkpoints} HiGHS "
                    f"checkpoints, nor proved that none exists: the bound {bound:g} may be infeasible for this tree; "
                    f"loosen it, or raise the solver's time_limit (which sizes that limit) to search longer")
            raise NoUsableModelError(
                f"the leaf-relabelling MIP found no labelling in the {solver_seconds:.3g} s the time limit left "
                f"it (status {res.status}); raise the solver's time_limit")
        labels = np.zeros(self.n_leaves_total)
        if source == "fallback":
            labels[used_leaves] = fallback[1][used_leaves]
        elif source == "start":
            labels[used_leaves] = np.asarray(initial_labels, float)[used_leaves]
        else:
            for l in used_leaves:
                # a leaf whose rows' terms all cancel (say one positive and one negative of a group
                # under accuracy parity) is in no row of the model, so HiGHS never sees it and gives
                # it no value: every label scores the same there; keep the start's, else 0
                z = pyo.value(m.z[l], exception=False)
                if z is None:
                    labels[l] = 0.0 if initial_labels is None else float(initial_labels[l])
                else:
                    labels[l] = 1.0 if z > 0.5 else 0.0
        log = {"relabel_status": res.status, "relabel_mip_gap": res.mip_gap,
               "relabel_objective": best, "relabel_bound": res.bound,
               # where the labels came from: HiGHS's solution, the start handed to it, or a fallback
               "relabel_labels_from": source,
               "relabel_objective_of_mip": res.objective if res.has_solution else None,
               "relabel_seconds": round(time.perf_counter() - start, 3), "relabel_leaves": int(len(used_leaves)),
               "relabel_vote_patterns": len(patterns), "relabel_constrained_rates": self.n_constrained,
               "relabel_checkpoints": res.details.get("checkpoints")}
        if initial_labels is not None:
            log["relabel_start_objective"] = start_value
            log["relabel_start_used"] = "kept (HiGHS found nothing better)" if source == "start" else (
                "handed to HiGHS" if start_ok else "not feasible, not used")
        return labels, log
