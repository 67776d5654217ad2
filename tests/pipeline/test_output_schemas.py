"""The JSON Schemas of the output files (fairspec/pipeline/schemas/) that `fairspec report`
checks model.json, metrics.json and sweep.json against: valid schemas, the bundled outputs pass,
damage is refused naming its place, and files of older formats still load.

The bundled reports are the starting points (no training needed); each test works on a copy."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from fairspec.errors import ModelFileError
from fairspec.pipeline.outputs import SCHEMAS, read_outputs

KINDS = ("model", "metrics", "sweep")
SINGLE, SWEEP = "compas_rules", "compas_tree_sweep"


def _copy(root: Path, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(root / "reports" / name, tmp_path / name, ignore=shutil.ignore_patterns("*.html")))


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _refusal(out_dir: Path) -> str:
    with pytest.raises(ModelFileError) as caught:
        read_outputs(out_dir)
    return str(caught.value)


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
    _edit(d / "metrics.json", lambda m: m["test"]["gaps"].update(equal_opportunity="0.07"))
    assert _refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file "
                           f"(metrics.test.gaps.equal_opportunity is a str)")


def test_a_group_rate_given_as_a_list_is_refused_naming_the_group(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    _edit(d / "metrics.json", lambda m: m["train"]["groups"]["Caucasian"].update(tpr=[0.5]))
    assert _refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file "
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
    _edit(d / "metrics.json", change)
    assert _refusal(d) == f"{d / 'metrics.json'}: error: damaged metrics file ({place})"


def test_a_boolean_sweep_index_is_refused_as_not_an_integer(root, tmp_path):
    d = _copy(root, tmp_path, SWEEP)
    _edit(d / "sweep.json", lambda s: s["points"][0].update(index=False))  # False == 0 in Python
    assert _refusal(d) == f"{d / 'sweep.json'}: error: damaged sweep file (sweep.points[0].index is a bool)"


def test_null_where_a_value_is_required_is_refused_but_accepted_where_the_format_allows_it(root, tmp_path):
    d = _copy(root, tmp_path, SWEEP)
    _edit(d / "sweep.json", lambda s: s["points"][1].update(dir=None))
    assert _refusal(d) == f"{d / 'sweep.json'}: error: damaged sweep file (sweep.points[1].dir is null)"
    metrics = Draft202012Validator(SCHEMAS["metrics"])
    doc = json.loads((root / "reports" / SINGLE / "metrics.json").read_text())
    assert metrics.is_valid({**doc, "test": None, "timing": None})
    assert not metrics.is_valid({**doc, "train": None})


@pytest.mark.parametrize("kind, key", [(kind, key) for kind in KINDS for key in SCHEMAS[kind]["required"]])
def test_a_missing_top_level_key_is_refused_naming_it(root, tmp_path, kind, key):
    d = _copy(root, tmp_path, SWEEP if kind == "sweep" else SINGLE)
    path = d / f"{kind}.json"
    _edit(path, lambda doc: doc.pop(key))
    assert _refusal(d) == f"{path}: error: damaged {kind} file (no {key!r})"


def test_of_two_problems_the_missing_key_is_named_every_time(root, tmp_path):
    d = _copy(root, tmp_path, SINGLE)
    _edit(d / "metrics.json", lambda m: (m.pop("data_summary"), m["test"].update(accuracy="high")))
    messages = {_refusal(d) for _ in range(3)}
    assert messages == {f"{d / 'metrics.json'}: error: damaged metrics file (no 'data_summary')"}


# --- older files still load ----------------------------------------------------------------------

@pytest.mark.parametrize("name", [SINGLE, SWEEP])
def test_files_written_before_metrics_and_sweep_had_a_format_still_load(root, tmp_path, name):
    # as in test_output_files: no format, format version or model digest; and none of the
    # metrics keys that are optional (evaluation, timing, training log), nor keys fairspec
    # does not know (the schemas allow them)
    d = _copy(root, tmp_path, name)
    for path in [d / "sweep.json", *d.rglob("metrics.json")]:
        if path.exists():
            _edit(path, lambda doc: [doc.pop(k, None) for k in ("format", "format_version", "model_sha256",
                                                                 "evaluation", "timing", "training_log")])
            _edit(path, lambda doc: doc.update(written_by="an older fairspec"))
    assert len(read_outputs(d)) == (1 if name == SINGLE else 3)
