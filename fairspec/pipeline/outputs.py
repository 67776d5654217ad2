"""Write the results of a run (model.json, metrics.json, report.html) and read them back.

Everything is computed and rendered in memory first; then every file is written under a
temporary name and all are renamed into place together (:class:`~fairspec.pipeline.files.FileSet`),
so a failure part-way leaves the previous outputs as they were, never a new model beside an
old report.  The same step removes what an earlier run of the other layout left (a sweep's
``sweep.json`` and ``point-<i>/`` after a single run, a single run's ``model.json`` after a
sweep, points beyond a shorter sweep): readers take whatever is in the directory as one run.

Reading back checks every document's format and shape, and that model.json and metrics.json
come from the same run: metrics.json records the SHA-256 of the model it measured.  It also
checks that metrics.json agrees with itself (each block's gaps are what its per-group rates
give, and the fairness block is what :func:`fairspec.metrics.fairness_summary` gives for the
blocks, bound and criterion beside it)
and that sweep.json agrees with each point's metrics.json: a hand-edited gap or verdict is
refused, never shown.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from importlib import resources
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from fairspec.errors import ModelFileError
from fairspec.metrics.groups import GAP_RATES, MET_TOLERANCE, fairness_summary, gaps_from_rates
from fairspec.pipeline.audit_checks import disparity_problem, reference_problem
from fairspec.models.model_file import is_integer
from fairspec.registry.criteria import make_criterion
from fairspec.pipeline.artifact import (FORMAT as MODEL_FORMAT, FORMAT_VERSION as MODEL_FORMAT_VERSION, LoadedModel,
                                       without_timings)
from fairspec.pipeline.files import (FileSet, OutputError, cannot_write, check_writable_dir, directory_lock, dumps,
                                     json_place, number_problem, read_json)
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
    return _digest(dumps(model_doc))


def _digest(text: str) -> str:
    """SHA-256 of ``text`` written in UTF-8, as sha256sum prints it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stamped(model_text: str, metrics_doc: dict) -> dict:
    # The digest ties metrics.json to its model.json: a report drawn from one run's model and
    # another run's metrics would contradict itself and nothing in it would show it.
    return {**metrics_doc, "format": METRICS_FORMAT, "format_version": FORMAT_VERSION,
            "model_sha256": _digest(model_text)}


def _sweep_document(points: list[tuple[dict, dict]], failed: list[dict] = ()) -> dict:
    first = points[0][0]["fairness"] or {}
    places = point_places(len(points), [f["sweep_index"] for f in failed])
    rows = []
    for i, (model_doc, metrics_doc) in enumerate(points):
        f = metrics_doc["fairness"]
        rows.append({"index": i, "sweep_index": places[i], "bound": f["bound"], "penalty": f["penalty"],
                     "dir": f"point-{i}",
                     "test_accuracy": (metrics_doc["test"] or {}).get("accuracy"),
                     "achieved_train": f["achieved_train"], "achieved_test": f["achieved_test"],
                     "met_test": f["met_test"], "interval_test": f.get("interval_test")})
    form = "bound" if first.get("bound") is not None else "penalty"
    return {"format": SWEEP_FORMAT, "format_version": FORMAT_VERSION,
            "criterion": first.get("criterion"), "form": form, "points": rows, "failed": list(failed)}


def point_places(n_points: int, failed_places) -> list[int]:
    """Each written point's place in the spec's list of settings: every setting is a point or
    a failure, so the points take, in order, the places the failed settings leave."""
    gone = set(failed_places)
    return [k for k in range(n_points + len(gone)) if k not in gone]


def failed_entries(result: TrainingResult) -> list[dict]:
    """sweep.json's ``failed``: each sweep setting no usable model came out of, in sweep order,
    with its bound or penalty and the reason (the error the command line printed)."""
    return [{"sweep_index": f.index, "bound": None if f.criterion is None else f.criterion.bound,
             "penalty": None if f.criterion is None else f.criterion.penalty, "reason": f.message}
            for f in result.failed]


