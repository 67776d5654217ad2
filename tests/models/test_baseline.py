"""The baseline family against scikit-learn itself, and through its JSON model file."""
import json

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from fairspec.models.baseline import BaselineClassifier, estimator_from_json
import tracemalloc


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, size=n), rng.normal(size=n) * 10])
    y = ((X[:, 0] + (X[:, 1] == 2) + 0.1 * X[:, 2] + rng.normal(scale=0.7, size=n)) > 0.5).astype(int)
    return X, y


def one_hot(X):
    return np.column_stack([X[:, 0], X[:, 1] == 0, X[:, 1] == 1, X[:, 1] == 2, X[:, 2]]).astype(float)


def test_tree_predicts_exactly_as_sklearn_on_the_one_hot_matrix():
    X, y = data()
    ours = BaselineClassifier(learner="tree", depth=4, categorical_features=(1,), random_state=3).fit(X, y)
    ref = DecisionTreeClassifier(max_depth=4, random_state=3).fit(one_hot(X), y)
    Xt, _ = data(seed=1)
    np.testing.assert_allclose(ours.predict_proba(Xt)[:, 1], ref.predict_proba(one_hot(Xt))[:, 1])


def test_both_learners_fit_the_same_model_twice_and_say_so():
    # neither learner reads the clock, so the log may promise the same model next time
    X, y = data()
    for learner in ("tree", "logistic"):
        a, b = (BaselineClassifier(learner=learner, categorical_features=(1,), random_state=3).fit(X, y)
                for _ in range(2))
        assert a.fit_log_["reproducible"] is True and a.fit_log_["cut_by_clock"] == []
        assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)


def test_logistic_matches_sklearn_on_standardised_columns():
    X, y = data()
    ours = BaselineClassifier(learner="logistic", C=0.7, categorical_features=(1,)).fit(X, y)
    Z = one_hot(X)
    mean, std = Z.mean(0), Z.std(0)
    mean[1:4], std[1:4] = 0, 1
    ref = LogisticRegression(C=0.7, max_iter=2000).fit((Z - mean) / std, y)
    Xt, _ = data(seed=2)
    Zt = one_hot(Xt)
    np.testing.assert_allclose(ours.predict_proba(Xt)[:, 1], ref.predict_proba((Zt - mean) / std)[:, 1], atol=1e-9)


def test_json_round_trip_predicts_identically():
    X, y = data()
    for learner in ("tree", "logistic"):
        est = BaselineClassifier(learner=learner, categorical_features=(1,)).fit(X, y)
        back = estimator_from_json(json.loads(json.dumps(est.to_json())))
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))


def test_describe_names_features_and_categories():
    X, y = data()
    est = BaselineClassifier(learner="tree", depth=2, categorical_features=(1,)).fit(X, y)
    text = "\n".join(est.describe(["income", "colour", "debt"], {1: ["red", "green", "blue"]}))
    assert "leaf:" in text and ("income" in text or "colour" in text or "debt" in text)
    assert "colour == 0" not in text  # codes are shown as category names


def test_describe_shows_the_class_labels_predict_returns():
    # a leaf's line must name what predict returns there: "yes" / "no", not the vote 1 / 0
    X, y = data()
    votes = BaselineClassifier(learner="tree", depth=2, categorical_features=(1,)).fit(X, y)
    named = BaselineClassifier(learner="tree", depth=2, categorical_features=(1,)).fit(X, np.array(["no", "yes"])[y])
    expected = [line.replace("leaf: 0", "leaf: no").replace("leaf: 1", "leaf: yes") for line in votes.describe()]
    assert any("leaf: no" in line for line in expected) and any("leaf: yes" in line for line in expected)
    for model in (named, estimator_from_json(json.loads(json.dumps(named.to_json())))):
        assert model.describe() == expected


def test_get_params_round_trip():
    est = BaselineClassifier(learner="logistic", C=2.0)
    assert BaselineClassifier(**est.get_params()).get_params() == est.get_params()


def test_bad_labels_unfitted_use_and_a_wrong_width_are_refused():
    import pytest
    from sklearn.exceptions import NotFittedError

    from fairspec.errors import DataError

    X, y = data()
    # casting to int had folded 0.2/0.8 into 0 silently; NaN is no label
    for bad, why in ((np.where(y == 1, 0.8, 0.2), "continuous"), (np.where(y == 1, 1.0, np.nan), "missing"),
                     (np.arange(len(y)) % 3, "Only binary classification")):
        with pytest.raises(DataError, match=why):
            BaselineClassifier().fit(X, bad)
    with pytest.raises(NotFittedError):
        BaselineClassifier().predict(X)
    model = BaselineClassifier(categorical_features=(1,)).fit(X, y)
    with pytest.raises(DataError, match="X has 5 features, but BaselineClassifier is expecting 3 features as input"):
        model.predict(np.column_stack([X, X[:, :2]]))


