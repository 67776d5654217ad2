"""Candidate splits and the merged rows a tree is learned from.

A branching node of a MIP tree chooses one *candidate split*: a Boolean test of one feature
that sends a row left when true.  The candidates are the rule-set family's literals
(:func:`fairspec.models.rule_set.binarize.candidate_literals`): ``x_j <= t`` at the quantile
cuts ``t`` of a numeric feature, ``x_j == v`` for every training code of a categorical one,
and, under ``missing="mia"`` and only for a feature with a missing training value, each test
twice, once with a missing value true (left) and once false (right), plus ``x_j is present``.
So the missing direction of a node is part of the candidate it picks: MIA (Twala et al. 2008,
as Jeong, Wang & Calmon use it) is a one-hot choice, not a big-M constraint on a threshold
variable and a direction binary as in the paper's branching constraints.

Only one test of each complementary pair is kept (``x <= t`` but not ``x > t``; ``== v`` but
not ``!= v``; ``is present`` but not ``is missing``): a subtree under the complement is the
mirror image of one under the test, with the same leaves, so the complement adds no tree.
On a given set of rows, tests that send the same rows left (or the same rows right, the
mirror) are kept once, the first in candidate order, and a test that sends every row the same
way is dropped: neither can change a tree's training loss or fairness.

Rows are merged twice.  A *route class* is a set of rows every candidate sends the same way:
they reach the same leaf of any tree, so the MIP needs one routing variable per class, not
per row.  Within a class, rows are counted per (label, group) cell: the loss and every group
rate are sums of those counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairspec.models.rule_set.binarize import Literal, candidate_literals
from fairspec.models.rule_set.master import distinct_rows

#: the literal operators a split uses (their complements add no tree; module docstring)
SPLIT_OPS = ("<=", "==", "is_present")


def candidate_splits(X: np.ndarray, categorical_features, thresholds: int, missing: str) -> list[Literal]:
    """Every candidate split of the training matrix ``X`` (module docstring), distinct on ``X``."""
    literals = [lit for lit in candidate_literals(X, categorical_features, thresholds, missing) if lit.op in SPLIT_OPS]
    if not literals:
        return []
    keep = distinct_tests(split_matrix(literals, X))
    return [literals[k] for k in keep]


def split_matrix(splits: list[Literal], X: np.ndarray) -> np.ndarray:
    """``(rows, splits)`` bool: True where a split sends a row left."""
    out = np.empty((X.shape[0], len(splits)), dtype=bool)
    for k, lit in enumerate(splits):
        out[:, k] = lit.evaluate(X)
    return out


def distinct_tests(matrix: np.ndarray) -> np.ndarray:
    """Indices of the columns of ``matrix`` to keep: the first of each set of columns equal up to
    complement (a column and its mirror split the rows alike), none that is constant."""
    if matrix.shape[1] == 0 or matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    canonical = matrix ^ matrix[0:1, :]  # every column False on row 0: a column and its complement agree
    packed = np.packbits(canonical, axis=0).T
    _, first = np.unique(packed, axis=0, return_index=True)
    first = np.sort(first)
    varies = canonical.any(axis=0)
    return first[varies[first]]


@dataclass
class RouteClasses:
    """Rows merged for one tree: ``left[r, s]`` whether split ``s`` sends class ``r`` left, and
    ``count[r, y, g]`` the weight of class ``r``'s rows with label ``y`` in group ``g``."""

    left: np.ndarray
    count: np.ndarray
    #: the route class of each row the classes were made from
    of_row: np.ndarray

    @classmethod
    def of(cls, matrix: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int,
           weight: np.ndarray | None = None) -> "RouteClasses":
        """Merge the rows of a split matrix (``groups`` as codes ``0..n_groups-1``).  Classes are
        numbered by content (:func:`~fairspec.models.rule_set.master.distinct_rows` sorts them),
        so the same rows in another order give the same classes in the same order."""
        n = matrix.shape[0]
        w = np.ones(n) if weight is None else np.asarray(weight, float)
        if matrix.shape[1] == 0:
            of_row = np.zeros(n, dtype=np.int64)
            left = np.zeros((1 if n else 0, 0), dtype=bool)
        else:
            first, of_row = distinct_rows(matrix)
            left = matrix[first]
        count = np.zeros((left.shape[0], 2, max(n_groups, 1)))
        np.add.at(count, (of_row, np.asarray(y, dtype=np.int64), np.asarray(groups, dtype=np.int64)), w)
        return cls(left, count, of_row)

    @property
    def n_classes(self) -> int:
        return self.left.shape[0]
