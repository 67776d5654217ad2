"""Warm start: rules mined from scikit-learn trees, as the paper seeds its master (sec. 5).

Every root-to-leaf path of a tree fitted on the literal matrix whose leaf predicts the
positive class is a conjunction: a split "literal j false" is rewritten as the complementary
literal (``x <= t`` ↔ ``x > t`` with the opposite missing form, ``==`` ↔ ``!=``,
``is missing`` ↔ ``is present``), found by its truth values on the training patterns.  A
path whose complement does not exist among the literals (possible when ``missing="none"``
and the feature has missing values) is dropped.
"""
from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier


def complement_map(literals: np.ndarray) -> dict[int, int]:
    """Literal index -> index of the literal true exactly where it is false (on the patterns)."""
    packed = np.packbits(literals, axis=0).T
    packed_not = np.packbits(~literals, axis=0).T
    where = {row.tobytes(): j for j, row in enumerate(packed)}
    return {j: where[row.tobytes()] for j, row in enumerate(packed_not) if row.tobytes() in where}


def _tree_rules(tree, complements: dict[int, int], max_conditions: int) -> set[tuple]:
    t = tree.tree_
    rules = set()
    stack = [(0, ())]
    while stack:
        node, path = stack.pop()
        if t.children_left[node] == -1:
            value = t.value[node][0]
            if len(value) > 1 and value[1] > value[0] and 0 < len(path) <= max_conditions:
                rules.add(tuple(sorted(set(path))))
            continue
        j = int(t.feature[node])
        # sklearn sends "x_j <= 0.5" (literal false) left
        if j in complements:
            stack.append((t.children_left[node], path + (complements[j],)))
        stack.append((t.children_right[node], path + (j,)))
    return rules


def tree_rules(literals: np.ndarray, y: np.ndarray, weight: np.ndarray, *, max_conditions: int, seed: int,
               n_trees: int = 10) -> list[tuple]:
    """Positive-leaf paths of one decision tree and a small random forest, depth ≤ ``max_conditions``."""
    if len(np.unique(y)) < 2 or literals.shape[1] == 0:
        return []
    complements = complement_map(literals)
    Xf = literals.astype(np.float32)
    models = [
        DecisionTreeClassifier(max_depth=max_conditions, random_state=seed, min_weight_fraction_leaf=0.005),
        RandomForestClassifier(n_estimators=n_trees, max_depth=max_conditions, random_state=seed,
                               min_weight_fraction_leaf=0.005, n_jobs=1),
    ]
    rules: set[tuple] = set()
    for model in models:
        model.fit(Xf, y, sample_weight=weight)
        trees = model.estimators_ if hasattr(model, "estimators_") else [model]
        for tree in trees:
            rules |= _tree_rules(tree, complements, max_conditions)
    return sorted(rules)
