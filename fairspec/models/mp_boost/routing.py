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

A leaf's table sends every code to the leaf itself, so rows that arrived stay there while the
others descend.  Trees that split a row over two children (fractional routing of a missing
value) are left to ``route_rows``: :func:`leaf_of_training_rows` returns ``None`` for them.
``tests/models/test_mp_boost.py`` checks this router against ``route_rows`` for every
missing-value strategy.
"""
from __future__ import annotations

import numpy as np

from fairspec.models.tree.grow import TreeStructure
from fairspec.models.tree.split_search import FRACTIONAL, LEFT, MIDDLE, RIGHT, EncodedFeatures


def _missing_child(tree: TreeStructure, i: int) -> int:
    route = tree.route[i]
    return {LEFT: tree.left[i], RIGHT: tree.right[i], MIDDLE: tree.middle[i]}[route]


def leaf_of_training_rows(tree: TreeStructure, enc: EncodedFeatures) -> np.ndarray | None:
    """The leaf each encoded training row reaches (node indices), or ``None`` when the tree
    routes some missing value fractionally (then use ``route_rows``)."""
    if any(tree.route[i] == FRACTIONAL for i in range(tree.n_nodes) if tree.feature[i] >= 0):
        return None
    n_rows = enc.codes.shape[1]
    sizes = np.array([len(v) + 1 for v in enc.values])
    dummy = int(np.argmin(sizes))  # the feature a leaf "reads": any will do, the smallest table is cheapest
    feats, tables = [], []
    for i in range(tree.n_nodes):
        j = tree.feature[i]
        if j < 0:
            feats.append(dummy)
            tables.append(np.full(sizes[dummy], i, dtype=np.int64))
            continue
        values = enc.values[j]
        U = len(values)
        other = _missing_child(tree, i)
        if tree.left_codes[i] is not None:
            table = np.full(U + 1, other, dtype=np.int64)
            for codes, child in ((tree.left_codes[i], tree.left[i]), (tree.right_codes[i], tree.right[i])):
                codes = np.asarray(codes, dtype=float)
                at = np.searchsorted(values, codes)
                found = (at < U) & (values[np.minimum(at, U - 1)] == codes) if U else np.zeros(len(codes), bool)
                table[at[found]] = child
        else:
            cut = int(np.searchsorted(values, tree.threshold[i], side="left"))  # values below the threshold
            table = np.empty(U + 1, dtype=np.int64)
            table[:cut] = tree.left[i]
            table[cut:U] = tree.right[i]
        table[U] = other
        feats.append(j)
        tables.append(table)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in tables])[:-1]]).astype(np.int64)
    flat_tables = np.concatenate(tables)
    feats = np.asarray(feats, dtype=np.int64)
    flat_codes = enc.codes.reshape(-1)
    base = np.arange(n_rows, dtype=np.int64)
    node = np.zeros(n_rows, dtype=np.int64)
    for _ in range(_longest_path(tree)):
        node = flat_tables[offsets[node] + flat_codes[feats[node] * n_rows + base]]
    return node


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
