"""What issue 48's cuts to a training run's time and memory must leave as they were: the kept rows
the checks computed, read by training, are the ones training computed; the model is the same
byte for byte; the run's modules import matplotlib only when the report draws; and a hold-out run
fits without the data's frame alive, on rows encoded before the fit, to the same model."""
import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from fairspec import load_spec
from fairspec.data.table import read_table
from fairspec.pipeline.train import prepare_data, train
from fairspec.plan.compile import compile_checked
from tests.helpers_outputs import without_seconds

SPEC = """spec small_tree
data "rows.csv"
target y positive 1
protected group
features {{ x1 numeric  x2 numeric  c1 categorical }}
missing {missing}
fairness equal_opportunity <= 0.05
model tree {{ depth 3 }}
evaluate {{ {evaluate} }}
"""


def write_table(path, n=1500, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    x1 = rng.normal(size=n) + 0.4 * (group == "b")
    x2 = np.round(rng.normal(size=n), 3)
    c1 = rng.choice(["p", "q", "r"], n).astype(object)
    c1[rng.random(n) < 0.05] = ""
    y = (rng.random(n) < 1 / (1 + np.exp(-(x1 - 0.5 * x2)))).astype(int)
    lines = ["x1,x2,c1,group,y"] + [f"{a:.3f},{b},{c},{g},{t}" for a, b, c, g, t in zip(x1, x2, c1, group, y)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("missing, evaluate", [("mia", "holdout 0.3 stratify seed 1"), ("drop", "cv 3 seed 2")])
def test_the_checked_rows_are_the_rows_training_computes(tmp_path, missing, evaluate):
    write_table(tmp_path / "rows.csv")
    (tmp_path / "s.fair").write_text(SPEC.format(missing=missing, evaluate=evaluate))
    plan, table, checked = compile_checked(load_spec(tmp_path / "s.fair"))
    read = prepare_data(plan, table=table, checked=checked)
    computed = prepare_data(plan, table=table)
    assert np.array_equal(read.y, computed.y) and np.array_equal(read.groups, computed.groups)
    assert read.stratified_by == computed.stratified_by and len(read.splits) == len(computed.splits)
    for (tr_a, te_a), (tr_b, te_b) in zip(read.splits, computed.splits):
        assert np.array_equal(tr_a, tr_b) and np.array_equal(te_a, te_b)
    # another split, or another table, is not these rows'
    other = dataclasses.replace(plan, evaluation=dataclasses.replace(plan.evaluation, seed=plan.evaluation.seed + 1))
    assert checked.for_training(other, table) is None
    assert checked.for_training(plan, read_table(tmp_path / "rows.csv")) is None
    assert checked.for_training(plan, table) is checked


def test_the_model_is_byte_identical_when_training_reads_the_checked_rows(tmp_path):
    write_table(tmp_path / "rows.csv", n=1200, seed=3)
    (tmp_path / "s.fair").write_text(SPEC.format(missing="mia", evaluate="holdout 0.3 stratify seed 1"))
    plan, table, checked = compile_checked(load_spec(tmp_path / "s.fair"))
    lean = train(plan, table=table, checked=checked).points[0]
    plain = train(plan, table=read_table(tmp_path / "rows.csv")).points[0]
    lean_doc, plain_doc = (dict(doc, created=None) for doc in (lean.model_doc, plain.model_doc))  # (a clock time)
    assert json.dumps(lean_doc, sort_keys=True) == json.dumps(plain_doc, sort_keys=True)
    assert lean.metrics_doc["test"] == plain.metrics_doc["test"]
    assert lean.metrics_doc["data_summary"] == plain.metrics_doc["data_summary"]


def test_a_training_run_imports_matplotlib_only_when_the_report_draws():
    # what `fairspec compile-and-train` of a tree imports before it reads the data and trains;
    # nor does it import pyomo.environ (every Pyomo plugin), only pyomo.core
    code = ("import sys\n"
            "import fairspec.cli, fairspec.plan.compile, fairspec.pipeline.train, fairspec.pipeline.outputs\n"
            "import fairspec.report, fairspec.report.sections.figures, fairspec.report.sections.model\n"
            "import fairspec.models.missing_tree, fairspec.models.tree.relabel, fairspec.solvers.highs\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib' or m == 'pyomo.environ'))\n"
            "from fairspec.report.sections.figures import rates_figure\n"
            "rates_figure({'groups': {}}, 'x', 'rows')\n"  # no groups: nothing drawn, nothing imported
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
            "from fairspec.report.figures import new_figure, styled, svg_text\n"
            "with styled():\n"
            "    fig = new_figure(1.0, 1.0)\n"
            "    fig.add_subplot().plot([0, 1], [0, 1])\n"
            "print('<svg' in svg_text(fig, 'f', 'a line'), 'matplotlib' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "[]", out
    assert out[2] == "True True", out


def test_no_frame_of_the_data_is_alive_while_the_model_is_fitted(tmp_path, monkeypatch):
    # a hold-out run encodes its training and test rows before the fit and lets the frame go
    # (fairspec.pipeline.train.EncodedRows): on a million rows it had been held through the fit,
    # beside the training matrix, to encode the test rows after it.  Looked for from inside the
    # fit: every DataFrame the garbage collector can see, and the table the command line read
    import gc
    import weakref

    import pandas as pd

    from fairspec.calibration import CalibratedFairClassifier
    from fairspec.cli import main
    from fairspec.plan import compile as compile_module

    write_table(tmp_path / "rows.csv", n=1200, seed=3)
    (tmp_path / "s.fair").write_text(SPEC.format(missing="mia", evaluate="holdout 0.3 stratify seed 1"))
    read, seen = [], []
    real_read, real_fit = compile_module.read_table, CalibratedFairClassifier.fit

    def reading(*args, **kwargs):
        table = real_read(*args, **kwargs)
        read.append(weakref.ref(table))
        return table

    def fitting(self, *args, **kwargs):
        gc.collect()
        seen.append((read[0]() is None, sum(isinstance(o, pd.DataFrame) for o in gc.get_objects())))
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(compile_module, "read_table", reading)
    monkeypatch.setattr(CalibratedFairClassifier, "fit", fitting)
    assert main(["compile-and-train", str(tmp_path / "s.fair"), "-o", str(tmp_path / "out"), "-q"]) == 0
    assert len(read) == 1 and seen == [(True, 0)], seen


@pytest.mark.parametrize("missing, evaluate", [("mia", "holdout 0.3 stratify seed 1"), ("drop", "holdout 0.3 seed 4")])
def test_the_fit_on_the_rows_encoded_before_it_is_the_fit_on_the_frame(tmp_path, missing, evaluate):
    # the model and its measures as a fit that reads the frame gives them (cross-validation's
    # folds still do), under `missing drop` too (its test rows are counted as the evaluation counted them)
    from fairspec.pipeline.progress import SILENT
    from fairspec.pipeline.train import _train_point

    write_table(tmp_path / "rows.csv", n=1200, seed=3)
    (tmp_path / "s.fair").write_text(SPEC.format(missing=missing, evaluate=evaluate))
    plan, table, checked = compile_checked(load_spec(tmp_path / "s.fair"))
    lean = train(plan, table=table, checked=checked).points[0]
    data = prepare_data(plan, table=read_table(tmp_path / "rows.csv"))
    assert data.frame is not None and data.encoded is None
    plain = _train_point(plan, data, plan.fairness[0], 0, 1, SILENT, {}, 0.0)
    lean_doc, plain_doc = (dict(doc, created=None) for doc in (lean.model_doc, plain.model_doc))
    assert json.dumps(lean_doc, sort_keys=True) == json.dumps(plain_doc, sort_keys=True)
    for block in ("train", "test", "fairness", "evaluation", "constant_model"):
        assert without_seconds(lean.metrics_doc[block]) == without_seconds(plain.metrics_doc[block]), block
