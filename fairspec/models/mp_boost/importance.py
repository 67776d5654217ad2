"""Per-tree feature scores that steer Fair MP-Boost's feature probabilities: impurity
importance and FairTreeFIS.

Both are read off the rows that *reach* each node when the tree predicts: the leaves a row
ends in (several, with weights, under fractional routing) are summed upwards, a node's
statistics being the sum of its children's (:func:`reach_stats`).  A Trinary middle child
therefore counts the rows *missing* the split feature, the rows it is reached by, not all of
its parent's rows that it was grown on.

Which rows: the training rows *outside* the round's minipatch (:mod:`.boosting`).  MP-Boost
(Toghani & Allen, Algorithm 1, step 4b) scores a minipatch's features by the tree fitted to it,
and the FairTreeFIS code computes its scores on a tree's own training rows; we decided
otherwise for both.  A minipatch holds ``√N`` rows (151 on adult): on them the impurity
decrease favours features with many distinct values, whose splits fit a few rows (the known
bias of mean decrease in impurity, Strobl et al. 2007), and on our own adult splits the
feature probabilities drifted towards ``fnlwgt`` and ``native_country``; measured on rows the
tree did not see, a split that fitted noise separates nothing (the out-of-sample impurity
decrease of Li et al. 2019 and Zhou & Hooker 2021).  Per-node group rates over a few dozen
rows are mostly noise too.  Every round routes all training rows through its tree anyway, so
the held-out rows cost one count.

Impurity importance (mean decrease in impurity, Breiman): for each split node ``t`` on
feature ``j``, ``W_t·imp(t) - Σ_c W_c·imp(c)`` (``W`` the weight of rows reaching the node,
``imp`` Gini or entropy of their labels), summed per feature and normalised to sum 1.

FairTreeFIS (Little, Halder Lina & Allen, "Fair Feature Importance Scores", arXiv 2310.04352).
The bias of a split node ``t`` with children ``c`` is the demographic-parity gap of the
*soft* prediction in which every child predicts its share of positives ``π_c = P_c(y=1)``:

    bias(t) = | Σ_c DP(only c labelled 1) · π_c |,   DP = P(ŷ=1 | S≠s) - P(ŷ=1 | S=s)

over the rows reaching ``t``.  For two children this is the paper's
``|DP(pred_LR)·P_R(y=1) + DP(pred_RL)·P_L(y=1)|`` (``pred_LR`` labels the left child 0 and
the right 1); a Trinary split adds its middle child as a third term.  Since
``DP(only c labelled 1)`` is the difference of the two groups' shares of ``t``'s rows that go
to ``c``, the sum equals ``r_A - r_B`` with ``r_g = Σ_c share_g(c) · π_c``: the difference of the
groups' mean soft predictions.  With more than two groups we take ``max_g r_g - min_g r_g`` (the
project's gap, :mod:`fairspec.registry.criteria`; for two groups the paper's absolute value).
The equal-opportunity variant takes the group shares over the node's positive rows (the TPR
difference of the paper's ``eqop``); ``π_c`` stays the child's share of positives over all its
rows, as in the paper.  A node's own bias is that of the split that made it (its parent's);
the root's is 0, the gap of a constant prediction.  A feature's score sums, over the nodes
split on it, ``(bias(node) - bias(split of node)) · W_node / W_root`` and the scores are divided
by the sum of their absolute values: positive where a split reduced the bias, negative where it
added to it.
"""
from __future__ import annotations

import numpy as np

from fairspec.models.tree.grow import TreeStructure

_EPS = 1e-300


def children_of(tree: TreeStructure) -> list[tuple[int, ...]]:
    """The children of every node (empty for a leaf): left, right and a Trinary middle one."""
    out = []
    for i in range(tree.n_nodes):
        if tree.feature[i] < 0:
            out.append(())
        else:
            kids = (tree.left[i], tree.right[i]) + ((tree.middle[i],) if tree.middle[i] >= 0 else ())
            out.append(tuple(int(k) for k in kids))
    return out


