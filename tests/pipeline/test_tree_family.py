"""The tree family behind the spec: every missing strategy, from the CLI and from Python."""
import html
import json

import numpy as np
import pandas as pd
import pytest

import fairspec
from fairspec.cli import main
from fairspec.errors import UnseenCategoryWarning

SPEC = """spec adult_{strategy}
data "{data}"
target income positive ">50K"
protected sex
features {{ age numeric  workclass categorical  education_num numeric  occupation categorical
           hours_per_week numeric  native_country categorical }}
missing {strategy}
fairness equal_opportunity
model tree {{ depth 5 {extra} }}
evaluate {{ holdout 0.3 stratify seed 2 }}
"""

STRATEGIES = ["mia", "trinary", "trinary_mia", "majority", "fractional"]


@pytest.fixture(scope="module")
def adult_sample(tmp_path_factory):
    frame = pd.read_csv("data/adult.csv.gz").sample(n=3000, random_state=0)
    path = tmp_path_factory.mktemp("adult") / "adult.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_trains_from_the_cli_and_the_report_shows_missing_routes(strategy, adult_sample, tmp_path, capsys):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy=strategy, data=adult_sample, extra=""))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "o"), "-q"]) == 0
    model = json.loads((tmp_path / "o" / "model.json").read_text())
    assert model["preprocessing"]["missing"]["strategy"] == strategy
    assert model["model"]["estimator"]["params"]["missing"] == strategy
    text = "\n".join(model["model"]["text"])
    # workclass / occupation / native_country have real gaps: the tree must say where they go.
    assert "missing" in text
    assert "missing" in (tmp_path / "o" / "report.html").read_text()
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["test"]["accuracy"] > 0.75  # base rate is ~0.76 negative: it must learn something
    assert metrics["test"]["scores_are_labels"] is False  # leaf frequencies rank the rows
    capsys.readouterr()


@pytest.mark.parametrize("strategy", ["impute(median)", "drop"])
def test_an_imputed_tree_says_nothing_of_where_a_missing_value_goes(strategy, adult_sample, tmp_path, capsys):
    # its tree never sees one: "(or missing)" drew a route the imputed value does not take, and
    # under drop a route for a row predict refuses
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy=strategy, data=adult_sample, extra="")
                    .replace(f"spec adult_{strategy}", "spec adult_complete"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "o"), "-q"]) == 0
    text = json.loads((tmp_path / "o" / "model.json").read_text())["model"]["text"]
    assert any(" in {" in line for line in text)  # categorical splits, where "(or missing ...)" had shown
    assert not any("missing" in line for line in text)
    capsys.readouterr()


def test_a_tree_relabelled_for_a_bound_reports_its_auc_as_that_of_0_1_scores(adult_sample, tmp_path, capsys):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy="mia", data=adult_sample, extra="min_samples_leaf 50")
                    .replace("fairness equal_opportunity\n", "fairness equal_opportunity <= 0.05\n"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "o"), "-q"]) == 0
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["training_log"]["relabel_status"] == "optimal"
    for split in ("train", "test"):
        assert metrics[split]["scores_are_labels"] is True
        assert metrics[split]["auc"] == pytest.approx(metrics[split]["balanced_accuracy"])
    assert "AUC of 0/1 scores (= balanced accuracy)" in (tmp_path / "o" / "report.html").read_text()
    capsys.readouterr()


def test_python_api_matches_the_cli_model(adult_sample, tmp_path, capsys):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy="trinary_mia", data=adult_sample, extra="forest { trees 5 }"))
    plan = fairspec.compile_spec(fairspec.load_spec(spec))
    result = fairspec.train(plan)
    fairspec.write_outputs(result, tmp_path / "api")
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "cli"), "-q"]) == 0
    api = json.loads((tmp_path / "api" / "model.json").read_text())
    cli = json.loads((tmp_path / "cli" / "model.json").read_text())
    api.pop("created"), cli.pop("created")
    assert api == cli  # same spec + data + seed -> the same forest
    model = fairspec.load_model(tmp_path / "api" / "model.json")
    frame = pd.read_csv(adult_sample)
    # the test rows' countries that no training row has are read as missing, and the API says so
    with pytest.warns(UnseenCategoryWarning, match="column 'native_country': 2 rows hold a category never seen"):
        labels, scores = model.predict(frame)
    assert labels.shape == (3000,) and np.all((scores >= 0) & (scores <= 1))
    np.testing.assert_array_equal(labels, result.points[0].estimator.predict(model.matrix(frame)))
    capsys.readouterr()