def output_names(n_points: int) -> list[str]:
    """The relative paths a run of ``n_points`` fairness points writes."""
    if n_points == 1:
        return ["model.json", "metrics.json", "report.html"]
    return [f"point-{i}/{name}" for i in range(n_points) for name in ("model.json", "metrics.json")] + \
        ["sweep.json", "report.html"]


def check_output_dir(out_dir: Path, n_points: int, inputs: dict[str, Path] | None = None) -> None:
    """Refuse, before training, an output directory the outputs could not be written to, or
    where they would replace a file fairspec did not write (:func:`refuse_foreign_files`);
    ``inputs`` names the run's own files (``{"spec": path, "data": path}``) for the message."""
    names = output_names(n_points)
    check_writable_dir(out_dir, names)
    refuse_foreign_files(Path(out_dir), names, inputs)


def render_outputs(points: list[tuple[dict, dict]], failed: list[dict] = ()) -> dict[str, str]:
    """Relative path → file text for one run (one point, or a sweep); ``failed`` lists the
    sweep settings that gave no model (:func:`failed_entries`), and makes it a sweep's layout
    even when one point is left."""
    # the report is rendered from the documents as the files hold them, so it says what
    # `fairspec report` says from those files: rendered from the documents in memory, it had
    # printed a bound of inf that the files hold as null (found in review)
    texts = []
    for model_doc, metrics_doc in points:
        model_text = dumps(model_doc)
        texts.append((model_text, dumps(_stamped(model_text, metrics_doc))))
    points = [(json.loads(model_text), json.loads(metrics_text)) for model_text, metrics_text in texts]
    failed = json.loads(dumps(list(failed)))
    files: dict[str, str] = {}
    if len(points) == 1 and not failed:
        files["model.json"], files["metrics.json"] = texts[0]
        files["report.html"] = render_report(build_context(*points[0]))
        return files
    for i, (model_text, metrics_text) in enumerate(texts):
        files[f"point-{i}/model.json"] = model_text
        files[f"point-{i}/metrics.json"] = metrics_text
    files["sweep.json"] = dumps(_sweep_document(points, failed))
    files["report.html"] = render_report(build_context(points[0][0], points[0][1], sweep=points, failed=failed))
    return files


#: how a report fairspec wrote begins (report.html.jinja's generator tag, in its first bytes)
_REPORT_MARK = b'<meta name="generator" content="fairspec '


def _written_by_fairspec(path: Path) -> bool:
    """Whether ``path``, named as one of ``OWN_FILES``, is a file fairspec wrote: a JSON
    document of the kind its name says (:func:`_kind_of`), or a report with fairspec's
    generator tag.  A file that only shares the name (a user's notes in ``metrics.json``)
    is not, nor is a link to a file elsewhere."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        if path.suffix == ".html":
            with open(path, "rb") as fh:
                return _REPORT_MARK in fh.read(1024)
        doc = json.loads(path.read_text(encoding="utf-8"))
        if _kind_of(doc) != path.stem:
            return False
        # a file written before the documents carried their format is told by its keys alone
        # (_kind_of): a user's own {"train": ..., "fairness": ...} had been replaced, and a
        # {"points": ...} deleted, as fairspec's (found in review); such a file must also have
        # the shape fairspec's have
        return doc.get("format") is not None or _VALIDATORS[path.stem].is_valid(doc)
    except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not JSON
        return False


def refuse_foreign_files(out_dir: Path, names, inputs: dict[str, Path] | None = None) -> None:
    """Raise :class:`OutputError` when one of ``names`` (relative to ``out_dir``) exists and
    is not a file fairspec wrote (:func:`_written_by_fairspec`).

    An output directory is only fairspec's where fairspec put the files: a spec or data file
    saved as ``model.json`` or ``report.html`` there, or a user's own notes under one of those
    names, would be replaced by the run (the earlier-run clean-up already spares them; the
    files a run rewrites must too).  ``inputs`` maps a role to a path, so the message can say
    that the file in the way is the run's own spec or data."""
    for rel in names:
        path = Path(out_dir) / rel
        if not os.path.lexists(path) or os.path.isdir(path) or _written_by_fairspec(path):
            continue
        what = "a file fairspec did not write"
        for role, source in (inputs or {}).items():
            try:
                if source is not None and os.path.exists(source) and os.path.samefile(path, source):
                    what = f"the run's {role} file"
                    break
            except OSError:
                pass
        raise OutputError(f"{path}: error: {what} is in the way; the run would replace it "
                          f"(move it, or write the outputs to another directory)")


