"""The command line contract: outputs, exit codes, errors with locations, atomic writes."""
import io
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairspec.cli import main

SPEC = """spec toy
data "{data}"
target y positive 1
protected group
features {{ x1 numeric  x2 numeric  color categorical }}
missing {missing}
fairness equal_opportunity
model baseline {{ learner tree  depth 3 }}
evaluate {{ holdout 0.3 stratify seed 5 }}
"""


def make_data(path: Path, n=400, seed=0) -> Path:
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b"], size=n)
    x1 = rng.normal(size=n) + (group == "a")
    x2 = rng.normal(size=n)
    color = rng.choice(["red", "green", "blue"], size=n)
    y = ((x1 + 0.5 * x2 + (color == "red") + rng.normal(scale=0.5, size=n)) > 0.8).astype(int)
    frame = pd.DataFrame({"x1": x1, "x2": x2, "color": color, "group": group, "y": y})
    frame.loc[rng.random(n) < 0.1, "x2"] = np.nan
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def toy(tmp_path):
    data = make_data(tmp_path / "toy.csv")
    spec = tmp_path / "toy.fair"
    spec.write_text(SPEC.format(data=data, missing="impute(median)"))
    return spec, data, tmp_path


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_ok(toy, capsys):
    spec, _, _ = toy
    code, out, _ = run(["check", str(spec)], capsys)
    assert code == 0 and "ok" in out


def test_check_names_the_positive_class_as_the_spec_writes_it(toy, capsys):
    # the line had printed Python's True for a spec's `positive true`
    spec, data, _ = toy
    frame = pd.read_csv(data)
    frame["y"] = frame["y"].map({1: "true", 0: "false"})
    frame.to_csv(data, index=False)
    spec.write_text(spec.read_text().replace("positive 1", "positive true"))
    code, out, _ = run(["check", str(spec)], capsys)
    assert code == 0 and "(positive true)" in out


def test_compile_prints_the_plan(toy, capsys):
    spec, _, _ = toy
    code, out, _ = run(["compile", str(spec)], capsys)
    assert code == 0
    assert "baseline(" in out and "impute(median)" in out and "equal_opportunity" in out


@pytest.mark.slow
def test_emit_model_refused_for_a_family_without_a_solver_model(toy, capsys, tmp_path):
    spec, _, _ = toy
    code, _, err = run(["compile", str(spec), "--emit-model", str(tmp_path / "m.lp")], capsys)
    assert code == 2 and "has no optimisation model to write before training;" in err
    assert "--emit-model works for: rule_set" in err and not (tmp_path / "m.lp").exists()


@pytest.mark.slow
def test_compile_and_train_reads_the_data_file_once(toy, capsys, monkeypatch):
    # the spec is checked against the same table it is trained on: one read, not two
    import fairspec.pipeline.train as train_module
    import fairspec.plan.compile as compile_module

    spec, data, tmp = toy
    reads = []
    read_table = compile_module.read_table
    for module in (compile_module, train_module):
        monkeypatch.setattr(module, "read_table", lambda path: reads.append(Path(path)) or read_table(path))
    code, _, _ = run(["compile-and-train", str(spec), "-o", str(tmp / "run"), "-q"], capsys)
    # -o is --out, as predict's -o is its --output
    assert code == 0 and reads == [data] and (tmp / "run" / "model.json").is_file()


