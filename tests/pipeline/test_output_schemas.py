"""The JSON Schemas of the output files (fairspec/pipeline/schemas/) that `fairspec report`
checks model.json, metrics.json and sweep.json against: valid schemas, the bundled outputs pass,
damage is refused naming its place, and a metrics or sweep file without a format is refused.

The bundled reports are the starting points (no training needed); each test works on a copy."""
from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from fairspec.errors import ModelFileError
from fairspec.pipeline.outputs import SCHEMAS, model_digest, read_outputs
from fairspec.report import build_context, render_report
from tests.helpers_outputs import edit, refusal
from fairspec.cli import main
import hashlib

KINDS = ("model", "metrics", "sweep")
SINGLE, SWEEP = "compas_rules", "compas_tree_sweep"


def _copy(root: Path, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(root / "reports" / name, tmp_path / name, ignore=shutil.ignore_patterns("*.html")))


def _refs(node):
    if isinstance(node, dict):
        yield from ([node["$ref"]] if "$ref" in node else [])
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


# --- the schema files ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_each_schema_is_a_valid_draft_2020_12_schema_needing_no_network(kind):
    schema = SCHEMAS[kind]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    # every reference is inside the file itself: loading them never fetches anything
    assert all(ref.startswith("#/") for ref in _refs(schema)), list(_refs(schema))


def test_the_schemas_name_the_required_top_level_keys_of_each_kind():
    assert SCHEMAS["model"]["required"] == ["spec", "data", "schema", "preprocessing", "fairness", "model",
                                            "training"]
    assert SCHEMAS["metrics"]["required"] == ["train", "test", "fairness", "data_summary"]
    assert SCHEMAS["sweep"]["required"] == ["points"]


# --- the bundled outputs pass -------------------------------------------------------------------

def test_every_bundled_output_file_is_valid_and_every_bundled_run_is_read(root):
    files = sorted(p for name in ("model.json", "metrics.json", "sweep.json") for p in (root / "reports").rglob(name))
    assert {p.name for p in files} == {"model.json", "metrics.json", "sweep.json"}
    for path in files:
        validator = Draft202012Validator(SCHEMAS[path.stem])
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(json.loads(path.read_text()))]
        assert errors == [], f"{path}: {errors}"
    runs = sorted(p.parent for p in (root / "reports").glob("*/report.html"))
    assert runs and all(read_outputs(run) for run in runs)


# --- damage is refused, naming the place ----------------------------------------------------------

def test_a_gap_given_as_a_string_is_refused_naming_it(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: m["test"]["gaps"].update(equal_opportunity="0.07"))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file "
                          f"(metrics.test.gaps.equal_opportunity is a str)")


def test_a_group_rate_given_as_a_list_is_refused_naming_the_group(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: m["train"]["groups"]["Caucasian"].update(tpr=[0.5]))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file "
                          f"(metrics.train.groups.Caucasian.tpr is a list)")


@pytest.mark.parametrize("change, place", [
    # each of these reached the report and stopped it with an internal error
    (lambda m: m["test"]["groups"]["Caucasian"].update(count="x"), "metrics.test.groups.Caucasian.count is a str"),
    (lambda m: m["data_summary"]["groups"]["Caucasian"].update(count=None),
     "metrics.data_summary.groups.Caucasian.count is null"),
    (lambda m: m["training_log"].update(mip_gap=[]), "metrics.training_log.mip_gap is a list"),
    (lambda m: m["training_log"].update(seconds="x"), "metrics.training_log.seconds is a str"),
    (lambda m: m["training_log"].update(cut_by_clock=-1), "metrics.training_log.cut_by_clock is a int"),
])
def test_damage_in_the_fields_the_report_computes_with_is_refused(root, tmp_path, change, place):
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", change)
    assert refusal(d) == f"{d / 'metrics.json'}: error: damaged metrics file ({place})"