def _stale(out_dir: Path, files: dict[str, str]) -> list[tuple[Path, bool]]:
    """(path, is a directory) of what an earlier run left in ``out_dir`` that this run does not
    rewrite.  Only files fairspec wrote (:func:`_written_by_fairspec`), and a point directory
    only when nothing else is in it: anything a user put there stays."""
    if not out_dir.is_dir():
        return []
    stale = [(out_dir / name, False) for name in OWN_FILES
             if name not in files and _written_by_fairspec(out_dir / name)]
    kept_dirs = {rel.split("/")[0] for rel in files if "/" in rel}
    for name in sorted(kept_dirs):
        # inside a point this run rewrites: `fairspec report DIR/point-0` had left a report of
        # the earlier run's point beside this run's model (found in review)
        entry = out_dir / name
        if entry.is_dir() and not entry.is_symlink():
            stale += [(entry / own, False) for own in OWN_FILES
                      if f"{name}/{own}" not in files and _written_by_fairspec(entry / own)]
    for entry in sorted(out_dir.iterdir()):
        if not _POINT_DIR.fullmatch(entry.name) or entry.name in kept_dirs or entry.is_symlink() or not entry.is_dir():
            continue
        inside = list(entry.iterdir())
        if all(p.name in OWN_FILES and _written_by_fairspec(p) for p in inside):
            stale += [(p, False) for p in inside] + [(entry, True)]
    return stale


def write_outputs(result: TrainingResult, out_dir: Path) -> list[Path]:
    """Write every file of ``result`` under ``out_dir``; returns the paths written."""
    out_dir = Path(out_dir)
    files = render_outputs([(p.model_doc, p.metrics_doc) for p in result.points], failed_entries(result))
    try:
        check_writable_dir(out_dir, list(files))
        refuse_foreign_files(out_dir, list(files))
        with FileSet() as fs:
            # The report is renamed into place last: it is what a reviewer opens, and it should
            # never describe a model file that is not there yet.
            for rel in sorted(files, key=lambda r: r.endswith("report.html")):
                fs.add_text(out_dir / rel, files[rel])
            with directory_lock(out_dir):  # what is stale is decided once no other run is committing
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
    where = json_place(kind, error.absolute_path)
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in error.instance)
        return f"{where} has no {missing!r}" if error.absolute_path else f"no {missing!r}"
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


#: why a document's format matters beyond its kind, for the message refusing one without it
_FORMAT_PURPOSE = {"metrics": ", with the model_sha256 that ties it to the model.json beside it"}