def test_one_class_fits_the_tree_learner_a_constant_and_the_logistic_learner_says_it_needs_two():
    import warnings

    import pytest

    from fairspec.errors import DataError
    from fairspec.models.inputs import OneClassWarning

    X, _ = data()
    for label in (0, 1):
        y = np.full(len(X), label)
        with pytest.warns(OneClassWarning, match=fr"one class only \({label}\)"):
            tree = BaselineClassifier(learner="tree").fit(X, y)
        assert list(tree.classes_) == [0, 1] and (tree.predict(X) == label).all()
        # scikit-learn's own "needs samples of at least 2 classes" had come through unexplained
        with pytest.raises(DataError, match=fr"needs both classes among the training rows, which hold one class "
                                            fr"only \({label}\)"):
            with warnings.catch_warnings():  # whether it also warns first is not the point here
                warnings.simplefilter("ignore", OneClassWarning)
                BaselineClassifier(learner="logistic").fit(X, y)


def test_any_two_labels_the_second_sorted_one_positive_and_the_model_file_keeps_them():
    X, y = data()
    for learner in ("tree", "logistic"):
        ref = BaselineClassifier(learner=learner, categorical_features=(1,)).fit(X, y)
        # "hit" sorts before "miss": the positive class is "miss", the rows where y is 0
        labels = np.array(["miss", "hit"])[y]
        model = BaselineClassifier(learner=learner, categorical_features=(1,)).fit(X, labels)
        assert list(model.classes_) == ["hit", "miss"]
        flipped = BaselineClassifier(learner=learner, categorical_features=(1,)).fit(X, 1 - y)
        np.testing.assert_allclose(model.predict_proba(X), flipped.predict_proba(X))
        assert np.array_equal(model.predict(X), np.array(["hit", "miss"])[flipped.predict(X)])
        back = estimator_from_json(json.loads(json.dumps(model.to_json())))
        assert list(back.classes_) == ["hit", "miss"]
        assert np.array_equal(back.predict(X), model.predict(X))
        # 1/2 and False/True are 0/1 under other names
        for lo, hi in ((1, 2), (False, True)):
            other = BaselineClassifier(learner=learner, categorical_features=(1,)).fit(X, np.where(y == 1, hi, lo))
            assert other.classes_.tolist() == [lo, hi]
            assert np.array_equal(other.predict(X), np.where(ref.predict(X) == 1, hi, lo))
            again = estimator_from_json(json.loads(json.dumps(other.to_json())))
            assert again.classes_.tolist() == [lo, hi] and np.array_equal(again.predict(X), other.predict(X))


def test_a_model_file_written_before_the_labels_were_recorded_reads_as_0_and_1():
    import pytest

    X, y = data()
    model = BaselineClassifier(categorical_features=(1,)).fit(X, y)
    doc = json.loads(json.dumps(model.to_json()))
    assert doc["classes"] == [0, 1]
    old = dict(doc)
    del old["classes"]
    back = estimator_from_json(old)
    assert back.classes_.tolist() == [0, 1] and back.predict(X).dtype.kind == "i"
    assert np.array_equal(back.predict(X), model.predict(X))
    for bad in (["a"], [1, 1], [0, "1"], "01"):
        with pytest.raises(ValueError, match="classes must be a list of two distinct labels"):
            estimator_from_json({**doc, "classes": bad})
    with pytest.raises(ValueError, match="classes must be in sorted order, the positive class second"):
        estimator_from_json({**doc, "classes": [1, 0]})


def test_the_printed_scorecard_gives_the_models_decisions():
    # a feature in large units has a small coefficient that still decides rows: printed with
    # four decimals (-0.0000) the scorecard disagreed with predict
    rng = np.random.default_rng(0)
    amount = rng.uniform(250, 18000, 400)
    months = rng.integers(6, 60, 400).astype(float)
    y = (rng.random(400) < 1 / (1 + np.exp(-(2 - 0.0002 * amount + 0.01 * months)))).astype(int)
    X = np.column_stack([amount, months])
    est = BaselineClassifier(learner="logistic").fit(X, y)
    lines = est.describe(["amount", "months"], class_names=["bad", "good"])
    assert lines[-1] == "predict good when score > 0, else bad"
    score = np.full(len(X), float(lines[0].split("= ")[1]))
    for line in lines[1:-1]:
        coef, column = line.split(" * ")
        score += float(coef) * X[:, ["[amount]", "[months]"].index(column)]
    assert np.array_equal(score > 0, est.predict(X) == 1)
    assert all(float(line.split(" * ")[0]) != 0 for line in lines[1:-1])