def test_a_boolean_sweep_index_is_refused_as_not_an_integer(root, tmp_path):
    d = _copy(root, tmp_path, SWEEP)
    edit(d / "sweep.json", lambda s: s["points"][0].update(index=False))  # False == 0 in Python
    assert refusal(d) == f"{d / 'sweep.json'}: error: damaged sweep file (sweep.points[0].index is a bool)"


def test_null_where_a_value_is_required_is_refused_but_accepted_where_the_format_allows_it(root, tmp_path):
    d = _copy(root, tmp_path, SWEEP)
    edit(d / "sweep.json", lambda s: s["points"][1].update(dir=None))
    assert refusal(d) == f"{d / 'sweep.json'}: error: damaged sweep file (sweep.points[1].dir is null)"
    metrics = Draft202012Validator(SCHEMAS["metrics"])
    doc = json.loads((root / "reports" / SINGLE / "metrics.json").read_text())
    assert metrics.is_valid({**doc, "test": None, "timing": None})
    assert not metrics.is_valid({**doc, "train": None})


@pytest.mark.parametrize("kind, key", [(kind, key) for kind in KINDS for key in SCHEMAS[kind]["required"]])
def test_a_missing_top_level_key_is_refused_naming_it(root, tmp_path, kind, key):
    d = _copy(root, tmp_path, SWEEP if kind == "sweep" else SINGLE)
    path = d / f"{kind}.json"
    edit(path, lambda doc: doc.pop(key))
    assert refusal(d) == f"{path}: error: damaged {kind} file (no {key!r})"


def test_of_two_problems_the_missing_key_is_named_every_time(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: (m.pop("data_summary"), m["test"].update(accuracy="high")))
    messages = {refusal(d) for _ in range(3)}
    assert messages == {f"{d / 'metrics.json'}: error: damaged metrics file (no 'data_summary')"}


# --- every value replaced by one of another type: rendered, or refused naming file and place ------
#
# `fairspec report` must never stop with an internal error (exit 70) on a hand-edited file, nor
# show what the file does not say: each case either renders or is a ModelFileError (exit 1) of one
# line naming the file and, for metrics.json and sweep.json, the place.  1e999 reads as Infinity
# in Python; 10 ** 400 is written as its 401 digits.

WRONG = {"a string": "x", "a number": 1.5, "null": None, "a list": [], "an object": {}, "true": True}
#: and in place of a number: numbers JSON has not, or a float cannot hold
NOT_NUMBERS = {"NaN": math.nan, "Infinity": math.inf, "an integer beyond a float": 10 ** 400}


def _of_another_type(value) -> dict:
    """The values of ``WRONG`` (and of ``NOT_NUMBERS`` in place of a number) of another JSON type."""
    def json_type(v):
        return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v)
    wrong = {label: v for label, v in WRONG.items() if json_type(v) != json_type(value)}
    return {**wrong, **NOT_NUMBERS} if json_type(value) == "number" else wrong


def _places(node, steps=()):
    """The places of a JSON document: each key of each object and the first item of each list
    (a list's items share one shape); of objects side by side with the same keys (two groups'
    rates) only the first, as the others would repeat its cases."""
    if isinstance(node, list):
        items = list(enumerate(node))[:1]
    elif isinstance(node, dict):
        items, shapes = [], set()
        for key, value in node.items():
            shape = tuple(value) if isinstance(value, dict) else None
            if shape is None or shape not in shapes:
                items.append((key, value))
                shapes.add(shape)
    else:
        items = []
    for key, value in items:
        yield (*steps, key)
        yield from _places(value, (*steps, key))


def _put(doc, steps, value):
    doc = copy.deepcopy(doc)
    node = doc
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value
    return doc


@pytest.mark.slow
@pytest.mark.parametrize("run, name", [("compas_baseline", "metrics.json"), ("compas_baseline", "model.json"),
                                       (SWEEP, "sweep.json")])