def _read_document(path: Path, out_dir: Path, kind: str, version: int) -> dict:
    """The document in ``path`` if it is a ``kind`` document (see ``_KINDS``) this fairspec
    reads, of the shape ``SCHEMAS[kind]`` gives."""
    doc = read_json(path, kind, f" (is {out_dir} the output directory of a fairspec run?)")
    found = _kind_of(doc)
    if found == kind and doc.get("format") is None:
        # A metrics.json or sweep.json with the keys of one and no format had been read as one
        # written before they had a format, without the digest that ties metrics.json to its
        # model.json: deleting three keys turned that check off (found in review).  Every real
        # such file (before 2026-11-23) sits beside a model.json that predict, and so the
        # report, refuses; what is left to read that way is an edited file.
        raise ModelFileError(f"{path}: error: damaged {kind} file (no 'format'; every {kind} file fairspec "
                             f"writes has one{_FORMAT_PURPOSE.get(kind, '')})")
    if found != kind:
        if found:
            what = f" (it is a {found} file)"
        elif not isinstance(doc, dict):
            what = " (not a JSON object)"
        else:
            what = "" if doc.get("format") is None else f" (its format is {_json(doc['format'])})"
        raise ModelFileError(f"{path}: error: not a fairspec {kind} file{what}")
    version_found = doc.get("format_version")
    # `true` and 1.0 equal 1 in Python, but no fairspec wrote either
    if doc.get("format") is not None and not (is_integer(version_found) and version_found == version):
        raise ModelFileError(f"{path}: error: {kind} file format {doc.get('format_version')!r} is not supported "
                             f"(this fairspec reads format {version})")
    # a number JSON does not have first (the schema would call NaN a float, Infinity too large);
    # then best_match: the shallowest problem (a missing top-level key before a wrong value
    # inside another), the same one for the same document every time
    problem = number_problem(doc, kind)
    if problem is None:
        error = best_match(_VALIDATORS[kind].iter_errors(doc))
        problem = None if error is None else _shape_problem(error, kind)
    if problem is not None:
        raise ModelFileError(f"{path}: error: damaged {kind} file ({problem})")
    return doc


def _same(a, b) -> bool:
    return sorted(map(str, a or [])) == sorted(map(str, b or []))


def _check_same_run(model_doc: dict, metrics_doc: dict, model_path: Path, metrics_path: Path) -> None:
    recorded = metrics_doc.get("model_sha256")
    if recorded is not None and recorded != model_digest(model_doc):
        raise ModelFileError(f"{metrics_path}: error: these metrics were measured on another model than "
                             f"{model_path} (the two files are from different runs)")
    # What both files say must agree.  Without the digest (metrics.json written before it
    # recorded its model) this is all that ties the two; with it, a hand edit of metrics.json
    # would otherwise report a bound, a target or columns the model was not trained with.
    why = ("the two files are from different runs" if recorded is None else
           "one was edited: metrics.json records the digest of this model.json")
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
        if a != b or isinstance(a, bool) != isinstance(b, bool):  # 1 == True in Python, not in the files
            raise ModelFileError(f"{metrics_path}: error: {what} {b!r} differs from {a!r} in {model_path} ({why})")
    rows_used = (model_doc.get("data") or {}).get("rows_used")
    if rows_used is not None and s.get("rows_train") is not None and rows_used != s["rows_train"]:
        raise ModelFileError(f"{metrics_path}: error: data_summary.rows_train {s['rows_train']!r} differs from "
                             f"data.rows_used {rows_used!r} in {model_path} ({why})")
    # metrics.json keeps the fit log with its timings; the model file the same log without them.
    # The report reads the first: an edited status, `reproducible` or `cut_by_clock` there had
    # shown "Reproducible: yes" and dropped the time limit's caveat from the verdict.
    log, model_log = metrics_doc.get("training_log"), (model_doc.get("training") or {}).get("fit_log")
    if isinstance(log, dict) and isinstance(model_log, dict):
        log = without_timings(log)
        for key in sorted(set(log) | set(model_log)):
            if dumps(log.get(key)) != dumps(model_log.get(key)):
                said = {side: _json(doc[key]) if key in doc else "no entry" for side, doc in
                        (("metrics", log), ("model", model_log))}
                raise ModelFileError(f"{metrics_path}: error: training_log.{key} ({said['metrics']}) differs from "
                                     f"training.fit_log.{key} ({said['model']}) in {model_path} ({why})")
    names = [feature.get("name") for feature in model_doc["schema"].get("features") or []]
    for what, a, b in (("features", names, s.get("features")),
                       ("protected columns", model_doc["schema"].get("protected"), s.get("protected"))):
        if b is not None and a is not None and not _same(a, b):
            raise ModelFileError(f"{metrics_path}: error: {what} differ from those in {model_path} ({why})")


def _json(value) -> str:
    """A value as the file spells it (true, null, 0.05)."""
    return json.dumps(value)


