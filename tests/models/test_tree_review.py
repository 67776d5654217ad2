"""Regression tests for problems found in a review of the tree family."""
import numpy as np
import pytest

from fairspec.models.missing_tree import MissingAwareForestClassifier, MissingAwareTreeClassifier
from fairspec.registry.criteria import EqualOpportunity, make_criterion


def _fractional_data(seed=0, n=200):
    # rows missing a split feature reach two leaves, so the tree predicts by mixing their
    # training frequencies; a vote of their labels can disagree (0.9 and 0.3 at 1/2 each:
    # the mix says 0.6, the vote 1/2)
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n)])
    y = (X[:, 0] + X[:, 1] + rng.normal(scale=0.7, size=n) > 0).astype(int)
    g = rng.integers(0, 2, n)
    X[rng.random(X.shape) < 0.3] = np.nan
    return X, y, g


def test_a_bound_the_fractional_tree_already_meets_changes_none_of_its_predictions():
    X, y, g = _fractional_data()
    free = MissingAwareTreeClassifier(missing="fractional", max_depth=3).fit(X, y)
    loose = MissingAwareTreeClassifier(missing="fractional", max_depth=3,
                                       fairness=make_criterion("demographic_parity", bound=1.0)).fit(
        X, y, sensitive_features=g)
    np.testing.assert_array_equal(loose.predict(X), free.predict(X))
    np.testing.assert_allclose(loose.predict_proba(X), free.predict_proba(X))
    log = loose.fit_log_
    # "before" is the model as grown, not a label vote it never made
    assert log["train_accuracy_before_relabel"] == (free.predict(X) == y).mean()
    assert log["train_accuracy_after_relabel"] == (loose.predict(X) == y).mean()
    assert log["leaves_relabelled"] == 0 and not loose.to_json()["relabelled"]


def test_a_binding_bound_still_relabels_a_fractional_tree():
    X, y, g = _fractional_data()
    crit = make_criterion("demographic_parity", bound=0.01)
    free = MissingAwareTreeClassifier(missing="fractional", max_depth=3).fit(X, y)
    assert crit.gap(y.astype(float), free.predict(X).astype(float), g) > 0.01
    fair = MissingAwareTreeClassifier(missing="fractional", max_depth=3, fairness=crit).fit(
        X, y, sensitive_features=g)
    assert crit.gap(y.astype(float), fair.predict(X).astype(float), g) <= 0.01 + 1e-9
    assert fair.to_json()["relabelled"]


def test_a_forest_of_one_tree_is_not_called_trees():
    X, y, _ = _fractional_data()
    one = MissingAwareForestClassifier(n_estimators=1, max_depth=1).fit(X, y)
    assert one.describe()[0].startswith("forest of 1 tree (")
    two = MissingAwareForestClassifier(n_estimators=2, max_depth=1).fit(X, y)
    assert two.describe()[0].startswith("forest of 2 trees (")


@pytest.mark.parametrize("bound", [-0.1, float("nan")])
def test_a_tree_criterion_with_no_usable_bound_is_refused_when_made(bound):
    # a NaN bound reached Pyomo's "invalid non-finite upper bound" on the tree's fairness rows
    # (found in review)
    with pytest.raises(ValueError, match="the bound of equal_opportunity must be a finite number of at least 0"):
        EqualOpportunity(bound=bound)


@pytest.mark.parametrize("setting", [{"penalty": np.arange(3)[2]}, {"bound": np.float32(0.1)}])
def test_a_numpy_number_as_a_criterions_setting_still_writes_a_model_file(setting):
    # the fit took np.int64 and np.float32, and json.dumps of the model file then failed on them
    import json

    from fairspec.models.rule_set import FairRuleSetClassifier

    rng = np.random.default_rng(0)
    X, g = rng.normal(size=(200, 2)), rng.choice(["a", "b"], 200)
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    name = "demographic_parity" if "penalty" in setting else "equal_opportunity"
    criterion = make_criterion(name, **setting)
    assert type(getattr(criterion, next(iter(setting)))) is float
    estimators = [MissingAwareTreeClassifier(max_depth=2, fairness=criterion)]
    if "bound" in setting:
        estimators.append(FairRuleSetClassifier(max_complexity=4, time_limit=2, criterion=criterion))
    for est in estimators:
        doc = json.loads(json.dumps(est.fit(X, y, sensitive_features=g).to_json()))
        assert doc["criterion" if "criterion" in doc else "params"]


@pytest.mark.parametrize("params", [{"time_limit": float("nan")}, {"time_limit": float("inf")}, {"time_limit": -1},
                                    {"time_limit": None}, {"mip_gap": -1}, {"mip_gap": float("nan")}])
@pytest.mark.parametrize("cls", [MissingAwareTreeClassifier, MissingAwareForestClassifier])
def test_a_solver_setting_that_is_no_finite_nonnegative_number_is_refused_by_name(cls, params):
    # inf and NaN time limits failed in an OverflowError or ValueError after growing, None in a
    # TypeError, -1 was read as 0, a negative gap failed in Pyomo's words, a NaN one was used
    rng = np.random.default_rng(0)
    X, g = rng.normal(size=(60, 2)), rng.integers(0, 2, 60)
    y = (X[:, 0] > 0).astype(int)
    name = next(iter(params))
    with pytest.raises(ValueError, match=rf"{name} must be a finite number of at least 0"):
        cls(max_depth=2, fairness=EqualOpportunity(bound=0.01), **params).fit(X, y, sensitive_features=g)


@pytest.mark.parametrize("params, words", [
    ({"threads": 0}, "threads must be a whole number of at least 1"),  # had reached HiGHS
    ({"relabel_checkpoints": 0}, r"relabel_checkpoints must be a whole number of at least 1 \(or None\)"),
    ({"clock_cap": "false"}, "clock_cap must be True or False"),  # bool("false") had been True
    ({"mia_missing_split": "no"}, "mia_missing_split must be True or False"),
])
@pytest.mark.parametrize("cls", [MissingAwareTreeClassifier, MissingAwareForestClassifier])
def test_a_tree_setting_out_of_its_range_is_refused_by_name(cls, params, words):
    rng = np.random.default_rng(0)
    X, g = rng.normal(size=(60, 2)), rng.integers(0, 2, 60)
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=words):
        cls(max_depth=2, fairness=EqualOpportunity(bound=0.01), **params).fit(X, y, sensitive_features=g)


def test_a_forest_bootstrap_that_is_no_flag_is_refused():
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(ValueError, match="bootstrap must be True or False"):
        MissingAwareForestClassifier(n_estimators=2, bootstrap="false").fit(X, (X[:, 0] > 0).astype(int))


def test_split_points_print_in_full_but_far_from_1_in_scientific_notation():
    from fairspec.models.missing_tree import MissingAwareTreeClassifier
    from fairspec.models.readout import number_text

    # each reads back as the same float; positional, 1e300 had printed as 301 digits
    for value, text in ((1234567.5, "1234567.5"), (0.000001, "0.000001"), (0.0, "0"), (-2.5, "-2.5"),
                        (1e300, "1e+300"), (-1.5e20, "-1.5e+20"), (2.5e-10, "2.5e-10")):
        assert number_text(value) == text and float(text) == value
    X = np.array([[1e300], [2e300], [3e300], [4e300]] * 5)
    y = np.array([0, 0, 1, 1] * 5)
    lines = MissingAwareTreeClassifier(max_depth=1).fit(X, y).describe(["x"])
    assert lines[0].startswith("x < 2") and "e+300" in lines[0] and max(map(len, lines)) < 80, lines