def test_every_value_of_another_type_is_rendered_or_refused_naming_file_and_place(root, tmp_path, run, name):
    d = _copy(root, tmp_path, run)
    path, metrics_path = d / name, d / "metrics.json"
    original = json.loads(path.read_text())
    metrics = json.loads(metrics_path.read_text()) if metrics_path.exists() else None
    # the estimator's numbers (a tree's thousands) are read by predict, not by the report
    places = [steps for steps in _places(original) if steps[:2] != ("model", "estimator")]
    assert len(places) > 10
    failures = []
    for steps in places:
        here = original
        for step in steps:
            here = here[step]
        for label, value in _of_another_type(here).items():
            doc = _put(original, steps, value)
            path.write_text(json.dumps(doc))
            if name == "model.json":  # as if both files had been edited: the digest still ties them
                metrics_path.write_text(json.dumps({**metrics, "model_sha256": model_digest(doc)}))
            try:
                points = read_outputs(d)
            except ModelFileError as exc:
                message = str(exc)
                files = (path,) if name != "model.json" else (path, metrics_path)  # a mismatch names metrics.json
                # a key, or its first word ("format" for format_version)
                named = [word for step in steps if isinstance(step, str) for word in (step, step.split("_")[0])]
                if ("\n" in message or not message.startswith(tuple(f"{f}: error: " for f in files))
                        or (name != "model.json" and not any(step in message for step in named))):
                    failures.append((steps, label, message))
                continue
            except Exception as exc:  # noqa: BLE001 - what the command turns into exit 70
                failures.append((steps, label, f"{type(exc).__name__}: {exc}"))
                continue
            try:
                render_report(build_context(*points[0], sweep=points if len(points) > 1 else None))
            except Exception as exc:  # noqa: BLE001
                failures.append((steps, label, f"rendering: {type(exc).__name__}: {exc}"))
    assert failures == []


@pytest.mark.parametrize("literal, problem", [
    ("NaN", "is NaN"), ("Infinity", "is out of range"), ("-Infinity", "is out of range"),
    ("1e999", "is out of range"), ("1" + "0" * 400, "is out of range"), ("9" * 5000, "is out of range"),
], ids=["NaN", "Infinity", "-Infinity", "1e999", "10**400", "5000 digits"])
def test_numbers_json_has_not_are_refused_naming_their_place(root, tmp_path, literal, problem):
    # Python's reader takes NaN, Infinity and 1e999 (as Infinity), and an integer of 5000 digits
    # stopped it with a ValueError that is no JSON error; fairspec writes none of them
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: m["data_summary"].update(rows="@"))
    (d / "metrics.json").write_text((d / "metrics.json").read_text().replace('"@"', literal))
    assert refusal(d) == f"{d / 'metrics.json'}: error: damaged metrics file (metrics.data_summary.rows {problem})"


def test_a_number_json_has_not_is_refused_under_a_key_the_schema_does_not_name(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "model.json", lambda m: m["training"]["fit_log"].update(lp_bound=math.inf))
    assert refusal(d) == (f"{d / 'model.json'}: error: damaged model file "
                          f"(model.training.fit_log.lp_bound is out of range)")


@pytest.mark.parametrize("kind, change, place", [
    # each of these stopped the report with an internal error (exit 70)
    ("metrics", lambda m: m["data_summary"]["features"].__setitem__(0, ["age"]),
     "metrics.data_summary.features[0] is a list"),
    ("model", lambda m: m["schema"]["features"][0].update(name={"age": 1}), "model.schema.features[0].name is a dict"),
    ("metrics", lambda m: m["train"]["groups"]["Caucasian"].update(tpr="0.5x"),
     "metrics.train.groups.Caucasian.tpr is a str"),
    # and these rendered what the file does not say: 3694.5 rows as "3,694", a rate of true as 1.000
    ("metrics", lambda m: m["data_summary"].update(rows_train=3694.5), "metrics.data_summary.rows_train is a float"),
    ("metrics", lambda m: m["test"]["groups"]["Caucasian"].update(fpr=True), "metrics.test.groups.Caucasian.fpr is a bool"),
    ("metrics", lambda m: m["test"].update(accuracy=1.5), "metrics.test.accuracy: 1.5 is greater than the maximum of 1"),
], ids=["list feature name", "object column name", "string rate", "fractional count", "boolean rate", "rate above 1"])
def test_values_the_report_would_crash_on_or_misshow_are_refused_naming_them(root, tmp_path, kind, change, place):
    d = _copy(root, tmp_path, SINGLE)
    if kind == "model":  # keep the digest: only the shape is under test
        edit(d / "model.json", change)
        model = json.loads((d / "model.json").read_text())
        edit(d / "metrics.json", lambda m: m.update(model_sha256=model_digest(model)))
    else:
        edit(d / "metrics.json", change)
    assert refusal(d) == f"{d / f'{kind}.json'}: error: damaged {kind} file ({place})"