def _gap_problem(doc: dict, place: tuple = ()) -> str | None:
    """Where a gap recorded in metrics.json's train or test block is not the gap that block's
    own per-group rates give (``GAP_RATES``: the largest minus the smallest rate over the
    groups that have it; equalized odds the larger of the TPR and FPR gaps), or None.  The
    report shows the rates and the gaps side by side, and the fairness block is checked
    against the gaps: an edited gap would carry its verdict with it.  ABROCA comes from the
    scores, which the file does not hold, and a gap whose rate some group lacks the key of (a
    file older than that rate) is not checked."""
    for split in ("train", "test"):
        block = doc.get(split) or {}
        if "groups" not in block or "gaps" not in block:  # the schema names both, requires neither
            continue
        groups = list(block["groups"].values())
        # the rule the gaps were written by (a restated one could drift from it), over the rates
        # every group records
        rates = {rate: [group[rate] for group in groups] for rate in set().union(*groups)
                 if all(rate in group for group in groups)}
        for name, wanted in gaps_from_rates(rates).items():
            if name not in block["gaps"]:
                continue
            found = block["gaps"][name]
            # Rates and gaps are written with every digit of their float (repr round-trips), so
            # a gap fairspec wrote is recomputed to the last bit; MET_TOLERANCE, the float noise
            # allowed where a verdict is recomputed, leaves room for another summation order and
            # is far below the 4 decimals the report shows: any edit a reader could see is refused.
            if (found is None) != (wanted is None) or (found is not None and abs(found - wanted) > MET_TOLERANCE):
                return (f"{json_place('metrics', (*place, split, 'gaps', name))} is {_json(found)}, but the "
                        f"{' and '.join(GAP_RATES[name])} of the {split} block's groups give {_json(wanted)}")
    return None


def _fairness_problem(doc: dict) -> str | None:
    """Where metrics.json's ``fairness`` block differs from what
    :func:`fairspec.metrics.fairness_summary` gives for the file's own train and test blocks,
    criterion and bound, or None.  The report shows both the block (the verdict card) and the
    blocks (the gap tables), so a hand edit of one would make the page say two things.

    Only the keys present are compared: older files lack ``unmeasured_test`` and
    ``interval_test``, and before ``unmeasured_test`` a test verdict was the gap against the
    bound alone.  A file too old for ``fairness_summary`` to read (a block without a field it
    needs) was checked for its shape only."""
    f = doc["fairness"]
    name = f.get("criterion")
    try:
        criterion = None if name is None else make_criterion(name, bound=f.get("bound"), penalty=f.get("penalty"))
        expected = fairness_summary(criterion, doc["train"], doc["test"])
    except (KeyError, TypeError, ValueError):
        return None
    if "unmeasured_test" not in f and expected["met_test"] is None and expected["unmeasured_test"]:
        gap, bound = expected["achieved_test"], expected["bound"]
        expected["met_test"] = None if gap is None or bound is None else bool(gap <= bound + MET_TOLERANCE)
    intervals = (doc["test"] or {}).get("gap_intervals")
    copied = None if intervals is None or name is None else intervals["gaps"].get(name)
    for key in ("achieved_train", "achieved_test", "unmeasured_test", "met_train", "met_test", "interval_test"):
        found, wanted = f.get(key), expected[key]
        if key not in f or (sorted(found) if key == "unmeasured_test" and isinstance(found, list) else found) == wanted:
            continue
        if key == "interval_test" and expected["unmeasured_test"] and found == copied:
            # written before 2026-11-24, when the interval was copied as it was with groups
            # left out of the test gap (its high end now 1); the report shows what the file says
            continue
        split = key.rsplit("_", 1)[1]
        if key.startswith("met_"):
            given = (f"the {split} gap {_json(expected[f'achieved_{split}'])} and the bound "
                     f"{_json(expected['bound'])}")
            if split == "test" and expected["unmeasured_test"]:
                given += f", with no test rate for {_json(expected['unmeasured_test'])},"
        else:
            given = f"the file's {split} block" if criterion is not None else "no criterion"
        verb = "give" if key.startswith("met_") else "gives"  # "the gap and the bound give"
        return f"fairness.{key} is {_json(found)}, but {given} {verb} {_json(wanted)}"
    return None


