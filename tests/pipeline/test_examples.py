"""Every example spec trains end to end from the CLI on a small sample of its data."""
import json
import re

import pytest

from fairspec.cli import main
from tests.conftest import SPECS, sample_csv


def test_there_are_example_specs():
    assert len(SPECS) >= 4


# the rule set's 30 s of work make its sample the one slow example
@pytest.mark.parametrize("spec", [pytest.param(s, marks=pytest.mark.slow) if s.stem == "compas_rules" else s
                                  for s in SPECS], ids=lambda p: p.stem)
def test_example_spec_trains_on_a_sample(spec, tmp_path, capsys):
    text = spec.read_text()
    dataset = re.search(r'data "(?:\.\./)?data/(\w+)\.csv\.gz"', text).group(1)
    sample = sample_csv(dataset, 700, tmp_path / f"{dataset}.csv")
    text = text.replace(re.search(r'data "([^"]+)"', text).group(1), str(sample))
    text = re.sub(r"time_limit \d+s", "time_limit 10s", text)
    small = tmp_path / spec.name
    small.write_text(text)
    out = tmp_path / "out"
    assert main(["compile-and-train", str(small), "--out", str(out), "-q"]) == 0
    sweep = (out / "sweep.json").exists()
    runs = sorted(out.glob("point-*")) if sweep else [out]
    assert runs and (out / "report.html").stat().st_size > 1000
    for run in runs:
        model = json.loads((run / "model.json").read_text())
        metrics = json.loads((run / "metrics.json").read_text())
        assert model["format"] == "fairspec-model" and model["spec"]["text"] == text
        assert set(metrics) >= {"train", "test", "fairness", "timing"}
        for block in (metrics["train"], metrics["test"]):
            assert 0.0 <= block["accuracy"] <= 1.0
            assert set(block["gaps"]) >= {"demographic_parity", "equal_opportunity", "fpr_parity",
                                          "equalized_odds", "accuracy_parity", "abroca"}
        # The CLI's model file predicts the training rows the way the run measured them.
        assert main(["predict", str(run / "model.json"), str(sample), "-o", str(tmp_path / "p.csv"), "-q"]) == 0
        assert (tmp_path / "p.csv").read_text().startswith("prediction,score")
    capsys.readouterr()


@pytest.mark.slow
def test_the_rule_set_example_gives_the_same_model_file_twice(tmp_path, capsys):
    # work limits, not the clock, stop every stage: the model file (timings aside, which the
    # pipeline keeps out of it) comes out byte for byte the same, and its log says so
    spec = next(s for s in SPECS if s.stem == "compas_rules")
    text = spec.read_text()
    sample = sample_csv("compas", 700, tmp_path / "compas.csv")
    text = text.replace(re.search(r'data "([^"]+)"', text).group(1), str(sample))
    small = tmp_path / spec.name
    small.write_text(text)
    docs = []
    for name in ("a", "b"):
        assert main(["compile-and-train", str(small), "--out", str(tmp_path / name), "-q"]) == 0
        doc = json.loads((tmp_path / name / "model.json").read_text())
        doc.pop("created")
        assert doc["training"]["fit_log"]["reproducible"] is True
        docs.append(json.dumps(doc, sort_keys=True))
    assert docs[0] == docs[1]
    capsys.readouterr()
