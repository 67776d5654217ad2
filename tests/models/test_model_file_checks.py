"""Model files edited in ways that passed every load-time check, and what each now meets.

Each edit here had loaded and scored (or, for a lone surrogate, crashed `fairspec report`):
a split or rule that routes rows one way while the text a reviewer signs reads another, or
content no training run writes.  Where the text shows the edit, it is redrawn from the edited
estimator first (:func:`_redrawn`), as a careful editor would: the text check alone must not
be what catches it.
"""
from __future__ import annotations

import copy
import json
import re
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.errors import FeatureError
from fairspec.data.prepare import FeatureEncoder, Imputer
from fairspec.errors import ModelFileError
from fairspec.models import baseline
from fairspec.models.missing_tree import MissingAwareTreeClassifier, estimator_from_json
from fairspec.pipeline.artifact import family_module
from fairspec.pipeline.files import read_json

DATA = {"adult_tree": "adult", "compas_baseline": "compas", "compas_rules": "compas"}


def _model(root, name) -> dict:
    return json.loads((root / "reports" / name / "model.json").read_text(encoding="utf-8"))


def _est(doc) -> dict:
    return doc["model"]["estimator"]


def _redrawn(doc) -> dict:
    """``doc`` with ``model.text`` what its (edited) estimator describes."""
    pre = doc["preprocessing"]
    encoder = FeatureEncoder(**pre["encoder"])  # unchecked: the encoder may be the edit
    imputer = None if pre["imputer"] is None else Imputer.from_json(pre["imputer"])
    try:
        est = family_module(doc["model"]["family"]).estimator_from_json(_est(doc))
    except FeatureError:
        return doc  # the estimator's own loader refuses the edit, before any text is compared
    imputed = imputer is not None or pre["missing"]["strategy"] == "drop"
    doc["model"]["text"] = est.describe(encoder.names, encoder.category_names, class_names=doc["model"]["class_names"],
                                        imputed=imputed)
    return doc


def _predict(root, tmp_path, capsys, name, doc) -> tuple[int, str]:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rows = tmp_path / "rows.csv"
    pd.read_csv(root / "data" / f"{DATA[name]}.csv.gz", nrows=200).to_csv(rows, index=False)
    code = main(["predict", str(path), str(rows), "-q"])
    return code, capsys.readouterr().err


def _refused(root, tmp_path, capsys, name, doc, fragment) -> None:
    code, err = _predict(root, tmp_path, capsys, name, doc)
    assert code == 1, err
    first = err.split("\n")[0]
    assert first.startswith(f"{tmp_path / 'model.json'}: error: damaged model file (") and fragment in first, err


# -- the baseline tree ---------------------------------------------------------------------------
def test_a_baseline_indicator_split_is_cut_where_training_cuts_it(root, tmp_path, capsys):
    doc = _model(root, "compas_baseline")
    tree, layout = _est(doc)["tree"], _est(doc)["layout"]
    split = next(i for i, f in enumerate(tree["feature"]) if tree["left"][i] >= 0 and layout[f]["code"] is not None)
    assert tree["threshold"][split] == 0.5  # what training writes for a one-hot column
    # the text prints such a split as "!= category" / "== category" whatever the cut, so this
    # edit left the text as it was and sent every row left
    for cut in (1.5, 0.0, -3.0):
        edited = copy.deepcopy(doc)
        _est(edited)["tree"]["threshold"][split] = cut
        _refused(root, tmp_path, capsys, "compas_baseline", edited,
                 f"tree node {split}: splits the indicator column {tree['feature'][split]} at {cut}, but an "
                 f"indicator holds 0 or 1 and training cuts it at 0.5")
    assert _predict(root, tmp_path, capsys, "compas_baseline", doc)[0] == 0


def test_a_baseline_tree_node_with_a_negative_row_count_is_refused(root):
    est = _est(_model(root, "compas_baseline"))
    leaf = est["tree"]["left"].index(-1)
    est["tree"]["n"][leaf] = -5
    with pytest.raises(ValueError, match=rf"^tree node {leaf}: n must be at least 0, got -5$"):
        baseline.estimator_from_json(est)


# -- the baseline's logistic score ---------------------------------------------------------------
def _logistic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] - X[:, 1] + rng.normal(scale=0.5, size=200) > 0).astype(int)
    return baseline.BaselineClassifier(learner="logistic").fit(X, y), X


def _quiet_scores(est, X) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warning had printed even under -q
        return est.predict_proba(X)[:, 1]


def test_huge_coefficients_of_both_signs_score_each_row_not_nan():
    est, X = _logistic()
    ordinary = _quiet_scores(est, X)
    doc = json.loads(json.dumps(est.to_json()))
    doc["linear"]["coef"] = [1e308, -1e308, 1e308]  # finite, so the file is valid JSON of numbers
    p = _quiet_scores(baseline.estimator_from_json(doc), X)
    assert np.isfinite(p).all()
    # the sign of the score is that of the largest term: the rows whose x0 - x1 + x2 is positive
    np.testing.assert_array_equal(p > 0.5, X[:, 0] - X[:, 1] + X[:, 2] > 0)
    # and an ordinary model scores ordinary rows as it did (no rounding moved)
    np.testing.assert_array_equal(_quiet_scores(est, X), ordinary)