def _read_point(out_dir: Path, run_dir: Path) -> tuple[dict, dict]:
    model_path, metrics_path = run_dir / "model.json", run_dir / "metrics.json"
    model_doc = _read_document(model_path, out_dir, "model", MODEL_FORMAT_VERSION)
    # The checks `fairspec predict` makes: the report had shown a model text that was not the
    # model that scores, or a model predict refuses, as the audited model (found in review).
    LoadedModel.from_document(model_doc, str(model_path), numbers_checked=True)  # by _read_document
    problem = _spec_problem(model_doc["spec"]) or _features_problem(model_doc)
    if problem is not None:
        raise ModelFileError(f"{model_path}: error: damaged model file ({problem})")
    metrics_doc = _read_document(metrics_path, out_dir, "metrics", FORMAT_VERSION)
    # the gaps first: the fairness block is checked against them, and an edited gap should be
    # named where it was edited, not as a verdict that no longer matches it
    unconstrained = metrics_doc.get("unconstrained") or {}
    problem = (_gap_problem(metrics_doc) or _gap_problem(unconstrained, ("unconstrained",))
               or _fairness_problem(metrics_doc)
               or disparity_problem(metrics_doc, ((model_doc.get("schema") or {}).get("target") or {}).get("outcome")))
    if problem is not None:
        raise ModelFileError(f"{metrics_path}: error: damaged metrics file ({problem})")
    _check_same_run(model_doc, metrics_doc, model_path, metrics_path)
    problem = reference_problem(model_doc, metrics_doc)
    if problem is not None:
        raise ModelFileError(f"{metrics_path}: error: damaged metrics file ({problem})")
    return model_doc, metrics_doc


def _spec_problem(spec: dict) -> str | None:
    """Where ``model.spec`` says something its own hash denies, or None.

    ``sha256`` is of the spec file's bytes (files before 2026-11-24, without ``normalised``: of
    the text), and ``text`` is those bytes decoded unless ``normalised`` says reading changed
    them; the report shows the text under the hash, and a reviewer who hashes the file takes
    the text for the file's.  A normalised text cannot be hashed back to the file (the report
    says so beside it)."""
    text, recorded = spec.get("text"), spec.get("sha256")
    if not (isinstance(text, str) and isinstance(recorded, str)):
        return None if text is None and recorded is None else "model.spec must have both a text and its sha256"
    own = _digest(text)
    if spec.get("normalised") is True:
        if own == recorded:
            return ("model.spec.normalised is true, but model.spec.text is the file's bytes: its SHA-256 is "
                    "model.spec.sha256")
        return None
    if own != recorded:
        return (f"model.spec.text is not the spec model.spec.sha256 was taken of (the text's SHA-256 is {own}); "
                f"the file was edited after training")
    return None


def _features_problem(model_doc: dict) -> str | None:
    """Where ``model.schema.features`` (the report's feature list, with each one's categories)
    is not the encoder predict reads the columns with (both are written from it), or None."""
    encoder = model_doc["preprocessing"]["encoder"]
    written = [{"name": n, "kind": k, "categories": c}
               for n, k, c in zip(encoder["names"], encoder["kinds"], encoder["categories"])]
    features = model_doc["schema"].get("features")
    if features is None:
        return None
    for i, (found, wanted) in enumerate(zip(features, written)):
        for key in ("name", "kind", "categories"):
            if not isinstance(found, dict) or dumps(found.get(key)) != dumps(wanted[key]):
                where = json_place("model", ("schema", "features", i, key))
                return f"{where} is not that of the encoder that reads the data (preprocessing.encoder)"
    if len(features) != len(written):
        return (f"model.schema.features lists {len(features)} features, the encoder that reads the data "
                f"(preprocessing.encoder) {len(written)}")
    return None


