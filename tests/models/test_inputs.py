"""What every family does with what a Python caller (not the pipeline) hands fit and predict."""
import json

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from fairspec.errors import DataError
from fairspec.models.inputs import OneClassWarning, group_labels
from fairspec.models.baseline import BaselineClassifier
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.tree.estimators import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                             MissingAwareTreeRegressor)
from fairspec.models.tree.estimators import estimator_from_json as tree_from_json
from fairspec.registry.criteria import make_criterion
from fairspec.models import inputs
from fairspec.models.inputs import binary_labels
import warnings

EO = make_criterion("equal_opportunity", bound=0.1)


def data(n=150, seed=11):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y, rng.choice(["a", "b"], n), rng.choice(["u", "v"], n)


def small_rule_set(**kw):
    return FairRuleSetClassifier(time_limit=5, max_complexity=6, max_conditions=2, **kw)


CLASSIFIERS = [
    lambda: small_rule_set(),
    lambda: BaselineClassifier(),
    lambda: BaselineClassifier(learner="logistic"),
    lambda: MissingAwareTreeClassifier(max_depth=3),
    lambda: MissingAwareForestClassifier(n_estimators=3, max_depth=3),
]


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_continuous_labels_are_refused_not_cast(make):
    X, y, _, _ = data()
    # astype(int) had made every label 0: a rule set predicting "never", train accuracy 1.0
    for bad in (np.where(y == 1, 0.8, 0.2), np.where(y == 1, 1.7, 0.0)):
        with pytest.raises(DataError, match="Unknown label type: continuous"):
            make().fit(X, bad)
    with pytest.raises(DataError, match="requires y to be passed, but the target y is None"):
        make().fit(X, None)
    with pytest.raises(DataError, match="Only binary classification is supported.*3 classes"):
        make().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(DataError, match="one class only \\('yes'\\)"):
        make().fit(X, np.full(len(y), "yes"))  # which class would be positive?


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_any_two_labels_sorted_the_second_one_positive_predicted_as_given(make):
    X, y, _, _ = data()
    reference = make().fit(X, 1 - y)
    # "hit" sorts first, so "miss" is the positive class: the rows where y is 0, where 1 - y is 1
    for labels in (np.array(["miss", "hit"])[y], np.array(["miss", "hit"], dtype=object)[y]):
        model = make().fit(X, labels)
        assert list(model.classes_) == ["hit", "miss"]
        np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X))
        assert np.array_equal(model.predict(X), np.where(reference.predict(X) == 1, "miss", "hit"))
    for lo, hi in ((1, 2), (-1, 1), (False, True), (0.0, 1.0)):
        model = make().fit(X, np.where(y == 1, lo, hi))
        assert model.classes_.tolist() == [lo, hi] and model.classes_.dtype == np.asarray([lo, hi]).dtype
        assert np.array_equal(model.predict(X), np.where(reference.predict(X) == 1, hi, lo))


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_0_and_1_labels_keep_their_meaning_even_when_one_is_absent(make):
    X, y, _, _ = data()
    model = make().fit(X, y)
    assert model.classes_.tolist() == [0, 1] and model.predict(X).dtype.kind == "i"
    if not isinstance(model, BaselineClassifier) or model.learner == "tree":  # lbfgs needs two classes
        for only in (0, 1):
            with pytest.warns(OneClassWarning, match="cannot say which class is positive"):
                single = make().fit(X, np.full(len(y), only))
            assert single.classes_.tolist() == [0, 1]
            assert set(single.predict(X)) <= {0, 1}


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_a_column_vector_y_is_flattened_with_scikit_learns_warning(make):
    from sklearn.exceptions import DataConversionWarning

    X, y, _, _ = data()
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        column = make().fit(X, y[:, None])
    assert np.array_equal(column.predict_proba(X), make().fit(X, y).predict_proba(X))
    with pytest.raises(DataError, match="y should be a 1d array"):
        make().fit(X, np.column_stack([y, y]))