# --- metrics.json of the current format records its model -----------------------------------------

def test_a_metrics_file_with_a_format_but_no_model_digest_is_refused(root, tmp_path):
    # it was taken for a file written before metrics.json had a format, and compared with the
    # model field by field; fairspec has written the digest in every file with a format
    for name, metrics in ((SINGLE, "metrics.json"), (SWEEP, "point-1/metrics.json")):
        d = _copy(root, tmp_path, name)
        edit(d / metrics, lambda m: m.pop("model_sha256"))
        assert refusal(d) == f"{d / metrics}: error: damaged metrics file (no 'model_sha256')"
    validator = Draft202012Validator(SCHEMAS["metrics"])
    doc = json.loads((root / "reports" / SINGLE / "metrics.json").read_text())
    assert validator.is_valid(doc)
    assert not validator.is_valid({k: v for k, v in doc.items() if k != "model_sha256"})
    assert validator.is_valid({k: v for k, v in doc.items() if k not in ("model_sha256", "format", "format_version")})


def test_a_model_digest_that_is_no_sha256_is_refused_as_damage(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    edit(d / "metrics.json", lambda m: m.update(model_sha256="see model.json"))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file "
                          f"(metrics.model_sha256: 'see model.json' does not match '^[0-9a-f]{{64}}$')")


# --- metrics and sweep files without a format are refused ----------------------------------------

@pytest.mark.parametrize("name", [SINGLE, SWEEP])
def test_metrics_and_sweep_files_without_a_format_are_refused_naming_the_file(root, tmp_path, name):
    # as in test_output_files: no format, format version or model digest, as files written
    # before metrics.json and sweep.json had a format; nor the optional metrics keys (evaluation,
    # timing, training log), with a key fairspec does not know.  They had been read on their
    # shape alone, without the digest that ties metrics.json to its model.json.
    original = _copy(root, tmp_path / "original", name)
    paths = [p.relative_to(original) for p in [original / "sweep.json", *sorted(original.rglob("metrics.json"))]
             if p.exists()]
    assert len(paths) == (1 if name == SINGLE else 4)
    for i, rel in enumerate(paths):
        d = _copy(root, tmp_path / str(i), name)
        edit(d / rel, lambda doc: [doc.pop(k, None) for k in ("format", "format_version", "model_sha256",
                                                                "evaluation", "timing", "training_log")])
        edit(d / rel, lambda doc: doc.update(written_by="an older fairspec"))
        kind = "sweep" if rel.name == "sweep.json" else "metrics"
        assert refusal(d).startswith(f"{d / rel}: error: damaged {kind} file (no 'format'; every {kind} file "
                                     f"fairspec writes has one")


def _edit_model(d: Path, change) -> None:
    """Edit d/model.json and record its new digest in d/metrics.json."""
    edit(d / "model.json", change)
    model = json.loads((d / "model.json").read_text())
    edit(d / "metrics.json", lambda m: m.update(model_sha256=model_digest(model)))


@pytest.mark.parametrize("name", ["adult_tree", "adult_tree_depths", "compas_baseline", "compas_rules", "compas_tree_sweep",
                                  "german_logistic"])
def test_every_bundled_run_still_reads(root, tmp_path, name):
    assert read_outputs(_copy(root, tmp_path, name))


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