def read_outputs(out_dir: Path) -> list[tuple[dict, dict]]:
    """The (model, metrics) documents of a run directory, single or sweep.

    Raises :class:`ModelFileError` naming the file when a document is not the fairspec file
    its name says, is damaged, or belongs to another run than the files beside it.
    """
    return read_run(out_dir)[0]


def read_run(out_dir: Path) -> tuple[list[tuple[dict, dict]], list[dict] | None]:
    """:func:`read_outputs`, and a sweep's ``failed`` settings (None for a single run)."""
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        why = "not found" if not out_dir.exists() else "not a directory (give the output directory of a run)"
        raise ModelFileError(f"{out_dir}: error: {why}")
    sweep_path = out_dir / "sweep.json"
    if not sweep_path.is_file():
        return [_read_point(out_dir, out_dir)], None
    for name in ("model.json", "metrics.json"):
        # a sweep writes its models in point-<i>/ and removes its own earlier single-run files,
        # so one here is someone else's, which a run leaves in place (README): a report over
        # this directory would describe the sweep beside a file it says nothing about
        if (out_dir / name).exists():
            raise ModelFileError(f"{out_dir / name}: error: this directory holds a sweep (sweep.json, point-<i>/), "
                                 f"whose files are in its point directories; {name} here is not the sweep's: move "
                                 f"it away")
    sweep = _read_document(sweep_path, out_dir, "sweep", FORMAT_VERSION)
    if not sweep["points"]:
        raise ModelFileError(f"{sweep_path}: error: damaged sweep file (no points)")
    root = out_dir.resolve()
    points = []
    for i, row in enumerate(sweep["points"]):
        # the report names point i "point-<i>"; and a directory named by the file must not
        # lead out of out_dir (sweep.json is data, not a list of places to read)
        if row.get("dir") != f"point-{i}":
            raise ModelFileError(f"{sweep_path}: error: damaged sweep file (sweep.points[{i}].dir is "
                                 f"{row.get('dir')!r}, not 'point-{i}')")
        if row.get("index") != i:
            raise ModelFileError(f"{sweep_path}: error: damaged sweep file (sweep.points[{i}].index is "
                                 f"{row.get('index')!r}, not {i})")
        run_dir = out_dir / f"point-{i}"
        if not run_dir.resolve().is_relative_to(root):
            raise ModelFileError(f"{run_dir}: error: leads outside {out_dir}")
        model_doc, metrics_doc = _read_point(out_dir, run_dir)
        # sweep.json copies these from the point's metrics.json (_sweep_document)
        f = metrics_doc["fairness"]
        copied = {key: f.get(key) for key in ("bound", "penalty", "achieved_train", "achieved_test", "met_test",
                                              "interval_test")}
        copied["test_accuracy"] = (metrics_doc["test"] or {}).get("accuracy")
        for key, value in copied.items():
            if key in row and row[key] != value:
                raise ModelFileError(f"{sweep_path}: error: point {i}: {key} {row[key]!r} differs from "
                                     f"{value!r} in {run_dir / 'metrics.json'} "
                                     f"(the files are from different runs, or one was edited)")
        points.append((model_doc, metrics_doc))
    first = points[0][0]
    for i, (model_doc, _) in enumerate(points[1:], start=1):
        for key in ("spec", "data"):
            if model_doc[key].get("sha256") != first[key].get("sha256"):
                raise ModelFileError(f"{out_dir / f'point-{i}' / 'model.json'}: error: trained from another {key} "
                                     f"than {out_dir / 'point-0' / 'model.json'} (the points are from different runs)")
    return points, _failed_settings(sweep, sweep_path, [p[1]["fairness"] for p in points])


