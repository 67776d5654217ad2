"""The compiled split search (fairspec.models.tree.compiled_split) finds the split the numpy
search finds: candidate by candidate on random per-bin counts (ties included: whole-number
counts tie often), and tree by tree on random minipatch-sized data with missing values."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.models.tree import compiled, compiled_split, split_search
from fairspec.models.tree.grow import GrowSettings, grow_tree
from fairspec.models.tree.split_search import EncodedFeatures, SplitScorer, Task

pytestmark = pytest.mark.skipif(not compiled.available(), reason="numba (the extra 'fast') is not installed")


def test_the_constants_are_the_searchs():
    assert (compiled_split.LEFT, compiled_split.RIGHT) == (split_search.LEFT, split_search.RIGHT)
    assert compiled_split.TIE_TOL == split_search.TIE_TOL


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return (a.feature == b.feature and a.score == b.score and a.route == b.route
            and a.present_vs_missing == b.present_vs_missing
            and (a.threshold == b.threshold or (a.threshold is None and b.threshold is None))
            and np.array_equal(a.left_bins, b.left_bins)
            and all((x is None and y is None) or np.array_equal(x, y)
                    for x, y in ((a.left_codes, b.left_codes), (a.right_codes, b.right_codes))))


@pytest.mark.parametrize("msl", [1, 3])
def test_every_candidate_equals_the_numpy_search(msl):
    rng = np.random.default_rng(0)
    task = Task("classification", "gini", 0)
    scorer = SplitScorer(task, "mia", msl, unit_weights=True)
    assert scorer.compiled_search
    checked = 0
    for case in range(600):
        U = int(rng.integers(1, 9))
        counts = rng.integers(0, 4, U + 1) * (rng.random(U + 1) < 0.8)
        if case % 3 == 0:
            counts[U] = 0  # no missing row at the node
        ones = rng.binomial(counts, rng.choice([0.0, 0.5, 1.0, rng.random()]))
        stats = np.column_stack([counts - ones, ones]).astype(float)
        if counts.sum() == 0:
            continue
        S_node = stats.sum(axis=0)
        values = np.sort(rng.choice(50, U, replace=False)).astype(float)
        categorical = bool(case % 2)
        scorer.mia_missing_split = bool(case % 5)
        est = float(task.estimate(S_node))
        with compiled.enabled(True):
            fast = scorer.best_for_feature(2, stats, counts, values, categorical, S_node, est)
        with compiled.enabled(False):
            slow = scorer.best_for_feature(2, stats, counts, values, categorical, S_node, est)
        assert _same(fast, slow), (case, counts.tolist(), ones.tolist(), categorical)
        checked += slow is not None
    assert checked > 200  # most cases have a split to compare (299 of 600 at msl 3)


def test_the_same_trees_with_and_without_the_compiled_search():
    task = Task("classification", "gini", 0)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(20, 200))
        X = np.column_stack([rng.normal(size=n).round(1), rng.integers(0, 5, n), rng.integers(0, 3, n),
                             rng.exponential(size=n)]).astype(float)
        y = ((X[:, 0] + (X[:, 1] == 2) + rng.normal(size=n)) > 0.5).astype(float)
        X[rng.random(X.shape) < 0.15] = np.nan
        enc = EncodedFeatures.encode(X, np.array([False, True, True, False]))
        msl = int(rng.integers(1, 4))
        trees = []
        for use in (True, False):
            with compiled.enabled(use):
                scorer = SplitScorer(task, "mia", msl, unit_weights=True)
                trees.append(grow_tree(enc, y, np.ones(n), task, scorer, GrowSettings(4, 2, msl)).to_nodes())
        assert trees[0] == trees[1], seed


def test_the_compiled_search_applies_only_where_it_is_exact():
    gini, entropy = Task("classification", "gini", 0), Task("classification", "entropy", 0)
    assert not SplitScorer(gini, "mia", 1).compiled_search  # weights not promised to be 1
    assert not SplitScorer(entropy, "mia", 1, unit_weights=True).compiled_search
    assert not SplitScorer(gini, "trinary", 1, unit_weights=True).compiled_search
    assert not SplitScorer(Task("classification", "gini", 2), "mia", 1, unit_weights=True, penalty=0.5,
                           rates=("selection_rate",)).compiled_search
