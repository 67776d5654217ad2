"""A fair labelling of a forest's leaves, found one tree at a time.

The joint relabelling MIP of a forest (:mod:`.relabel`) has one vote binary per distinct
routing pattern, nearly one per training row, linked to the leaf labels by big-M rows; its LP
relaxation says little, and HiGHS's own heuristics found poor incumbents (on compas, the
trivial labelling that predicts every row 0; ``benchmarks/README.md``).

Block coordinate descent over trees finds a far better feasible labelling in seconds:

1. **Each tree alone.** Every tree's leaves are relabelled exactly under the bound, as if the
   tree were the whole model (:func:`.relabel.relabel_leaves`, the single-tree MIP: ~2^depth
   binaries). A vote of fair trees need not be fair, but it often starts near the bound.
2. **One tree given the others.** With the labels of every other tree fixed, row ``r``'s
   vote is ``s_r = o_r + Σ_{l in t} a_rl z_l``, with ``o_r`` the other trees' share. A row
   whose tree-``t`` route is one leaf is then a constant (``o_r > 1/2``, or ``o_r + a_r <=
   1/2``) or equals that leaf's label, so the block problem is the single-tree MIP with
   offsets (``relabel_leaves(offset=o)``; fractional routes become vote patterns there). It
   is solved exactly with the bound made elastic: maximise ``accuracy - C·Σ excess``, with
   ``excess = max(0, rmax - rmin - ε)`` per rate and ``C`` from
   :func:`lexicographic_excess_cost`. The current labels are a feasible point of every block
   problem, so no block lowers the objective: the total excess never rises, and once it is 0
   the accuracy never falls. Sweeps over the trees stop when one changes nothing, or after
   :data:`MAX_SWEEPS`. The descent runs twice, from step 1's labels and from the forest's
   majority labels, and the better end wins (:func:`tree_by_tree_labels` says why both).

The forest keeps the descent's labels when their exact vote meets the bound; only when it
does not is the joint MIP run (its hard rows then either find a fair labelling or prove there
is none).  It used to run after every descent too, started from its labels, for whatever was
left of the time limit: it raised training accuracy, not test accuracy, widened the test gap,
and only the clock could stop it, so no work limit made it reproducible (the measurements:
``benchmarks/README.md``).  Without it a fair forest takes the
descent's seconds and gives the same labels on any machine.

Every block is solved to optimality by a seeded HiGHS (or to its work limit,
``max_checkpoints``, with the current labels as its start), so the result does not depend on
the machine; only the deadline can cut it, and then the log says so.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from fairspec.errors import NoUsableModelError
from fairspec.models.tree.relabel import excess_over, rate_terms, rate_values, relabel_leaves, vote_labels
from fairspec.solvers import highs

#: sweeps over the trees at most; in the measurements above, a sweep after the third moved
#: training accuracy by less than 0.001
MAX_SWEEPS = 4


@dataclass
class TreeRoutes:
    """The routing of the training rows through each tree, leaf ids global to the forest,
    weights already divided by the number of trees (so a row's weights sum to 1)."""

    rows: list[np.ndarray]
    leaves: list[np.ndarray]
    weights: list[np.ndarray]

    def concatenated(self):
        """Every tree's routing in one (rows, leaves, weights); a single tree's arrays as they are
        (a copy would hold them twice through the relabelling, where a large fit peaks)."""
        if len(self.rows) == 1:
            return self.rows[0], self.leaves[0], self.weights[0]
        return np.concatenate(self.rows), np.concatenate(self.leaves), np.concatenate(self.weights)

    @classmethod
    def of(cls, trees, X) -> tuple["TreeRoutes", list[int]]:
        """How ``X``'s rows reach the leaves of ``trees``, and where each tree's leaf ids start
        (a tree's ids follow the previous tree's ``n_nodes``; the last start plus the last
        tree's ``n_nodes`` is the number of ids)."""
        rows, leaves, weights, offsets, offset = [], [], [], [], 0
        for t in trees:
            r, l, w = t.route_rows(X)
            rows.append(r), leaves.append(l + offset), weights.append(w / len(trees))
            offsets.append(offset)
            offset += t.n_nodes
        return cls(rows, leaves, weights), offsets


def lexicographic_excess_cost(y, groups, rates, sample_weight) -> float:
    """A cost per unit of excess over ε that outweighs the whole accuracy objective.

    A labelling change moves a group's rate by a multiple of ``sw_r / den_g`` (``den_g`` the
    weight of the group's rows in the rate's condition), so a change of the excess that is not
    zero is at least ``step = min sw / max den`` unless it crosses ε (where it can be smaller,
    down to the distance to ε). Accuracy lies in ``[0, W]``, ``W = Σ sw``; with
    ``C = 2·W / step`` one step less excess is worth more than any accuracy. So the descent
    is lexicographic (excess first) up to the last partial step onto the bound.
    """
    sw = np.asarray(sample_weight, float)
    _, g = np.unique(np.asarray(groups), return_inverse=True)
    y = np.asarray(y).astype(int)
    max_den = max((den for rate in rates for *_, den in rate_terms(rate, y, g, sw)), default=0.0)
    step = float(sw[sw > 0].min()) / max(max_den, 1e-12)
    return 2.0 * float(sw.sum()) / step


def _excess(y, yhat, groups, rates, bound, sw) -> float:
    """Σ over rates of max(0, max_g rate - min_g rate - ε) of a prediction."""
    _, g = np.unique(np.asarray(groups), return_inverse=True)
    return sum(excess_over(rate_values(rate_terms(rate, y, g, sw), yhat, sw), bound) for rate in rates)


@dataclass
class _Problem:
    """What every block of the descent shares."""

    routes: TreeRoutes
    y: np.ndarray
    groups: np.ndarray
    rates: tuple
    bound: float
    sample_weight: np.ndarray
    deadline: float
    solver: dict
    n_leaves: int

    reuse: dict | None = None

    def relabel(self, t, weights, **kw):
        return relabel_leaves(self.routes.rows[t], self.routes.leaves[t], weights, self.n_leaves, self.y,
                              self.groups, self.rates, self.bound, sample_weight=self.sample_weight,
                              time_limit=self.deadline - time.perf_counter(), **{**self.solver, **kw})

    def tree_vote(self, t, labels):
        return np.bincount(self.routes.rows[t], weights=self.routes.weights[t] * labels[self.routes.leaves[t]],
                           minlength=len(self.y))


def _each_tree_alone(p: _Problem, z: np.ndarray) -> tuple[np.ndarray, bool]:
    """Every tree's leaves relabelled exactly under the bound, as if the tree were the model (a
    tree whose own MIP is infeasible keeps its labels: the descent still moves it)."""
    z = z.copy()
    n_trees = len(p.routes.rows)
    for t in range(n_trees):
        if time.perf_counter() >= p.deadline:
            return z, True
        try:
            # the same MIP at every bound: kept in p.reuse (fit_bound_path) and re-solved there
            alone, rlog = p.relabel(t, p.routes.weights[t] * n_trees,
                                    reuse=None if p.reuse is None else p.reuse.setdefault(t, {}))
        except NoUsableModelError:
            continue
        own = np.unique(p.routes.leaves[t])
        z[own] = alone[own]
        if highs.stopped_by_clock(rlog["relabel_status"]):
            return z, True
    return z, False


def _descend(p: _Problem, z: np.ndarray, cost: float) -> tuple[np.ndarray, int, int, bool]:
    """Sweeps of exact block problems (one tree's leaves, the others fixed, the bound elastic)
    from ``z``: (labels, sweeps, blocks, cut by the clock)."""
    z = z.copy()
    n_trees = len(p.routes.rows)
    votes = np.stack([p.tree_vote(t, z) for t in range(n_trees)])
    total = votes.sum(axis=0)
    sweeps = blocks = 0
    while sweeps < MAX_SWEEPS:
        changed = False
        for t in range(n_trees):
            if time.perf_counter() >= p.deadline:
                return z, sweeps, blocks, True
            # mip_gap 0: the excess cost makes the objective ~W·max_den, where a relative gap
            # of 1e-4 could let HiGHS stop hundreds of rows short of a block's optimum; the
            # blocks are small enough to solve exactly
            block, rlog = p.relabel(t, p.routes.weights[t], offset=total - votes[t], excess_cost=cost,
                                    initial_labels=z, mip_gap=0.0)
            blocks += 1
            # a block the clock cut still returns its best labels, never worse than z (z is its
            # start, kept when HiGHS's incumbent is worse), so they are taken before stopping
            cut = highs.stopped_by_clock(rlog["relabel_status"])
            own = np.unique(p.routes.leaves[t])
            if not np.array_equal(block[own], z[own]):
                z[own] = block[own]
                total -= votes[t]
                votes[t] = p.tree_vote(t, z)
                total += votes[t]
                changed = True
            if cut:
                return z, sweeps, blocks, True
        sweeps += 1
        if not changed:
            break
    return z, sweeps, blocks, False


def tree_by_tree_labels(routes: TreeRoutes, labels: np.ndarray, y, groups, rates, bound: float, *,
                        deadline: float, sample_weight=None, mip_gap: float = 1e-4, threads: int = 1,
                        seed: int = 0, max_checkpoints: int | None = None, reuse: dict | None = None):
    """Labels for every leaf (indexed like ``labels``, the forest's current ones) and a log.

    The descent runs from two starts, each tree alone (step 1 of the module docstring) and the
    forest's own majority labels, and the better end wins: the lower excess, then the higher
    training accuracy. Neither start always reached the bound, and where one stalled the other
    reached it (``benchmarks/README.md``).

    ``deadline`` is a ``time.perf_counter()`` value (or infinity); the descent stops there, and
    the log's ``relabel_descent_cut_by_clock`` says whether it did. ``max_checkpoints`` is each
    block MIP's work limit. The labels returned meet the bound on the exact vote when
    ``relabel_descent_meets_bound`` is true.  ``reuse`` (a dict, empty at first) keeps each
    tree's own MIP of step 1, whose model does not depend on the bound, for a later call at
    another bound (:func:`.relabel.relabel_leaves`); the block problems depend on the other
    trees' labels and are built each time.
    """
    start = time.perf_counter()
    y = np.asarray(y).astype(int)
    n = len(y)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    p = _Problem(routes, y, np.asarray(groups), tuple(rates), float(bound), sw, deadline,
                 dict(mip_gap=mip_gap, threads=threads, seed=seed, max_checkpoints=max_checkpoints), len(labels),
                 reuse)
    cost = lexicographic_excess_cost(y, groups, rates, sw)
    rows, leaves, weights = routes.concatenated()
    majority = np.asarray(labels, float)
    alone, cut = _each_tree_alone(p, majority)
    ends = []
    for name, first in (("each tree alone", alone), ("the forest's majority labels", majority)):
        if cut:
            break
        z, sweeps, blocks, cut = _descend(p, first, cost)
        yhat = vote_labels(rows, leaves, weights, z, n)
        excess = _excess(y, yhat, groups, rates, bound, sw)
        ends.append((excess, -float((sw * (yhat == y)).sum()), name, z, sweeps, blocks))
    if not ends:  # the clock ran out before any descent: what the trees alone gave
        yhat = vote_labels(rows, leaves, weights, alone, n)
        ends.append((_excess(y, yhat, groups, rates, bound, sw), -float((sw * (yhat == y)).sum()),
                     "each tree alone", alone, 0, 0))
    excess, neg_accuracy, name, z, sweeps, blocks = min(
        ends, key=lambda e: (e[0] > 1e-9, e[0] if e[0] > 1e-9 else 0.0, e[1]))
    log = {"relabel_descent": f"block coordinate descent from {name}",
           "relabel_descent_sweeps": sweeps, "relabel_descent_blocks": blocks,
           "relabel_descent_excess": round(excess, 6), "relabel_descent_meets_bound": excess <= 1e-9,
           "relabel_descent_train_accuracy": -neg_accuracy / float(sw.sum()),
           "relabel_descent_cut_by_clock": cut, "relabel_descent_seconds": round(time.perf_counter() - start, 3)}
    return z, log