def _failed_settings(sweep: dict, path: Path, trained: list[dict]) -> list[dict]:
    """sweep.json's ``failed`` (absent in files written before 2026-11-24: none failed then,
    or nothing was written), checked as the report prints it: each entry a setting of the
    sweep's form (a bound in [0, 1], or a penalty of at least 0) with a reason, no setting
    twice nor also among the points that trained (``trained``: their metrics' fairness
    blocks), and the places in the spec's list those left (the points' ``sweep_index``)."""
    failed = sweep.get("failed", [])
    form = "penalty" if trained and trained[0].get("penalty") is not None else "bound"
    other = "bound" if form == "penalty" else "penalty"

    def setting_ok(f) -> bool:
        value = f.get(form)
        return (isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
                and (form == "penalty" or value <= 1) and f.get(other) is None)

    def damaged(why: str) -> ModelFileError:
        return ModelFileError(f"{path}: error: damaged sweep file (failed: {why})")

    if not isinstance(failed, list):
        raise damaged("must be a list of settings")
    for k, f in enumerate(failed):
        if not (isinstance(f, dict) and isinstance(f.get("reason"), str) and setting_ok(f)
                and isinstance(f.get("sweep_index"), int) and not isinstance(f.get("sweep_index"), bool)):
            raise damaged(f"entry {k} must have a sweep_index, a {form} of this {form} sweep and a reason")
    settings = [f[form] for f in failed] + [t.get(form) for t in trained]
    if len(set(settings)) != len(settings):
        raise damaged(f"a {form} is listed twice, or both as failed and as a point")
    gone = [f["sweep_index"] for f in failed]
    total = len(trained) + len(failed)
    if len(set(gone)) != len(gone) or not all(0 <= g < total for g in gone):
        raise damaged(f"sweep_index must name distinct places 0..{total - 1} of the spec's list")
    places = point_places(len(trained), gone)
    for i, row in enumerate(sweep["points"]):
        if "sweep_index" in row and row["sweep_index"] != places[i]:
            raise damaged(f"point {i} is at sweep_index {row['sweep_index']!r}, but the failed settings leave "
                          f"it place {places[i]}")
    return failed


def rerender_report(out_dir: Path) -> Path:
    """Render ``out_dir/report.html`` again from the JSON files already there."""
    path = Path(out_dir) / "report.html"
    # read and rewrite while no run commits there: read mid-commit, the report could describe
    # files that are being replaced (a missing directory is left for read_run to name)
    with directory_lock(out_dir) if Path(out_dir).is_dir() else contextlib.nullcontext():
        points, failed = read_run(out_dir)
        if failed is None:
            html = render_report(build_context(*points[0]))
        else:
            html = render_report(build_context(points[0][0], points[0][1], sweep=points, failed=failed))
        refuse_foreign_files(Path(out_dir), [path.name])
        with FileSet() as fs:
            fs.add_text(path, html)
            fs.commit()
    return path



def write_report_file(dirs: list[Path], output: Path, gap: str | None = None, tolerance: float | None = None) -> Path:
    """Render one run's report, or several runs compared (:mod:`fairspec.report.compare`), from
    their files into ``output``.  Every run is read and checked as ``fairspec report DIR`` reads
    it; ``output`` is replaced only when it is a report fairspec wrote (or is absent), and is
    written whole or not at all."""
    from fairspec.report.compare import TOLERANCE, build_comparison, render_comparison

    output = Path(output)
    runs = []
    for d in dirs:
        with directory_lock(d) if Path(d).is_dir() else contextlib.nullcontext():
            runs.append((str(d), read_run(Path(d))))
    if len(runs) == 1:
        points, failed = runs[0][1]
        html = render_report(build_context(points[0][0], points[0][1], sweep=points if failed is not None else None,
                                           failed=failed))
    else:
        html = render_comparison(build_comparison([(name, points) for name, (points, _) in runs], gap,
                                                  TOLERANCE if tolerance is None else tolerance))
    if os.path.lexists(output) and not (output.is_file() and not output.is_symlink() and _written_by_fairspec(output)
                                        and output.suffix == ".html"):
        raise OutputError(f"{output}: error: a file fairspec did not write is in the way; the report would replace "
                          f"it (move it, or name another file)")
    with FileSet() as fs:
        fs.add_text(output, html)
        fs.commit()
    return output
