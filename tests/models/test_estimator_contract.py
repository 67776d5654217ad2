"""What every family's estimator promises a Python caller beyond scikit-learn's checks: a
model file that keeps the column names it was fitted on, ``categorical_features`` read as
scikit-learn reads it, and a read-out that prints the values the model applies."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from fairspec.models import baseline
from fairspec.models.mip_forest import FairMIPForestClassifier
from fairspec.models.missing_tree import MissingAwareTreeClassifier, estimator_from_json
from fairspec.models import mp_boost
from fairspec.models.readout import category_text
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.registry.criteria import EqualOpportunity
from fairspec.models.tree.estimators import MissingAwareForestClassifier
from fairspec.registry.criteria import make_criterion

#: small work limits: these tests are about the estimator's contract, not the fit's quality
FAST_RULES = dict(time_limit=2.0, clock_cap=False, max_rounds=3, search_iterations=20)

FAMILIES = {
    "rule_set": (lambda **kw: FairRuleSetClassifier(**FAST_RULES, **kw), FairRuleSetClassifier.from_json),
    "tree": (lambda **kw: MissingAwareTreeClassifier(max_depth=3, **kw), estimator_from_json),
    "baseline": (lambda **kw: baseline.BaselineClassifier(learner="tree", depth=3, **kw), baseline.estimator_from_json),
    "mip_forest": (lambda **kw: FairMIPForestClassifier(n_trees=3, batch_size=80, clock_cap=False, tree_checkpoints=1,
                                                        **kw), FairMIPForestClassifier.from_json),
    "mp_boost": (lambda **kw: mp_boost.FairMPBoostClassifier(n_rounds=10, **kw), mp_boost.estimator_from_json),
}


def _frame(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 70, n).astype(float),
                      "priors": rng.integers(0, 10, n).astype(float),
                      "colour": rng.integers(0, 3, n).astype(float)})
    y = ((X.age < 30) | (X.priors > 6) | (X.colour == 2)).astype(int).to_numpy()
    return X, np.where(rng.random(n) < 0.1, 1 - y, y)


def _round_trip(est, load):
    return load(json.loads(json.dumps(est.to_json())))


@pytest.mark.parametrize("family", FAMILIES)
def test_a_loaded_model_refuses_columns_in_another_order_as_the_fitted_one_does(family):
    make, load = FAMILIES[family]
    X, y = _frame()
    est = make(categorical_features=[2]).fit(X, y)
    loaded = _round_trip(est, load)
    assert list(loaded.feature_names_in_) == ["age", "priors", "colour"]
    assert np.array_equal(loaded.predict(X), est.predict(X))
    reordered = X[["priors", "age", "colour"]]
    for model in (est, loaded):  # the loaded one had applied its rules to the wrong columns
        with pytest.raises(ValueError, match="feature names"):
            model.predict(reordered)
    # and its read-out names the columns, as the fitted one's does
    assert loaded.describe() == est.describe()
    assert "age" in "\n".join(loaded.describe()) or "priors" in "\n".join(loaded.describe())


@pytest.mark.parametrize("family", FAMILIES)
def test_categorical_features_as_a_mask_or_names_mean_the_same_columns_as_indices(family):
    make, _ = FAMILIES[family]
    X, y = _frame()
    by_index = make(categorical_features=[2]).fit(X, y)
    for spelled in ([False, False, True], np.array([False, False, True]), ["colour"], [np.int64(2)]):
        other = make(categorical_features=spelled).fit(X, y)
        # int(True) == 1 had made columns 0 and 1 categorical for the mask
        assert other.describe() == by_index.describe(), spelled
        assert other.to_json()["params"]["categorical_features"] == [2]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("bad, message", [
    ([3], "index 3 is outside 0..2"),
    ([-1], "index -1 is outside 0..2"),
    ([True, False], "one entry per feature"),
    (["color"], "'color', which is not a column"),
    ([0, "colour"], "one kind"),
])
def test_categorical_features_out_of_range_or_mixed_is_an_error(family, bad, message):
    make, _ = FAMILIES[family]
    X, y = _frame()
    with pytest.raises(ValueError, match=message):
        make(categorical_features=bad).fit(X, y)


@pytest.mark.parametrize("family", FAMILIES)
def test_numpy_parameters_from_a_grid_search_still_write_a_json_model(family):
    make, load = FAMILIES[family]
    X, y = _frame()
    est = make(categorical_features=(np.int64(2),), random_state=np.int64(3)).fit(X, y)
    text = json.dumps(est.to_json())  # np.int64 had raised TypeError here
    assert np.array_equal(load(json.loads(text)).predict(X), est.predict(X))


#: a parameter each family reads while fitting, and a value other than its own
CHANGED_AFTER_FIT = {"rule_set": dict(max_complexity=7), "tree": dict(max_depth=1), "baseline": dict(depth=1),
                     "mip_forest": dict(max_depth=1), "mp_boost": dict(learning_rate=0.5)}


@pytest.mark.parametrize("family", FAMILIES)
def test_the_model_file_names_the_parameters_that_fitted_it_not_later_ones(family):
    make, load = FAMILIES[family]
    X, y = _frame()
    categorical = [2]
    est = make(categorical_features=categorical).fit(X, y)
    written = json.dumps(est.to_json())
    est.set_params(**CHANGED_AFTER_FIT[family], categorical_features=[0])
    categorical.append(1)  # a caller's list changed in place after the fit
    # the file had said max_complexity 7 beside rules fitted under 30
    assert json.dumps(est.to_json()) == written
    assert np.array_equal(load(json.loads(written)).predict(X), est.predict(X))


@pytest.mark.parametrize("family", FAMILIES)
def test_an_estimator_fitted_before_params_were_kept_still_predicts_and_writes(family):
    # unpickled from an older fairspec: no fitted_params_, which predict and to_json had needed
    make, load = FAMILIES[family]
    X, y = _frame()
    est = make(categorical_features=[2]).fit(X, y)
    expected, doc = est.predict(X), est.to_json()
    del est.fitted_params_
    assert np.array_equal(est.predict(X), expected) and est.to_json() == doc


def test_a_baseline_predicts_with_the_learner_it_fitted():
    X, y = _frame()
    est = baseline.BaselineClassifier(learner="tree", depth=3, categorical_features=[2]).fit(X, y)
    before = est.predict_proba(X)
    est.set_params(learner="logistic")  # had raised AttributeError: no linear_
    assert np.array_equal(est.predict_proba(X), before)
    assert est.describe()[0].startswith(("age", "priors", "colour"))


def test_a_baseline_model_file_has_a_version_and_a_loader_refuses_another():
    X, y = _frame()
    doc = baseline.BaselineClassifier(learner="tree", depth=2).fit(X, y).to_json()
    assert doc["format_version"] == baseline.FORMAT_VERSION
    older = {k: v for k, v in doc.items() if k != "format_version"}  # written before it had one
    assert np.array_equal(baseline.estimator_from_json(older).predict(X), baseline.estimator_from_json(doc).predict(X))
    for version in (2, "1", True):
        with pytest.raises(ValueError, match="baseline model format"):
            baseline.estimator_from_json({**doc, "format_version": version})


@pytest.mark.parametrize("family", FAMILIES)
def test_an_unfitted_estimator_has_no_model_file_or_read_out(family):
    make, _ = FAMILIES[family]
    for method in ("to_json", "describe"):
        with pytest.raises(NotFittedError):
            getattr(make(), method)()


def test_category_text_shows_the_value_the_model_compares_with():
    names = ["F", "M", "red OR blue", ""]
    assert category_text(0.0, names) == "F"
    assert category_text(2.0, names) == '"red OR blue"'  # unquoted it read as two values
    assert category_text(3.0, names) == '""'
    assert category_text(1.5, names) == "1.5"  # int(1.5) had printed M, the name of code 1
    assert category_text(7.0, names) == "7"
    assert category_text(2.0) == "2"
    # one word, but part of how a rule or a branch reads: x == OR, x == missing
    assert [category_text(c, ["OR", "missing", "Then", "Oregon"]) for c in (0.0, 1.0, 2.0, 3.0)] == [
        '"OR"', '"missing"', '"Then"', "Oregon"]


@pytest.mark.parametrize("family", FAMILIES)
def test_class_names_are_quoted_as_category_names_are(family):
    make, _ = FAMILIES[family]
    X, y = _frame()
    text = "\n".join(make(categorical_features=[2]).fit(X, y).describe(class_names=['say "no"', "yes"]))
    quoted = json.dumps('say "no"')  # bare, ELSE say "no" had read as a broken rule
    assert quoted in text and text.count("say") == text.count(quoted)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_column_name_a_spec_must_quote_is_quoted_as_the_spec_quotes_it(family):
    make, _ = FAMILIES[family]
    X, y = _frame()
    X = X.rename(columns={"age": "age in years", "priors": "AND"})
    text = "\n".join(make(categorical_features=[2]).fit(X, y).describe())
    # bare, IF age in years <= 29 AND AND > 6 had read as a condition on "years" beside a broken one
    assert text.count("`age in years`") >= 1
    assert text.count("age in years") == text.count("`age in years`")
    assert text.count("`AND`") >= 1


def test_a_rule_on_a_non_integer_code_prints_that_code():
    from fairspec.models.rule_set.binarize import Literal

    names = {0: ["one", "two"]}
    assert Literal(0, "==", 1.5).describe(["c"], names) == "c == 1.5"  # it printed "c == two"
    assert Literal(0, "!=", 1.0).describe(["c"], names) == "c != two"
    assert Literal(0, "==", 0.0, True).describe(["c"], {0: ["a b"]}) == 'c == "a b" (or missing)'


def _rule_set_doc():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    X[rng.random(200) < 0.3, 0] = np.nan
    y = ((np.nan_to_num(X[:, 0], nan=1.0) > 0) ^ (rng.random(200) < 0.05)).astype(int)
    est = FairRuleSetClassifier(**FAST_RULES).fit(X, y)
    return est, json.loads(json.dumps(est.to_json())), X


def test_a_rule_sets_missing_flag_is_read_strictly():
    est, doc, X = _rule_set_doc()
    cond = next(c for r in doc["rules"] for c in r["conditions"] if c["op"] in ("<=", ">", "==", "!="))
    for spelled in (True, "True", 1, None):
        bad = json.loads(json.dumps(doc))
        target = next(c for r in bad["rules"] for c in r["conditions"] if c == cond)
        if spelled is None:
            del target["missing"]
        else:
            target["missing"] = spelled
        # each of these had been read as "false": "(or missing)" silently dropped
        with pytest.raises(ValueError, match="'missing' must be \"true\" or \"false\""):
            FairRuleSetClassifier.from_json(bad)
    assert np.array_equal(FairRuleSetClassifier.from_json(doc).predict(X), est.predict(X))


@pytest.mark.parametrize("damage, message", [
    (lambda d: d.pop("rules"), "no 'rules' entry"),
    (lambda d: d.pop("params"), "no 'params' entry"),
    (lambda d: d.update(rules={"a": 1}), "'rules' must be a list"),
    (lambda d: d.update(criterion={"name": "parity", "bound": 0.1, "penalty": None}), "unknown criterion 'parity'"),
    (lambda d: d.update(criterion={"name": "equal_opportunity", "bound": "0.1", "penalty": None}),
     "the criterion's bound must be a number"),
    (lambda d: d["params"].update(categorical_features=[9]), "categorical_features must be a list of feature"),
    (lambda d: d.update(feature_names=["a"]), "feature_names must be a list of 2 distinct"),
    (lambda d: d.update(fit_log=[1]), "'fit_log' must be an object"),
])
def test_a_damaged_rule_set_document_is_a_value_error_saying_what_is_wrong(damage, message):
    _, doc, _ = _rule_set_doc()
    damage(doc)
    with pytest.raises(ValueError, match=message):
        FairRuleSetClassifier.from_json(doc)


@pytest.mark.parametrize("params, message", [
    (dict(criterion="equal_opportunity"), "criterion must be a fairspec criterion"),
    (dict(max_conditions=0), "max_conditions must be a whole number of at least 1"),
    (dict(thresholds=1), "thresholds must be a whole number of at least 2"),
])
def test_rule_set_parameters_that_would_silently_drop_every_rule_are_errors(params, message):
    X, y = _frame()
    with pytest.raises((TypeError, ValueError), match=message):
        FairRuleSetClassifier(**FAST_RULES, **params).fit(X, y, sensitive_features=X.colour > 0)


def test_a_criterion_object_is_still_accepted():
    X, y = _frame()
    est = FairRuleSetClassifier(criterion=EqualOpportunity(bound=0.2), **FAST_RULES)
    est.fit(X, y, sensitive_features=np.where(X.colour > 0, "a", "b"))
    assert est.fit_log_["bound_met_on_train"]


# --- found in the review of 2026-11-24 ---------------------------------------------------------

@pytest.mark.parametrize("family, breaking", [
    ("baseline", dict(learner="Tree")),  # checked only after the column layout was replaced
    ("rule_set", dict(max_conditions=0)),
    ("tree", dict(max_depth=None)),
    ("mp_boost", dict(learning_rate=0.0)),
])
def test_a_refit_that_fails_leaves_the_previous_model_whole(family, breaking):
    make, _ = FAMILIES[family]
    X, y = _frame()
    est = make(categorical_features=[2]).fit(X, y)
    before = (est.predict(X), json.dumps(est.to_json(), sort_keys=True))
    wider = X.assign(extra=1.0, more=2.0)
    est.set_params(categorical_features=[2, 3], **breaking)
    with pytest.raises((ValueError, TypeError)):
        est.fit(wider, y)
    assert np.array_equal(est.predict(X), before[0])
    assert json.dumps(est.to_json(), sort_keys=True) == before[1]
    with pytest.raises(ValueError):  # it still knows it was fitted on three columns
        est.predict(wider)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("seed", [-1, 2**31, 2**40])
def test_a_seed_outside_what_highs_takes_is_refused_by_every_family(family, seed):
    make, _ = FAMILIES[family]
    X, y = _frame()
    with pytest.raises(ValueError, match=r"random_state must be a whole number from 0 to 2147483647"):
        make(random_state=seed).fit(X, y)


@pytest.mark.parametrize("make, message", [
    (lambda: MissingAwareTreeClassifier(max_depth=None), r"max_depth must be a whole number of at least 0; got None"),
    (lambda: MissingAwareTreeClassifier(min_samples_leaf=0), r"min_samples_leaf must be a whole number of at least 1"),
    (lambda: MissingAwareTreeClassifier(fairness="equal_opportunity"), r"fairness must be a fairspec Criterion"),
    (lambda: FairRuleSetClassifier(max_complexity=-1, **FAST_RULES), r"max_complexity must be a whole number of at "
                                                                     r"least 1"),
])
def test_parameters_of_the_wrong_kind_get_a_message_not_a_crash(make, message):
    X, y = _frame()
    with pytest.raises((ValueError, TypeError), match=message):
        make().fit(X, y)


def test_forest_parameters_as_scikit_learn_spells_them():
    from fairspec.models.tree.estimators import MissingAwareForestClassifier
    X, y = _frame()
    one = MissingAwareForestClassifier(n_estimators=3, max_depth=2, n_jobs=None).fit(X, y)
    same = MissingAwareForestClassifier(n_estimators=3, max_depth=2, n_jobs=1).fit(X, y)
    assert np.array_equal(one.predict_proba(X), same.predict_proba(X))
    with pytest.raises(ValueError, match="max_features must be 'sqrt', 'log2', 'all', None"):
        MissingAwareForestClassifier(n_estimators=2, max_features="bogus").fit(X, y)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_loader_refuses_a_damaged_document_with_a_value_error(family):
    make, load = FAMILIES[family]
    X, y = _frame()
    doc = make().fit(X, y).to_json()
    for damaged in ({**doc, "kind": "another"}, {**doc, "format_version": 99},
                    {k: v for k, v in doc.items() if k not in ("rules", "nodes", "tree", "linear", "rounds",
                                                                "trees")}):
        with pytest.raises(ValueError):
            load(json.loads(json.dumps(damaged)))


def test_a_missing_label_among_strings_is_named_by_its_row():
    from fairspec.errors import DataError
    X, _ = _frame(n=4)
    with pytest.raises(DataError, match=r"y has a missing value \(row 2\)"):
        MissingAwareTreeClassifier().fit(X, np.array(["a", "b", None, "a"], dtype=object))


#: small work limits, no clock: these tests are about what a fit logs and returns
FAST = dict(time_limit=2.0, clock_cap=False, max_complexity=6, max_conditions=2, max_rounds=3, search_iterations=20)


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)


def test_a_fit_over_a_single_group_logs_no_gap_and_no_verdict_as_metrics_json_does():
    X, y = _data()
    one = np.full(len(y), "a")
    bound = make_criterion("equal_opportunity", 0.05)
    rules = FairRuleSetClassifier(criterion=bound, **FAST).fit(X, y, one)
    # had been a gap of 0.0 and "met", where metrics.json says null and null
    assert rules.fit_log_["train_gap"] is None and rules.fit_log_["bound_met_on_train"] is None
    assert rules.predict(X).shape == y.shape
    for model in (MissingAwareTreeClassifier(max_depth=3, fairness=bound, time_limit=5),
                  MissingAwareForestClassifier(n_estimators=3, max_depth=3, fairness=bound, time_limit=5)):
        log = model.fit(X, y, sensitive_features=one).fit_log_
        assert log["train_gap_before_relabel"] is None and log["train_gap_after_relabel"] is None
        # no bound binds on one group: the grown leaves keep their labels
        assert log["note"].startswith("the training rows hold a single group")
    penalised = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", penalty=1.0))
    assert penalised.fit(X, y, sensitive_features=one).fit_log_["train_gap"] is None
