"""Write the results of a run (model.json, metrics.json, report.html) and read them back.

Everything is computed and rendered in memory first; then every file is written under a
temporary name and all are renamed into place together (:class:`~fairspec.pipeline.files.FileSet`),
so a failure part-way leaves the previous outputs as they were, never a new model beside an
old report.  The same step removes what an earlier run of the other layout left (a sweep's
``sweep.json`` and ``point-<i>/`` after a single run, a single run's ``model.json`` after a
sweep, points beyond a shorter sweep): readers take whatever is in the directory as one run.

Reading back checks every document's format and shape, and that model.json and metrics.json
come from the same run: metrics.json records the SHA-256 of the model it measured.
"""
from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from fairspec.errors import ModelFileError
from fairspec.pipeline.artifact import FORMAT as MODEL_FORMAT, FORMAT_VERSION as MODEL_FORMAT_VERSION
from fairspec.pipeline.files import FileSet, cannot_write, check_writable_dir, dumps
from fairspec.pipeline.train import TrainingResult
from fairspec.report import build_context, render_report

METRICS_FORMAT = "fairspec-metrics"
SWEEP_FORMAT = "fairspec-sweep"
#: of metrics.json and sweep.json (model.json has its own, in artifact.py)
FORMAT_VERSION = 1
#: the only names fairspec writes in an output directory (and in its point-<i>/ directories)
OWN_FILES = ("model.json", "metrics.json", "report.html", "sweep.json")
_POINT_DIR = re.compile(r"point-\d+")


def model_digest(model_doc: dict) -> str:
    """SHA-256 of a model document's canonical text, as written to model.json."""
    return hashlib.sha256(dumps(model_doc).encode("utf-8")).hexdigest()


def _stamped(model_doc: dict, metrics_doc: dict) -> dict:
    # The digest ties metrics.json to its model.json: a report drawn from one run's model and
    # another run's metrics would contradict itself and nothing in it would show it.
    return {**metrics_doc, "format": METRICS_FORMAT, "format_version": FORMAT_VERSION,
            "model_sha256": model_digest(model_doc)}


def _sweep_document(points: list[tuple[dict, dict]]) -> dict:
    first = points[0][0]["fairness"] or {}
    rows = []
    for i, (model_doc, metrics_doc) in enumerate(points):
        f = metrics_doc["fairness"]
        rows.append({"index": i, "bound": f["bound"], "penalty": f["penalty"], "dir": f"point-{i}",
                     "test_accuracy": (metrics_doc["test"] or {}).get("accuracy"),
                     "achieved_train": f["achieved_train"], "achieved_test": f["achieved_test"],
                     "met_test": f["met_test"], "interval_test": f.get("interval_test")})
    form = "bound" if first.get("bound") is not None else "penalty"
    return {"format": SWEEP_FORMAT, "format_version": FORMAT_VERSION,
            "criterion": first.get("criterion"), "form": form, "points": rows}


def output_names(n_points: int) -> list[str]:
    """The relative paths a run of ``n_points`` fairness points writes."""
    if n_points == 1:
        return ["model.json", "metrics.json", "report.html"]
    return [f"point-{i}/{name}" for i in range(n_points) for name in ("model.json", "metrics.json")] + \
        ["sweep.json", "report.html"]


def check_output_dir(out_dir: Path, n_points: int) -> None:
    """Refuse, before training, an output directory the outputs could not be written to."""
    check_writable_dir(out_dir, output_names(n_points))


def render_outputs(points: list[tuple[dict, dict]]) -> dict[str, str]:
    """Relative path → file text for one run (one point, or a sweep)."""
    points = [(m, _stamped(m, d)) for m, d in points]
    files: dict[str, str] = {}
    if len(points) == 1:
        model_doc, metrics_doc = points[0]
        files["model.json"] = dumps(model_doc)
        files["metrics.json"] = dumps(metrics_doc)
        files["report.html"] = render_report(build_context(model_doc, metrics_doc))
        return files
    for i, (model_doc, metrics_doc) in enumerate(points):
        files[f"point-{i}/model.json"] = dumps(model_doc)
        files[f"point-{i}/metrics.json"] = dumps(metrics_doc)
    files["sweep.json"] = dumps(_sweep_document(points))
    files["report.html"] = render_report(build_context(points[0][0], points[0][1], sweep=points))
    return files


def _stale(out_dir: Path, files: dict[str, str]) -> list[tuple[Path, bool]]:
    """(path, is a directory) of what an earlier run left in ``out_dir`` that this run does not
    rewrite.  Only fairspec's own file names, and a point directory only when nothing else is
    in it: anything a user put there stays."""
    if not out_dir.is_dir():
        return []
    stale = [(out_dir / name, False) for name in OWN_FILES if name not in files and (out_dir / name).is_file()]
    kept_dirs = {rel.split("/")[0] for rel in files if "/" in rel}
    for entry in sorted(out_dir.iterdir()):
        if not _POINT_DIR.fullmatch(entry.name) or entry.name in kept_dirs or entry.is_symlink() or not entry.is_dir():
            continue
        inside = list(entry.iterdir())
        if all(p.name in OWN_FILES and p.is_file() and not p.is_symlink() for p in inside):
            stale += [(p, False) for p in inside] + [(entry, True)]
    return stale