def test_the_data_hash_is_of_the_bytes_trained_on_though_the_file_changes_after_the_read(toy, capsys, monkeypatch):
    # model.json's hash had been taken again at training: a file rewritten after the compile's
    # read was named as the data the model was trained on (found in review)
    import hashlib

    import fairspec.plan.compile as compile_module

    spec, data, tmp = toy
    read = data.read_bytes()
    original = compile_module.read_table

    def read_then_rewrite(path, *args, **kwargs):
        table = original(path, *args, **kwargs)
        data.write_bytes(read.replace(b"\n", b"\n\n", 1))  # another writer, after the read
        return table

    monkeypatch.setattr(compile_module, "read_table", read_then_rewrite)
    code, _, _ = run(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"], capsys)
    model = json.loads((tmp / "run" / "model.json").read_text())
    assert code == 0 and model["data"]["sha256"] == hashlib.sha256(read).hexdigest()


def test_a_file_that_changes_while_it_is_read_is_refused(tmp_path, monkeypatch):
    import fairspec.data.table as table_module
    from fairspec.errors import DataError

    path = make_data(tmp_path / "d.csv")
    counted = table_module._scan_bytes  # where a plain file's records are counted

    def count_then_edit(p):
        found = counted(p)
        p.write_bytes(p.read_bytes().replace(b",", b";", 1))  # a writer between two readings
        return found

    monkeypatch.setattr(table_module, "_scan_bytes", count_then_edit)
    with pytest.raises(DataError, match="the file changed while it was read"):
        table_module.read_table(path)


def test_the_summary_names_cross_validation_rows_out_of_fold_as_the_report_does(toy, capsys):
    spec, _, tmp = toy
    spec.write_text(spec.read_text().replace("evaluate { holdout 0.3 stratify seed 5 }", "evaluate { cv 3 seed 5 }"))
    code, stdout, _ = run(["compile-and-train", str(spec), "--out", str(tmp / "cv"), "-q"], capsys)
    assert code == 0 and "out-of-fold accuracy" in stdout and "out-of-fold gap" in stdout
    assert "test" not in stdout.splitlines()[0]


def test_compile_and_train_writes_three_files_and_they_agree(toy, capsys):
    spec, data, tmp = toy
    out = tmp / "run"
    code, stdout, _ = run(["compile-and-train", str(spec), "--out", str(out), "-q"], capsys)
    assert code == 0 and "test accuracy" in stdout
    model = json.loads((out / "model.json").read_text())
    metrics = json.loads((out / "metrics.json").read_text())
    assert (out / "report.html").exists()
    assert model["data"]["sha256"] and len(model["spec"]["sha256"]) == 64
    assert metrics["fairness"]["criterion"] == "equal_opportunity" and metrics["fairness"]["bound"] is None
    assert metrics["fairness"]["achieved_test"] == metrics["test"]["gaps"]["equal_opportunity"]
    assert metrics["data_summary"]["rows_train"] + metrics["data_summary"]["rows_test"] == 400
    # The model file reproduces the measured training accuracy through `fairspec predict`.
    code, csv, _ = run(["predict", str(out / "model.json"), str(data)], capsys)
    assert code == 0
    predictions = pd.read_csv(io.StringIO(csv))
    assert list(predictions.columns) == ["prediction", "score"] and len(predictions) == 400
    assert set(predictions["prediction"]) <= {0, 1}


@pytest.mark.parametrize("evaluate", ["holdout 0.3 stratify seed 5", "cv 3 seed 5"])
def test_the_test_gaps_intervals_are_those_of_the_test_rows_predictions(toy, capsys, evaluate):
    import fairspec
    from fairspec.metrics.intervals import gap_intervals
    from fairspec.pipeline.train import prepare_data

    spec, _, tmp = toy
    spec.write_text(spec.read_text().replace("holdout 0.3 stratify seed 5", evaluate))
    out = tmp / "run"
    code, stdout, _ = run(["compile-and-train", str(spec), "--out", str(out), "-q"], capsys)
    assert code == 0
    metrics = json.loads((out / "metrics.json").read_text())
    intervals = metrics["test"]["gap_intervals"]
    assert "gap_intervals" not in metrics["train"]
    assert metrics["fairness"]["interval_test"] == intervals["gaps"]["equal_opportunity"]
    low, high = metrics["fairness"]["interval_test"]
    held_out = "out-of-fold" if evaluate.startswith("cv") else "test"
    assert f"{held_out} gap {metrics['fairness']['achieved_test']:.3f} (95% interval {low:.3f} to {high:.3f})" in stdout
    if evaluate.startswith("holdout"):
        # recomputed from the saved model's predictions on the test rows, with the evaluate seed
        data = prepare_data(fairspec.compile_spec(fairspec.load_spec(spec)))
        test = data.splits[0][1]
        labels, _ = fairspec.load_model(out / "model.json").predict(data.frame.iloc[test])
        assert gap_intervals(data.y[test], labels, data.groups[test], seed=5) == intervals
    else:
        assert intervals["seed"] == 5 and set(intervals["gaps"]) == set(metrics["test"]["gaps"]) - {"abroca"}


def test_same_spec_data_seed_gives_the_same_model_file(toy, capsys):
    spec, _, tmp = toy
    docs = []
    for name in ("a", "b"):
        assert main(["compile-and-train", str(spec), "--out", str(tmp / name), "-q"]) == 0
        doc = json.loads((tmp / name / "model.json").read_text())
        doc.pop("created")
        docs.append(json.dumps(doc, sort_keys=True))
    assert docs[0] == docs[1]
    capsys.readouterr()


def test_report_command_rerenders_from_the_json_files(toy, capsys):
    spec, _, tmp = toy
    out = tmp / "run"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    (out / "report.html").unlink()
    code, stdout, _ = run(["report", str(out)], capsys)
    assert code == 0 and (out / "report.html").read_text().count("groups-test") >= 1


def test_predict_names_the_missing_column(toy, capsys, tmp_path):
    spec, data, tmp = toy
    out = tmp / "run"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    frame = pd.read_csv(data).drop(columns=["x2", "group", "y"])
    frame.to_csv(tmp_path / "nox2.csv", index=False)
    code, _, err = run(["predict", str(out / "model.json"), str(tmp_path / "nox2.csv")], capsys)
    assert code == 1 and "x2" in err


def test_predict_does_not_need_protected_or_target_columns(toy, capsys, tmp_path):
    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    pd.read_csv(data)[["x1", "x2", "color"]].to_csv(tmp_path / "features.csv", index=False)
    code, csv, _ = run(["predict", str(tmp / "run"), str(tmp_path / "features.csv")], capsys)
    assert code == 0 and len(csv.splitlines()) == 401


def test_predict_warns_of_categories_never_seen_in_training(toy, capsys, tmp_path):
    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    frame = pd.read_csv(data)[["x1", "x2", "color"]].head(6)
    frame["color"] = ["purple", "red", "purple", "teal", None, "green"]
    frame.to_csv(tmp_path / "new.csv", index=False)
    code, csv, err = run(["-q", "predict", str(tmp / "run"), str(tmp_path / "new.csv")], capsys)
    # read as missing values (the report says so), which a reader of "color != red" would not expect
    assert code == 0 and len(csv.splitlines()) == 7
    assert ("warning: column 'color': 3 rows hold a category never seen in training ('purple', 'teal'); "
            "the model reads it as a missing value") in err
    pd.read_csv(data)[["x1", "x2", "color"]].to_csv(tmp_path / "seen.csv", index=False)
    assert "warning" not in run(["predict", str(tmp / "run"), str(tmp_path / "seen.csv")], capsys)[2]


def test_the_api_warns_of_categories_never_seen_in_training_as_predict_does(toy, capsys, tmp_path):
    import warnings

    import fairspec
    from fairspec.errors import UnseenCategoryWarning

    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    model = fairspec.load_model(tmp / "run" / "model.json")
    frame = pd.read_csv(data)[["x1", "x2", "color"]].head(6)
    frame["color"] = ["purple", "red", "purple", "teal", None, "green"]
    # a caller of the API had been told nothing: the rows were scored as missing values
    with pytest.warns(UnseenCategoryWarning, match=r"^new rows: column 'color': 3 rows hold a category never "
                                                   r"seen in training \('purple', 'teal'\)"):
        model.predict(frame, source="new rows")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(pd.read_csv(data)[["x1", "x2", "color"]])


@pytest.mark.slow
@pytest.mark.parametrize("model", ["baseline { learner tree  depth 2 }", "tree { depth 2 }",
                                   "rule_set { max_complexity 6 }"])
def test_the_model_text_names_the_classes_as_the_data_spells_them(toy, capsys, model):
    # the estimators fit on 0/1 (1 = positive); under "positive 0" a printed "leaf: 1" had
    # meant y = 0, the opposite of what a reader takes it for
    spec, data, tmp = toy
    spec.write_text(spec.read_text().replace("positive 1", "positive 0").replace("fairness equal_opportunity\n", "")
                    .replace("baseline { learner tree  depth 3 }", model))
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    text = json.loads((tmp / "run" / "model.json").read_text())["model"]["text"]
    frame = pd.read_csv(data)
    code, csv, _ = run(["predict", str(tmp / "run"), str(data)], capsys)
    positive_predicted = pd.read_csv(io.StringIO(csv))["prediction"].to_numpy() == 1
    if model.startswith("rule_set"):
        assert text[-1] == "ELSE 1" and all(line.endswith("THEN 0") for line in text[:-1])
    else:
        shown = {line.split("leaf: ")[1][0]: float(line.split("p=")[1].split(",")[0])
                 for line in text if "leaf: " in line}
        # a leaf shown "0" holds a majority of y = 0 (p is the positive class's share), "1" the rest
        assert all((p > 0.5) == (label == "0") for label, p in shown.items())
    assert positive_predicted.any() and (frame.y[positive_predicted] == 0).mean() > 0.5


@pytest.mark.parametrize("prefix, normalised", [(b"", False), (b"\xef\xbb\xbf", True)])
def test_the_spec_hash_is_that_of_the_files_bytes(toy, capsys, prefix, normalised):
    # saved with a byte-order mark (Windows Notepad), the hash had been of the text read,
    # which sha256sum of the file the reviewer holds does not give
    import hashlib

    spec, _, tmp = toy
    spec.write_bytes(prefix + spec.read_bytes())
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    doc = json.loads((tmp / "run" / "model.json").read_text())
    assert doc["spec"]["sha256"] == hashlib.sha256(spec.read_bytes()).hexdigest()
    assert doc["spec"]["normalised"] is normalised
    page = (tmp / "run" / "report.html").read_text()
    assert doc["spec"]["sha256"] in page and ("as fairspec read it" in page) == normalised


def test_bad_number_in_data_names_column_and_line(toy, capsys, tmp_path):
    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    frame = pd.read_csv(data)
    frame["x1"] = frame["x1"].astype(object)
    frame.loc[6, "x1"] = "seven"
    frame.to_csv(tmp_path / "bad.csv", index=False)
    code, _, err = run(["predict", str(tmp / "run"), str(tmp_path / "bad.csv")], capsys)
    assert code == 1 and "'x1'" in err and "line 8" in err


def test_syntax_error_exit_1_with_location(toy, capsys):
    spec, _, _ = toy
    spec.write_text(spec.read_text().replace("target y positive 1", "target y positive"))
    code, _, err = run(["check", str(spec)], capsys)
    assert code == 1 and f"{spec}:4:" in err


def test_unknown_column_exit_1_with_hint(toy, capsys):
    spec, _, _ = toy
    spec.write_text(spec.read_text().replace("x1 numeric", "x_1 numeric"))
    code, _, err = run(["check", str(spec)], capsys)
    assert code == 1 and ":5:" in err and "x1" in err


def test_usage_error_exit_2(capsys):
    assert main(["compile-and-train"]) == 2
    assert main(["no-such-command"]) == 2
    capsys.readouterr()


def test_an_unknown_option_without_a_command_is_named(capsys):
    # argparse had said "the following arguments are required: COMMAND" for `fairspec --bogus`
    code, _, err = run(["-q", "--bogus"], capsys)
    assert code == 2 and "unrecognized arguments: --bogus" in err and "COMMAND" not in err.splitlines()[-1]
    code, _, err = run([], capsys)
    assert code == 2 and "required: COMMAND" in err


def test_predict_dash_output_is_standard_output(toy, capsys, tmp_path, monkeypatch):
    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    _, to_stdout, _ = run(["predict", str(tmp / "run"), str(data)], capsys)
    code, dashed, _ = run(["predict", str(tmp / "run"), str(data), "-o", "-"], capsys)
    assert code == 0 and dashed == to_stdout and len(dashed.splitlines()) == 401
    assert not (tmp_path / "-").exists()


def test_predict_on_a_header_without_rows_writes_the_header_alone(toy, capsys, tmp_path):
    # a batch with no one in it is not an error; a file without a header still is
    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    (tmp_path / "none.csv").write_text("x1,x2,color\n")
    code, csv, _ = run(["predict", str(tmp / "run"), str(tmp_path / "none.csv")], capsys)
    assert code == 0 and csv.splitlines() == ["prediction,score"]
    (tmp_path / "no_x2.csv").write_text("x1,color\n")
    code, _, err = run(["predict", str(tmp / "run"), str(tmp_path / "no_x2.csv")], capsys)
    assert code == 1 and "x2" in err
    (tmp_path / "empty.csv").write_text("")
    code, _, err = run(["predict", str(tmp / "run"), str(tmp_path / "empty.csv")], capsys)
    assert code == 1 and "empty" in err


def test_no_usable_model_exit_3_and_nothing_written(toy, capsys, monkeypatch):
    from fairspec.errors import NoUsableModelError
    from fairspec.models import baseline

    def infeasible(self, X, y, sensitive_features=None):
        raise NoUsableModelError("no rule set meets the bound")

    monkeypatch.setattr(baseline.BaselineClassifier, "fit", infeasible)
    spec, _, tmp = toy
    code, _, err = run(["compile-and-train", str(spec), "--out", str(tmp / "run")], capsys)
    assert code == 3 and "no rule set" in err and not (tmp / "run").exists()
    assert f"\n{spec}: error: fitting: no rule set" in err  # names the spec, as every error does


@pytest.mark.slow
def test_a_sweep_keeps_the_points_that_trained_when_one_gives_no_model(toy, capsys, monkeypatch):
    # one setting no model can meet had discarded the others: exit 3 and nothing written
    from fairspec.errors import NoUsableModelError
    from fairspec.models.tree.estimators import MissingAwareTreeClassifier
    from fairspec.pipeline.outputs import read_run

    fit = MissingAwareTreeClassifier.fit

    def infeasible_at_zero(self, X, y, sensitive_features=None):
        # (the fit without the criterion, for the report's comparison, has none)
        if self.fairness is not None and self.fairness.bound == 0:
            raise NoUsableModelError("no labelling of the leaves meets the bound")
        return fit(self, X, y, sensitive_features)

    monkeypatch.setattr(MissingAwareTreeClassifier, "fit", infeasible_at_zero)
    spec, _, tmp = toy
    spec.write_text(spec.read_text().replace("fairness equal_opportunity", "fairness equal_opportunity <= [0.2, 0, 0.1]")
                    .replace("baseline { learner tree  depth 3 }", "tree { depth 2 }"))
    code, out, err = run(["compile-and-train", str(spec), "--out", str(tmp / "run")], capsys)
    assert code == 3
    assert "fitting under equal_opportunity <= 0: no labelling of the leaves meets the bound" in err
    assert "1 of 3 sweep settings gave no usable model; the other 2 are written" in err
    sweep = json.loads((tmp / "run" / "sweep.json").read_text())
    assert [(p["bound"], p["index"], p["sweep_index"]) for p in sweep["points"]] == [(0.2, 0, 0), (0.1, 1, 2)]
    assert [(f["sweep_index"], f["bound"]) for f in sweep["failed"]] == [(1, 0)]
    assert sorted(p.name for p in (tmp / "run").iterdir()) == ["point-0", "point-1", "report.html", "sweep.json"]
    page = (tmp / "run" / "report.html").read_text()
    assert "No usable model</strong> for 1 of the sweep" in page and "no labelling of the leaves" in page
    points, failed = read_run(tmp / "run")
    assert len(points) == 2 and failed == sweep["failed"]
    # re-rendered from the files, the report still lists it
    assert main(["report", str(tmp / "run")]) == 0
    assert (tmp / "run" / "report.html").read_text() == page
    # a tampered list of failed settings is refused, not printed as given
    for tamper in ({"sweep_index": 0, "bound": 0.2, "reason": "x"},   # also a point
                   {"sweep_index": 1, "bound": 5, "reason": "x"},     # not a bound
                   {"sweep_index": 1, "bound": None, "penalty": 1.0, "reason": "x"},
                   {"sweep_index": 7, "bound": 0.05, "reason": "x"}):
        (tmp / "run" / "sweep.json").write_text(json.dumps({**sweep, "failed": [tamper]}))
        code, _, err = run(["report", str(tmp / "run")], capsys)
        assert code == 1 and "damaged sweep file (failed" in err, tamper
    (tmp / "run" / "sweep.json").write_text(json.dumps(sweep))
    # when every setting fails, nothing is written, as for a single run
    def infeasible(self, X, y, sensitive_features=None):
        raise NoUsableModelError("no labelling of the leaves meets the bound")

    monkeypatch.setattr(MissingAwareTreeClassifier, "fit", infeasible)
    code, _, err = run(["compile-and-train", str(spec), "--out", str(tmp / "none")], capsys)
    assert code == 3 and not (tmp / "none").exists()
    assert [b in err for b in ("<= 0.2:", "<= 0:", "<= 0.1:")] == [True] * 3  # why, for each


def test_internal_error_exit_70_with_traceback_log(toy, capsys, monkeypatch):
    import fairspec.pipeline.train as train_module

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(train_module, "evaluate_predictions", boom)
    spec, _, tmp = toy
    # the crash log goes to the system's temporary directory; here, the test's own
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    (tmp / "run").mkdir()
    previous = '<meta name="generator" content="fairspec 0">previous report'  # fairspec's: may be replaced
    (tmp / "run" / "report.html").write_text(previous)
    code, _, err = run(["compile-and-train", str(spec), "--out", str(tmp / "run")], capsys)
    assert code == 70 and "kaboom" in err and "traceback in" in err
    log = err.split("traceback in ")[1].strip(" )\n")
    assert Path(log).parent == tmp and "RuntimeError" in Path(log).read_text()
    assert (tmp / "run" / "report.html").read_text() == previous
    assert sorted(p.name for p in (tmp / "run").iterdir()) == ["report.html"]


def test_ctrl_c_exit_130(toy, capsys, monkeypatch):
    import fairspec.pipeline.train as train_module

    def interrupt(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "_fit", interrupt)
    spec, _, tmp = toy
    code, _, _ = run(["compile-and-train", str(spec), "--out", str(tmp / "run")], capsys)
    assert code == 130


def test_damaged_model_file_is_refused(tmp_path, capsys):
    (tmp_path / "model.json").write_text('{"format": "fairspec-model", "format_version": 99}')
    (tmp_path / "x.csv").write_text("a\n1\n")
    code, _, err = run(["predict", str(tmp_path / "model.json"), str(tmp_path / "x.csv")], capsys)
    assert code == 1 and "format" in err


def test_missing_drop_cannot_score_rows_with_missing_values(toy, capsys):
    spec, data, tmp = toy
    spec.write_text(spec.read_text().replace("missing impute(median)", "missing drop"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    metrics = json.loads((tmp / "run" / "metrics.json").read_text())
    assert metrics["data_summary"]["rows_train"] + metrics["data_summary"]["rows_test"] < 400
    code, _, err = run(["predict", str(tmp / "run"), str(data)], capsys)
    assert code == 1 and "'x2'" in err and "missing drop" in err


def test_missing_drop_without_a_test_set_counts_no_unscored_test_rows(toy, capsys):
    spec, _, tmp = toy
    text = spec.read_text().replace("missing impute(median)", "missing drop")
    spec.write_text(text.replace("evaluate { holdout 0.3 stratify seed 5 }", "evaluate none"))
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    evaluation = json.loads((tmp / "run" / "metrics.json").read_text())["evaluation"]
    assert evaluation["kind"] == "none" and "unscored_test_rows" not in evaluation


def test_missing_drop_counts_what_it_left_out_and_predict_reproduces_the_test_metrics(toy, capsys):
    import fairspec
    from fairspec.pipeline.train import prepare_data

    spec, data, tmp = toy
    spec.write_text(spec.read_text().replace("missing impute(median)", "missing drop"))
    frame = pd.read_csv(data)
    # two test rows get a category no training row has (the split depends on target and group
    # only, so recolouring them leaves it as it is)
    _, test = prepare_data(fairspec.compile_spec(fairspec.load_spec(spec))).splits[0]
    kept = frame.dropna(subset=["x1", "x2", "color"])
    recoloured = kept.index[test[:2]]
    frame.loc[recoloured, "color"] = "purple"
    frame.to_csv(data, index=False)
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    metrics = json.loads((tmp / "run" / "metrics.json").read_text())
    summary = metrics["data_summary"]
    dropped = int(frame["x2"].isna().sum())
    assert summary["rows"] == len(frame) - dropped == summary["rows_train"] + summary["rows_test"]
    assert summary["dropped"]["rows"] == dropped
    assert sum(summary["dropped"]["groups"].values()) == dropped
    assert sum(g["count"] for g in summary["groups"].values()) == summary["rows"]
    assert metrics["evaluation"]["unscored_test_rows"] == 2
    assert metrics["test"]["n"] == summary["rows_test"] - 2
    # the test metrics are those of the rows the saved model scores
    scored = frame.loc[[i for i in kept.index[test] if i not in recoloured]]
    model = fairspec.load_model(tmp / "run" / "model.json")
    labels, _ = model.predict(scored)
    assert (labels == scored["y"].to_numpy()).mean() == pytest.approx(metrics["test"]["accuracy"])
    html = (tmp / "run" / "report.html").read_text()
    assert f"{dropped} more rows had a missing feature value" in html and "2 test rows are left out" in html
    code, _, err = run(["predict", str(tmp / "run" / "model.json"), str(data)], capsys)
    assert code == 1 and "'color'" in err and "'purple' never occurred" in err


@pytest.mark.parametrize("evaluate", ["holdout 0.3 stratify seed 5", "cv 3 seed 5"])
def test_metrics_say_what_the_split_was_stratified_by(toy, capsys, evaluate):
    spec, data, tmp = toy
    spec.write_text(spec.read_text().replace("holdout 0.3 stratify seed 5", evaluate))
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "a"), "-q"]) == 0
    assert json.loads((tmp / "a" / "metrics.json").read_text())["evaluation"]["stratified_by"] == "target and group"
    frame = pd.read_csv(data)
    # a group of one positive and one negative row: its target-and-group cells cannot be split
    frame.loc[[frame.index[frame["y"] == 1][0], frame.index[frame["y"] == 0][0]], "group"] = "c"
    frame.to_csv(data, index=False)
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "b"), "-q"]) == 0
    assert json.loads((tmp / "b" / "metrics.json").read_text())["evaluation"]["stratified_by"] == "target"


