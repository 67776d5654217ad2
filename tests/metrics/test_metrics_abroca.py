"""ABROCA (Gardner, Brooks & Baker 2019) against brute-force numerical integration."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.metrics import abroca, evaluate_predictions
from itertools import combinations
from fairspec.metrics.roc import area_between_curves
from fairspec.metrics.roc import roc_points


def brute_force_roc(y, score):
    """ROC points by sweeping every distinct threshold by hand (no sklearn)."""
    thresholds = np.concatenate([[np.inf], np.unique(score)[::-1]])
    pos, neg = (y == 1).sum(), (y == 0).sum()
    tpr = np.array([((score >= t) & (y == 1)).sum() / pos for t in thresholds])
    fpr = np.array([((score >= t) & (y == 0)).sum() / neg for t in thresholds])
    return fpr, tpr


def brute_force_abroca(y, score, groups, grid=400_001):
    """Midpoint rule on a fine grid of FPR; np.interp is exact between breakpoints."""
    t = (np.arange(grid) + 0.5) / grid
    curves = [brute_force_roc(y[groups == g], score[groups == g]) for g in np.unique(groups)]
    values = [np.interp(t, f, r) for f, r in curves]
    return max(np.mean(np.abs(a - b)) for i, a in enumerate(values) for b in values[i + 1:])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_abroca_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 300
    groups = rng.choice(np.array(["a", "b", "c"]), n) if seed >= 2 else rng.choice(np.array(["a", "b"]), n)
    y = (rng.random(n) < 0.4).astype(int)
    # rounded scores create ties, i.e. diagonal and vertical ROC segments
    score = np.round(0.4 * y * (groups == "a") + rng.random(n), 1 if seed % 2 else 3)
    exact = abroca(y, score, groups)
    assert exact == pytest.approx(brute_force_abroca(y, score, groups), abs=2e-5)
    assert 0.0 < exact <= 1.0


def test_abroca_known_values():
    y = np.array([0, 1, 0, 1])
    groups = np.array(["a", "a", "b", "b"])
    # group a ranks perfectly (ROC through (0,1)), group b perfectly wrong (through (1,0))
    score = np.array([0.1, 0.9, 0.9, 0.1])
    assert abroca(y, score, groups) == pytest.approx(1.0)
    # identical score distributions: area 0
    same = np.array([0.2, 0.7, 0.2, 0.7])
    assert abroca(y, same, groups) == pytest.approx(0.0)
    # crossing curves: a = (0,0)-(0,1)-(1,1) vs the diagonal b (all tied) gives 1/2
    tied = np.array([0.1, 0.9, 0.5, 0.5])
    assert abroca(y, tied, groups) == pytest.approx(0.5)


def test_abroca_ignores_group_with_one_class_and_is_null_with_fewer_than_two_curves():
    y = np.array([0, 1, 0, 1, 1, 1])
    groups = np.array(["a", "a", "b", "b", "c", "c"])
    score = np.array([0.1, 0.9, 0.9, 0.1, 0.3, 0.4])
    assert abroca(y, score, groups) == pytest.approx(1.0)
    only_a_has_both_classes = np.array(["a", "a", "a", "a", "c", "c"])
    assert abroca(y, score, only_a_has_both_classes) is None
    block = evaluate_predictions(y, (score > 0.5).astype(int), score, only_a_has_both_classes)
    assert block["gaps"]["abroca"] is None


_TEXTS = ["A", "B", "a", "", "Z & y", "\u00e9", "10", "9", " A"]


def _labels(rng, n: int, kind: str) -> np.ndarray:
    if kind == "text":
        return np.array(_TEXTS, dtype=object)[rng.integers(0, len(_TEXTS), n)]
    if kind == "ints":
        return rng.integers(0, 4, n)
    if kind == "floats with nan":
        return np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 3, n).astype(float))
    return np.array([1, 1.0, True, 0], dtype=object)[rng.integers(0, 4, n)]  # 1, 1.0 and True are equal


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
