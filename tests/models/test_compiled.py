"""The compiled loops (:mod:`fairspec.models.tree.compiled`, the optional extra ``fast``) give
the numpy code's floats: numpy's pairwise sum reproduced, and the same trees and leaves on
data larger than the model-file hashes use (histogram rows past 128 slots, so the pairwise
sum halves; a few thousand rows; categories)."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.models.tree import compiled
from fairspec.models.tree.histogram import FeatureBins, Layout, TreeSettings, grow_histogram_tree

needs_numba = pytest.mark.skipif(not compiled.available(), reason="numba is not installed (the optional extra fast)")


@needs_numba
def test_pairwise_sum_is_numpys_to_the_last_bit():
    rng = np.random.default_rng(0)
    for n in list(range(0, 40)) + [127, 128, 129, 136, 255, 256, 257, 300, 511, 777, 1024]:
        a = rng.normal(size=n) * 10.0 ** rng.integers(-8, 8, size=n)
        assert compiled.numpy_sum(a) == a.sum(), n


def _data(seed, n=3000):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 300, n), rng.integers(0, 60, n),
                         rng.exponential(size=n)]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    z = np.nan_to_num(X[:, 0]) + 0.01 * np.nan_to_num(X[:, 1]) + (np.nan_to_num(X[:, 2]) % 4 == 1)
    p = 1.0 / (1.0 + np.exp(-z))
    y = (rng.random(n) < p).astype(float)
    return X, y, p


def _grow(X, g, h, settings):
    bins = FeatureBins.fit(X, [2], max_bins=255)
    codes_t = np.ascontiguousarray(bins.transform(X))
    tree, leaf = grow_histogram_tree(codes_t, bins, g, h, settings, Layout(bins))
    return tree, leaf, tree.apply_bins(codes_t)


@needs_numba
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("depth", [1, 3, 6])
def test_compiled_tree_is_the_numpy_tree(seed, depth):
    X, y, p = _data(seed)
    g, h = p - y, p * (1 - p)
    settings = TreeSettings(max_depth=depth, min_samples_leaf=5, learning_rate=0.1)
    with compiled.enabled(False):
        ref, ref_leaf, ref_apply = _grow(X, g, h, settings)
    with compiled.enabled(True):
        got, got_leaf, got_apply = _grow(X, g, h, settings)
    assert ref.to_json() == got.to_json()  # every float equal, not close
    assert np.array_equal(ref_leaf, got_leaf) and np.array_equal(ref_apply, got_apply)
    assert np.array_equal(ref_leaf, ref_apply)  # the leaves of the fit are where the rows go


def test_enabled_switches_the_path_and_restores_it():
    before = compiled.active()
    with compiled.enabled(False):
        assert not compiled.active()
    assert compiled.active() == before
