"""Exact local search over the rule pool: the repair step and the final IP's MIP start.

The state is a set ``S`` of pool rules.  Every move — add one rule, drop one, swap one in
for one out — is scored on the *real* classifier it gives on the training patterns (0-1
loss and the criterion's gap, weighted by the pattern counts), all moves of a kind at once
with a few matrix products.  The search is lexicographic: first reduce the excess of the
gap over the bound, then the loss; it stops at a local optimum or after ``max_moves``.

It is a heuristic with no optimality claim; its result is (a) a candidate for the final
choice and (b) the MIP start of the exact final IP, which HiGHS then improves on or proves.
"""
from __future__ import annotations

import time

import numpy as np

from fairspec.models.exact_sums import grid_step, on_grid
from fairspec.registry.criteria import MET_TOLERANCE


class RuleSetScorer:
    """Loss and fairness excess of many candidate coverages at once.

    The fairness rows are the master's (:func:`.master.fairness_rows`): a row
    ``Σ_i coef_i x_i ≤ bound`` with ``x = ζ = 1 − ŷ`` on positives (``fnr``; as each group's
    coefficients sum to ±1, ``coef·(1 − ŷ) = −coef·ŷ``) or ``x = ŷ`` on negatives (``fpr``).
    """

    def __init__(self, y, count, rows, complexity_cost: float = 0.0):
        # pattern counts are whole numbers, so their sums are exact; the grid keeps them so
        # for any weights (it leaves whole numbers below 2**50 as they are)
        step = grid_step(float(np.abs(count).sum()))
        self.pos_w = on_grid(np.where(y == 1, count, 0.0), step)
        self.neg_w = on_grid(np.where(y == 0, count, 0.0), step)
        # stored as (patterns × rows): cover.T @ matrix is the fast BLAS order here (see pricing).
        # On a grid, so every row's sum is exact whatever the BLAS kernel's order of additions
        # (:mod:`fairspec.models.exact_sums`); a row's coefficients add up to at most 2 in
        # absolute value (±1 per group), so the grid moves a gap by under 1e-14 per pattern
        self.matrix = None
        if rows:
            matrix = np.array([(-r.coef if r.rate == "fnr" else r.coef) for r in rows]).T
            self.matrix = on_grid(matrix, grid_step(float(np.abs(matrix).sum(axis=0).max())))
        # against ε itself, not the solver's shifted bound: a gap of exactly ε meets it
        self.bounds = np.array([r.epsilon + MET_TOLERANCE for r in rows]) if rows else None
        #: objective cost of a unit of complexity (:attr:`.master.MasterProblem.complexity_cost`)
        self.complexity_cost = complexity_cost
        #: (pattern, candidate) cells scored so far: the search's work, counted the same on every run
        self.cells = 0

    def score(self, cover: np.ndarray, complexity=0.0):
        """``cover`` bool (n_patterns, M) → (largest excess over a bound, loss), each shape (M,).

        ``loss`` is the weighted 0-1 loss plus ``complexity_cost`` times ``complexity`` (each
        candidate's total complexity, shape (M,) or a scalar): the master's objective."""
        self.cells += cover.shape[0] * cover.shape[1]
        cf = cover.astype(np.float64)
        loss = self.pos_w.sum() - self.pos_w @ cf + self.neg_w @ cf
        if self.complexity_cost:
            loss = loss + self.complexity_cost * np.asarray(complexity, dtype=float)
        if self.matrix is None:
            return np.zeros(cf.shape[1]), loss
        excess = np.maximum((cf.T @ self.matrix - self.bounds[None, :]).max(axis=1), 0.0)
        return excess, loss