def write_outputs(result: TrainingResult, out_dir: Path) -> list[Path]:
    """Write every file of ``result`` under ``out_dir``; returns the paths written."""
    out_dir = Path(out_dir)
    files = render_outputs([(p.model_doc, p.metrics_doc) for p in result.points])
    try:
        check_writable_dir(out_dir, list(files))
        with FileSet() as fs:
            # The report is renamed into place last: it is what a reviewer opens, and it should
            # never describe a model file that is not there yet.
            for rel in sorted(files, key=lambda r: r.endswith("report.html")):
                fs.add_text(out_dir / rel, files[rel])
            for path, is_dir in _stale(out_dir, files):
                fs.remove(path, rmdir_after=is_dir)
            return fs.commit()
    except OSError as exc:  # FileSet reports its own; this is a directory that could not be listed
        raise cannot_write(exc.filename or out_dir, exc) from None


# --- reading back ---------------------------------------------------------------------------

#: JSON Schemas (Draft 2020-12) of what the report reads, one per kind of document; they are
#: published in fairspec/pipeline/schemas/ and describe the formats in docs/ARTIFACTS.md.
#: Keys they do not name are allowed, so older files keep loading.
SCHEMAS = {kind: json.loads(resources.files("fairspec.pipeline").joinpath(f"schemas/{kind}.schema.json")
                            .read_text(encoding="utf-8"))
           for kind in ("model", "metrics", "sweep")}
_VALIDATORS = {kind: Draft202012Validator(schema) for kind, schema in SCHEMAS.items()}
_KINDS = {MODEL_FORMAT: "model", METRICS_FORMAT: "metrics", SWEEP_FORMAT: "sweep"}


def _shape_problem(error: ValidationError, kind: str) -> str:
    """What ``error`` says is wrong, naming its place in the document (``metrics.test.gaps``)."""
    if error.validator == "required":
        return f"no {next(key for key in error.validator_value if key not in error.instance)!r}"
    where = kind + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in error.absolute_path)
    if error.validator == "type":
        return f"{where} is {'null' if error.instance is None else 'a ' + type(error.instance).__name__}"
    return f"{where}: {error.message}"


def _kind_of(doc) -> str | None:
    """Which fairspec document ``doc`` looks like, by its format or (older files) its keys."""
    if not isinstance(doc, dict):
        return None
    if doc.get("format") is not None:
        fmt = doc.get("format")
        return _KINDS.get(fmt) if isinstance(fmt, str) else None  # a list or object is no format (and unhashable)
    if {"train", "fairness"} <= doc.keys():
        return "metrics"
    if "points" in doc:
        return "sweep"
    return None


def _check_document(doc, path: Path, kind: str, version: int, legacy: bool = False) -> dict:
    """``doc`` if it is a ``kind`` document (see ``_KINDS``) this fairspec reads, of the shape
    ``SCHEMAS[kind]`` gives; ``legacy``: files written before that kind had a ``format`` field
    are accepted on their shape."""
    found = _kind_of(doc)
    if found != kind or (doc.get("format") is None and not legacy):
        what = f" (it is a {found} file)" if found else "" if isinstance(doc, dict) else " (not a JSON object)"
        raise ModelFileError(f"{path}: error: not a fairspec {kind} file{what}")
    if doc.get("format") is not None and doc.get("format_version") != version:
        raise ModelFileError(f"{path}: error: {kind} file format {doc.get('format_version')!r} is not supported "
                             f"(this fairspec reads format {version})")
    # best_match: the shallowest problem (a missing top-level key before a wrong value inside
    # another), the same one for the same document every time
    error = best_match(_VALIDATORS[kind].iter_errors(doc))
    if error is not None:
        raise ModelFileError(f"{path}: error: damaged {kind} file ({_shape_problem(error, kind)})")
    return doc


