"""Damaged or edited model documents of the tree and baseline families are refused when they
are loaded, with a reason, never at predict time (a crash, a loop, or quietly wrong scores).

Every damage here must fail at *load*: a test of a cycle asserts the load raises, so even
a loader that accepted the cycle would fail the test instead of hanging it.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from fairspec.errors import ModelFileError
from fairspec.models import baseline
from fairspec.models.missing_tree import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                          MissingAwareTreeRegressor, estimator_from_json)

nan = np.nan


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, size=n).astype(float), rng.normal(size=n)])
    y = ((X[:, 0] + (X[:, 1] == 2) + rng.normal(scale=0.5, size=n)) > 0.5).astype(int)
    X[rng.random(n) < 0.15, 0] = nan
    return X, y


def _doc(est) -> dict:
    return json.loads(json.dumps(est.to_json()))


@pytest.fixture(scope="module")
def tree_doc():
    X, y = _data()
    return _doc(MissingAwareTreeClassifier(max_depth=3, missing="mia", categorical_features=[1]).fit(X, y))


@pytest.fixture(scope="module")
def trinary_doc():
    X, y = _data()
    return _doc(MissingAwareTreeClassifier(max_depth=3, missing="trinary", categorical_features=[1]).fit(X, y))


@pytest.fixture(scope="module")
def baseline_doc():
    X, y = _data()
    X[np.isnan(X)] = 0.0
    return _doc(baseline.BaselineClassifier(learner="tree", depth=3, categorical_features=(1,)).fit(X, y))


def _split(nodes, categorical=None):
    """Index of the first split node (on a categorical feature, or not, if asked)."""
    for k, nd in enumerate(nodes):
        if not nd["leaf"] and (categorical is None or ("left_categories" in nd) == categorical):
            return k
    raise AssertionError("no such split node")


def _leaf(nodes):
    return next(nd for nd in nodes if nd["leaf"])


def _damaged(doc, change):
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


# -- defect 1: child links that loop would make predict spin forever ---------------------------
def test_tree_with_a_cycle_is_refused_at_load(tree_doc):
    doc = _damaged(tree_doc, lambda d: d["nodes"][0].update(left=0))
    with pytest.raises(ModelFileError, match=r"node 0: left child 0 is not a node after it"):
        estimator_from_json(doc)


def test_tree_with_a_back_link_deeper_down_is_refused_at_load(tree_doc):
    k = _split(tree_doc["nodes"][1:]) + 1  # a split below the root, linking back up to the root
    doc = _damaged(tree_doc, lambda d: d["nodes"][k].update(right=0))
    with pytest.raises(ModelFileError, match=rf"node {k}: right child 0 is not a node after it"):
        estimator_from_json(doc)


def test_forest_tree_with_a_cycle_is_refused_at_load():
    X, y = _data()
    doc = _doc(MissingAwareForestClassifier(n_estimators=3, max_depth=2, random_state=1).fit(X, y))
    doc["trees"][2]["nodes"][0]["right"] = 0
    with pytest.raises(ModelFileError, match=r"tree 2: node 0: right child 0"):
        estimator_from_json(doc)


def test_baseline_tree_with_a_cycle_is_refused_at_load(baseline_doc):
    doc = _damaged(baseline_doc, lambda d: d["tree"]["left"].__setitem__(0, 0))
    with pytest.raises(ValueError, match=r"tree node 0: left child 0 is not a node after it"):
        baseline.estimator_from_json(doc)


def test_routing_a_looping_tree_built_in_memory_fails_instead_of_spinning():
    # run in a child process with a time limit: on a router without the guard this loops
    code = textwrap.dedent("""
        import numpy as np
        from fairspec.models.tree.grow import TreeStructure
        t = TreeStructure()
        for d in (0, 1, 1):
            t.new_node(d)
        t.feature[0], t.threshold[0], t.route[0], t.left[0], t.right[0] = 0, 0.5, 0, 0, 2
        try:
            t.route_rows(np.array([[0.0], [1.0]]))
        except ValueError as exc:
            print("refused:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "refused: the tree's child links form a cycle" in out.stdout, out.stderr


# -- defect 2: structurally broken files fail at load, with a reason ----------------------------
@pytest.mark.parametrize("change, fragment", [
    (lambda d: d.update(nodes=[]), "a tree needs a non-empty list of nodes"),
    (lambda d: d.update(nodes={"0": {}}), "a tree needs a non-empty list of nodes"),
    (lambda d: d["nodes"][0].update(left=999), "node 0: left child 999 is not a node after it"),
    (lambda d: d["nodes"][0].update(left=-1), "node 0: left child -1 is not a node after it"),
    (lambda d: d["nodes"][0].update(right=d["nodes"][0]["left"]), r"node \d+ is reached twice"),
    (lambda d: d["nodes"][_split(d["nodes"])].update(feature=99), r"feature 99 is out of range \(the model has 3"),
    (lambda d: d["nodes"][_split(d["nodes"])].update(feature=-1), "feature must be at least 0"),
    (lambda d: d["nodes"][_split(d["nodes"])].update(feature=1.5), "feature must be an integer"),
    (lambda d: d["nodes"][_split(d["nodes"], True)].update(left_categories=[-5]), "code must be at least 0"),
    (lambda d: d["nodes"][_split(d["nodes"], True)].update(left_categories=[0], right_categories=[0]),
     "a category goes both left and right"),
    (lambda d: d["nodes"][_split(d["nodes"], False)].update(missing="sideways"), "missing must be one of"),
    (lambda d: d["nodes"][_split(d["nodes"], False)].update(missing="middle"), "a 'middle' child is needed"),
    (lambda d: d["nodes"][_split(d["nodes"], False)].update(threshold=nan), "threshold must be a finite number"),
    (lambda d: d["nodes"][-1].update(value=nan), r"value must be a finite number in \[0, 1\]"),
    (lambda d: d["nodes"][-1].update(value=1.5), r"value must be a finite number in \[0, 1\]"),
    (lambda d: d["nodes"][-1].update(value="x"), "value must be a number"),
    (lambda d: (d.update(relabelled=True), _leaf(d["nodes"]).update(label=2)), "label must be 0 or 1"),
    (lambda d: d["nodes"][1].update(id=7), "node ids must be 0.."),
    (lambda d: d.update(classes=["a"]), "classes must be a list of two distinct labels of one type"),
    (lambda d: d.update(classes=[1, 1]), "classes must be a list of two distinct labels of one type"),
    # numpy would read [0, "b"] as the strings "0" and "b": predict would return "0", not 0
    (lambda d: d.update(classes=[0, "b"]), "classes must be a list of two distinct labels of one type"),
    (lambda d: d.update(classes=[0, 1.0]), "classes must be a list of two distinct labels of one type"),
    (lambda d: d.update(classes=[0.0, float("inf")]), "classes must be finite numbers"),
    (lambda d: d.update(classes=[0.0, nan]), "classes must be finite numbers"),
    # fit writes them sorted, the positive class second: swapped, every prediction would flip
    (lambda d: d.update(classes=[1, 0]), "classes must be in sorted order, the positive class second"),
    # every tree file has recorded its classes: absent is damage, not the other families' 0/1
    (lambda d: d.pop("classes"), "a classifier needs two distinct classes, got none"),
    (lambda d: d.update(n_features_in=0), "n_features_in must be a positive integer"),
    (lambda d: d["params"].update(categorical_features=[5]), "categorical_features must be a list of feature"),
    (lambda d: d["params"].update(fairness={"name": "bogus"}), "unknown fairness criterion 'bogus'"),
    (lambda d: d.pop("nodes"), "no 'nodes' entry"),
])
def test_a_damaged_tree_is_refused_at_load_saying_why(tree_doc, change, fragment):
    with pytest.raises(ModelFileError, match=r"^malformed tree model: .*" + fragment):
        estimator_from_json(_damaged(tree_doc, change))


def test_a_trinary_middle_child_must_be_a_node_of_its_own(trinary_doc):
    k = next(k for k, nd in enumerate(trinary_doc["nodes"]) if "middle" in nd)
    doc = _damaged(trinary_doc, lambda d: d["nodes"][k].update(middle=d["nodes"][k]["left"]))
    with pytest.raises(ModelFileError, match=r"is reached twice"):
        estimator_from_json(doc)
    doc = _damaged(trinary_doc, lambda d: d["nodes"][k].pop("middle"))
    with pytest.raises(ModelFileError, match=r"a 'middle' child is needed"):
        estimator_from_json(doc)


def test_a_version_mismatch_of_the_tree_document_is_a_model_file_error(tree_doc):
    with pytest.raises(ModelFileError, match=r"tree model format version 9; this fairspec reads 1"):
        estimator_from_json({**tree_doc, "format_version": 9})


def test_undamaged_documents_of_every_tree_kind_still_load_and_predict_the_same(tree_doc, trinary_doc):
    X, y = _data()
    Xt, _ = _data(seed=3)
    for est in (MissingAwareTreeClassifier(max_depth=3, missing="fractional", categorical_features=[1]).fit(X, y),
                MissingAwareForestClassifier(n_estimators=3, max_depth=3, categorical_features=[1]).fit(X, y),
                MissingAwareTreeRegressor(max_depth=3, categorical_features=[1]).fit(X, y.astype(float))):
        back = estimator_from_json(_doc(est))
        predict = getattr(est, "predict_proba", est.predict)
        assert np.array_equal(getattr(back, "predict_proba", back.predict)(Xt), predict(Xt))
    for doc in (tree_doc, trinary_doc):
        estimator_from_json(copy.deepcopy(doc)).predict_proba(Xt)


def test_a_huge_category_code_neither_exhausts_memory_nor_changes_other_rows(tree_doc):
    # the routing table used to have one column per code up to the largest one
    k = _split(tree_doc["nodes"], True)
    doc = _damaged(tree_doc, lambda d: d["nodes"][k]["right_categories"].append(10 ** 15))
    X, _ = _data(seed=4)
    assert np.array_equal(estimator_from_json(doc).predict_proba(X), estimator_from_json(tree_doc).predict_proba(X))


@pytest.mark.parametrize("change, fragment", [
    (lambda d: d["tree"]["left"].__setitem__(0, 999), "tree node 0: left child 999 is not a node after it"),
    (lambda d: d["tree"]["right"].__setitem__(0, d["tree"]["left"][0]), r"tree node \d+ is reached twice"),
    (lambda d: d["tree"]["feature"].__setitem__(0, 99), r"feature 99 is out of range \(the layout has 5"),
    (lambda d: d["tree"].update({k: [] for k in d["tree"]}), "tree lists must be non-empty"),
    (lambda d: d["tree"]["p_positive"].pop(), "tree lists must be non-empty and of one length"),
    (lambda d: d["tree"]["p_positive"].__setitem__(-1, nan), r"p_positive must be a finite number in \[0, 1\]"),
    (lambda d: d["layout"][0].update(column=99), r"layout\[0\] must name a feature column 0..2"),
    (lambda d: d["layout"][0].update(code=1.0), "is numeric but has a category code"),
    (lambda d: d.update(n_features_in="3"), "n_features_in must be a positive integer"),
    (lambda d: d["params"].update(learner="svm"), "learner must be 'tree' or 'logistic'"),
])
def test_a_damaged_baseline_is_refused_at_load_saying_why(baseline_doc, change, fragment):
    with pytest.raises(ValueError, match=fragment):
        baseline.estimator_from_json(_damaged(baseline_doc, change))


def test_a_damaged_logistic_baseline_is_refused_at_load():
    X, y = _data()
    X[np.isnan(X)] = 0.0
    doc = _doc(baseline.BaselineClassifier(learner="logistic", categorical_features=(1,)).fit(X, y))
    baseline.estimator_from_json(copy.deepcopy(doc))
    doc["linear"]["coef"].pop()
    with pytest.raises(ValueError, match=r"linear.coef must be a list of 5 numbers"):
        baseline.estimator_from_json(doc)
