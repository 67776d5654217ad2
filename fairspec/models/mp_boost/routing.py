"""Routing every training row through a round's tree, fast: the boosting loop does it once per
round for all ``N`` rows (step 3 of :mod:`.boosting`).

:meth:`~fairspec.models.tree.grow.TreeStructure.route_rows` reads raw values and handles any
row, seen or not; here the rows are the training rows, whose features were encoded once as
bin codes (:class:`~fairspec.models.tree.split_search.EncodedFeatures`: the rank of a value
among the column's distinct training values, ``U_j`` for a missing one).  Each split node
becomes a lookup table from its feature's codes to the child a row takes, so a level of the
tree is three gathers over the rows:

* numeric split ``x < threshold``: codes below ``searchsorted(values_j, threshold)`` go left,
  the other observed codes right;
* categorical split: the codes of the left (right) categories go left (right); a category the
  node did not list goes where a missing value goes, as in ``route_rows``;
* the missing code: the node's route (left, right or the Trinary middle child).

A leaf reads a row of zeros through a one-entry table that names the leaf itself, so rows that
arrived stay there while the others descend.  Trees that split a row over two children (fractional routing of a missing
value) are left to ``route_rows``: :meth:`TrainingRouter.leaves` returns ``None`` for them.
``tests/models/test_mp_boost.py`` checks this router against ``route_rows`` for every
missing-value strategy.
"""
from __future__ import annotations

import numpy as np

from fairspec.models.tree import compiled
from fairspec.models.tree.grow import TreeStructure
from fairspec.models.tree.split_search import FRACTIONAL, LEFT, MIDDLE, RIGHT, EncodedFeatures


def _missing_child(tree: TreeStructure, i: int) -> int:
    route = tree.route[i]
    return {LEFT: tree.left[i], RIGHT: tree.right[i], MIDDLE: tree.middle[i]}[route]


class TrainingRouter:
    """The training rows' codes, laid out once per fit for :meth:`leaves`: one row of codes per
    feature, plus a row of zeros that a leaf "reads" (its one-entry table keeps the row there)."""

    def __init__(self, enc: EncodedFeatures):
        self.enc = enc
        self.n_rows = enc.codes.shape[1]
        n_features = enc.codes.shape[0]
        codes = np.zeros((n_features + 1, self.n_rows), dtype=np.int64)
        codes[:n_features] = enc.codes
        self.flat_codes = codes.reshape(-1)
        self.constant_row = n_features * self.n_rows
        self.base = np.arange(self.n_rows, dtype=np.int64)

    def leaves(self, tree: TreeStructure) -> np.ndarray | None:
        """The leaf each training row reaches (node indices), or ``None`` when the tree routes
        some missing value fractionally (then use ``route_rows``)."""
        n_nodes = tree.n_nodes
        starts = np.empty(n_nodes, dtype=np.int64)  # where each node's codes start in flat_codes
        tables = []
        for i in range(n_nodes):
            j = tree.feature[i]
            if j < 0:
                starts[i] = self.constant_row
                tables.append(np.array([i], dtype=np.int64))
                continue
            if tree.route[i] == FRACTIONAL:
                return None
            values = self.enc.values[j]
            U = len(values)
            other = _missing_child(tree, i)
            if tree.left_codes[i] is not None:
                table = np.full(U + 1, other, dtype=np.int64)
                for codes, child in ((tree.left_codes[i], tree.left[i]), (tree.right_codes[i], tree.right[i])):
                    codes = np.asarray(codes, dtype=float)
                    at = np.searchsorted(values, codes)
                    found = at < U
                    found[found] = values[at[found]] == codes[found]
                    table[at[found]] = child
            else:
                table = np.full(U + 1, tree.right[i], dtype=np.int64)
                table[:int(np.searchsorted(values, tree.threshold[i], side="left"))] = tree.left[i]  # values below it
            table[U] = other
            starts[i] = j * self.n_rows
            tables.append(table)
        sizes = np.fromiter((len(t) for t in tables), dtype=np.int64, count=n_nodes)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        flat_tables = np.concatenate(tables)
        if compiled.active():  # one pass over the rows instead of four gathers per level
            return compiled.route_by_tables(flat_tables, offsets, starts, self.flat_codes, self.n_rows,
                                            _longest_path(tree))
        node = np.zeros(self.n_rows, dtype=np.int64)
        for _ in range(_longest_path(tree)):
            node = flat_tables[offsets[node] + self.flat_codes[starts[node] + self.base]]
        return node


def leaf_of_training_rows(tree: TreeStructure, enc: EncodedFeatures) -> np.ndarray | None:
    """:meth:`TrainingRouter.leaves` for one tree (the boosting loop keeps one router per fit)."""
    return TrainingRouter(enc).leaves(tree)


def _longest_path(tree: TreeStructure) -> int:
    """Hops from the root to the deepest leaf (a Trinary middle child sits at its parent's
    depth, so this can exceed the tree's depth)."""
    hops = [0] * tree.n_nodes
    for i in range(tree.n_nodes):  # children come after their parent
        if tree.feature[i] >= 0:
            for c in (tree.left[i], tree.right[i], tree.middle[i]):
                if c >= 0:
                    hops[c] = hops[i] + 1
    return max(hops)
