"""Where a spec's bound holds: on unseen rows by default (calibrated), on the training rows with
`on train`, which trains exactly the model the family's own fit at ε gives."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.dsl.load import parse_spec
from fairspec.errors import SpecSemanticError
from fairspec.pipeline.artifact import LoadedModel, _without_fit_timings
from fairspec.pipeline.train import prepare_data, train, training_matrix
from fairspec.plan.compile import compile_spec


@pytest.fixture(scope="module")
def compas(tmp_path_factory):
    frame = pd.read_csv("data/compas.csv.gz")
    frame = frame[frame.race.isin(["African-American", "Caucasian"])].sample(n=1500, random_state=3)
    path = tmp_path_factory.mktemp("compas") / "compas.csv"
    frame.to_csv(path, index=False)
    return path


def spec(data, fairness, model="tree { depth 3 }", evaluate="holdout 0.3 seed 1"):
    return (f'spec s\ndata "{data}"\ntarget two_year_recid positive 1\nprotected race\n'
            f"features {{ age numeric priors_count numeric juv_fel_count numeric sex categorical }}\n"
            f"fairness {fairness}\nmodel {model}\nsolver {{ seed 4 }}\nevaluate {{ {evaluate} }}\n")


def plan_of(text):
    return compile_spec(parse_spec(text, "t.fair"))


@pytest.mark.parametrize("model", ["tree { depth 3 }", "tree { depth 3 forest { trees 3 } }"])
def test_on_train_trains_the_family_fit_at_the_bound_exactly(compas, model):
    plan = plan_of(spec(compas, "equal_opportunity <= 0.02 on train", model))
    assert plan.fairness_on_train and not plan.calibrates
    point = train(plan).points[0]
    # today's path: the family's estimator, built and fitted at ε on the same rows
    data = prepare_data(plan)
    _, _, estimator, X, y, groups = training_matrix(plan, data, plan.fairness[0])
    estimator.fit(X, y, sensitive_features=groups)
    assert point.model_doc["model"]["estimator"] == _without_fit_timings(estimator.to_json())
    assert point.model_doc["fairness"]["holds_on"] == "train"
    assert point.model_doc["fairness"]["calibration"] is None
    assert point.metrics_doc["fairness"]["holds_on"] == "train"


def test_a_bound_without_on_train_is_calibrated_and_recorded(compas, tmp_path, capsys):
    path = tmp_path / "s.fair"
    path.write_text(spec(compas, "equal_opportunity <= 0.05"))
    out = tmp_path / "o"
    assert main(["compile-and-train", str(path), "--out", str(out), "-q"]) == 0
    model = json.loads((out / "model.json").read_text())
    metrics = json.loads((out / "metrics.json").read_text())
    record = model["fairness"]["calibration"]
    assert model["fairness"]["holds_on"] == "unseen" and model["fairness"]["bound"] == 0.05
    # the file holds the family's refit at ε′, which predict rebuilds
    assert 0.0 <= record["internal_bound"] <= 0.05
    assert model["model"]["estimator"]["params"]["fairness"]["bound"] == pytest.approx(record["internal_bound"])
    assert "seconds" not in record  # model.json has no timings
    low, high = record["inner_gap_interval"]
    assert low <= record["inner_gap_measured"] <= high
    assert metrics["fairness"]["calibration"]["internal_bound"] == record["internal_bound"]
    assert metrics["fairness"]["achieved_train"] <= record["internal_bound"] + 1e-9
    loaded = LoadedModel.read(out)
    frame = pd.read_csv(compas)
    assert len(loaded.predict(frame)[0]) == len(frame)
    report = (out / "report.html").read_text()
    assert "Where the bound holds" in report and "internal bound" in report
    capsys.readouterr()


def test_on_train_needs_a_bound(compas):
    with pytest.raises(SpecSemanticError) as err:
        plan_of(spec(compas, "equal_opportunity penalty 0.5 on train"))
    assert "`on train` says where a bound holds" in str(err.value)
    assert "t.fair:6:" in str(err.value)


def test_the_warning_names_the_smallest_bound_the_held_out_rows_can_check(compas):
    # 1,500 rows, a 30 % hold-out: about 70 and 140 positives, noise sqrt(1/280 + 1/560) = 0.0732
    small = plan_of(spec(compas, "equal_opportunity <= 0.02"))
    texts = [w.message for w in small.warnings if "cannot check the bound" in w.message]
    assert len(texts) == 1 and "the smallest bound these rows can check is about 0.074" in texts[0]
    (warning,) = [w for w in small.warnings if "cannot check the bound" in w.message]
    assert (warning.span.line, warning.span.column) == (6, 31)  # the bound on the fairness line
    # the same bound checked on every row (cv), or a bound the hold-out can check: no warning
    # (under cv every row is tested once: about 233 and 467 positives, noise 0.040)
    for fairness, evaluate in (("equal_opportunity <= 0.08", "holdout 0.3 seed 1"),
                               ("equal_opportunity <= 0.045", "cv 5")):
        plan = plan_of(spec(compas, fairness, evaluate=evaluate))
        assert not [w for w in plan.warnings if "cannot check the bound" in w.message]
