"""The Lagrangian's cost-sensitive rows (fairspec/models/lagrangian.py), by hand and against a
brute-force minimisation of the Lagrangian."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fairspec.models.lagrangian import (cost_sensitive_rows, extreme_groups, flip_multiplier, lagrangian_rows,
                                        multiplier_slopes, rate_coefficients)
from fairspec.registry.criteria import make_criterion

Y = np.array([1, 1, 0, 0, 1, 0, 0, 0, 1, 0])
G = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])


def test_demographic_parity_rows_by_hand():
    # n = 10; H = group 1 (4 rows), Lo = group 0 (6 rows); λ = 0.3:
    # λ·d = 0.3·10/4 = 0.75 on H, -0.3·10/6 = -0.5 on Lo; margin = (2y - 1) - λ·d
    slopes = multiplier_slopes(Y, G, 2, [("selection_rate", 1, 0)])
    labels, weights = cost_sensitive_rows(Y, slopes, 0.3)
    margin = np.array([0.25, 0.25, -1.75, -1.75, 1.5, -0.5, -0.5, -0.5, 1.5, -0.5])
    assert labels.tolist() == (margin > 0).astype(int).tolist() == Y.tolist()
    assert weights == pytest.approx(np.abs(margin))
    # λ₀ = min(4, 6)/10: past it the positives of H turn negative (λ·d = 1.25 > 1)
    assert flip_multiplier(Y, slopes) == pytest.approx(0.4)
    labels, weights = cost_sensitive_rows(Y, slopes, 0.5)
    assert labels.tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]
    assert weights[:2] == pytest.approx([0.25, 0.25])
    # a third group's rows keep their label and weight 1
    g3 = np.array([1, 1, 1, 1, 0, 0, 0, 2, 2, 2])
    labels, weights = cost_sensitive_rows(Y, multiplier_slopes(Y, g3, 3, [("selection_rate", 1, 0)]), 0.3)
    assert weights[7:] == pytest.approx([1.0, 1.0, 1.0]) and labels[7:].tolist() == Y[7:].tolist()
    assert weights[4:7] == pytest.approx(np.abs(np.array([1, -1, -1]) + 0.3 * 10 / 3))


def test_equal_opportunity_touches_only_the_positives_and_fpr_only_the_negatives():
    slopes = multiplier_slopes(Y, G, 2, [("tpr", 1, 0)])  # n_{H,1} = n_{Lo,1} = 2
    labels, weights = cost_sensitive_rows(Y, slopes, 0.1)  # λ·d = ±0.5 on the positives
    assert labels.tolist() == Y.tolist()
    assert weights == pytest.approx([0.5, 0.5, 1, 1, 1.5, 1, 1, 1, 1.5, 1])
    assert flip_multiplier(Y, slopes) == pytest.approx(0.2)  # n_{H,1}/n
    # FPR, H = group 0 (n_{0,0} = 4), Lo = group 1 (n_{1,0} = 2): Lo's negatives flip at 2/10
    slopes = multiplier_slopes(Y, G, 2, [("fpr", 0, 1)])
    assert np.all(slopes[Y == 1] == 0)
    assert flip_multiplier(Y, slopes) == pytest.approx(0.2)
    labels, _ = cost_sensitive_rows(Y, slopes, 0.25)
    assert labels.tolist() == [1, 1, 1, 1, 1, 0, 0, 0, 1, 0]


@pytest.mark.parametrize("name", ["demographic_parity", "equal_opportunity", "fpr_parity", "equalized_odds",
                                  "accuracy_parity"])
def test_the_rows_minimise_the_lagrangian_over_every_labelling(name):
    """Each row's target is the labelling that minimises err + λ·Σ (rate_H - rate_Lo), found by
    enumerating all 2^n labellings of 8 rows (rates from the criterion's own definition)."""
    rng = np.random.default_rng(5)
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    g = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    criterion = make_criterion(name, bound=0.0)
    pairs = [(rate, 1, 0) for rate in criterion.rates]
    slopes = multiplier_slopes(y, g, 2, pairs)
    lam = float(rng.uniform(0.05, 0.6))

    def lagrangian(h):
        value = float(np.mean(h != y))
        for rate, high, low in pairs:
            a = rate_coefficients(rate, y, g, 2)
            const = (np.bincount(g, weights=np.abs(a) * (y == 0), minlength=2) if rate == "accuracy"
                     else np.zeros(2))
            r = const + np.bincount(g, weights=a * h, minlength=2)
            value += lam * (r[high] - r[low])
        return value

    best = min(itertools.product((0, 1), repeat=len(y)), key=lambda h: lagrangian(np.array(h)))
    labels, weights = cost_sensitive_rows(y, slopes, lam)
    assert lagrangian(labels) == pytest.approx(lagrangian(np.array(best)))
    # the weight is the price of the wrong label: flipping row i costs w_i / n
    for i in range(len(y)):
        flipped = labels.copy()
        flipped[i] = 1 - flipped[i]
        assert lagrangian(flipped) - lagrangian(labels) == pytest.approx(weights[i] / len(y))


def test_the_rate_coefficients_give_the_criteria_rates():
    rng = np.random.default_rng(2)
    y, g, h = rng.integers(0, 2, 50), rng.integers(0, 3, 50), rng.integers(0, 2, 50)
    for name in ("demographic_parity", "equal_opportunity", "fpr_parity", "accuracy_parity"):
        crit = make_criterion(name, bound=0.1)
        (rate,) = crit.rates
        a = rate_coefficients(rate, y, g, 3)
        const = np.bincount(g, weights=np.abs(a) * (y == 0), minlength=3) if rate == "accuracy" else 0.0
        r = const + np.bincount(g, weights=a * h, minlength=3)
        assert r.max() - r.min() == pytest.approx(crit.gap(y, h, g))


def test_the_extreme_groups_and_lagrangian_rows():
    g = np.array([0, 0, 1, 1, 2, 2])
    y = np.array([1, 0, 1, 1, 1, 0])
    pred = np.array([1, 0, 0, 0, 1, 1])
    assert extreme_groups(pred, y, g, 3, "selection_rate") == (2, 1)
    assert extreme_groups(pred, y, g, 3, "tpr") == (0, 1)  # TPR: 1, 0, 1
    assert extreme_groups(np.ones(6), y, g, 3, "selection_rate") is None
    assert lagrangian_rows(np.ones(6), y, g, 3, ("selection_rate",), 1.5) is None
    labels, weights, lam = lagrangian_rows(pred, y, g, 3, ("tpr",), 1.5)
    assert lam == pytest.approx(1.5 * 1 / 6)  # λ₀ = n_{H,1}/n with H = group 0
    assert labels.tolist() == [0, 0, 1, 1, 1, 0]  # H's positive turned negative past λ₀
    with pytest.raises(ValueError, match="no Lagrangian rows"):
        rate_coefficients("auc", y, g, 3)
