"""A fit that ends in a constant model is said to have in every output, never a plain success."""
from __future__ import annotations

import html
import json

import numpy as np

from fairspec.cli import main

SPEC = """spec flat
data "{data}"
target y positive 1
protected group
features {{ x1 numeric  color categorical }}
missing mia
fairness equal_opportunity <= 0.05
model tree {{ depth 2  min_samples_leaf 5000 }}
evaluate {{ holdout 0.3 stratify seed 2 }}
"""


def test_a_one_leaf_tree_warns_and_every_output_says_constant_model(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 300
    rows = [f"{rng.normal():.3f},{rng.choice(['r', 'g'])},{rng.choice(['a', 'b'])},{int(rng.random() < 0.3)}"
            for _ in range(n)]
    data = tmp_path / "flat.csv"
    data.write_text("x1,color,group,y\n" + "\n".join(rows) + "\n")
    spec = tmp_path / "flat.fair"
    spec.write_text(SPEC.format(data=data))
    code = main(["compile-and-train", str(spec), "--out", str(tmp_path / "run"), "-q"])
    captured = capsys.readouterr()
    assert code == 0
    assert "warning: the model is constant: it predicts negative (0) for every one of its 210 training rows" \
        in captured.err
    assert "[constant model: predicts negative for every row]" in captured.out
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["constant_model"] == {"predicts": "negative", "class": "0", "training_rows": 210}
    page = html.unescape((tmp_path / "run" / "report.html").read_text())
    assert "Every one of the test rows is predicted negative (a constant model)" in page


def test_a_model_predicting_both_classes_is_not_called_constant(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 300
    x = rng.normal(size=n)
    rows = [f"{v:.3f},{rng.choice(['r', 'g'])},{rng.choice(['a', 'b'])},{int(v > 0)}" for v in x]
    data = tmp_path / "clear.csv"
    data.write_text("x1,color,group,y\n" + "\n".join(rows) + "\n")
    spec = tmp_path / "clear.fair"
    spec.write_text(SPEC.format(data=data).replace("min_samples_leaf 5000", "min_samples_leaf 5")
                    .replace("<= 0.05", "<= 0.5"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "run"), "-q"]) == 0
    captured = capsys.readouterr()
    assert "constant" not in captured.err + captured.out
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["constant_model"] is None