def test_report_rerendered_from_the_files_is_the_report_written_after_training(toy, capsys):
    spec, _, tmp = toy
    out = tmp / "run"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    first = (out / "report.html").read_text()
    assert main(["report", str(out)]) == 0
    assert (out / "report.html").read_text() == first
    capsys.readouterr()


def test_a_group_the_hold_out_takes_whole_is_an_error_under_a_bound_on_its_rate(toy, capsys):
    spec, data, tmp = toy
    frame = pd.read_csv(data)
    frame.loc[frame.index[0], "group"] = "c"  # one row: a hold-out either trains on it or tests it
    frame.to_csv(data, index=False)
    audit = spec.read_text().replace("fairness equal_opportunity", "fairness demographic_parity") \
        .replace("model baseline {{ learner tree  depth 3 }}".format(), "model tree { depth 2 }")
    bounded = audit.replace("fairness demographic_parity", "fairness demographic_parity <= 0.5")
    seen = set()
    for seed in range(12):
        # where the split puts the row, read from an audited run (no bound, so it trains either way)
        spec.write_text(audit.replace("seed 5", f"seed {seed}"))
        assert main(["compile-and-train", str(spec), "--out", str(tmp / f"audit{seed}"), "-q"]) == 0
        trained = "c" in json.loads((tmp / f"audit{seed}" / "metrics.json").read_text())["train"]["groups"]
        spec.write_text(bounded.replace("seed 5", f"seed {seed}"))
        code, _, err = run(["check", str(spec)], capsys)
        # tested but never trained on: the bound could not be imposed on the group whose test
        # rate the report would set against it
        assert code == (0 if trained else 1), err
        if not trained:
            assert (f"error: group 'c' has 1 row in all and none on the hold-out's training side of the split "
                    f"(seed {seed}): its selection rate is undefined there, so the fit under demographic_parity "
                    "cannot impose the bound on it") in err
            assert "pick an `evaluate` seed whose hold-out keeps its one row on the training side" in err
            # under a penalty the message had spoken of a bound
            spec.write_text(audit.replace("fairness demographic_parity", "fairness demographic_parity penalty 1")
                            .replace("seed 5", f"seed {seed}"))
            code, _, err = run(["check", str(spec)], capsys)
            assert code == 1 and "cannot impose the penalty on it" in err, err
        seen.add(trained)
        if seen == {True, False}:
            break
    assert seen == {True, False}