def test_a_fairness_criterion_counts_the_second_class_as_positive():
    # equal opportunity compares the rates of the positive class: with labels "hit"/"miss" that
    # is "miss", so the fit must be the one on 1 - y, where "miss" is 1
    X, y, g, _ = data()
    labels = np.array(["miss", "hit"])[y]
    for make in (lambda: small_rule_set(criterion=EO),
                 lambda: MissingAwareTreeClassifier(max_depth=3, fairness=EO),
                 lambda: MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity",
                                                                                         penalty=0.5))):
        model, reference = make().fit(X, labels, g), make().fit(X, 1 - y, g)
        np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X))
        key = "train_gap_after_relabel" if "train_gap_after_relabel" in model.fit_log_ else "train_gap"
        positive = (model.predict(X) == "miss").astype(int)
        assert model.fit_log_[key] == pytest.approx(reference.fit_log_[key])
        assert model.fit_log_[key] == pytest.approx(EO.gap(1 - y, positive, g))


def test_several_protected_columns_are_intersectional_groups_in_every_family():
    X, y, g, h = data()
    joined = np.array([f"{a} & {b}" for a, b in zip(g, h)])
    two = np.column_stack([g, h])
    for make in (lambda: small_rule_set(criterion=EO), lambda: MissingAwareTreeClassifier(max_depth=3, fairness=EO)):
        a, b = make().fit(X, y, two), make().fit(X, y, joined)
        assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


def test_intersectional_groups_whose_values_hold_the_separator_stay_apart():
    # ("a|b", "c") and ("a", "b|c") had both been "a|b|c": one group, and no bound between them
    X, y, _, _ = data()
    n = len(y)
    first = np.where(np.arange(n) % 2 == 0, "a|b", "a")
    second = np.where(np.arange(n) % 2 == 0, "c", "b|c")
    labels = group_labels(np.column_stack([first, second]), n)
    assert len(set(labels)) == 2
    amp = group_labels(np.column_stack([np.where(np.arange(n) % 2 == 0, "x & y", "x"),
                                        np.where(np.arange(n) % 2 == 0, "z", "y & z")]), n)
    assert len(set(amp)) == 2


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
@pytest.mark.parametrize("make", [lambda: small_rule_set(criterion=EO),
                                  lambda: MissingAwareTreeClassifier(max_depth=3, fairness=EO),
                                  lambda: MissingAwareForestClassifier(n_estimators=2, max_depth=2, fairness=EO)])
def test_a_missing_group_label_is_an_error_naming_its_row(make, missing):
    X, y, g, h = data()
    first = int(np.flatnonzero(g == "a")[0])
    unknown = g.astype(object)
    unknown[g == "a"] = missing  # had become a group called "None" or "nan"
    with pytest.raises(DataError, match=f"sensitive_features has a missing value \\(row {first}\\)"):
        make().fit(X, y, unknown)
    two = np.column_stack([unknown, h])  # intersectional: a missing part is missing too
    with pytest.raises(DataError, match=f"row {first}"):
        make().fit(X, y, two)


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
        with pytest.raises(DataError, match="Complex data not supported: X holds complex numbers"):
            model.fit(X + 1j, y)
        with pytest.raises(DataError, match="sparse input is not supported"):  # had densified, or crashed
            model.fit(sparse.csr_matrix(X), y)
        with pytest.raises(DataError, match=r"0 feature\(s\) \(shape=\(150, 0\)\)"):
            model.fit(X[:, :0], y)
        with pytest.raises(TypeError, match="X must hold numbers"):  # numpy's TypeError, as scikit-learn's
            model.fit(np.array([[{"a": 1}, 2.0]] * len(y), dtype=object), y)
        fitted = model.fit(X, y)
        with pytest.raises(DataError, match="2-D.*Reshape your data"):
            fitted.predict(X[0])
        with pytest.raises(DataError, match=f"X has 3 features, but {type(model).__name__} is expecting 2 features"):
            fitted.predict(np.column_stack([X, X[:, 0]]))
    # nullable pandas columns: pd.NA is a missing value, as NaN is
    frame = pd.DataFrame(X, columns=["p", "q"]).astype("Float64")
    frame.iloc[3, 0] = pd.NA
    nan = X.copy()
    nan[3, 0] = np.nan
    for model in (small_rule_set(), MissingAwareTreeClassifier(max_depth=2)):
        assert np.array_equal(model.fit(frame, y).predict_proba(frame), model.fit(nan, y).predict_proba(nan))
    # a DataFrame's columns are matched by name, as scikit-learn does: swapped ones were read silently
    for model in (small_rule_set(), BaselineClassifier(), MissingAwareTreeClassifier(max_depth=2),
                  MissingAwareTreeRegressor(max_depth=2)):
        named = pd.DataFrame(X, columns=["p", "q"])
        fitted = model.fit(named, y)
        assert list(fitted.feature_names_in_) == ["p", "q"]
        with pytest.raises(DataError, match="The feature names should match those that were passed during fit"):
            fitted.predict(named[["q", "p"]])


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
    with pytest.warns(OneClassWarning):
        model = small_rule_set().fit(np.ones((10, 2)), np.ones(10, int))
    assert np.array_equal(model.predict_proba(np.ones((3, 2)))[:, 1] >= 0.5, model.predict(np.ones((3, 2))) == 1)


