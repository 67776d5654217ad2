"""A spec that lists values for a model parameter (``model tree { depth [1, 3] }``) trains end to
end: the calibration chooses the value, model.json holds the kept model (an ordinary tree at the
chosen depth, which ``fairspec predict`` scores), and it is the model ``CalibratedFairClassifier``
gives with those ``choices`` directly.  A spec writing the chosen value alone gives the same model,
with no record of a choice.  (``multiplier 0``: the tree's Lagrange multiplier, which the
calibration would otherwise search with every listed value, is fixed; that search is
tests/pipeline/test_multiplier_search.py's.)"""
from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest

from fairspec.calibration import CalibratedFairClassifier
from fairspec.cli import main
from fairspec.models.missing_tree import MissingAwareTreeClassifier
from fairspec.registry.criteria import make_criterion
from tests.helpers_outputs import without_seconds

SPEC = """spec depths
data "{data}"
target y positive 1
protected g
features {{ x0 numeric  x1 numeric  x2 numeric  x3 numeric  x4 numeric }}
fairness equal_opportunity <= 0.05
model tree {{ depth {depth}  min_samples_leaf 10  multiplier 0 }}
solver {{ seed 4 }}
evaluate none
"""
FEATURES = [f"x{i}" for i in range(5)]


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """A label that needs a depth-3 interaction (as tests/calibration/test_calibration_choices.py's):
    depth 1 is much less accurate, and the bound is easy to meet at either depth."""
    rng = np.random.default_rng(3)
    n = 900
    X = rng.normal(size=(n, 5)).round(4)
    g = rng.integers(0, 2, n)
    X[:, 3] += 0.5 * g
    y = (((X[:, 0] > 0) & (X[:, 1] > 0)) | ((X[:, 0] <= 0) & (X[:, 2] > 0.5))).astype(int)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    frame = pd.DataFrame(X, columns=FEATURES).assign(g=np.where(g == 1, "a", "b"), y=y)
    path = tmp_path_factory.mktemp("rows") / "rows.csv"
    frame.to_csv(path, index=False)
    return path


def train(rows, tmp_path, depth: str, capsys) -> tuple[dict, dict, str]:
    spec = tmp_path / f"s{len(list(tmp_path.iterdir()))}.fair"
    spec.write_text(SPEC.format(data=rows, depth=depth))
    out = tmp_path / spec.stem
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    read = [json.loads((out / name).read_text()) for name in ("model.json", "metrics.json")]
    return read[0], read[1], (out / "report.html").read_text(encoding="utf-8")


def test_the_listed_depth_is_chosen_by_the_calibration_and_the_model_is_the_direct_one(rows, tmp_path, capsys):
    model, metrics, page = train(rows, tmp_path, "[1, 3]", capsys)
    calibration = metrics["fairness"]["calibration"]
    assert calibration["chosen_among"] == {"parameter": "depth", "values": [1, 3], "chosen": 3}
    assert calibration["chosen"] == {"max_depth": 3}
    assert [c["params"] for c in calibration["choices"]] == [{"max_depth": 1}, {"max_depth": 3}]
    kept = max((c for c in calibration["choices"] if c["met"]), key=lambda c: c["inner_accuracy"])
    assert kept["params"] == {"max_depth": 3}  # the interaction needs depth 3
    # model.json: the kept model, an ordinary tree at the chosen depth, and the recipe says depth 3
    assert model["model"]["params"]["depth"] == 3
    assert model["model"]["estimator"]["params"]["max_depth"] == 3
    assert model["fairness"]["calibration"]["chosen_among"] == calibration["chosen_among"]

    # the same fit by hand: the rows as read, every one trains (evaluate none), groups as text
    frame = pd.read_csv(rows)
    X, y, groups = frame[FEATURES].to_numpy(float), frame["y"].to_numpy(), frame["g"].astype(str).to_numpy()
    tree = MissingAwareTreeClassifier(max_depth=1, min_samples_leaf=10, fairness=make_criterion(
        "equal_opportunity", bound=0.05), missing="mia", categorical_features=(), time_limit=60.0, random_state=4)
    direct = CalibratedFairClassifier(tree, random_state=4, choices=[{"max_depth": 1}, {"max_depth": 3}]).fit(
        X, y, sensitive_features=groups)
    assert direct.calibration_["chosen"] == {"max_depth": 3}
    assert without_seconds(model["model"]["estimator"]) == without_seconds(direct.to_json())
    assert without_seconds({k: v for k, v in calibration.items() if k != "chosen_among"}) == \
        without_seconds(direct.calibration_)

    # the report says which value was kept among which, with each one's inner measures
    text = html.unescape(page)
    assert "Chosen by the calibration: depth 3, among 1, 3: the most accurate on the inner held-out rows" in text
    assert "3 (kept)" in text and f"{kept['inner_accuracy']:.3f}" in text

    # fairspec predict scores with the kept model as it scores any tree
    scored = tmp_path / "scored.csv"
    assert main(["predict", str(tmp_path / "s0"), str(rows), "-o", str(scored), "-q"]) == 0
    predicted = pd.read_csv(scored)
    assert (predicted["prediction"].to_numpy() == direct.predict(X)).all()
    assert np.allclose(predicted["score"].to_numpy(), direct.predict_proba(X)[:, 1])
    capsys.readouterr()


