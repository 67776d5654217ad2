"""Local search for the MIP's start: one node's split at a time, every leaf labelling at once.

The dynamic programme's trees are optimal for a weighted loss (:mod:`.dynamic_programme`),
not for ``err/N + λ·gap`` or under ``gap <= ε``: the Lagrangian dual can stop short of the
fair optimum, and the tree it returns then leaves room that the MIP, whose LP relaxation
routes rows fractionally, rarely finds in its work limit (measured: a depth-3 MIP on 200
compas rows made no progress at its root node in 60 s).  This search closes part of that room
cheaply, with the true objective:

* a tree's value with its structure fixed depends on its leaves only through each leaf's
  sums ``(errors if 0, errors if 1, each group-rate numerator if 1)``, so the best of all
  ``2^(2^D)`` labellings (256 at depth 3) is one matrix product per structure;
* a *move* replaces the split of one node ``v`` by another candidate; the rows reaching
  ``v`` then fall into the leaves of its two (unchanged) subtrees by the new split, so the
  leaf sums of every candidate at ``v`` are one product ``Bᵀ·(one-hot leaf ⊗ sums)``;
* best improvement: every node and candidate, each with its best labelling, and the best
  move is taken while it lowers the objective; under a bound, a tree over it scores
  ``2 + excess`` (above every tree within it), so the search first walks to the bound, then
  lowers the loss along it; ties keep the earlier node and candidate.

All sums are of whole row counts, so the products are exact and the search is deterministic.
Only for depth <= :data:`MAX_DEPTH` (at depth 4 there are 65,536 labellings per structure).
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from fairspec.models.mip_forest.objective import OBJECTIVE_TOL, Objective
from fairspec.models.mip_forest.structure import HeapTree

#: deepest tree the search labels exhaustively
MAX_DEPTH = 3
#: most moves taken
MAX_MOVES = 60
#: what a labelling that breaks the bound scores, plus its excess (losses are at most 1)
INFEASIBLE = 2.0


class _Scorer:
    """Values of every labelling of a structure, from its leaf sums."""

    def __init__(self, objective: Objective, depth: int):
        self.objective = objective
        n_leaves = 2 ** depth
        codes = np.arange(2 ** n_leaves)
        #: every labelling, one row each: bit l of its index is leaf l's class
        self.labellings = ((codes[:, None] >> np.arange(n_leaves)[None, :]) & 1).astype(float)
        terms = [t for ts in objective.compared.values() for t in ts]
        self.terms = terms
        self.row_sums = np.column_stack([objective.positives, objective.negatives] + [t.a for t in terms])
        self.b = np.array([t.b for t in terms])
        self.den = np.array([t.den for t in terms])
        self.rate_slices = []
        start = 0
        for ts in objective.compared.values():
            self.rate_slices.append(slice(start, start + len(ts)))
            start += len(ts)

    def best(self, leaf_sums: np.ndarray):
        """``leaf_sums`` ``(..., leaves, features)`` -> (objective, feasible, labelling index) of
        the best labelling of each structure."""
        C = self.labellings
        e0, e1, num = leaf_sums[..., 0], leaf_sums[..., 1], leaf_sums[..., 2:]
        errors = e0.sum(axis=-1)[..., None] + (e1 - e0) @ C.T               # (..., labellings)
        obj = self.objective
        loss = errors / max(obj.n, 1.0)
        if self.terms:
            rates = (np.einsum("cl,...lt->...ct", C, num) + self.b) / self.den  # (..., labellings, terms)
            gap = np.max(np.stack([rates[..., sl].max(axis=-1) - rates[..., sl].min(axis=-1)
                                   for sl in self.rate_slices], axis=-1), axis=-1)
        else:
            gap = np.zeros_like(loss)
        if obj.form == "penalty":
            value = loss + obj.lam * gap
            feasible = np.ones_like(value, dtype=bool)
        elif obj.form == "bound":
            feasible = gap <= obj.eps + OBJECTIVE_TOL
            # a labelling over the bound scores above every one within it (a loss is at most
            # 1), the less over, the lower: the search walks towards the bound, then along it
            value = np.where(feasible, loss, INFEASIBLE + gap - obj.eps)
        else:
            value, feasible = loss, np.ones_like(loss, dtype=bool)
        pick = np.argmin(value, axis=-1)
        best = np.take_along_axis(value, pick[..., None], axis=-1)[..., 0]
        return best, best < INFEASIBLE, pick


def improve(left: np.ndarray, objective: Objective, tree: HeapTree) -> tuple[HeapTree, int]:
    """The tree the search reaches from ``tree`` (never worse), and the moves it took."""
    depth = tree.depth
    if depth > MAX_DEPTH or left.shape[1] == 0:
        return tree, 0
    with threadpool_limits(limits=1, user_api="blas"):
        return _improve(left, objective, tree)


def _improve(left, objective, tree):
    depth = tree.depth
    n_branch = 2 ** depth - 1
    n_leaves = n_branch + 1
    scorer = _Scorer(objective, depth)
    S = scorer.row_sums
    B = left.astype(float)
    splits = np.array(tree.splits, dtype=np.int64)
    leaf = HeapTree(splits, tree.labels).leaf_of(left)
    current_value, current_ok, pick = scorer.best(_leaf_sums(leaf, S, n_leaves)[None])
    current_value, labels = float(current_value[0]), scorer.labellings[int(pick[0])].astype(np.int64)
    moves = 0
    while moves < MAX_MOVES:
        best = None
        for v in range(n_branch):
            values, _, picks = scorer.best(_move_sums(left, B, S, splits, v, depth))
            s = int(np.argmin(values))
            if best is None or values[s] < best[0]:
                best = (float(values[s]), v, s, int(picks[s]))
        if best is None or best[0] >= current_value - OBJECTIVE_TOL:
            break
        current_value, v, s, p = best
        splits[v] = s
        labels = scorer.labellings[p].astype(np.int64)
        moves += 1
    return HeapTree(splits, labels), moves


def _leaf_sums(leaf: np.ndarray, S: np.ndarray, n_leaves: int) -> np.ndarray:
    out = np.zeros((n_leaves, S.shape[1]))
    np.add.at(out, leaf, S)
    return out


def _move_sums(left, B, S, splits, v, depth) -> np.ndarray:
    """Leaf sums of the tree with node ``v``'s split replaced by each candidate:
    ``(candidates, leaves, features)``."""
    n_branch = 2 ** depth - 1
    n_leaves = n_branch + 1
    R, F = S.shape
    every = np.arange(R)
    node = np.zeros(R, dtype=np.int64)
    for _ in range(int(np.log2(v + 1))):  # down to v's level
        node = np.where(left[every, splits[node]], 2 * node + 1, 2 * node + 2)
    at_v = node == v
    elsewhere = np.flatnonzero(~at_v)
    fixed = _leaf_sums(_walk(left, splits, elsewhere, node[elsewhere], n_branch), S[elsewhere], n_leaves)
    r = np.flatnonzero(at_v)
    if len(r) == 0:
        return np.broadcast_to(fixed, (left.shape[1],) + fixed.shape).copy()
    via_left = _walk(left, splits, r, np.full(len(r), 2 * v + 1), n_branch)
    via_right = _walk(left, splits, r, np.full(len(r), 2 * v + 2), n_branch)
    onehot_left = np.zeros((len(r), n_leaves, F))
    onehot_left[np.arange(len(r)), via_left] = S[r]
    onehot_right = np.zeros((len(r), n_leaves, F))
    onehot_right[np.arange(len(r)), via_right] = S[r]
    Bv = B[r]
    moved = Bv.T @ onehot_left.reshape(len(r), -1) + (1.0 - Bv).T @ onehot_right.reshape(len(r), -1)
    return fixed[None] + moved.reshape(left.shape[1], n_leaves, F)


def _walk(left, splits, r, start: np.ndarray, n_branch: int) -> np.ndarray:
    """The leaf each class in ``r`` reaches from its node in ``start`` down."""
    node = np.array(start, dtype=np.int64)
    while (node < n_branch).any():
        inner = node < n_branch
        node[inner] = np.where(left[r[inner], splits[node[inner]]], 2 * node[inner] + 1, 2 * node[inner] + 2)
    return node - n_branch