def improve(coverage: np.ndarray, complexity: np.ndarray, scorer: RuleSetScorer, max_complexity: float,
            start, *, max_moves: int = 60, deadline: float | None = None,
            log: dict | None = None) -> tuple[list[int], float, float]:
    """Hill-climb from ``start`` (pool column indices); return (rules, excess, loss).

    ``loss`` is the scorer's (with its complexity cost).  ``deadline`` (a ``time.perf_counter()``
    value) stops the climb early, keeping the best so far; then ``log["cut_by_clock"]`` is set
    true.  A climb that ends at a local optimum or after ``max_moves`` (a work limit) leaves
    ``log`` alone, however late it ends: its result does not depend on the clock.
    """
    n, K = coverage.shape
    selected = sorted(set(int(k) for k in start))
    counts = coverage[:, selected].sum(axis=1) if selected else np.zeros(n, dtype=int)
    used = float(complexity[selected].sum()) if selected else 0.0
    excess, loss = (v[0] for v in scorer.score((counts > 0)[:, None], used))
    tol = 1e-9
    for _ in range(max_moves):
        if deadline is not None and time.perf_counter() > deadline:
            if log is not None:
                log["cut_by_clock"] = True
            break
        best = None  # (excess, loss, kind, out, in)
        in_set = np.zeros(K, dtype=bool)
        in_set[selected] = True
        base = counts > 0
        # add k
        fits = (~in_set) & (used + complexity <= max_complexity + tol)
        if fits.any():
            ks = np.flatnonzero(fits)
            e, lo = scorer.score(base[:, None] | coverage[:, ks], used + complexity[ks])
            i = int(np.lexsort((lo, e))[0])
            best = (e[i], lo[i], "add", None, int(ks[i]))
        for out in selected:
            without = (counts - coverage[:, out]) > 0
            e, lo = scorer.score(without[:, None], used - complexity[out])
            if best is None or (e[0], lo[0]) < best[:2]:
                best = (e[0], lo[0], "drop", out, None)
            fits = (~in_set) & (used - complexity[out] + complexity <= max_complexity + tol)
            if fits.any():
                ks = np.flatnonzero(fits)
                e, lo = scorer.score(without[:, None] | coverage[:, ks], used - complexity[out] + complexity[ks])
                i = int(np.lexsort((lo, e))[0])
                if (e[i], lo[i]) < best[:2]:
                    best = (e[i], lo[i], "swap", out, int(ks[i]))
        if best is None or not ((best[0] < excess - tol) or (best[0] <= excess + tol and best[1] < loss - tol)):
            break
        excess, loss, kind, out, into = best
        if out is not None:
            selected.remove(out)
            counts = counts - coverage[:, out]
            used -= complexity[out]
        if into is not None:
            selected.append(into)
            counts = counts + coverage[:, into]
            used += complexity[into]
        selected.sort()
    return selected, float(excess), float(loss)


def iterated_local_search(coverage: np.ndarray, complexity: np.ndarray, scorer: RuleSetScorer,
                          max_complexity: float, starts, *, deadline: float, seed: int, max_iterations: int = 400,
                          max_drop: int = 3, max_cells: int | None = None,
                          log: dict | None = None) -> list[tuple[list[int], float, float]]:
    """Hill-climb from every start, then kick the best and climb again until ``deadline``.

    An iterated local search (Lourenço, Martin and Stützle 2003): a kick drops up to
    ``max_drop`` random rules from the best rule set so far and forces in one or two random
    rules that fit the complexity left, :func:`improve` climbs from there, and the result
    replaces the best when it is lexicographically better (excess, then loss).  Single moves
    stall where only a *pair* of rules helps (neither alone pays for its false positives);
    the kicks reach such pairs (the tests' small instances where single moves stall are
    solved to their optimum; ``benchmarks/README.md`` has the adult measurements).

    Returns every improving result, best first, as ``(rules, excess, loss)``.  The kicks are
    drawn from ``seed``; a search that ends by ``max_iterations`` is reproducible, one cut by
    the deadline may stop at a different kick.  ``max_cells`` is a work limit counted by the
    scorer (:attr:`RuleSetScorer.cells`): the search stops before the first kick after the
    scorer has scored that many (pattern, candidate) cells, the same point on every run.
    ``log``, when given, receives ``iterations`` (kicks climbed) and ``cut_by_clock`` (whether
    the deadline stopped the search).
    """
    rng = np.random.default_rng(seed)
    log = {} if log is None else log
    log.update(iterations=0, cut_by_clock=False)
    found = []
    for start in starts:
        if found and time.perf_counter() > deadline:
            log["cut_by_clock"] = True
            break
        found.append(improve(coverage, complexity, scorer, max_complexity, start, deadline=deadline, log=log))
    if not found:
        return []
    best = min(found, key=lambda r: (r[1], r[2]))
    for _ in range(max_iterations):
        if max_cells is not None and scorer.cells >= max_cells:
            break
        if time.perf_counter() > deadline:
            log["cut_by_clock"] = True
            break
        log["iterations"] += 1
        kicked = list(best[0])
        for _ in range(int(rng.integers(0, max_drop + 1))):
            if kicked:
                kicked.pop(int(rng.integers(len(kicked))))
        for _ in range(int(rng.integers(1, 3))):  # force in one or two random rules that fit
            room = max_complexity - complexity[kicked].sum() if kicked else max_complexity
            fits = np.flatnonzero(complexity <= room + 1e-9)
            fits = fits[~np.isin(fits, kicked)]
            if len(fits):
                kicked.append(int(rng.choice(fits)))
        result = improve(coverage, complexity, scorer, max_complexity, kicked, deadline=deadline, log=log)
        if result[1] < best[1] - 1e-12 or (result[1] <= best[1] + 1e-12 and result[2] < best[2] - 1e-9):
            best = result
            found.append(result)
    found.sort(key=lambda r: (r[1], r[2]))
    return found