def test_a_fitted_model_scores_rows_of_values_near_the_largest_float():
    # coefficients training does write, on values a data file may hold (finite): the two terms
    # overflow to +inf and -inf, which had summed to a NaN score
    est, X = _logistic()
    rows = np.array([[1e308, 1e308, 0.0], [-1e308, 1e308, 0.0], [1.0, 1e308, 1e308]])
    p = _quiet_scores(est, rows)
    assert np.isfinite(p).all()
    coef = np.array(est.linear_["coef"])
    expected = (rows / 1e308) @ coef > 0  # the sign of each row's score, without the overflow
    np.testing.assert_array_equal(p > 0.5, expected)


def test_coefficients_training_writes_on_data_in_tiny_units_still_load():
    # a column of values near 1e-300 fits a coefficient near 3e300: no bound on a coefficient's
    # size may refuse the file of such a fit
    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    X = np.column_stack([x * 1e-300, rng.normal(size=300)])
    y = (x + rng.normal(scale=0.5, size=300) > 0).astype(int)
    est = baseline.BaselineClassifier(learner="logistic").fit(X, y)
    assert abs(est.linear_["coef"][0]) > 1e299
    loaded = baseline.estimator_from_json(json.loads(json.dumps(est.to_json())))
    np.testing.assert_array_equal(_quiet_scores(loaded, X), _quiet_scores(est, X))


# -- present_vs_missing splits of the tree family ------------------------------------------------
@pytest.fixture(scope="module")
def missingness_tree() -> dict:
    """A tree whose two splits are present-vs-missing ones: y is whether x0 (numeric) is
    missing, then, among the rest, mostly whether x1 (categorical) is."""
    rng = np.random.default_rng(0)
    n = 300
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, size=n).astype(float)])
    m0, m1 = rng.random(n) < 0.3, rng.random(n) < 0.3
    X[m0, 0] = np.nan
    X[m1, 1] = np.nan
    y = (m0 | (m1 & (rng.random(n) < 0.9))).astype(int)
    est = MissingAwareTreeClassifier(max_depth=2, missing="mia", categorical_features=[1]).fit(X, y)
    return json.loads(json.dumps(est.to_json()))


def _pvm(doc, categorical: bool) -> dict:
    return next(nd for nd in doc["nodes"] if nd.get("split") == "present_vs_missing"
                and ("left_categories" in nd) == categorical)


def test_training_writes_present_vs_missing_splits_that_load(missingness_tree):
    numeric, categorical = _pvm(missingness_tree, False), _pvm(missingness_tree, True)
    assert (numeric["threshold"], numeric["missing"]) == (None, "right")
    assert (categorical["left_categories"], categorical["right_categories"], categorical["missing"]) == (
        [0, 1, 2], [], "right")
    estimator_from_json(missingness_tree)


@pytest.mark.parametrize("categorical, change, fragment", [
    (False, {"threshold": 0.3}, "sends every present value left, so its threshold is null; got 0.3"),
    (False, {"missing": "left"}, "sends missing values right; got 'left'"),
    (True, {"left_categories": [0, 1], "right_categories": [2]},
     "sends every category left, so its right_categories are empty; got [2]"),
    (True, {"missing": "left"}, "sends missing values right; got 'left'"),
])
def test_a_present_vs_missing_split_routing_otherwise_than_its_text_is_refused(missingness_tree, categorical,
                                                                                change, fragment):
    # routing reads the threshold, the categories and the route; the text says only "is present"
    # and "is missing", so each of these edits had scored rows down the branch that says otherwise
    doc = copy.deepcopy(missingness_tree)
    node = _pvm(doc, categorical)
    node.update(change)
    with pytest.raises(ModelFileError, match=re.escape(f"node {node['id']}: a present_vs_missing split {fragment}")):
        estimator_from_json(doc)


# -- lone surrogates in a file fairspec reads ----------------------------------------------------
def test_report_refuses_a_metrics_file_holding_a_lone_surrogate(root, tmp_path, capsys):
    # "\udc00" is valid JSON and reads as a str no UTF-8 can encode: the report stopped with an
    # internal error (exit 70) when it wrote the group's name
    d = shutil.copytree(root / "reports" / "compas_rules", tmp_path / "run")
    metrics = d / "metrics.json"
    text = metrics.read_text(encoding="utf-8")
    assert '"African-American": {' in text
    metrics.write_text(text.replace('"African-American": {', '"African-American\\udc00": {', 1), encoding="utf-8")
    before = (d / "report.html").read_bytes()
    assert main(["report", str(d), "-q"]) == 1
    assert capsys.readouterr().err == (
        f"{metrics}: error: damaged metrics file (metrics.data_summary.groups has the key "
        f"'African-American\\udc00', which holds a lone surrogate; no file fairspec writes holds one)\n")
    assert (d / "report.html").read_bytes() == before