def test_writing_the_chosen_value_alone_gives_the_same_model_and_no_choice_record(rows, tmp_path, capsys):
    listed, listed_metrics, _ = train(rows, tmp_path, "[1, 3]", capsys)
    alone, alone_metrics, page = train(rows, tmp_path, "3", capsys)
    assert without_seconds(alone["model"]["estimator"]) == without_seconds(listed["model"]["estimator"])
    assert alone["model"]["params"] == listed["model"]["params"]
    record = alone_metrics["fairness"]["calibration"]
    assert not {"choices", "chosen", "chosen_among"} & record.keys()
    assert record["internal_bound"] == listed_metrics["fairness"]["calibration"]["internal_bound"]
    assert alone_metrics["train"] == listed_metrics["train"]
    # the comparison model without the criterion is the kept depth's in both runs
    assert alone_metrics["unconstrained"]["train"] == listed_metrics["unconstrained"]["train"]
    assert "Chosen by the calibration" not in page


def test_the_plan_prints_the_values_and_who_chooses(rows, tmp_path, capsys):
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=rows, depth="[1, 3]"))
    assert main(["compile", str(spec)]) == 0
    plan = capsys.readouterr().out
    assert "tree(depth=[1, 3], min_samples_leaf=10," in plan
    assert "    chosen      depth: chosen among 1, 3 by the calibration (" in plan


def test_under_cv_the_comparison_without_the_criterion_is_fitted_at_the_kept_value(rows, tmp_path, capsys):
    # no kept growth to reuse under cv: the comparison model is fitted anew, at the depth the
    # calibration kept (depth 1, the value the recipe stands on, had been fitted before this)
    spec = tmp_path / "cv.fair"
    spec.write_text(SPEC.format(data=rows, depth="[1, 3]").replace("evaluate none", "evaluate { cv 2 seed 4 }"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "cv"), "-q"]) == 0
    capsys.readouterr()
    metrics = json.loads((tmp_path / "cv" / "metrics.json").read_text())
    assert metrics["fairness"]["calibration"]["chosen_among"]["chosen"] == 3
    frame = pd.read_csv(rows)
    X, y = frame[FEATURES].to_numpy(float), frame["y"].to_numpy()
    plain = MissingAwareTreeClassifier(max_depth=3, min_samples_leaf=10, missing="mia", categorical_features=(),
                                       time_limit=60.0, random_state=4).fit(X, y, sensitive_features=frame["g"])
    assert metrics["unconstrained"]["train"]["accuracy"] == pytest.approx(float((plain.predict(X) == y).mean()))