@pytest.mark.parametrize("argv", [["-q", "compile-and-train"], ["compile-and-train", "-q"]])
def test_quiet_before_or_after_the_command_silences_progress(toy, capsys, argv):
    spec, _, tmp = toy
    code, _, loud = run(["compile-and-train", str(spec), "--out", str(tmp / "loud")], capsys)
    assert code == 0 and loud.strip()  # progress goes to stderr unless asked not to
    code, _, quiet = run(argv + [str(spec), "--out", str(tmp / "quiet")], capsys)
    assert code == 0 and quiet == ""


@pytest.mark.parametrize("evaluate", ["holdout 0.3 stratify false seed 5", "cv 3 stratify false seed 5"])
def test_stratify_false_is_honoured_by_the_plan_and_the_split(toy, capsys, evaluate):
    spec, _, tmp = toy
    spec.write_text(spec.read_text().replace("holdout 0.3 stratify seed 5", evaluate))
    code, plan_text, _ = run(["compile", str(spec)], capsys)
    assert code == 0 and "(not stratified)" in plan_text
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "a"), "-q"]) == 0
    evaluation = json.loads((tmp / "a" / "metrics.json").read_text())["evaluation"]
    assert evaluation["stratify"] is False and evaluation["stratified_by"] is None


def test_a_group_whose_only_positive_the_split_leaves_out_of_training_is_named_with_the_spec_and_fold(
        toy, capsys):
    spec, data, tmp = toy
    frame = pd.read_csv(data)
    few = [frame.index[frame["y"] == 1][0]] + list(frame.index[frame["y"] == 0][:3])
    frame.loc[few, "group"] = "c"  # one positive row: whichever fold tests it trains without it
    frame.to_csv(data, index=False)
    spec.write_text(spec.read_text().replace("fairness equal_opportunity", "fairness equal_opportunity <= 0.5")
                    .replace("model baseline {{ learner tree  depth 3 }}".format(), "model tree { depth 2 }")
                    .replace("holdout 0.3 stratify seed 5", "cv 2 seed 5"))
    # `fairspec check` computes the split training will use: the fit cannot succeed, so it is
    # an error there, with the spec's location, not an "ok" beside a warning
    code, out, err = run(["check", str(spec)], capsys)
    assert code == 1 and out == ""
    assert re.search(rf"{re.escape(str(spec))}:\d+:\d+: error: group 'c' has 1 positive row in all and none on "
                     r"cv fold \d of the split \(seed 5\): its TPR is undefined there, so no model can be fitted "
                     r"under equal_opportunity", err), err
    assert "every cv split trains one fold without it" in err  # cv cannot help a single row
    code, _, err = run(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"], capsys)
    assert code == 1 and not (tmp / "run").exists()
    assert "error: group 'c' has 1 positive row" in err and "merge or leave out the group" in err
    # so does a group with no row at all on a training side: the fit would never see it, and
    # the fold that tests it would measure a gap no bound was imposed on
    tiny = frame.copy()
    tiny["group"] = tiny["group"].where(tiny["group"] != "c", "a")
    tiny.loc[[tiny.index[tiny["y"] == 1][0]], "group"] = "c"  # one row, positive, tested by one fold
    tiny.to_csv(data, index=False)
    code, _, err = run(["check", str(spec)], capsys)
    assert code == 1 and re.search(r"error: group 'c' has 1 positive row in all and none on cv fold \d of the split "
                                   r"\(seed 5\): its TPR is undefined there, so the fit under equal_opportunity "
                                   "cannot impose the bound on it", err), err
    assert "with one positive row, every cv split trains one fold without it" in err
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "tiny"), "-q"]) == 1
    assert not (tmp / "tiny").exists()
    capsys.readouterr()
    # a split that keeps it on every training side draws no warning
    frame.loc[[frame.index[frame["y"] == 1][1]], "group"] = "c"
    frame.to_csv(data, index=False)
    code, _, quiet = run(["check", str(spec)], capsys)
    assert code == 0 and "none on" not in quiet