def _load(path: Path, out_dir: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(f"{path}: error: not found "
                             f"(is {out_dir} the output directory of a fairspec run?)") from None
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: error: not valid JSON (not UTF-8 text)") from None
    except OSError as exc:
        raise ModelFileError(f"{path}: error: cannot read ({exc.strerror or exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}: error: not valid JSON ({exc})") from None
    except RecursionError:  # the decoder recurses once per nesting level
        raise ModelFileError(f"{path}: error: not a fairspec file (JSON nested too deeply)") from None


def _same(a, b) -> bool:
    return sorted(map(str, a or [])) == sorted(map(str, b or []))


def _check_same_run(model_doc: dict, metrics_doc: dict, model_path: Path, metrics_path: Path) -> None:
    recorded = metrics_doc.get("model_sha256")
    if recorded is not None:
        if recorded != model_digest(model_doc):
            raise ModelFileError(f"{metrics_path}: error: these metrics were measured on another model than "
                                 f"{model_path} (the two files are from different runs)")
        return
    # metrics.json written before it recorded its model: compare what both files say
    f, s = metrics_doc["fairness"], metrics_doc["data_summary"]
    model_f = model_doc["fairness"] or {}
    target = (model_doc["schema"].get("target") or {})
    checks = [("fairness criterion", model_f.get("criterion"), f.get("criterion")),
              ("fairness bound", model_f.get("bound"), f.get("bound")),
              ("fairness penalty", model_f.get("penalty"), f.get("penalty"))]
    if "target" in s:
        checks.append(("target", target.get("name"), s.get("target")))
    if "positive" in s:
        checks.append(("positive class", target.get("positive"), s.get("positive")))
    for what, a, b in checks:
        if a != b:
            raise ModelFileError(f"{metrics_path}: error: {what} {b!r} differs from {a!r} in {model_path} "
                                 f"(the two files are from different runs)")
    names = [feature.get("name") for feature in model_doc["schema"].get("features") or []]
    for what, a, b in (("features", names, s.get("features")),
                       ("protected columns", model_doc["schema"].get("protected"), s.get("protected"))):
        if b is not None and a is not None and not _same(a, b):
            raise ModelFileError(f"{metrics_path}: error: {what} differ from those in {model_path} "
                                 f"(the two files are from different runs)")


def _read_point(out_dir: Path, run_dir: Path) -> tuple[dict, dict]:
    model_path, metrics_path = run_dir / "model.json", run_dir / "metrics.json"
    model_doc = _check_document(_load(model_path, out_dir), model_path, "model", MODEL_FORMAT_VERSION)
    metrics_doc = _check_document(_load(metrics_path, out_dir), metrics_path, "metrics", FORMAT_VERSION,
                                  legacy=True)
    _check_same_run(model_doc, metrics_doc, model_path, metrics_path)
    return model_doc, metrics_doc


def read_outputs(out_dir: Path) -> list[tuple[dict, dict]]:
    """The (model, metrics) documents of a run directory, single or sweep.

    Raises :class:`ModelFileError` naming the file when a document is not the fairspec file
    its name says, is damaged, or belongs to another run than the files beside it.
    """
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        why = "not found" if not out_dir.exists() else "not a directory (give the output directory of a run)"
        raise ModelFileError(f"{out_dir}: error: {why}")
    sweep_path = out_dir / "sweep.json"
    if not sweep_path.is_file():
        return [_read_point(out_dir, out_dir)]
    sweep = _check_document(_load(sweep_path, out_dir), sweep_path, "sweep", FORMAT_VERSION, legacy=True)
    if not sweep["points"]:
        raise ModelFileError(f"{sweep_path}: error: damaged sweep file (no points)")
    root = out_dir.resolve()
    points = []
    for i, row in enumerate(sweep["points"]):
        # the report names point i "point-<i>"; and a directory named by the file must not
        # lead out of out_dir (sweep.json is data, not a list of places to read)
        if row.get("dir") != f"point-{i}":
            raise ModelFileError(f"{sweep_path}: error: damaged sweep file (point {i} is in "
                                 f"{row.get('dir')!r}, not in 'point-{i}')")
        if row.get("index") != i:
            raise ModelFileError(f"{sweep_path}: error: damaged sweep file (point {i} has index {row.get('index')!r})")
        run_dir = out_dir / f"point-{i}"
        if not run_dir.resolve().is_relative_to(root):
            raise ModelFileError(f"{run_dir}: error: leads outside {out_dir}")
        model_doc, metrics_doc = _read_point(out_dir, run_dir)
        f = metrics_doc["fairness"]
        for key in ("bound", "penalty", "achieved_train", "achieved_test"):
            if key in row and row[key] != f.get(key):
                raise ModelFileError(f"{sweep_path}: error: point {i}: {key} {row[key]!r} differs from "
                                     f"{f.get(key)!r} in {run_dir / 'metrics.json'} "
                                     f"(the files are from different runs)")
        points.append((model_doc, metrics_doc))
    first = points[0][0]
    for i, (model_doc, _) in enumerate(points[1:], start=1):
        for key in ("spec", "data"):
            if model_doc[key].get("sha256") != first[key].get("sha256"):
                raise ModelFileError(f"{out_dir / f'point-{i}' / 'model.json'}: error: trained from another {key} "
                                     f"than {out_dir / 'point-0' / 'model.json'} (the points are from different runs)")
    return points


def rerender_report(out_dir: Path) -> Path:
    """Render ``out_dir/report.html`` again from the JSON files already there."""
    points = read_outputs(out_dir)
    if len(points) == 1:
        html = render_report(build_context(*points[0]))
    else:
        html = render_report(build_context(points[0][0], points[0][1], sweep=points))
    path = Path(out_dir) / "report.html"
    with FileSet() as fs:
        fs.add_text(path, html)
        fs.commit()
    return path

