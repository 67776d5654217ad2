"""The histogram regression tree (fairspec.models.tree.histogram): its split search against a
brute force over every partition on tiny data, its leaf values, its routing of raw and binned
rows, its missing-value rules and its model-file form."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from fairspec.models.tree.histogram import (EnsembleRouter, FeatureBins, HistogramTree, TreeSettings,
                                            grow_histogram_tree, refuse_strategy)


def _tiny(seed, n=24):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 6, n).astype(float),       # numeric, few values
                         rng.normal(size=n).round(1),               # numeric
                         rng.integers(0, 4, n).astype(float)])      # categorical codes
    X[rng.random(n) < 0.2, 0] = np.nan
    X[rng.random(n) < 0.15, 2] = np.nan
    g = rng.normal(size=n)
    h = rng.uniform(0.1, 1.0, n)
    return X, g, h


def _gain(g, h, left, l2=0.0):
    G, H = g.sum(), h.sum()
    GL, HL = g[left].sum(), h[left].sum()
    return GL ** 2 / (HL + l2) + (G - GL) ** 2 / (H - HL + l2) - G ** 2 / (H + l2)


def _brute_force_best(X, g, h, categorical, min_leaf):
    """The largest gain over every split the tree may make: each threshold (numeric) or subset
    of the present categories (categorical), with the missing rows on either side."""
    best = -np.inf
    n = len(g)
    for j in range(X.shape[1]):
        col = X[:, j]
        miss = np.isnan(col)
        values = np.unique(col[~miss])
        if j in categorical:
            sides = [np.isin(col, subset) for r in range(1, len(values) + 1)
                     for subset in itertools.combinations(values, r)]
        else:
            sides = [col <= v for v in values]  # the largest value: every present row left
        for observed_left in sides:
            for missing_left in (True, False):
                left = (observed_left & ~miss) | (miss & missing_left)
                if min_leaf <= left.sum() <= n - min_leaf:
                    best = max(best, _gain(g, h, left))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_the_root_split_is_the_best_of_every_partition(seed):
    X, g, h = _tiny(seed)
    bins = FeatureBins.fit(X, [2])
    exact = TreeSettings(max_depth=1, min_samples_leaf=2, min_child_hessian=0.0, category_smoothing=0.0,
                         category_l2=0.0, min_category_rows=0)
    tree, leaf = grow_histogram_tree(bins.transform(X), bins, g, h, exact)
    expected = _brute_force_best(X, g, h, {2}, 2)
    assert tree.feature[0] >= 0
    got = _gain(g, h, leaf == tree.left[0])
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_leaf_values_are_newton_steps_and_raw_and_binned_routing_agree():
    X, g, h = _tiny(3, n=200)
    bins = FeatureBins.fit(X, [2])
    codes = bins.transform(X)
    s = TreeSettings(max_depth=3, min_samples_leaf=5, l2=0.5, learning_rate=0.3)
    tree, leaf = grow_histogram_tree(codes, bins, g, h, s)
    for node in np.unique(leaf):
        rows = leaf == node
        assert tree.value[node] == pytest.approx(-0.3 * g[rows].sum() / (h[rows].sum() + 0.5))
        assert tree.n[node] == rows.sum() >= 5
    assert (tree.apply(X) == leaf).all()
    assert (tree.apply_bins(codes) == leaf).all()
    assert tree.depth <= 3


def test_a_missing_value_goes_where_training_sent_it_or_to_the_larger_child():
    rng = np.random.default_rng(0)
    n = 400
    x = rng.normal(size=n)
    g = np.where(x > 0.3, -1.0, 1.0)
    X = x.reshape(-1, 1).copy()
    missing = rng.random(n) < 0.2
    X[missing, 0] = np.nan
    g[missing] = -1.0  # missing rows behave like the right side
    bins = FeatureBins.fit(X, [])
    tree, _ = grow_histogram_tree(bins.transform(X), bins, g, np.ones(n), TreeSettings(max_depth=1, min_samples_leaf=1))
    assert not tree.missing_left[0]  # learned: the right child
    assert tree.apply(np.array([[np.nan]]))[0] == tree.right[0]
    # no missing value in training: a missing value goes to the child with more rows
    bins = FeatureBins.fit(x.reshape(-1, 1), [])
    g = np.where(x > 1.0, -1.0, 1.0)
    tree, leaf = grow_histogram_tree(bins.transform(x.reshape(-1, 1)), bins, g, np.ones(n),
                                     TreeSettings(max_depth=1, min_samples_leaf=1))
    bigger = tree.left[0] if (leaf == tree.left[0]).sum() >= (leaf == tree.right[0]).sum() else tree.right[0]
    assert tree.apply(np.array([[np.nan]]))[0] == bigger


def test_present_vs_missing_holds_past_the_training_range():
    rng = np.random.default_rng(1)
    n = 300
    X = rng.normal(size=(n, 1))
    missing = rng.random(n) < 0.3
    X[missing, 0] = np.nan
    g = np.where(missing, 1.0, -1.0)  # only missingness matters
    bins = FeatureBins.fit(X, [])
    tree, _ = grow_histogram_tree(bins.transform(X), bins, g, np.ones(n), TreeSettings(max_depth=1, min_samples_leaf=1))
    assert np.isinf(tree.threshold[0]) and not tree.missing_left[0]
    far = np.array([[1e6], [np.nan]])
    assert tree.apply(far).tolist() == [tree.left[0], tree.right[0]]
    assert json.loads(json.dumps(tree.to_json()))["threshold"][0] is None  # no Infinity in a model file


def test_rare_categories_are_kept_together_and_categorical_gains_pay_category_l2():
    rng = np.random.default_rng(4)
    # 30 categories of 3 rows each, whose gradients are pure noise, beside 2 large ones
    X = np.r_[np.repeat(np.arange(30), 3), np.full(200, 30), np.full(200, 31)].astype(float).reshape(-1, 1)
    g = np.r_[rng.normal(size=90) * 3, np.full(200, -1.0), np.full(200, 1.0)]
    bins = FeatureBins.fit(X, [0])
    tree, _ = grow_histogram_tree(bins.transform(X), bins, g, np.ones(len(g)), TreeSettings(max_depth=1))
    rare = set(range(30))
    assert rare <= set(tree.left_codes[0]) or rare <= set(tree.right_codes[0])  # never cut among them
    exact = TreeSettings(max_depth=1, min_samples_leaf=1, category_smoothing=0.0, category_l2=0.0,
                         min_category_rows=0)
    loose, _ = grow_histogram_tree(bins.transform(X), bins, g, np.ones(len(g)), exact)
    assert not (rare <= set(loose.left_codes[0]) or rare <= set(loose.right_codes[0]))  # noise cut apart


def test_a_category_the_node_never_held_goes_as_a_missing_value():
    rng = np.random.default_rng(2)
    n = 300
    X = rng.integers(0, 3, (n, 1)).astype(float)
    g = np.where(X[:, 0] == 1, -2.0, 1.0) + 0.1 * rng.normal(size=n)
    bins = FeatureBins.fit(X, [0])
    tree, _ = grow_histogram_tree(bins.transform(X), bins, g, np.ones(n), TreeSettings(max_depth=1, min_samples_leaf=1))
    assert tree.left_codes[0] is not None
    missing_child = tree.left[0] if tree.missing_left[0] else tree.right[0]
    assert tree.apply(np.array([[7.0], [np.nan], [2.5]])).tolist() == [missing_child] * 3


def test_numeric_bins_cut_at_training_values_and_rare_categories_share_a_bin():
    rng = np.random.default_rng(3)
    x = rng.normal(size=5000)
    bins = FeatureBins.fit(x.reshape(-1, 1), [], max_bins=16)
    assert bins.n_bins[0] <= 16
    edges = bins.edges[0]
    assert np.isin(edges, x).all()
    codes = bins.transform(x.reshape(-1, 1))[0]
    for k, e in enumerate(edges):
        assert ((codes <= k) == (x <= e)).all()
    cats = np.r_[np.repeat(np.arange(5), 100), np.arange(5, 40)].astype(float).reshape(-1, 1)
    cbins = FeatureBins.fit(cats, [0], max_bins=8)
    assert cbins.n_bins[0] == 8
    assert [len(b) for b in cbins.bin_codes[0]] == [1] * 7 + [33]


def test_unsupported_missing_rules_are_refused_by_name():
    for rule in ("trinary", "trinary_mia", "majority", "fractional"):
        with pytest.raises(ValueError, match=f"missing '{rule}' is not supported by the histogram tree.*mia, none"):
            refuse_strategy(rule)


def test_json_round_trip_and_damaged_trees():
    X, g, h = _tiny(5, n=300)
    bins = FeatureBins.fit(X, [2])
    tree, _ = grow_histogram_tree(bins.transform(X), bins, g, h, TreeSettings(max_depth=3, min_samples_leaf=3))
    doc = json.loads(json.dumps(tree.to_json()))
    again = HistogramTree.from_json(doc, 3, [2])
    assert (again.apply(X) == tree.apply(X)).all()
    assert np.array_equal(again.value, tree.value)
    bad = dict(doc, left=[5] + doc["left"][1:])  # a child before its parent... or a cycle
    with pytest.raises(ValueError):
        HistogramTree.from_json(bad, 3, [2])
    with pytest.raises(ValueError, match="feature"):
        HistogramTree.from_json(dict(doc, feature=[7] + doc["feature"][1:]), 3, [2])


def test_the_ensemble_router_scores_as_the_trees_do():
    rng = np.random.default_rng(6)
    X, _, _ = _tiny(6, n=500)
    bins = FeatureBins.fit(X, [2])
    codes = bins.transform(X)
    trees = [grow_histogram_tree(codes, bins, rng.normal(size=500), np.ones(500),
                                 TreeSettings(max_depth=3, min_samples_leaf=5))[0] for _ in range(5)]
    router = EnsembleRouter(trees, [2])
    expected = sum(t.value[t.apply_bins(codes)] for t in trees)
    assert np.array_equal(router.predict(X), expected)
    # values between and beyond the training ones, missing values, unseen categories: as the
    # documented rules say, walked one row at a time
    Z = np.column_stack([rng.uniform(-1, 7, 60), rng.normal(size=60) * 3, rng.integers(-1, 6, 60).astype(float)])
    Z[::7, 0] = np.nan
    Z[::5, 2] = np.nan
    walked = [sum(t.value[_walk(t, z)] for t in trees) for z in Z]
    assert np.allclose(router.predict(Z), walked, rtol=0, atol=1e-12)


def _walk(tree, x):
    """The leaf of one row by the rules of HistogramTree's docstring, in plain Python."""
    i = 0
    while tree.feature[i] >= 0:
        v = x[tree.feature[i]]
        if tree.left_codes[i] is not None:
            side = ("left" if v in tree.left_codes[i] else "right" if v in tree.right_codes[i] else "missing")
        else:
            side = "missing" if np.isnan(v) else ("left" if v <= tree.threshold[i] else "right")
        if side == "missing":
            side = "left" if tree.missing_left[i] else "right"
        i = tree.left[i] if side == "left" else tree.right[i]
    return i