def test_a_fold_fit_the_clock_cut_is_kept_in_metrics_and_said_by_the_report(toy, capsys, monkeypatch):
    # the out-of-fold verdict reads the fold models: the kept model's log alone had said
    # "optimal" and "Reproducible: yes" while a fold had stopped at the time limit (found in
    # review). The clock is simulated on fold 2's log, so the test does not race a real one.
    import fairspec.pipeline.train as train_module

    fit = train_module._fit

    def fit_with_fold_2_cut(*args, fold=None, **kwargs):
        fitted = fit(*args, fold=fold, **kwargs)
        if fold == 2:
            fitted.estimator.fit_log_ = {**fitted.estimator.fit_log_, "status": "time_limit", "mip_gap": 0.25,
                                         "reproducible": False, "cut_by_clock": ["relabel_mip"]}
        return fitted

    monkeypatch.setattr(train_module, "_fit", fit_with_fold_2_cut)
    spec, _, tmp = toy
    spec.write_text(spec.read_text().replace("evaluate { holdout 0.3 stratify seed 5 }", "evaluate { cv 3 seed 5 }"))
    code, summary, _ = run(["compile-and-train", str(spec), "-o", str(tmp / "cv"), "-q"], capsys)
    assert code == 0
    # the command's one-line summary says it too (it had printed "bound 0.05: met" alone)
    assert summary.splitlines()[0].endswith(") [the time limit stopped the fit]"), summary
    fits = json.loads((tmp / "cv" / "metrics.json").read_text())["evaluation"]["fold_fits"]
    assert [f["fold"] for f in fits] == [1, 2, 3]
    assert fits[1] == {"fold": 2, "status": "time_limit", "mip_gap": 0.25, "reproducible": False,
                       "cut_by_clock": ["relabel_mip"]}
    assert fits[0]["reproducible"] is True and not fits[0]["cut_by_clock"]
    for render in (False, True):
        if render:  # `fairspec report` reads the files back (and checks them against the schema)
            assert run(["report", str(tmp / "cv")], capsys)[0] == 0
        page = re.sub(r"\s+", " ", (tmp / "cv" / "report.html").read_text())
        assert "fold 2: time_limit, MIP gap 25.00%, the time limit stopped relabel_mip" in page
        assert "not guaranteed, the time limit stopped the fit of fold 2 (relabel_mip)" in page
        # the summary card's verdict says it, not the training log alone
        card = page[page.index('<div class="card-detail">The criterion is measured'):]
        assert card[:card.index("</div>")].endswith("The time limit stopped the fit of fold 2 (relabel_mip): each "
                                                     "such model is the best found in time, not what the method "
                                                     "would give with its work done, and a faster or idle machine "
                                                     "may give another.")


