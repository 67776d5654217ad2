"""Write the results of a run (model.json, metrics.json, report.html) and read them back.

Everything is computed and rendered in memory first; only then are the files written, each
atomically, so a failure part-way leaves the previous outputs as they were.
"""
from __future__ import annotations

import json
from pathlib import Path

from fairspec.errors import ModelFileError
from fairspec.files import write_atomic
from fairspec.pipeline.files import dumps
from fairspec.pipeline.train import TrainingResult
from fairspec.report import build_context, render_report


def _sweep_document(points: list[tuple[dict, dict]]) -> dict:
    first = points[0][0]["fairness"] or {}
    rows = []
    for i, (model_doc, metrics_doc) in enumerate(points):
        f = metrics_doc["fairness"]
        rows.append({"index": i, "bound": f["bound"], "penalty": f["penalty"], "dir": f"point-{i}",
                     "test_accuracy": (metrics_doc["test"] or {}).get("accuracy"),
                     "achieved_train": f["achieved_train"], "achieved_test": f["achieved_test"],
                     "met_test": f["met_test"]})
    form = "bound" if first.get("bound") is not None else "penalty"
    return {"criterion": first.get("criterion"), "form": form, "points": rows}


def render_outputs(points: list[tuple[dict, dict]]) -> dict[str, str]:
    """Relative path → file text for one run (one point, or a sweep)."""
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


def write_outputs(result: TrainingResult, out_dir: Path) -> list[Path]:
    """Write every file of ``result`` under ``out_dir``; returns the paths written."""
    files = render_outputs([(p.model_doc, p.metrics_doc) for p in result.points])
    written = []
    # The report goes last: it is what a reviewer opens, and it should never describe a
    # model file that failed to be written.
    for rel in sorted(files, key=lambda r: r.endswith("report.html")):
        path = Path(out_dir) / rel
        write_atomic(path, files[rel])
        written.append(path)
    return written


def read_outputs(out_dir: Path) -> list[tuple[dict, dict]]:
    """The (model, metrics) documents of a run directory, single or sweep."""
    out_dir = Path(out_dir)

    def load(path: Path) -> dict:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelFileError(f"{path}: error: not found (is {out_dir} a fairspec output directory?)") from None
        except json.JSONDecodeError as exc:
            raise ModelFileError(f"{path}: error: not valid JSON ({exc})") from None

    if (out_dir / "sweep.json").is_file():
        sweep = load(out_dir / "sweep.json")
        return [(load(out_dir / p["dir"] / "model.json"), load(out_dir / p["dir"] / "metrics.json"))
                for p in sweep["points"]]
    return [(load(out_dir / "model.json"), load(out_dir / "metrics.json"))]


def rerender_report(out_dir: Path) -> Path:
    """Render ``out_dir/report.html`` again from the JSON files already there."""
    points = read_outputs(out_dir)
    if len(points) == 1:
        html = render_report(build_context(*points[0]))
    else:
        html = render_report(build_context(points[0][0], points[0][1], sweep=points))
    path = Path(out_dir) / "report.html"
    write_atomic(path, html)
    return path
