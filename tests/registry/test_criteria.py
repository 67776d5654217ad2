"""Criterion.gap (fairspec/registry/criteria.py) means what fairspec.metrics means by a gap."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.metrics.groups import evaluate_predictions
from fairspec.registry.criteria import CRITERIA, make_criterion


Y = np.array([1, 1, 0, 0, 1, 0])


PRED = np.array([1, 0, 1, 0, 1, 1])


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_a_single_group_has_no_gap_in_either_implementation(name):
    one = np.full(len(Y), "a")
    criterion = make_criterion(name, bound=0.05)
    # had been 0.0 here and None in metrics.json: a bound "met" on a gap that does not exist
    assert criterion.gap(Y, PRED, one) is None
    assert evaluate_predictions(Y, PRED, None, one)["gaps"][name] is None
    assert all(g is None for g in criterion.rate_gaps(Y, PRED, one).values())


def test_a_gap_over_two_rates_is_measurable_only_if_each_is():
    groups = np.array(["a", "a", "a", "b", "b", "b"])
    y = np.array([1, 0, 1, 1, 1, 1])  # b has no negative: no FPR gap between a and b
    pred = np.array([1, 1, 0, 1, 0, 0])
    odds = make_criterion("equalized_odds", bound=0.1)
    assert odds.rate_gaps(y, pred, groups) == {"tpr": pytest.approx(1 / 2 - 1 / 3), "fpr": None}
    # had been the TPR gap alone, where metrics.json says null
    assert odds.gap(y, pred, groups) is None is evaluate_predictions(y, pred, None, groups)["gaps"]["equalized_odds"]


def test_no_gap_is_neither_met_nor_missed_but_a_fit_may_keep_it():
    criterion = make_criterion("equal_opportunity", bound=0.05)
    with pytest.raises(ValueError, match="neither met nor missed"):
        criterion.meets(None)
    assert criterion.allows(None) and criterion.allows(0.05) and not criterion.allows(0.06)
