"""Fit one tree: heuristics for a start and a bound, then the MIP from that start.

1. Candidates distinct on the batch, rows merged into route classes (:mod:`.candidates`).
2. Starts (:mod:`.dynamic_programme`, :mod:`.local_search`): the greedy tree; the DP tree for
   the loss alone; under a criterion the DP trees of the Lagrangian search (whose best dual
   value is a lower bound on the optimum at depth <= 3); the two constant trees (one class
   for every row meets any bound on selection rates, TPRs and FPRs); then the local
   search from the :data:`SEARCH_STARTS` best of these.  The best tree that meets the bound
   (any, under a penalty) is the start.
3. When the start's objective reaches the dual bound (within HiGHS's relative gap tolerance
   ``mip_gap``, as HiGHS would judge it) it is optimal over every tree on the candidates, and no
   MIP is run (status ``optimal``, ``proved_by`` the dynamic programme: the rule for every
   unconstrained tree at depth <= 3, and for a bound the unconstrained tree already meets).
4. Otherwise the MIP (:mod:`.formulation`, with the bound as its cut (9)) is solved by HiGHS
   from the start, within the work limit ``max_checkpoints`` and, under a clock cap, the time
   limit.  The tree returned is HiGHS's incumbent unless the start is better (HiGHS keeps a
   start it accepts, so this guards only against a start it rejects): a tree is never worse
   than its start.  Its status is HiGHS's, mapped by :mod:`fairspec.solvers.highs`.

``mip_gap`` is ``(objective - bound) / objective`` of the tree returned (0 when the
objective is 0), with the larger of HiGHS's bound and the dual bound: the gap HiGHS reports,
on the same objective (within ``mip_gap`` the status is ``optimal``).  When no tree meets the
bound (possible for ``accuracy_parity``, which no constant tree meets), the tree over it by the least is returned with status ``heuristic``
and ``meets_bound`` false, for the forest to deal with (:mod:`.estimator`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from fairspec.models.mip_forest.candidates import RouteClasses, distinct_tests
from fairspec.models.mip_forest.dynamic_programme import HeuristicResult, greedy_tree, lagrangian_trees
from fairspec.models.mip_forest.formulation import build_tree_mip, set_start, tree_of
from fairspec.models.mip_forest.local_search import INFEASIBLE, improve
from fairspec.models.mip_forest.objective import OBJECTIVE_TOL, Objective
from fairspec.models.mip_forest.structure import constant_tree
from fairspec.solvers import highs

#: the local search starts from this many of the best heuristic trees
SEARCH_STARTS = 3
#: HiGHS options of a tree's MIP: presolve without probing (bit 15 of ``presolve_rule_off``), as
#: for the rule sets' final IP.  Probing the one-hot split choices took most of a depth-3 MIP's
#: presolve on 1,000 compas rows, before HiGHS's first checkpoint (seen in development, not recorded)
MIP_OPTIONS = {"presolve_rule_off": 1 << 15}


@dataclass(frozen=True)
class TreeTask:
    """What one tree's fit needs, as plain data (it is pickled to a worker)."""

    index: int
    rows: np.ndarray          # the batch's rows (indices into the training rows)
    matrix: np.ndarray        # the batch's split matrix over every candidate (rows x candidates)
    y: np.ndarray
    groups: np.ndarray        # group codes 0..n_groups-1
    n_groups: int
    rates: tuple
    form: str                 # none | penalty | bound
    lam: float
    eps: float
    depth: int
    mip_gap: float
    seed: int
    max_checkpoints: int
    time_limit: float         # HiGHS's clock cap for this tree (math.inf: none)


@dataclass
class TreeFit:
    """One fitted tree: candidate indices (into every candidate), labels, and its log (a record
    of the forest's ``tree_fits``)."""

    splits: list
    labels: list
    tree_log: dict


@dataclass
class TreeProblem:
    """One tree's problem on its batch: the candidates kept (indices into every candidate), the
    route classes' split matrix and the objective."""

    keep: np.ndarray
    classes: RouteClasses
    objective: Objective

    @property
    def left(self) -> np.ndarray:
        return self.classes.left


def tree_problem(task: TreeTask) -> TreeProblem:
    """Step 1 of the module docstring."""
    keep = distinct_tests(task.matrix)
    classes = RouteClasses.of(task.matrix[:, keep], task.y, task.groups, task.n_groups)
    return TreeProblem(keep, classes, Objective(classes.count, task.rates, task.form, task.lam, task.eps))


def heuristics(problem: TreeProblem, depth: int) -> tuple[HeuristicResult, int]:
    """Step 2: every heuristic tree found (with the dual bound), and the local search's moves."""
    left, objective = problem.left, problem.objective
    found = HeuristicResult()
    for label in (0, 1):
        tree = constant_tree(depth, label)
        found.add(f"constant {label}", tree, objective.value(tree.predict(left)))
    if left.shape[1] == 0:  # no candidate splits the rows: the constant trees are every tree
        return found, 0
    greedy = greedy_tree(left, objective, depth)
    found.add("greedy", greedy, objective.value(greedy.predict(left)))
    lagrangian_trees(left, objective, depth, found)
    moves = 0
    for name, tree, _ in sorted(found.trees, key=_search_order)[:SEARCH_STARTS]:
        better, taken = improve(left, objective, tree)
        if taken or better.key() != tree.key():
            moves += taken
            found.add(f"local search from {name}", better, objective.value(better.predict(left)))
    return found, moves


