"""A calibrated bound on a single tree searches the bound's Lagrange multiplier (the family's
``calibration_search``): the plan says so, the calibration chooses among the shares (a spec's
list turns it off), model.json holds the kept tree, the report names the choice; a
written multiplier is used as it is, and one without a bound is refused where it is written."""
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
from fairspec.registry.families import TREE_MULTIPLIERS
from tests.helpers_outputs import without_seconds

SPEC = """spec mult
data "{data}"
target y positive 1
protected g
features {{ x0 numeric  x1 numeric  x2 numeric }}
fairness {fairness}
model tree {{ {model} }}
solver {{ seed 2 }}
evaluate none
"""
FEATURES = ["x0", "x1", "x2"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """x0 is a proxy of the group and predicts the label: the plain tree's TPRs differ."""
    rng = np.random.default_rng(11)
    n = 1500
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + 1.0 * g, rng.normal(size=n), rng.normal(size=n)]).round(4)
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * X[:, 0] + X[:, 1])))).astype(int)
    path = tmp_path_factory.mktemp("rows") / "rows.csv"
    pd.DataFrame(X, columns=FEATURES).assign(g=np.where(g == 1, "a", "b"), y=y).to_csv(path, index=False)
    return path


def run(rows, tmp_path, capsys, model="depth 3", fairness="equal_opportunity <= 0.05", command="compile-and-train"):
    spec = tmp_path / f"s{len(list(tmp_path.iterdir()))}.fair"
    spec.write_text(SPEC.format(data=rows, model=model, fairness=fairness))
    out = tmp_path / spec.stem
    code = main([command, str(spec), "--out", str(out), "-q"] if command == "compile-and-train"
                else [command, str(spec)])
    return code, capsys.readouterr(), out


def test_the_calibration_chooses_the_multiplier_and_the_model_is_the_direct_one(rows, tmp_path, capsys):
    code, _, out = run(rows, tmp_path, capsys)
    assert code == 0
    model, metrics = (json.loads((out / n).read_text()) for n in ("model.json", "metrics.json"))
    calibration = metrics["fairness"]["calibration"]
    assert [c["params"] for c in calibration["choices"]] == [{"lagrange_share": s} for s in TREE_MULTIPLIERS]
    among = calibration["chosen_among"]
    assert among["searched"]["values"] == list(TREE_MULTIPLIERS) and "parameter" not in among
    kept = among["searched"]["chosen"]
    assert calibration["chosen"] == {"lagrange_share": kept}
    assert model["model"]["params"]["multiplier"] == kept  # the recipe of the kept model
    # the same fit by hand
    frame = pd.read_csv(rows)
    X, y, g = frame[FEATURES].to_numpy(float), frame["y"].to_numpy(), frame["g"].astype(str).to_numpy()
    tree = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", bound=0.05),
                                      missing="mia", categorical_features=(), time_limit=60.0, random_state=2)
    direct = CalibratedFairClassifier(tree, random_state=2,
                                      choices=[{"lagrange_share": s} for s in TREE_MULTIPLIERS]).fit(
        X, y, sensitive_features=g)
    assert without_seconds(model["model"]["estimator"]) == without_seconds(direct.to_json())
    # on these rows the proxy is strong: the multiplier the calibration keeps is above 0
    assert kept > 0 and direct.estimator_.fit_log_["lagrange_multiplier"] > 0
    text = html.unescape((out / "report.html").read_text(encoding="utf-8"))
    assert f"Chosen by the calibration: multiplier {kept:g}, among 0, 0.25," in text
    # with no bound-relevant reuse, the comparison model without the criterion is a plain tree
    plain = MissingAwareTreeClassifier(max_depth=3, missing="mia", categorical_features=(), time_limit=60.0,
                                       random_state=2).fit(X, y, sensitive_features=g)
    assert metrics["unconstrained"]["train"]["accuracy"] == pytest.approx((plain.predict(X) == y).mean())


def test_a_listed_depth_turns_the_search_off(rows, tmp_path, capsys):
    """One list per spec: the depths are chosen among at multiplier 0, nothing is crossed."""
    code, _, out = run(rows, tmp_path, capsys, model="depth [2, 3]")
    assert code == 0
    calibration = json.loads((out / "metrics.json").read_text())["fairness"]["calibration"]
    assert [c["params"] for c in calibration["choices"]] == [{"max_depth": 2}, {"max_depth": 3}]
    assert "searched" not in calibration["chosen_among"]
    assert json.loads((out / "model.json").read_text())["model"]["params"]["multiplier"] == 0.0


def test_the_plan_prints_the_search_and_a_written_multiplier_is_not_searched(rows, tmp_path, capsys):
    code, printed, _ = run(rows, tmp_path, capsys, command="compile")
    assert code == 0
    assert "multiplier=[0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]*" in printed.out
    assert "    searched    multiplier: the bound's Lagrange multiplier, chosen among 0, 0.25," in printed.out
    for model, fairness in (("depth 3  multiplier 1.5", "equal_opportunity <= 0.05"),
                            ("depth 3", "equal_opportunity <= 0.05 on train"),
                            ("depth 3  forest { trees 3 }", "equal_opportunity <= 0.05")):
        code, printed, _ = run(rows, tmp_path, capsys, model=model, fairness=fairness, command="compile")
        assert code == 0 and "searched" not in printed.out, printed.out
    code, _, out = run(rows, tmp_path, capsys, model="depth 3  multiplier 1.5")
    model = json.loads((out / "model.json").read_text())
    assert model["model"]["estimator"]["params"]["lagrange_share"] == 1.5
    assert "chosen" not in model["fairness"]["calibration"]


@pytest.mark.parametrize("fairness, why", [("equal_opportunity", "it audits equal_opportunity"),
                                            ("equal_opportunity penalty 0.5", "the fairness statement is a penalty")])
def test_a_multiplier_without_a_bound_is_refused_where_it_is_written(rows, tmp_path, capsys, fairness, why):
    code, printed, _ = run(rows, tmp_path, capsys, model="depth 3  multiplier 1", fairness=fairness,
                           command="compile")
    assert code != 0
    assert ".fair:7:23: error: parameter 'multiplier' of model 'tree' acts only under a fairness bound" in printed.err
    assert why in printed.err
