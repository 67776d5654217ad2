"""`fairspec report` over a committed run with one field edited: the edit is refused (exit 1,
naming the file and what is wrong), never rendered as if a run had written it.

Each test edits a copy of a bundled report (no training); a model.json edit is re-stamped into
metrics.json's model_sha256, as anyone editing both files can do."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from fairspec.cli import main
from fairspec.pipeline.outputs import model_digest, read_outputs
from tests.helpers_outputs import edit, refusal

SINGLE, SWEEP = "compas_rules", "compas_tree_sweep"


def _copy(root: Path, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(root / "reports" / name, tmp_path / name, ignore=shutil.ignore_patterns("*.html")))


def _edit_model(d: Path, change) -> None:
    """Edit d/model.json and record its new digest in d/metrics.json."""
    edit(d / "model.json", change)
    model = json.loads((d / "model.json").read_text())
    edit(d / "metrics.json", lambda m: m.update(model_sha256=model_digest(model)))


@pytest.mark.parametrize("name", ["adult_tree", "compas_baseline", "compas_rules", "compas_tree_sweep",
                                  "german_logistic"])
def test_every_bundled_run_still_reads(root, tmp_path, name):
    assert read_outputs(_copy(root, tmp_path, name))


# --- 1. no format, no digest: no longer read as an older file --------------------------------------

def test_metrics_without_format_and_digest_is_refused_not_read_as_an_older_file(root, tmp_path, capsys):
    # deleting three keys had turned off the check that metrics.json measured this model.json
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: [m.pop(k) for k in ("format", "format_version", "model_sha256")])
    edit(d / "metrics.json", lambda m: m["test"].update(auc=0.99))
    assert main(["report", str(d)]) == 1
    assert capsys.readouterr().err.startswith(f"{d / 'metrics.json'}: error: damaged metrics file (no 'format'")


def test_a_sweep_file_without_format_is_refused(root, tmp_path):
    d = _copy(root, tmp_path, SWEEP)
    edit(d / "sweep.json", lambda s: [s.pop(k) for k in ("format", "format_version")])
    assert refusal(d).startswith(f"{d / 'sweep.json'}: error: damaged sweep file (no 'format'")


# --- 2. the model file predict would refuse, the spec text its hash denies -------------------------

def test_a_model_text_that_is_not_the_model_that_scores_is_refused(root, tmp_path, capsys):
    d = _copy(root, tmp_path, SINGLE)
    _edit_model(d, lambda m: m["model"].update(text=m["model"]["text"][1:]))  # a rule hidden
    assert main(["report", str(d)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{d / 'model.json'}: error: damaged model file (model.text is not the model that scores")


def test_a_spec_text_that_is_not_the_hashed_spec_is_refused(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    _edit_model(d, lambda m: m["spec"].update(text=m["spec"]["text"].replace("<= 0.05", "<= 0.20")))
    assert refusal(d).startswith(f"{d / 'model.json'}: error: damaged model file (model.spec.text is not the spec "
                                 f"model.spec.sha256 was taken of")


def test_a_spec_said_normalised_whose_text_is_the_hashed_bytes_is_refused(root, tmp_path):
    # the flag alone turns the hash check off: it must at least not contradict the hash
    d = _copy(root, tmp_path, SINGLE)
    _edit_model(d, lambda m: m["spec"].update(normalised=True))
    assert "model.spec.normalised is true, but model.spec.text is the file's bytes" in refusal(d)


def test_a_spec_text_of_its_own_hash_still_reads(root, tmp_path):
    # spec.sha256 of the text itself (a spec from no file, or written before 2026-11-24)
    d = _copy(root, tmp_path, SINGLE)
    text = "spec x\n" + json.loads((d / "model.json").read_text())["spec"]["text"]
    _edit_model(d, lambda m: m["spec"].update(text=text, sha256=hashlib.sha256(text.encode()).hexdigest()))
    assert read_outputs(d)


def test_a_feature_list_that_is_not_the_encoders_is_refused(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    _edit_model(d, lambda m: m["schema"]["features"][0].update(kind="categorical"))
    assert "model.schema.features[0].kind is not that of the encoder" in refusal(d)


# --- 3. what metrics.json says of the fit and its rows against model.json ------------------------

def test_a_training_log_that_is_not_the_models_fit_log_is_refused(root, tmp_path):
    # the report reads metrics.json's copy: "reproducible": false there had shown "not guaranteed"
    # for a fit the model file records as reproducible, and true the other way round
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: m["training_log"].update(reproducible=False))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: training_log.reproducible (false) differs from "
                          f"training.fit_log.reproducible (true) in {d / 'model.json'} (one was edited: "
                          f"metrics.json records the digest of this model.json)")


def test_training_rows_other_than_the_models_are_refused(root, tmp_path):
    # model.json's data.rows_used is the kept model's training rows; metrics.json's Data section
    # counts them as data_summary.rows_train
    d = _copy(root, tmp_path, SINGLE)
    rows = json.loads((d / "model.json").read_text())["data"]["rows_used"]
    edit(d / "metrics.json", lambda m: m["data_summary"].update(rows_train=rows + 100))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: data_summary.rows_train {rows + 100} differs from "
                          f"data.rows_used {rows} in {d / 'model.json'} (one was edited: metrics.json records "
                          f"the digest of this model.json)")


def test_a_sweep_points_training_log_is_checked_too(root, tmp_path):
    d = _copy(root, tmp_path, SWEEP)
    edit(d / "point-1" / "metrics.json", lambda m: m["training_log"].update(status="optimal!"))
    assert refusal(d).startswith(f"{d / 'point-1' / 'metrics.json'}: error: training_log.status")
