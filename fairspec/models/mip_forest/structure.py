"""A tree of fixed depth in heap order, over candidate splits.

Branching node ``v`` (``0`` the root) has children ``2v + 1`` (left: the split is true) and
``2v + 2``; the ``2^D`` leaves follow the ``2^D - 1`` branching nodes, leaf ``l`` at heap
index ``2^D - 1 + l``, left to right.  Every tree has full depth: a node whose two subtrees
predict the same class is a smaller tree, which :mod:`.estimator` prints as one leaf.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class HeapTree:
    """``splits[v]``: the candidate (a column of a split matrix) node ``v`` tests;
    ``labels[l]``: the class leaf ``l`` predicts."""

    splits: np.ndarray
    labels: np.ndarray

    @property
    def depth(self) -> int:
        return int(np.log2(len(self.labels)))

    def leaf_of(self, left: np.ndarray) -> np.ndarray:
        """The leaf each row of a split matrix ``left`` (rows x candidates, bool) reaches (leaf 0
        for every row when there is no candidate: its leaves then all predict one class)."""
        if left.shape[1] == 0:
            return np.zeros(left.shape[0], dtype=np.int64)
        node = np.zeros(left.shape[0], dtype=np.int64)
        rows = np.arange(left.shape[0])
        for _ in range(self.depth):
            goes_left = left[rows, np.asarray(self.splits)[node]]
            node = np.where(goes_left, 2 * node + 1, 2 * node + 2)
        return node - (len(self.labels) - 1)

    def predict(self, left: np.ndarray) -> np.ndarray:
        return np.asarray(self.labels)[self.leaf_of(left)]

    def key(self) -> tuple:
        """A hashable identity (the same splits and labels)."""
        return tuple(int(s) for s in self.splits), tuple(int(c) for c in self.labels)


def constant_tree(depth: int, label: int) -> HeapTree:
    """Every leaf ``label``; the splits are the first candidate (they decide nothing)."""
    return HeapTree(np.zeros(2 ** depth - 1, dtype=np.int64), np.full(2 ** depth, int(label), dtype=np.int64))


def ancestors(depth: int):
    """Per leaf, its branching ancestors and the side taken at each: ``[(node, is_left), ...]``."""
    out = []
    for leaf in range(2 ** depth):
        path, node = [], leaf + 2 ** depth - 1
        while node > 0:
            parent = (node - 1) // 2
            path.append((parent, node == 2 * parent + 1))
            node = parent
        out.append(path[::-1])
    return out
