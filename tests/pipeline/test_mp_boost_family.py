"""The mp_boost family behind the spec: the boosting plan ``fairspec compile`` prints, a penalty
and a bound trained from the command line, every missing strategy, and prediction from a file
without the protected column."""
import json

import numpy as np
import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.dsl.load import load_spec
from fairspec.plan.compile import compile_spec

SPEC = """spec adult_boost
data "{data}"
target income positive ">50K"
protected sex
features {{ age numeric  workclass categorical  education_num numeric  marital_status categorical
           occupation categorical  hours_per_week numeric }}
missing {missing}
fairness {fairness}
model mp_boost {{ rounds 30 {extra} }}
evaluate {{ holdout 0.3 stratify seed 2 }}
"""


@pytest.fixture(scope="module")
def adult_sample(tmp_path_factory):
    frame = pd.read_csv("data/adult.csv.gz").sample(n=2000, random_state=1)
    path = tmp_path_factory.mktemp("adult") / "adult.csv"
    frame.to_csv(path, index=False)
    return path


def _spec(path, data, missing="mia", fairness="demographic_parity penalty 9", extra=""):
    path.write_text(SPEC.format(data=data, missing=missing, fairness=fairness, extra=extra))
    return path


def test_compile_prints_the_boosting_plan(adult_sample, tmp_path):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=adult_sample, missing="mia", fairness="demographic_parity <= [0.05, 0.1]",
                                extra="learning_rate 0.1"))
    shown = compile_spec(load_spec(spec)).describe()
    assert "  boosting" in shown
    assert "rounds      up to 30; no early stopping (patience 0*)" in shown
    assert "sqrt(M) = 2 of the 6 features*" in shown  # round(√6) = 2
    assert "rate 0.1: each tree adds" in shown  # written, so not marked
    assert "alpha[0]    the most accurate of 0, 0.5, 0.9 once each model's threshold meets " \
           "demographic_parity <= 0.05" in shown
    assert "threshold   the most accurate score threshold" in shown
    penalty = compile_spec(load_spec(_spec(tmp_path / "t.fair", adult_sample,
                                           fairness="equal_opportunity penalty 1"))).describe()
    assert "alpha       0.5 (penalty 1: alpha = penalty / (1 + penalty))" in penalty
    assert "adversary   logistic regression of the group on the new tree's output*" in penalty


def test_a_penalty_trains_and_predicts_without_the_protected_column(adult_sample, tmp_path, capsys):
    spec = _spec(tmp_path / "s.fair", adult_sample)
    out = tmp_path / "o"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    model = json.loads((out / "model.json").read_text())
    estimator = model["model"]["estimator"]
    assert estimator["alpha"] == pytest.approx(0.9) and len(estimator["rounds"]) == 30
    assert "sex" not in [f["name"] for f in model["schema"]["features"]]
    log = model["training"]["fit_log"]
    assert log["alpha_from"] == "penalty" and len(log["feature_probabilities"]) == 6
    assert model["model"]["text"][0].startswith("Fair MP-Boost: 30 trees")
    # the same rows without the protected column (and without the target) score the same
    full = pd.read_csv(adult_sample)
    bare = tmp_path / "bare.csv"
    full.drop(columns=["sex", "income"]).to_csv(bare, index=False)
    assert main(["predict", str(out / "model.json"), str(adult_sample), "-o", str(tmp_path / "a.csv"), "-q"]) == 0
    assert main(["predict", str(out / "model.json"), str(bare), "-o", str(tmp_path / "b.csv"), "-q"]) == 0
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    assert a.equals(b) and a["prediction"].isin([0, 1]).all()
    capsys.readouterr()


def test_a_bound_is_met_on_the_training_rows_from_the_cli(adult_sample, tmp_path, capsys):
    # `on train`: the family's own meaning of a bound (a calibrated one is tests/calibration's)
    spec = _spec(tmp_path / "s.fair", adult_sample, fairness="demographic_parity <= 0.03 on train")
    out = tmp_path / "o"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["fairness"]["met_train"] is True and metrics["fairness"]["achieved_train"] <= 0.03 + 1e-9
    log = metrics["training_log"]
    # the three alphas at multiplier 0, then seven Lagrange multipliers at alpha 0, each meeting the bound
    assert log["threshold_from"] == "bound" and [r["alpha"] for r in log["bound_search"]] == [0.0, 0.5, 0.9] + [0.0] * 7
    assert [r["multiplier"] > 0 for r in log["bound_search"]] == [False] * 3 + [True] * 7
    assert all(r["train_gap"] <= 0.03 + 1e-9 for r in log["bound_search"])
    assert "(chosen on the training rows to meet demographic_parity <= 0.03)" in \
        json.loads((out / "model.json").read_text())["model"]["text"][2]
    capsys.readouterr()


@pytest.mark.parametrize("missing", ["trinary", "trinary_mia", "majority", "fractional", "impute(median)", "drop"])
def test_every_missing_strategy_trains(missing, adult_sample, tmp_path, capsys):
    spec = _spec(tmp_path / "s.fair", adult_sample, missing=missing,
                 extra="middle_growth full" if missing.startswith("trinary") else "")
    out = tmp_path / "o"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    model = json.loads((out / "model.json").read_text())
    native = missing if not (missing.startswith("impute") or missing == "drop") else "none"
    assert model["model"]["estimator"]["params"]["missing"] == native
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["test"]["accuracy"] > 0.7
    capsys.readouterr()


def test_a_parameter_out_of_range_is_refused_where_it_is_written(adult_sample, tmp_path, capsys):
    spec = _spec(tmp_path / "s.fair", adult_sample, extra="learning_rate 2")
    assert main(["check", str(spec)]) != 0
    err = capsys.readouterr().err
    assert "learning_rate" in err and ":9:" in err  # the model line


def test_the_estimator_scores_the_pipeline_matrix_without_the_group(adult_sample, tmp_path, capsys):
    # the fitted model's inputs are the features only: one column per feature, never the group
    spec = _spec(tmp_path / "s.fair", adult_sample)
    out = tmp_path / "o"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    from fairspec.pipeline.artifact import LoadedModel

    loaded = LoadedModel.from_document(json.loads((out / "model.json").read_text()))
    assert loaded.estimator.n_features_in_ == 6
    frame = pd.read_csv(adult_sample).drop(columns=["sex"])
    pred, score = loaded.predict(frame)
    assert np.array_equal(pred, (score > 0.5).astype(int))
    capsys.readouterr()
