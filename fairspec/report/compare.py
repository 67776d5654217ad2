"""Runs compared: several runs on the same data and split in one report.

``fairspec report DIR DIR ... -o FILE`` reads each run (a single model or a sweep's points),
refuses runs that were not trained and measured on the same data, rows and split
(:func:`comparability_problem`), and sets every model side by side on one gap: its accuracy
and its gap on the verdict rows, each with its 95 % interval, on one chart
(:func:`fairspec.report.figures.frontier_svg`).  A model is *dominated* when another is at least
as accurate with no larger gap (and better on one); the others form the frontier.

*Less discriminatory alternatives* are what US fair-lending reviewers ask a lender to search
for: models whose accuracy is within a stated tolerance of the most accurate model's and whose
gap is smaller.  The tolerance is the caller's (``--tolerance``, default :data:`TOLERANCE`, one
percentage point of accuracy); the search reads point estimates, and the intervals beside them
say how far each difference is settled by the rows.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from fairspec.errors import RunsNotComparableError, UsageError
from fairspec.metrics.groups import GAP_RATES
from fairspec.report.figures import FrontierPoint, frontier_svg, non_dominated
from fairspec.report.format import UNDEFINED, fmt_count, fmt_gap, fmt_interval, fmt_rate, fmt_rate_interval
from fairspec.report.sections.card import model_sha256
from fairspec.report.sections.figures import FigureView
from fairspec.report.sections.summary import accuracy_interval, majority_rate
from fairspec.report.sections.sweep import STATE_MARKS
from fairspec.report.verdict import Badge, run_fairness
from fairspec.report.words import GAP_TITLES, evaluation_words

#: the accuracy a less discriminatory alternative may give up against the most accurate model
TOLERANCE = 0.01
#: the gaps a comparison can be read on (every criterion's, and ABROCA)
COMPARABLE_GAPS = tuple(GAP_RATES) + ("abroca",)


@dataclass(frozen=True)
class ComparedModel:
    key: str  # "A", "B", ... on the chart
    run: str  # the directory as given
    spec: str
    family: str
    setting: str
    accuracy: str
    accuracy_interval: str
    gap: str
    gap_interval: str
    badge: Badge
    dominated: bool
    alternative: bool  # a less discriminatory alternative to the most accurate model
    most_accurate: bool
    model_sha256: str


@dataclass(frozen=True)
class ComparisonContext:
    title: str
    fairspec_version: str
    gap: str
    gap_title: str
    gap_note: str
    rows: str  # "test rows"
    tolerance: str
    data_path: str
    data_sha256: str
    split: str
    models: tuple[ComparedModel, ...]
    chart: FigureView | None
    finding: str  # the less-discriminatory-alternatives sentence
    notes: tuple[str, ...]


def _evaluation(metrics_doc: dict) -> dict:
    e = metrics_doc.get("evaluation") or {}
    return {k: e.get(k) for k in ("kind", "test_size", "folds", "seed", "stratify", "stratified_by")}


def _rows(metrics_doc: dict) -> dict:
    s = metrics_doc.get("data_summary") or {}
    return {"rows": s.get("rows"), "rows_train": s.get("rows_train"), "rows_test": s.get("rows_test"),
            "groups": {g: (v or {}).get("count") for g, v in (s.get("groups") or {}).items()},
            "dropped": (s.get("dropped") or {}).get("rows")}


def _facts(model_doc: dict, metrics_doc: dict) -> list[tuple[str, object]]:
    """What two runs must share to be compared, each with its name in a message."""
    data, schema = model_doc.get("data") or {}, model_doc.get("schema") or {}
    target = schema.get("target") or {}
    return [("data file (SHA-256)", data.get("sha256")), ("row filters", data.get("filters")),
            ("target", [target.get("name"), target.get("positive")]), ("protected columns", schema.get("protected")),
            ("evaluation (split, folds, seed, stratification)", _evaluation(metrics_doc)),
            ("rows used and their split", _rows(metrics_doc))]


def comparability_problem(runs: list[tuple[str, list[tuple[dict, dict]]]]) -> str | None:
    """Why the runs cannot be compared (the first fact a run does not share with the first
    run, named with both runs' values), or None."""
    first_name, first_points = runs[0]
    wanted = _facts(*first_points[0])
    for name, points in runs:
        for i, (model_doc, metrics_doc) in enumerate(points):
            for (what, value), (_, expected) in zip(_facts(model_doc, metrics_doc), wanted):
                if json.dumps(value, sort_keys=True, default=str) != json.dumps(expected, sort_keys=True, default=str):
                    where = name if len(points) == 1 else f"{name} (point {i})"
                    return (f"{where}: error: cannot be compared with {first_name}: its {what} differs "
                            f"({_short(value)} here, {_short(expected)} there); runs compared in one report must be "
                            "trained and measured on the same data, rows and split")
    return None


def _short(value) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def chosen_gap(runs, gap: str | None) -> tuple[str, str]:
    """(the gap to compare on, why): ``gap`` when given, else the criterion every run declares."""
    if gap is not None:
        if gap not in COMPARABLE_GAPS:
            raise UsageError(f"fairspec report: error: --gap {gap!r} is not a gap; choose one of "
                             f"{', '.join(COMPARABLE_GAPS)}")
        return gap, "chosen with --gap"
    declared = {(m.get("fairness") or {}).get("criterion") for _, points in runs for _, m in points} - {None}
    if len(declared) > 1:
        raise UsageError("fairspec report: error: the runs declare different criteria ("
                         + ", ".join(sorted(declared)) + "); choose the gap to compare them on with --gap NAME")
    if declared:
        return declared.pop(), "the criterion every run declares"
    return ("demographic_parity",
            "no run declares a criterion; the selection-rate gap is compared (choose another with --gap)")


def _setting(metrics_doc: dict) -> str:
    f = metrics_doc.get("fairness") or {}
    if f.get("criterion") is None:
        return "no criterion"
    if f.get("bound") is not None:
        return f"{f['criterion']} ≤ {f['bound']:g}"
    if f.get("penalty") is not None:
        return f"{f['criterion']} penalty λ = {f['penalty']:g}"
    return f"{f['criterion']} audited"


def _letters(k: int) -> str:
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(65 + r) + out
    return out


def build_comparison(runs: list[tuple[str, list[tuple[dict, dict]]]], gap: str | None = None,
                     tolerance: float = TOLERANCE) -> ComparisonContext:
    """The comparison of ``runs`` (each ``(name, [(model_doc, metrics_doc), ...])``)."""
    if len(runs) < 2:
        raise UsageError("fairspec report: error: a comparison needs at least two runs")
    if not 0 <= tolerance < 1:
        raise UsageError(f"fairspec report: error: --tolerance {tolerance:g} must be at least 0 and below 1")
    problem = comparability_problem(runs)
    if problem is not None:
        raise RunsNotComparableError(problem)
    gap, why = chosen_gap(runs, gap)
    first_model, first_metrics = runs[0][1][0]
    words = evaluation_words(first_metrics)
    key = "test" if first_metrics.get("test") else "train"
    entries = []
    for name, points in runs:
        for i, (model_doc, metrics_doc) in enumerate(points):
            block = metrics_doc.get(key) or {}
            value = (block.get("gaps") or {}).get(gap)
            interval = ((block.get("gap_intervals") or {}).get("gaps") or {}).get(gap)
            fairness = run_fairness(metrics_doc)
            declared = (metrics_doc.get("fairness") or {}).get("criterion") == gap
            entries.append(dict(run=name if len(points) == 1 else f"{name} (point {i})",
                                spec=str((model_doc.get("spec") or {}).get("name") or UNDEFINED),
                                family=str((model_doc.get("model") or {}).get("family") or UNDEFINED),
                                setting=_setting(metrics_doc), accuracy=block.get("accuracy"),
                                accuracy_interval=accuracy_interval(block), gap=value, gap_interval=interval,
                                badge=fairness.badge, state=fairness.state if declared else None,
                                model_sha256=model_sha256(model_doc, metrics_doc)))
    measured = [e for e in entries if e["accuracy"] is not None and e["gap"] is not None]
    points = [FrontierPoint(_letters(k), float(e["gap"]), float(e["accuracy"]),
                            tuple(e["gap_interval"]) if e["gap_interval"] else None,
                            tuple(e["accuracy_interval"]) if e["accuracy_interval"] else None, e["state"])
              for k, e in enumerate(measured)]
    front = non_dominated(points)
    best = max(range(len(measured)), key=lambda k: (measured[k]["accuracy"], -measured[k]["gap"])) if measured else None
    alternatives = set()
    if best is not None:
        top = measured[best]
        alternatives = {k for k, e in enumerate(measured)
                        if e["accuracy"] >= top["accuracy"] - tolerance - 1e-12 and e["gap"] < top["gap"]}
    models = []
    for k, e in enumerate(measured):
        models.append(ComparedModel(
            key=_letters(k), run=e["run"], spec=e["spec"], family=e["family"], setting=e["setting"],
            accuracy=fmt_rate(e["accuracy"]), accuracy_interval=fmt_rate_interval(e["accuracy_interval"]),
            gap=fmt_gap(e["gap"]), gap_interval=fmt_interval(e["gap_interval"]), badge=e["badge"],
            dominated=not front[k], alternative=k in alternatives, most_accurate=k == best,
            model_sha256=e["model_sha256"]))
    unmeasured = [e["run"] for e in entries if e not in measured]
    chart = None
    if points:
        labelled = [FrontierPoint(p.label + STATE_MARKS.get(p.state, ""), p.gap, p.accuracy, p.gap_interval,
                                  p.accuracy_interval, p.state) for p in points]
        svg = frontier_svg(labelled, name="compare",
                           label=f"{words.accuracy} against the {gap} gap, every model compared",
                           x_label=f"{gap} gap on the {words.rows}", y_label=words.accuracy.lower(),
                           majority=majority_rate(first_metrics.get(key)))
        chart = FigureView("frontier", "Accuracy against the gap, every model", svg,
                           f"{words.accuracy} against the {gap} gap on the {words.rows}, each with its 95% interval "
                           "as whiskers; letters name the models in the table. Hollow markers are dominated (another "
                           "model is at least as accurate with no larger gap); the line joins the others. The "
                           "dashed line is the majority-class rate. Where a model's declared criterion is this gap, "
                           "its marker gives its verdict: circle ✓ met, diamond ? inconclusive, cross ✗ not met.")
    return ComparisonContext(
        title=f"Runs compared: {', '.join(name for name, _ in runs)}",
        fairspec_version=str(first_model.get("fairspec_version") or UNDEFINED),
        gap=gap, gap_title=GAP_TITLES.get(gap, gap), gap_note=why, rows=words.rows,
        tolerance=f"{tolerance:g}", data_path=str((first_model.get("data") or {}).get("path") or UNDEFINED),
        data_sha256=str((first_model.get("data") or {}).get("sha256") or UNDEFINED),
        split=_split_text(first_metrics), models=tuple(models), chart=chart,
        finding=_finding(measured, best, alternatives, tolerance, gap),
        notes=tuple(f"{run}: its {gap} gap on the {words.rows} was not measured, so it is not drawn"
                    for run in unmeasured))


def _split_text(metrics_doc: dict) -> str:
    e, s = metrics_doc.get("evaluation") or {}, metrics_doc.get("data_summary") or {}
    kind = e.get("kind")
    if kind == "holdout":
        how = f"hold-out of {e.get('test_size'):g}, seed {e.get('seed')}"
    elif kind == "cv":
        how = f"{e.get('folds')}-fold cross-validation, seed {e.get('seed')}"
    else:
        how = "no test rows"
    return (f"{fmt_count(s.get('rows'))} rows ({how}; training {fmt_count(s.get('rows_train'))}, "
            f"test {fmt_count(s.get('rows_test'))})")


def _finding(measured, best, alternatives, tolerance: float, gap: str) -> str:
    if best is None:
        return "No model has a measured accuracy and gap."
    top = measured[best]
    said = (f"The most accurate model is {_letters(best)} ({top['run']}): accuracy {fmt_rate(top['accuracy'])}, "
            f"{gap} gap {fmt_gap(top['gap'])}. ")
    if not alternatives:
        return said + (f"No model within {tolerance:g} of its accuracy has a smaller gap: there is no less "
                       "discriminatory alternative among these runs.")
    listed = ", ".join(f"{_letters(k)} ({fmt_rate(measured[k]['accuracy'])}, gap {fmt_gap(measured[k]['gap'])})"
                       for k in sorted(alternatives, key=lambda k: measured[k]["gap"]))
    return said + (f"Within {tolerance:g} of its accuracy, {len(alternatives)} model"
                   f"{'s have' if len(alternatives) > 1 else ' has'} a smaller gap, less discriminatory alternatives: "
                   f"{listed}. These are point estimates; read the intervals before preferring one.")


def render_comparison(context: ComparisonContext) -> str:
    from fairspec.report.render import environment

    return environment().get_template("compare.html.jinja").render(cmp=context)