@pytest.mark.parametrize("where", ["model", "data", "output"])
def test_a_path_the_system_refuses_is_a_user_error_naming_it(toy, capsys, where):
    # a name too long (or a folder the user may not enter) made Path.is_dir() / exists() raise,
    # which ended as "internal error", exit 70 (found in review)
    spec, data, tmp = toy
    assert main(["compile-and-train", str(spec), "-o", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    too_long = str(tmp / ("n" * 300 + ".csv"))
    argv = {"model": ["predict", too_long, str(data)],
            "data": ["predict", str(tmp / "run"), too_long],
            "output": ["predict", str(tmp / "run"), str(data), "-o", too_long]}[where]
    code, _, err = run(argv, capsys)
    assert code == 1 and "internal error" not in err
    assert err.startswith(too_long + ": error: ") and "File name too long" in err


@pytest.mark.parametrize("edit", ["estimator", "text"])
def test_a_model_whose_text_is_not_its_estimator_is_refused_by_predict_and_report(toy, capsys, edit):
    # a split point edited with the text left as it was had loaded, and predict scored by the
    # edit while the text a reviewer signed off said otherwise (found in review)
    spec, data, tmp = toy
    out = tmp / "run"
    assert main(["compile-and-train", str(spec), "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    doc = json.loads((out / "model.json").read_text())
    assert doc["model"]["text"][0].startswith("x1 <= 0.5")
    if edit == "estimator":
        doc["model"]["estimator"]["tree"]["threshold"][0] = 1.5
    else:
        doc["model"]["text"][0] = doc["model"]["text"][0].replace("x1 <= 0.5", "x1 <= 1.5")
    (out / "model.json").write_text(json.dumps(doc))
    code, stdout, err = run(["predict", str(out), str(data)], capsys)
    assert code == 1 and stdout == ""
    assert "model.text is not the model that scores: its line 1 reads 'x1 <= " in err
    assert "the file was edited after training" in err
    # report refuses it too (first, as it always did, because metrics.json names another model)
    assert run(["report", str(out)], capsys)[0] == 1
    from fairspec import load_model
    from fairspec.errors import ModelFileError

    with pytest.raises(ModelFileError, match="model.text is not the model that scores"):
        load_model(out)


def test_predict_writes_the_scores_the_python_api_returns_to_the_last_digit(toy, capsys, tmp_path):
    # six significant digits had differed from the API by up to 5e-7 (found in review)
    from fairspec import load_model

    spec, data, tmp = toy
    spec.write_text(spec.read_text().replace("learner tree  depth 3", "learner logistic"))
    assert main(["compile-and-train", str(spec), "-o", str(tmp / "run"), "-q"]) == 0
    capsys.readouterr()
    code, csv, _ = run(["predict", str(tmp / "run"), str(data)], capsys)
    written = pd.read_csv(io.StringIO(csv))
    labels, scores = load_model(tmp / "run").predict(pd.read_csv(data))
    assert code == 0 and len(set(scores)) > 100  # logistic scores: no two rows share one by chance
    np.testing.assert_array_equal(written["score"].to_numpy(), scores)
    np.testing.assert_array_equal(written["prediction"].to_numpy(), labels)


@pytest.mark.parametrize("command", ["check", "compile", "compile-and-train"])
def test_an_empty_spec_path_is_a_usage_error(command, capsys):
    # it had read as ".", and the error said the spec file was a directory
    code, _, err = run([command, ""], capsys)
    assert code == 2 and "argument spec: empty path: name a .fair file" in err


@pytest.mark.parametrize(("argv", "says"), [(["predict", "", "d.csv"], "argument model: empty path"),
                                            (["predict", "run", ""], "argument data: empty path: name a CSV"),
                                            (["report", ""], "argument dir: empty path: name a run's directory")])
def test_an_empty_model_data_or_run_path_is_a_usage_error_too(argv, says, capsys):
    # `predict ''` had looked for ./model.json and `report ''` had read the current directory
    code, _, err = run(argv, capsys)
    assert code == 2 and says in err


def test_control_characters_from_someone_elses_files_are_shown_not_sent_to_the_terminal(tmp_path, capsys):
    # a column named with an escape sequence (OSC 52 writes the clipboard in many terminals)
    # was printed raw in the hint listing the data's columns (found in review)
    rng = np.random.default_rng(0)
    name = "num\x1b]52;c;aGk=\x07\x1b[2K"
    pd.DataFrame({"y": rng.integers(0, 2, 200), "g": rng.choice(["a", "b"], 200),
                  name: rng.normal(size=200)}).to_csv(tmp_path / "e.csv", index=False)
    spec = tmp_path / "d.fair"
    spec.write_text('spec d\ndata "e.csv"\ntarget y positive 1\nprotected g\nfeatures { nmu numeric }\n'
                    'model baseline\n')
    code, out, err = run(["check", str(spec)], capsys)
    assert code == 1 and "the data has the columns: y, g, num\\x1b]52;c;aGk=\\x07\\x1b[2K" in err
    assert not any(c in err + out for c in "\x1b\x07\x9b\x7f")
    # the progress bar keeps its own carriage return and line clearing on a terminal
    from fairspec.cli import _VisibleControls
    from fairspec.pipeline.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    Progress(stream=_VisibleControls(screen)).step("writing out\x1b[2J", done=1, total=2)
    assert screen.getvalue().startswith("\r[") and screen.getvalue().endswith("\x1b[K")
    assert "writing out\\x1b[2J" in screen.getvalue()


def test_an_internal_error_without_a_writable_temporary_folder_is_still_one_line_and_exit_70(monkeypatch):
    # the crash log's mkstemp raised inside the handler: a second traceback and exit 1 (found in review)
    import tempfile

    from fairspec.cli import EXIT_INTERNAL, _ExitCode, error_handler

    def no_folder(*args, **kwargs):
        raise FileNotFoundError(2, "No usable temporary directory found")

    monkeypatch.setattr(tempfile, "mkstemp", no_folder)
    err = io.StringIO()
    with pytest.raises(_ExitCode) as exc, error_handler(err):
        raise RuntimeError("boom")
    assert exc.value.code == EXIT_INTERNAL
    assert err.getvalue() == ("fairspec: internal error: RuntimeError: boom (no traceback kept: no temporary folder "
                              "could be written)\n")


def test_the_summary_line_never_prints_a_gap_on_the_wrong_side_of_the_bound():
    # 0.1857 within a bound of 0.1858 printed as "0.186 (bound 0.1858: met)", and interval ends
    # were rounded the same way (found in review); the report prints more digits there
    from fairspec.cli import run_summary

    def doc(achieved, met, interval=None, bound=0.1858):
        return {"fairness": {"criterion": "fpr_parity", "bound": bound, "achieved_train": achieved,
                             "met_train": met, "achieved_test": achieved, "met_test": met,
                             "interval_test": interval},
                "test": None, "train": {"accuracy": 0.649}, "evaluation": {"kind": "none"}}

    assert run_summary("r", doc(0.1857016, True)) == \
        "r: train accuracy 0.649, fpr_parity train gap 0.1857016 (bound 0.1858: met)"
    assert run_summary("r", doc(0.0502, False, bound=0.05)).endswith("gap 0.0502 (bound 0.05: NOT met)")
    assert run_summary("r", doc(0.12, True)).endswith("gap 0.120 (bound 0.1858: met)")  # three digits suffice
    tested = doc(0.12, True, [0.05, 0.18575])
    tested.update(test={"accuracy": 0.7, "gap_intervals": {"level": 0.95}}, evaluation={"kind": "holdout"})
    assert "(95% interval 0.050 to 0.18575; bound 0.1858: met)" in run_summary("r", tested)


def test_compile_and_train_and_predict_spell_their_output_alike_and_the_old_out_still_works(toy, capsys):
    spec, data, tmp = toy
    code, _, err = run(["compile-and-train", str(spec), "--output", str(tmp / "a")], capsys)
    assert code == 0 and (tmp / "a" / "model.json").is_file() and "--out" not in err
    code, _, err = run(["predict", str(tmp / "a"), str(data), "--output", str(tmp / "p.csv"), "-q"], capsys)
    assert code == 0 and (tmp / "p.csv").read_text().startswith("prediction,score")
    # the spelling before the two were made one: kept, with a note (not under -q)
    code, _, err = run(["compile-and-train", str(spec), "--out", str(tmp / "b")], capsys)
    assert code == 0 and (tmp / "b" / "model.json").is_file()
    assert "note: --out is now spelt -o/--output, as for predict; --out still works" in err
    code, _, err = run(["compile-and-train", str(spec), "--out", str(tmp / "c"), "-q"], capsys)
    assert code == 0 and err == ""
    # an empty path is named by the spelling given
    code, _, err = run(["compile-and-train", str(spec), "--output", ""], capsys)
    assert code == 2 and "argument --output: empty directory name" in err


def test_a_spec_without_an_output_line_writes_under_out_which_git_ignores(toy, capsys, monkeypatch):
    spec, _, tmp = toy
    monkeypatch.chdir(tmp)
    text = spec.read_text()
    spec.write_text("\n".join(line for line in text.splitlines() if not line.startswith("output")) + "\n")
    code, _, _ = run(["compile-and-train", str(spec), "-q"], capsys)
    assert code == 0 and (tmp / "out" / "toy" / "model.json").is_file()