def test_logistic_reads_a_column_near_the_largest_float_as_it_reads_it_scaled_down(recwarn):
    # the column's variance overflowed to inf: its coefficient became 0 and numpy warned
    X, y = data()
    small = BaselineClassifier(learner="logistic", categorical_features=(1,)).fit(X, y)
    huge = X.copy()
    huge[:, 2] *= 1e306  # values up to about 3e307: finite, but their squares are not
    large = BaselineClassifier(learner="logistic", categorical_features=(1,)).fit(huge, y)
    Xt, _ = data(seed=2)
    Xt_huge = Xt.copy()
    Xt_huge[:, 2] *= 1e306
    np.testing.assert_allclose(large.predict_proba(Xt_huge)[:, 1], small.predict_proba(Xt)[:, 1], atol=1e-9)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_the_tree_learner_takes_finite_values_past_float32_and_routes_its_own_rows_as_fitted():
    # scikit-learn's float32 cast made 1e39 an infinity (the fit failed after the checker had
    # accepted it) and split 16777219, which has no float32, on the other side of its own cut
    huge = np.array([[1e39], [1.7e308], [0.0], [1.0], [2.0], [3.0]])
    model = BaselineClassifier(depth=3).fit(huge, [1, 1, 0, 0, 1, 0])
    assert model.predict(huge).tolist() == [1, 1, 0, 0, 1, 0]
    assert all(np.isfinite(model.tree_["threshold"]))
    close = np.array([[16777218.0], [16777218.0], [16777219.0], [16777219.0]])
    model = BaselineClassifier(depth=1).fit(close, [0, 0, 1, 1])
    assert model.predict(close).tolist() == [0, 0, 1, 1]
    assert 16777218.0 <= model.tree_["threshold"][0] < 16777219.0
    adjacent = np.array([[1.0], [np.nextafter(1.0, 2.0)]])  # no float between them: the cut is the lower
    model = BaselineClassifier(depth=1).fit(adjacent, [0, 1])
    assert model.predict(adjacent).tolist() == [0, 1] and model.tree_["threshold"][0] == 1.0


def test_the_tree_learner_grows_scikit_learns_tree_on_ordinary_data():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    for _ in range(10):
        X = np.round(rng.normal(size=(300, 4)) * rng.choice([1, 10, 1000], 4), 2)
        y = (X[:, 0] + 3 * rng.normal(size=300) > 0).astype(int)
        reference = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
        ours = BaselineClassifier(depth=4).fit(X, y)
        assert ours.tree_["left"] == reference.tree_.children_left.tolist()
        assert ours.tree_["feature"] == reference.tree_.feature.tolist()
        np.testing.assert_allclose(ours.tree_["threshold"], reference.tree_.threshold, rtol=1e-6, atol=1e-5)
        np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-12)
        Xt = np.round(rng.normal(size=(300, 4)) * 50, 2)
        np.testing.assert_array_equal(ours.predict(Xt), reference.predict(Xt))


def _fitted(rng, levels: int = 30) -> tuple[BaselineClassifier, np.ndarray]:
    X = np.column_stack([rng.normal(size=300), rng.integers(0, levels, 300), rng.integers(0, 4, 300)]).astype(float)
    y = (X[:, 0] + (X[:, 1] < levels / 2) > 0.5).astype(int)
    return BaselineClassifier(learner="logistic", categorical_features=[1, 2]).fit(X, y), X


def test_the_expanded_matrix_is_each_numeric_column_and_each_category_indicator():
    rng = np.random.default_rng(8)
    est, X = _fitted(rng)
    expected = np.column_stack([X[:, e["column"]] if e["code"] is None else (X[:, e["column"]] == e["code"]).astype(float)
                                for e in est.layout_])
    Z = est._expand(X)
    assert Z.dtype == expected.dtype and Z.flags.c_contiguous
    np.testing.assert_array_equal(Z, expected)
    assert est._expand(X[:0]).shape == (0, len(est.layout_))


def test_expanding_rows_to_score_holds_the_matrix_once():
    rng = np.random.default_rng(9)
    est, _ = _fitted(rng)
    rows = np.column_stack([rng.normal(size=20000), rng.integers(0, 30, 20000), rng.integers(0, 4, 20000)]).astype(float)
    tracemalloc.start()
    try:
        Z = est._expand(rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * Z.nbytes