def test_data_errors_are_value_errors_as_scikit_learn_expects():
    X, y, _, _ = data()
    assert issubclass(DataError, ValueError)
    for model in (small_rule_set(), BaselineClassifier()):
        with pytest.raises(ValueError, match="zero rows"):  # had been numpy's "cannot reshape array"
            model.fit(X[:0], y[:0])


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)


def test_the_numbers_1_and_1_0_are_one_group_whatever_their_type():
    assert group_labels([1, 1.0, 2, 2.0], 4).tolist() == ["1", "1", "2", "2"]
    assert group_labels([np.int64(1), np.float64(1.0), 1], 3).tolist() == ["1", "1", "1"]
    assert group_labels(np.array([1.0, 2.0]), 2).tolist() == ["1", "2"]  # had been "1.0" and "2.0"
    assert group_labels(np.array([[1, "a"], [1.0, "a"]], dtype=object), 2).tolist() == ["1 & a", "1 & a"]
    # a text stays as written, a bool is no number, a fraction keeps its digits
    assert group_labels(["1", "1.0", "01", True, 1, 1.5], 6).tolist() == ["1", "1.0", "01", "True", "1", "1.5"]


def test_a_bound_is_not_imposed_between_the_rows_of_one_group_written_1_and_1_0():
    X, y = _data(n=120, seed=3)
    groups = np.where(np.arange(len(y)) % 2 == 0, 1, 2).astype(object)
    # some of group 1's negatives arrive as the float 1.0 (a list built from two sources): as the
    # group "1.0" they had no positive, and the fit refused a group the caller never had
    groups[(groups == 1) & (y == 0) & (np.arange(len(y)) % 4 == 0)] = 1.0
    bound = make_criterion("equal_opportunity", 0.1)
    as_ints = MissingAwareTreeClassifier(max_depth=3, fairness=bound, time_limit=5).fit(
        X, y, sensitive_features=groups.astype(int))
    mixed = MissingAwareTreeClassifier(max_depth=3, fairness=bound, time_limit=5).fit(X, y, sensitive_features=groups)
    assert np.array_equal(mixed.predict(X), as_ints.predict(X))
    assert mixed.fit_log_["train_gap_after_relabel"] == as_ints.fit_log_["train_gap_after_relabel"]


@pytest.mark.parametrize("only, read", [(1, "positive"), (0, "negative"), (1.0, "positive")])
def test_a_lone_0_or_1_is_read_as_a_0_1_label_and_a_warning_says_so(only, read):
    # all 1s of labels 1 and 2 had silently made 1 the positive class (classes_ [0, 1]), while
    # all 2s were refused: one label cannot say which class is positive
    y = np.full(10, only)
    with pytest.warns(inputs.OneClassWarning, match=f"one class only .*read as the {read} class of labels 0 and 1"):
        classes, y01 = binary_labels(y, 10, None)
    assert classes.tolist() == [0, 1] and y01.tolist() == [int(only)] * 10
    X, _ = _data(n=10)
    with pytest.warns(inputs.OneClassWarning, match="fit on rows of both classes") as caught:
        MissingAwareTreeClassifier(max_depth=2).fit(X, y)
    assert caught[0].filename == __file__  # the warning names the caller's line, not fairspec's


def test_a_lone_bool_is_no_guess_and_any_other_lone_label_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # False and True are all the bools there are
        assert binary_labels(np.full(5, True), 5, None)[0].tolist() == [False, True]
    for only in (2, -1, "yes"):
        with pytest.raises(DataError, match="one class only"):
            binary_labels(np.full(5, only), 5, None)


def test_a_list_mixing_numbers_and_text_keeps_1_and_1_0_one_group():
    # numpy makes such a list text ("1", "1.0", "x"): only an array given as text is taken as written
    assert group_labels([1, 1.0, "x"], 3).tolist() == ["1", "1", "x"]
    assert group_labels(np.array(["1", "1.0"]), 2).tolist() == ["1", "1.0"]