def fit_tree(task: TreeTask) -> TreeFit:
    """Fit one tree (module docstring)."""
    start_clock = time.perf_counter()
    problem = tree_problem(task)
    left, objective = problem.left, problem.objective
    found, moves = heuristics(problem, task.depth)
    start = found.best(objective)
    bound = found.bound
    tree_log = {"tree": task.index, "rows": int(len(task.y)), "route_classes": int(problem.classes.n_classes),
                "candidates": int(left.shape[1]), "dp_solves": found.dp_solves, "local_search_moves": moves,
                "start": None if start is None else start[0],
                "start_objective": None if start is None else start[2].objective,
                "dual_bound": bound, "heuristic_seconds": round(time.perf_counter() - start_clock, 3)}
    if left.shape[1] == 0 and start is not None:
        # no candidate splits the batch: every tree predicts one class for every row
        chosen, value = start[1], start[2]
        tree_log.update(status=highs.OPTIMAL, proved_by="no candidate splits the batch's rows", mip_status="not_run",
                        mip_checkpoints=0, mip_nodes=0, mip_seconds=0.0, mip_improved=False)
    elif start is not None and bound is not None and _within_gap(start[2].objective, bound, task.mip_gap):
        chosen, value = start[1], start[2]
        tree_log.update(status=highs.OPTIMAL, proved_by="dual bound of the dynamic programme", mip_status="not_run",
                        mip_checkpoints=0, mip_nodes=0, mip_seconds=0.0, mip_improved=False)
    elif left.shape[1] == 0:
        chosen, value = min(((t, v) for _, t, v in found.trees), key=lambda tv: _search_order((None, None, tv[1])))
        tree_log.update(status="heuristic", mip_status="not_run", mip_checkpoints=0, mip_nodes=0, mip_seconds=0.0,
                        mip_improved=False, note="no candidate splits the batch's rows and no constant tree meets "
                                                 "the bound")
    else:
        fallback = min(found.trees, key=_search_order)
        chosen, value = _solve_mip(task, left, objective, start, fallback, bound, tree_log)
    final_bound = tree_log.get("mip_bound")
    best_bound = max((b for b in (bound, final_bound) if b is not None), default=None)
    if best_bound is None or not value.meets_bound:
        gap = None
    else:
        gap = max(value.objective - best_bound, 0.0) / value.objective if value.objective > 0 else 0.0
    tree_log.update(objective=value.objective, bound=best_bound, mip_gap=gap, meets_bound=bool(value.meets_bound),
                    batch_errors=value.errors, batch_gap=value.gap,
                    tree_seconds=round(time.perf_counter() - start_clock, 3))
    # -1: no candidate (the batch's rows all alike), a node whose two sides predict alike
    return TreeFit([int(problem.keep[s]) if len(problem.keep) else -1 for s in chosen.splits],
                   [int(c) for c in chosen.labels], tree_log)


def _within_gap(objective: float, bound: float, mip_gap: float) -> bool:
    """Whether a tree of ``objective`` is optimal within HiGHS's relative gap tolerance, given a
    lower bound: what HiGHS would call optimal."""
    return objective - bound <= max(OBJECTIVE_TOL, mip_gap * abs(objective))


def _search_order(found) -> tuple:
    """Trees within the bound first, by objective; then the others, by how far over it they are."""
    _, _, value = found
    return (not value.meets_bound, value.objective if value.meets_bound else INFEASIBLE + (value.gap or 0.0))


def _solve_mip(task: TreeTask, left, objective: Objective, start, fallback, bound, tree_log: dict):
    """HiGHS from ``start``; the better of its incumbent and the start, with the tree_log filled;
    ``fallback`` (the heuristic tree over the bound by the least) when neither meets it."""
    build_clock = time.perf_counter()
    model = build_tree_mip(left, objective, task.depth, lower_bound=bound)
    if start is not None:
        set_start(model, left, objective, start[1])
    build_seconds = time.perf_counter() - build_clock
    session = highs.HighsSession(time_limit=task.time_limit, mip_gap=task.mip_gap, threads=1, seed=task.seed,
                                 max_checkpoints=task.max_checkpoints, options=MIP_OPTIONS)
    result = session.solve(model, warmstart=start is not None)
    tree_log.update(mip_status=result.status, mip_checkpoints=result.details.get("checkpoints"),
                    mip_nodes=result.details.get("nodes"), mip_seconds=round(result.seconds, 3),
                    mip_build_seconds=round(build_seconds, 3), mip_bound=result.bound)
    mip = None
    if result.has_solution:
        tree = tree_of(model)
        mip = (tree, objective.value(tree.predict(left)))
    chosen = None
    if mip is not None and (start is None or objective.better(mip[1], start[2])
                            or not objective.better(start[2], mip[1])):
        chosen = mip
    elif start is not None:
        chosen = (start[1], start[2])
    improved = mip is not None and start is not None and objective.better(mip[1], start[2])
    tree_log["mip_improved"] = bool(improved or (start is None and mip is not None))
    if chosen is not None and chosen[1].meets_bound:
        status = result.status if result.status != highs.INFEASIBLE else "heuristic"
        if result.status.endswith(highs.NO_SOLUTION_SUFFIX):
            status = result.status[: -len(highs.NO_SOLUTION_SUFFIX)]  # the start stands in for a solution
        tree_log["status"] = status
        return chosen
    # nothing meets the bound: the tree over it by the least
    candidates = [(fallback[1], fallback[2])] + ([mip] if mip is not None else [])
    least = min(candidates, key=lambda tv: _search_order((None, None, tv[1])))
    tree_log["status"] = "heuristic"
    tree_log["note"] = (f"no tree found meets the bound on this batch (HiGHS: {result.status}); the tree over it "
                        f"by the least is kept")
    return least
