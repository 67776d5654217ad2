"""A calibration that chooses among family settings: every setting is measured on the same inner
folds, the most accurate one whose inner estimate meets ε is kept, and it is exactly the model
that calibrating that setting alone gives."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.calibration import CalibratedFairClassifier
from fairspec.calibration.estimator import choose_member
from fairspec.models.missing_tree import MissingAwareTreeClassifier
from fairspec.registry.criteria import make_criterion
from tests.helpers_outputs import without_seconds


def rows(n, seed):
    """A label that needs a depth-3 interaction (x0 and x1 and x2) and a group that shifts x3: a
    depth-1 tree is much less accurate, and the bound is easy to meet."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    g = rng.integers(0, 2, n)
    X[:, 3] += 0.5 * g
    y = (((X[:, 0] > 0) & (X[:, 1] > 0)) | ((X[:, 0] <= 0) & (X[:, 2] > 0.5))).astype(int)
    flip = rng.random(n) < 0.1
    return X, np.where(flip, 1 - y, y), g


def tree(crit, **kw):
    return MissingAwareTreeClassifier(max_depth=3, min_samples_leaf=10, fairness=crit, **kw)


def test_the_kept_setting_is_the_one_calibrated_alone_and_the_most_accurate_of_those_that_meet():
    X, y, g = rows(1200, 3)
    crit = make_criterion("equal_opportunity", bound=0.05)
    choices = [{"max_depth": 1}, {"max_depth": 3}]
    pooled = CalibratedFairClassifier(tree(crit), choices=choices, random_state=4).fit(X, y, sensitive_features=g)
    record = pooled.calibration_
    assert [c["params"] for c in record["choices"]] == choices
    met = [c for c in record["choices"] if c["met"]]
    assert met, "the bound is easy here: some setting meets it"
    best = max(met, key=lambda c: c["inner_accuracy"])
    assert record["chosen"] == best["params"] == {"max_depth": 3}  # the interaction needs depth 3
    assert pooled.estimator_.max_depth == 3
    # calibrating the kept setting alone gives the same ε′ and the same model (timings aside)
    alone = CalibratedFairClassifier(tree(crit), random_state=4).fit(X, y, sensitive_features=g)
    assert alone.bound_ == pooled.bound_
    assert without_seconds(alone.to_json()) == without_seconds(pooled.to_json())
    assert record["internal_bound"] == best["internal_bound"] == alone.calibration_["internal_bound"]
    assert record["candidates"] == alone.calibration_["candidates"]
    # and the other setting, calibrated alone, reports what the pool recorded for it
    shallow = CalibratedFairClassifier(tree(crit).set_params(max_depth=1), random_state=4).fit(
        X, y, sensitive_features=g)
    assert shallow.calibration_["inner_accuracy"] == record["choices"][0]["inner_accuracy"]
    assert shallow.calibration_["inner_accuracy"] < record["inner_accuracy"]


def test_without_choices_the_record_has_no_choice_fields():
    X, y, g = rows(600, 5)
    crit = make_criterion("equal_opportunity", bound=0.05)
    record = CalibratedFairClassifier(tree(crit), random_state=1).fit(X, y, sensitive_features=g).calibration_
    assert "choices" not in record and "chosen" not in record


def test_choose_member_prefers_meeting_then_accuracy_then_the_first_listed():
    def m(met, acc, gap):
        return {"met": met, "inner_accuracy": acc, "inner_gap": gap}

    assert choose_member([m(True, 0.80, 0.04), m(True, 0.82, 0.05), m(False, 0.90, 0.09)]) == 1
    assert choose_member([m(True, 0.82, 0.04), m(True, 0.82, 0.01)]) == 0  # a tie keeps the first
    # none meets ε: the smallest inner gap, whatever its accuracy
    assert choose_member([m(False, 0.90, 0.08), m(False, 0.70, 0.06), m(False, 0.95, None)]) == 1


def test_choices_need_a_bound():
    X, y, g = rows(300, 2)
    with pytest.raises(ValueError, match="choices"):
        CalibratedFairClassifier(tree(make_criterion("equal_opportunity", penalty=1.0)),
                                 choices=[{"max_depth": 1}]).fit(X, y, sensitive_features=g)
