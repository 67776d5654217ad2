"""What every family does with what a Python caller (not the pipeline) hands fit and predict."""
import json

import numpy as np
import pandas as pd
import pytest

from fairspec.errors import DataError
from fairspec.models.baseline import BaselineClassifier
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.tree.estimators import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                             MissingAwareTreeRegressor)
from fairspec.models.tree.estimators import estimator_from_json as tree_from_json
from fairspec.plan.fairness import make_criterion

EO = make_criterion("equal_opportunity", bound=0.1)


def data(n=150, seed=11):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y, rng.choice(["a", "b"], n), rng.choice(["u", "v"], n)


def small_rule_set(**kw):
    return FairRuleSetClassifier(time_limit=5, max_complexity=6, max_conditions=2, **kw)


def test_labels_that_are_not_0_and_1_are_refused_not_cast():
    X, y, _, _ = data()
    # astype(int) had made every label 0: a rule set predicting "never", train accuracy 1.0
    for bad in (np.where(y == 1, 0.8, 0.2), np.where(y == 1, 1.7, 0.0), y.astype(str), None):
        with pytest.raises(DataError, match="0 and 1|y is None"):
            small_rule_set().fit(X, bad)
    with pytest.raises(DataError, match="0 and 1"):
        BaselineClassifier().fit(X, np.where(y == 1, 0.8, 0.2))


def test_several_protected_columns_are_intersectional_groups_in_every_family():
    X, y, g, h = data()
    joined = np.array([f"{a}|{b}" for a, b in zip(g, h)])
    two = np.column_stack([g, h])
    for make in (lambda: small_rule_set(criterion=EO), lambda: MissingAwareTreeClassifier(max_depth=3, fairness=EO)):
        a, b = make().fit(X, y, two), make().fit(X, y, joined)
        assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    with_none = np.where(g == "a", None, g)  # None is a label like any other ("None")
    model = small_rule_set(criterion=EO).fit(X, y, with_none)
    assert model.fit_log_["train_gap"] <= 0.1 + 1e-12


@pytest.mark.parametrize("make", [
    lambda rs: small_rule_set(criterion=EO, random_state=rs),
    lambda rs: MissingAwareTreeClassifier(max_depth=3, fairness=EO, random_state=rs),
    lambda rs: MissingAwareForestClassifier(n_estimators=3, max_depth=3, random_state=rs),
    lambda rs: BaselineClassifier(random_state=rs),
])
def test_random_state_none_is_seed_0_and_a_random_state_is_drawn_once_and_recorded(make):
    X, y, g, _ = data()
    zero = make(0).fit(X, y, g)
    assert np.array_equal(make(None).fit(X, y, g).predict_proba(X), zero.predict_proba(X))
    drawn = make(np.random.RandomState(3)).fit(X, y, g)
    seed = np.random.RandomState(3).randint(np.iinfo(np.int32).max)
    assert drawn.seed_ == seed
    doc = json.loads(json.dumps(drawn.to_json()))  # a RandomState object is not JSON
    assert doc["params"]["random_state"] == seed
    assert np.array_equal(make(seed).fit(X, y, g).predict_proba(X), drawn.predict_proba(X))
    if "nodes" in doc or "trees" in doc:
        assert np.array_equal(tree_from_json(doc).predict_proba(X), drawn.predict_proba(X))
    with pytest.raises(ValueError, match="random_state"):
        make("seven").fit(X, y, g)


def test_feature_matrices_every_family_refuses_or_reads_alike():
    X, y, _, _ = data()
    inf = X.copy()
    inf[4, 1] = np.inf
    for model in (small_rule_set(), BaselineClassifier(), MissingAwareTreeClassifier(max_depth=2)):
        with pytest.raises(DataError, match=r"infinite value \(row 4, feature 1\)"):
            model.fit(inf, y)
        with pytest.raises(DataError, match="complex"):
            model.fit(X + 1j, y)
        fitted = model.fit(X, y)
        with pytest.raises(DataError, match="2-D"):
            fitted.predict(X[0])
        with pytest.raises(DataError, match="X has 3 features; the model was fitted on 2"):
            fitted.predict(np.column_stack([X, X[:, 0]]))
    # nullable pandas columns: pd.NA is a missing value, as NaN is
    frame = pd.DataFrame(X, columns=["p", "q"]).astype("Float64")
    frame.iloc[3, 0] = pd.NA
    nan = X.copy()
    nan[3, 0] = np.nan
    for model in (small_rule_set(), MissingAwareTreeClassifier(max_depth=2)):
        assert np.array_equal(model.fit(frame, y).predict_proba(frame), model.fit(nan, y).predict_proba(nan))


def test_baseline_refuses_a_missing_value_at_predict_as_at_fit():
    X, y, _, _ = data()
    holed = X.copy()
    holed[0, 1] = np.nan
    for learner in ("logistic", "tree"):
        model = BaselineClassifier(learner=learner).fit(X, y)
        with pytest.raises(DataError, match=r"row 0, feature 1 is missing"):
            model.predict_proba(holed)  # logistic had scored [nan, nan], the tree had gone right


def test_trees_name_a_missing_or_infinite_label():
    X, y, _, _ = data()
    with pytest.raises(DataError, match="missing or infinite"):
        MissingAwareTreeClassifier().fit(X, np.where(y == 1, 1.0, np.nan))  # was "y has 3 classes"
    with pytest.raises(DataError, match="missing or infinite"):
        MissingAwareTreeRegressor().fit(X, np.where(y == 1, 1.0, np.inf))  # leaves had become inf


def test_rule_set_score_agrees_with_its_prediction_when_no_condition_exists():
    # constant features, every label positive: no literal, so no rule; the uncovered rows'
    # positive rate is 1, and its score of 1/2 had said "positive" beside a prediction of 0
    model = small_rule_set().fit(np.ones((10, 2)), np.ones(10, int))
    assert np.array_equal(model.predict_proba(np.ones((3, 2)))[:, 1] >= 0.5, model.predict(np.ones((3, 2))) == 1)


def test_data_errors_are_value_errors_as_scikit_learn_expects():
    X, y, _, _ = data()
    assert issubclass(DataError, ValueError)
    for model in (small_rule_set(), BaselineClassifier()):
        with pytest.raises(ValueError, match="zero rows"):  # had been numpy's "cannot reshape array"
            model.fit(X[:0], y[:0])
