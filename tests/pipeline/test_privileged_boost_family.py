"""The privileged_boost family behind the spec: the privileged block read in training only,
model files and predictions that never need it, alpha 0 as plain boosting."""
import json

import numpy as np
import pandas as pd
import pytest

import fairspec
from fairspec.cli import main

SPEC = """spec adult_privileged
data "{data}"
target income positive ">50K"
protected sex
features {{ age numeric  workclass categorical  education_num numeric  occupation categorical
           relationship categorical  hours_per_week numeric  native_country categorical }}
{privileged}
missing {missing}
{fairness}
model privileged_boost {{ rounds 25  depth 3 {extra} }}
evaluate {{ holdout 0.3 stratify seed 2 }}
"""


@pytest.fixture(scope="module")
def adult_sample(tmp_path_factory):
    frame = pd.read_csv("data/adult.csv.gz").sample(n=2500, random_state=0)
    path = tmp_path_factory.mktemp("adult") / "adult.csv"
    frame.to_csv(path, index=False)
    return path


def _train(tmp_path, data, name="o", privileged="privileged { sex categorical  race categorical }",
           missing="mia", fairness="fairness equal_opportunity <= 0.05", extra=""):
    spec = tmp_path / f"{name}.fair"
    spec.write_text(SPEC.format(data=data, privileged=privileged, missing=missing, fairness=fairness, extra=extra))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / name), "-q"]) == 0
    return json.loads((tmp_path / name / "model.json").read_text()), tmp_path / name


# the sample holds a few countries its training side lacks: read as missing, as the warning says
@pytest.mark.filterwarnings("ignore::fairspec.errors.UnseenCategoryWarning")
def test_predictions_never_read_the_privileged_columns(adult_sample, tmp_path, capsys):
    doc, out = _train(tmp_path, adult_sample)
    features = [f["name"] for f in doc["schema"]["features"]]
    assert "sex" not in features and "race" not in features  # the input schema
    assert [f["name"] for f in doc["schema"]["privileged"]] == ["sex", "race"]  # listed as training-only
    estimator = doc["model"]["estimator"]
    assert estimator["n_features_in"] == len(features)
    assert doc["training"]["fit_log"]["privileged_model_used"] is True
    assert doc["training"]["fit_log"]["privileged_columns"] == 2
    frame = pd.read_csv(adult_sample)
    model = fairspec.load_model(out / "model.json")
    labels, scores = model.predict(frame)
    scrambled = frame.assign(sex=frame["sex"].sample(frac=1, random_state=1).to_numpy(), race="nobody")
    for other in (scrambled, frame.drop(columns=["sex", "race"])):
        again_labels, again_scores = model.predict(other)
        assert np.array_equal(labels, again_labels) and np.array_equal(scores, again_scores)
    # the command line, on a file without them
    without = tmp_path / "without.csv"
    frame.drop(columns=["sex", "race"]).to_csv(without, index=False)
    assert main(["predict", str(out / "model.json"), str(without), "-o", str(tmp_path / "p.csv"), "-q"]) == 0
    predicted = pd.read_csv(tmp_path / "p.csv")
    assert np.array_equal(predicted["prediction"].to_numpy(), labels)
    assert np.allclose(predicted["score"].to_numpy(), scores, rtol=0, atol=0)
    # the bound is met on the training rows by the threshold
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["train"]["gaps"]["equal_opportunity"] <= 0.05 + 1e-9
    assert metrics["training_log"]["threshold"] == estimator["threshold"]
    capsys.readouterr()


def test_alpha_zero_trains_the_model_a_spec_without_the_privileged_block_trains(adult_sample, tmp_path, capsys):
    off, _ = _train(tmp_path, adult_sample, "off", extra="alpha 0")
    plain, _ = _train(tmp_path, adult_sample, "plain", privileged="", extra="alpha 0")
    assert off["model"]["estimator"]["ensemble"] == plain["model"]["estimator"]["ensemble"]
    assert off["model"]["estimator"]["threshold"] == plain["model"]["estimator"]["threshold"]
    assert off["model"]["text"] == plain["model"]["text"]
    guided, _ = _train(tmp_path, adult_sample, "guided")
    assert guided["model"]["estimator"]["ensemble"] != plain["model"]["estimator"]["ensemble"]
    capsys.readouterr()


@pytest.mark.parametrize("missing", ["impute(median)", "drop"])
def test_imputed_or_dropped_data_trains_and_the_privileged_columns_keep_their_gaps(missing, adult_sample, tmp_path,
                                                                                   capsys):
    doc, out = _train(tmp_path, adult_sample, privileged="privileged { sex categorical  capital_gain numeric }",
                      missing=missing, fairness="fairness demographic_parity penalty 0.5")
    assert doc["model"]["estimator"]["params"]["missing"] == "none"
    assert not any("(or missing" in line for line in doc["model"]["text"])
    capsys.readouterr()


def test_compile_prints_the_boosting_plan(adult_sample, tmp_path, capsys):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=adult_sample, privileged="privileged { sex }", missing="mia",
                                fairness="fairness demographic_parity penalty 0.5", extra="variant jpib alpha 2"))
    assert main(["compile", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "boosting      JPIB" in out
    assert "KL(P_ψ ‖ P_ψ')" in out and "2·KL(P_ψ' ‖ P_ψ)" in out
    assert "kept        ψ only: sex never read at prediction" in out
    assert "λ = 0.5" in out
