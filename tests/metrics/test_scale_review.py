"""Group labels are told apart by hashing when they are text: the same groups, rows and ABROCA
as sorting every row's label."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from fairspec.metrics.groups import distinct_labels, evaluate_predictions
from fairspec.metrics.roc import abroca, area_between_curves, roc_points

_TEXTS = ["A", "B", "a", "", "Z & y", "\u00e9", "10", "9", " A"]


def _labels(rng, n: int, kind: str) -> np.ndarray:
    if kind == "text":
        return np.array(_TEXTS, dtype=object)[rng.integers(0, len(_TEXTS), n)]
    if kind == "ints":
        return rng.integers(0, 4, n)
    if kind == "floats with nan":
        return np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 3, n).astype(float))
    return np.array([1, 1.0, True, 0], dtype=object)[rng.integers(0, 4, n)]  # 1, 1.0 and True are equal


@pytest.mark.parametrize("kind", ["text", "ints", "floats with nan", "mixed"])
def test_distinct_labels_are_numpys_unique(kind):
    rng = np.random.default_rng(2)
    for n in (0, 1, 5, 400):
        labels = _labels(rng, n, kind)
        names, index = distinct_labels(labels)
        expected_names, expected_index = np.unique(labels, return_inverse=True)
        np.testing.assert_array_equal(names, expected_names)
        assert names.dtype == expected_names.dtype and index.dtype == expected_index.dtype
        np.testing.assert_array_equal(index, expected_index)


def _abroca_by_sorting(y, score, groups):
    curves = []
    for g in np.unique(groups):
        mask = groups == g
        if 0 < int(y[mask].sum()) < int(mask.sum()):
            curves.append(roc_points(y[mask], score[mask]))
    return None if len(curves) < 2 else max(area_between_curves(a, b) for a, b in combinations(curves, 2))


@pytest.mark.parametrize("kind", ["text", "ints", "floats with nan", "mixed"])
def test_abroca_compares_the_groups_sorting_finds(kind):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 800)
    score = np.round(rng.random(800), 2)
    groups = _labels(rng, 800, kind)
    assert abroca(y, score, groups) == _abroca_by_sorting(y, score, groups)


def test_a_block_keys_and_counts_text_groups_as_sorted_labels_do():
    rng = np.random.default_rng(6)
    y, pred = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    groups = _labels(rng, 500, "text")
    block = evaluate_predictions(y, pred, None, groups)
    assert list(block["groups"]) == sorted(set(groups))
    for name, rates in block["groups"].items():
        rows = groups == name
        assert rates["count"] == int(rows.sum())
        assert rates["base_rate"] == float(y[rows].sum() / rows.sum())