def test_solver_seed_reaches_the_estimator_and_evaluate_seed_the_split(adult_sample, tmp_path):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy="mia", data=adult_sample, extra="forest { trees 3 }")
                    + "solver { seed 3 }\n")
    result = fairspec.train(fairspec.compile_spec(fairspec.load_spec(spec)))
    point = result.points[0]
    assert point.estimator.get_params()["random_state"] == 3
    assert point.model_doc["training"]["seed"] == 3
    assert point.metrics_doc["evaluation"]["seed"] == 2


def test_emit_model_refuses_a_tree_without_calling_it_solverless(adult_sample, tmp_path, capsys):
    # a tree under a bound does solve a MIP, but one built from the tree training grows
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy="mia", data=adult_sample, extra="")
                    .replace("fairness equal_opportunity", "fairness equal_opportunity <= 0.05"))
    assert main(["compile", str(spec), "--emit-model", str(tmp_path / "m.lp")]) == 2
    err = capsys.readouterr().err
    assert "under a fairness bound it solves a MIP, built from the tree grown in training" in err
    assert "solver-backed" not in err and not (tmp_path / "m.lp").exists()


@pytest.mark.parametrize("fairness, extra, note", [
    # a relabelled tree scores by its leaves' labels, unmarked leaves too, not by the p the text
    # shows (when the relabelling changed no leaf, two reports with the same text had scored
    # one row 0.38 and 0.57; found in review)
    # `on train`: the relabelling is what is tested, not where its bound holds (calibrated on this
    # small sample, the tree is the constant one, whose scores are all 0)
    ("equal_opportunity <= 0.1 on train", "", "The leaves were relabelled for the fairness bound: a row is scored by"),
    ("equal_opportunity", "forest { trees 3 }", "The forest scores a row by the mean of its trees' votes; a tree votes with the label"),
    ("equal_opportunity", "", None),
])
def test_the_report_says_when_a_tree_scores_by_its_leaves_labels_not_their_p(adult_sample, tmp_path, capsys,
                                                                              fairness, extra, note):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(strategy="fractional", data=adult_sample, extra=extra)
                    .replace("fairness equal_opportunity\n", f"fairness {fairness}\n"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "o"), "-q"]) == 0
    model = fairspec.load_model(tmp_path / "o" / "model.json")
    frame = pd.read_csv(adult_sample)
    with pytest.warns(UnseenCategoryWarning):
        _, scores = model.predict(frame)
    report = html.unescape((tmp_path / "o" / "report.html").read_text(encoding="utf-8"))
    if note is None:
        assert "scored by the label" not in report and "vote with the label" not in report
        assert not np.isin(scores, (0.0, 1.0)).all()  # p mixed over leaves
        return
    assert note in report
    estimator = model.estimator
    trees = estimator.trees_ if hasattr(estimator, "trees_") else [estimator.tree_]
    X = model.matrix(frame)
    by_labels = np.zeros(len(frame))
    for t in trees:
        rows, leaves, w = t.route_rows(X)
        by_labels += np.bincount(rows, weights=w * t.leaf_labels()[leaves], minlength=len(frame))
    # what the note says is how the model scores: the leaves' labels, weighted, averaged over trees
    np.testing.assert_allclose(scores, by_labels / len(trees), atol=1e-12)
    assert not np.isin(scores, np.arange(len(trees) + 1) / len(trees)).all()  # fractional votes, not whole ones
    capsys.readouterr()