def reach_stats(tree: TreeStructure, at_leaves: np.ndarray) -> np.ndarray:
    """``(n_nodes, K)`` statistics of the rows reaching each node, from ``at_leaves``, the same
    statistics of the rows ending in each leaf (zero rows for the split nodes): every row
    reaching a node leaves it by one child (or by two, with weights summing to its own)."""
    S = np.array(at_leaves, dtype=float)
    # children are numbered after their parent (grow_tree, from_nodes): one pass upwards
    for i, kids in reversed(list(enumerate(children_of(tree)))):
        for c in kids:
            S[i] += S[c]
    return S


def _impurity_loss(w0: np.ndarray, w1: np.ndarray, criterion: str) -> np.ndarray:
    W = w0 + w1
    safe = np.maximum(W, _EPS)
    p0, p1 = w0 / safe, w1 / safe
    if criterion == "gini":
        return W * (1.0 - p0 * p0 - p1 * p1)
    return -(w0 * np.log(np.maximum(p0, _EPS)) + w1 * np.log(np.maximum(p1, _EPS)))


def impurity_importance(tree: TreeStructure, label_stats: np.ndarray, n_features: int,
                        criterion: str = "gini") -> np.ndarray:
    """Mean decrease in impurity per feature, normalised to sum 1 (zeros for a tree without a
    split); ``label_stats`` is :func:`reach_stats` of the rows' labels (columns 0 and 1)."""
    loss = _impurity_loss(label_stats[:, 0], label_stats[:, 1], criterion)
    out = np.zeros(n_features)
    for t, kids in enumerate(children_of(tree)):
        if kids:
            out[tree.feature[t]] += loss[t] - sum(loss[c] for c in kids)
    out = np.maximum(out, 0.0)  # a partition never raises the weighted impurity; rounding can
    total = out.sum()
    return out / total if total > 0 else out


def split_bias(positives: np.ndarray, rows: np.ndarray, share_of_positive: np.ndarray, t: int,
               kids: tuple[int, ...], positives_only: bool) -> float:
    """FairTreeFIS's bias of the split at node ``t`` (module docstring): ``positives`` and
    ``rows`` are ``(nodes, groups)`` weights reaching each node, ``share_of_positive`` each
    node's ``π``."""
    base = positives if positives_only else rows
    den = base[t]
    present = den > 0
    if present.sum() < 2:
        return 0.0
    shares = base[list(kids)][:, present] / den[present]  # (children, groups present)
    rate = share_of_positive[list(kids)] @ shares
    return float(rate.max() - rate.min())


def fair_tree_fis(tree: TreeStructure, group_label_stats: np.ndarray, n_features: int, n_groups: int,
                  positives_only: bool = False, normalise: bool = True) -> np.ndarray:
    """FairTreeFIS per feature (module docstring): ``group_label_stats`` is
    :func:`reach_stats` of the rows by ``2·group + label``; ``positives_only`` for the
    equal-opportunity variant.  Zeros when no split changed the bias."""
    kids_of = children_of(tree)
    node_bias = np.zeros(tree.n_nodes)
    positives = group_label_stats[:, 1::2]
    rows = group_label_stats[:, 0::2] + positives
    W = rows.sum(axis=1)
    # a child no row reaches has no share of positives, and no group sends it a share either
    share_of_positive = positives.sum(axis=1) / np.maximum(W, _EPS)
    root = W[0]
    out = np.zeros(n_features)
    if root <= 0:
        return out
    for t, kids in enumerate(kids_of):  # parents before children
        if not kids:
            continue
        b = split_bias(positives, rows, share_of_positive, t, kids, positives_only)
        for c in kids:
            node_bias[c] = b
        out[tree.feature[t]] += (node_bias[t] - b) * W[t] / root
    total = np.abs(out).sum()
    return out / total if normalise and total > 0 else out