@pytest.mark.parametrize("text, place", [
    ('{"a": [1, {"b": "x\\ud800y"}]}', "metrics.a[1].b is the text 'x\\ud800y'"),
    ('{"a": {"\\udfff": 1}}', "metrics.a has the key '\\udfff'"),
    ('"\\ud800"', "metrics is the text '\\ud800'"),
])
def test_read_json_names_where_a_lone_surrogate_stands(tmp_path, text, place):
    path = tmp_path / "metrics.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelFileError) as caught:
        read_json(path, "metrics")
    assert str(caught.value) == (f"{path}: error: damaged metrics file ({place}, which holds a lone surrogate; "
                                 f"no file fairspec writes holds one)")
    str(caught.value).encode("utf-8")  # the message itself prints


def test_read_json_reads_a_surrogate_pair_and_an_escaped_backslash(tmp_path):
    path = tmp_path / "metrics.json"
    path.write_text('{"name": "\\ud83d\\ude00", "path": "C:\\\\ud800"}', encoding="utf-8")
    assert read_json(path, "metrics") == {"name": "\U0001F600", "path": "C:\\ud800"}


def test_predict_refuses_a_model_file_holding_a_lone_surrogate(root, tmp_path, capsys):
    doc = _model(root, "compas_rules")
    doc["preprocessing"]["encoder"]["names"][0] = "a\ud800ge"
    code, err = _predict(root, tmp_path, capsys, "compas_rules", doc)
    assert code == 1, err
    assert err.startswith(f"{tmp_path / 'model.json'}: error: damaged model file "
                          f"(model.preprocessing.encoder.names[0] is the text 'a\\ud800ge', which holds a lone "
                          f"surrogate")


# -- category codes and spellings, where the encoder meets the estimator ------------------------
@pytest.mark.parametrize("categories, spelt", [
    (["1", "1.0"], "'1' and '1.0', both '1'"),
    (["True", "true"], "'True' and 'true', both 'True'"),
    (["2", "x", "2.00"], "'2' and '2.00', both '2'"),
])
def test_an_encoder_listing_one_category_in_two_spellings_is_refused(categories, spelt):
    # a cell is looked up by its category_text: the second spelling's code no cell can have
    with pytest.raises(ValueError, match=rf"^categorical feature 'g' lists a category twice \({spelt}\)$"):
        FeatureEncoder.from_json({"names": ["g"], "kinds": ["categorical"], "categories": [categories]})
    # codes that spell no one number stay apart, as read_table reads them
    FeatureEncoder.from_json({"names": ["g"], "kinds": ["categorical"], "categories": [["007", "7", "1.50"]]})


def test_a_model_file_whose_encoder_spells_a_category_twice_is_refused(root, tmp_path, capsys):
    doc = _model(root, "compas_rules")
    doc["preprocessing"]["encoder"]["categories"][6] = ["1", "1.0"]
    _refused(root, tmp_path, capsys, "compas_rules", _redrawn(doc),
             "categorical feature 'sex' lists a category twice ('1' and '1.0', both '1')")


def _condition(doc, op):
    """The rule set's first condition by ``op``; a categorical '==' or '!=' is made from the other
    when the committed rule set has only one of them (training writes both), and added to the
    first rule, on 'sex' (the last categorical feature, 2 categories), when it has neither, so
    these tests do not depend on which conditions the committed fit happened to choose."""
    conditions = [c for r in _est(doc)["rules"] for c in r["conditions"]]
    found = next((c for c in conditions if c["op"] == op), None)
    if found is None and op in ("==", "!="):
        found = next((c for c in conditions if c["op"] == ("!=" if op == "==" else "==")), None)
        if found is None:
            found = {"feature": _est(doc)["params"]["categorical_features"][-1], "missing": "false", "value": 1.0}
            _est(doc)["rules"][0]["conditions"].append(found)
        found["op"] = op
    return found


@pytest.mark.parametrize("name, change, fragment", [
    # the committed rule set's first '==' (or '!=') condition is on a categorical feature of 2 categories
    ("compas_rules", lambda d: _condition(d, "==").update(value=99.0),
     "but the encoder lists 2 categories for it (codes 0..1)"),
    ("compas_rules", lambda d: _condition(d, "!=").update(value=2.0), "reads category code 2.0 of feature 'sex'"),
    ("compas_rules", lambda d: _condition(d, "==").update(op="<="),
     "by '<=', which training never does"),
    ("compas_rules", lambda d: _condition(d, "<=").update(op="=="),
     "a rule compares numeric feature 'age' by '==', which training never does"),
    ("adult_tree", lambda d: next(nd for nd in _est(d)["nodes"] if nd.get("left_categories")).update(
        left_categories=[1, 2, 3, 4, 99]), "the estimator reads category code 99 of feature"),
    ("compas_baseline", lambda d: _est(d)["layout"][4].update(code=99.0),
     "the estimator reads category code 99.0 of feature"),
])
def test_a_category_code_or_comparison_training_cannot_write_is_refused(root, tmp_path, capsys, name, change,
                                                                         fragment):
    # with the text redrawn these had loaded: `== 99` true of no row, `<=` on codes ordered by text
    doc = _model(root, name)
    change(doc)
    _refused(root, tmp_path, capsys, name, _redrawn(doc), fragment)