def simplify(rules, literals: np.ndarray, scorer: RuleSetScorer, *, max_moves: int = 200) -> list[tuple]:
    """The rule set ``rules`` (tuples of literal indices) with every condition and rule dropped
    whose removal leaves the real classifier no worse: neither a larger fairness excess nor a
    larger loss, as the scorer measures them on ``literals``' patterns.

    Each rule of the pool is minimal on its own (:func:`.column_generation.minimal_rule`), but
    not within the set: the final IP on default picked both ``PAY_0 > 1 AND PAY_6 <= 0 AND
    PAY_AMT1 <= 1046`` and ``... AND PAY_AMT1 > 1046``, which together are the one shorter
    rule; the union, not either rule, is what must not change.  A greedy descent: every move
    (drop one condition, or one whole rule) is scored at once; the best acceptable one, by
    (excess, loss, complexity), is made, until none is left.  Every move lowers the complexity,
    so the descent ends; a rule never loses its last condition (the empty rule covers all rows).
    """
    rules = [tuple(r) for r in rules]
    covers = [literals[:, list(r)].all(axis=1) for r in rules]
    counts = np.sum(covers, axis=0) if rules else np.zeros(len(literals), dtype=int)
    complexity = sum(1 + len(r) for r in rules)
    excess, loss = (v[0] for v in scorer.score((counts > 0)[:, None], complexity))
    tol = 1e-9
    for _ in range(max_moves):
        moves, columns, after = [], [], []
        for i, rule in enumerate(rules):
            rest = (counts - covers[i]) > 0
            moves.append((i, None))
            columns.append(rest)
            after.append(complexity - 1 - len(rule))
            for j in range(len(rule)) if len(rule) > 1 else ():
                shorter = rule[:j] + rule[j + 1:]
                moves.append((i, shorter))
                columns.append(rest | literals[:, list(shorter)].all(axis=1))
                after.append(complexity - 1)
        if not moves:
            break
        e, lo = scorer.score(np.column_stack(columns), np.asarray(after, dtype=float))
        acceptable = (e <= excess + tol) & (lo <= loss + tol)
        if not acceptable.any():
            break
        pick = [m for m in np.lexsort((after, lo, e)) if acceptable[m]][0]
        i, shorter = moves[pick]
        counts = counts - covers[i]
        if shorter is None:
            del rules[i], covers[i]
        else:
            rules[i] = shorter
            covers[i] = literals[:, list(shorter)].all(axis=1)
            counts = counts + covers[i]
        excess, loss, complexity = float(e[pick]), float(lo[pick]), after[pick]
    return [tuple(sorted(r)) for r in rules]
