"""The sweep's summary: every point's verdict in one table, and accuracy against the gap.

The chart (:func:`fairspec.report.figures.frontier_svg`) draws each point with the intervals
of both its accuracy and its gap, the same model without the criterion, and the majority-class
rate; only the points no other point dominates are joined.  A setting that gave no usable model
is listed with its reason.
"""
from __future__ import annotations

from dataclasses import dataclass

from fairspec.report.figures import FrontierPoint, frontier_svg
from fairspec.report.format import UNDEFINED, fmt_number, fmt_rate, fmt_value
from fairspec.report.sections.figures import FigureView
from fairspec.report.sections.summary import accuracy_interval, majority_rate
from fairspec.report.verdict import INCONCLUSIVE, MET, NOT_MET, Badge, _met, _met_test
from fairspec.report.words import evaluation_words

#: the mark beside a point's label, so the verdict reads without colour
STATE_MARKS = {MET: " ✓", NOT_MET: " ✗", INCONCLUSIVE: " ?"}


@dataclass(frozen=True)
class SweepRow:
    anchor: str
    index: str
    setting: str
    test_accuracy: str
    achieved_train: str
    achieved_test: str
    badge: Badge
    interval_test: str = UNDEFINED


@dataclass(frozen=True)
class SweepView:
    criterion: str
    form: str
    rows: tuple[SweepRow, ...]
    chart: FigureView | None
    #: settings that gave no usable model: ("≤ 0", the reason), in sweep order
    failed: tuple[tuple[str, str], ...] = ()


def setting_label(setting: dict, otherwise: str) -> str:
    """A sweep setting, short: ``≤ 0.05`` or ``λ = 2``, from its ``bound`` and ``penalty``."""
    if setting.get("bound") is not None:
        return f"≤ {fmt_number(setting['bound'])}"
    if setting.get("penalty") is not None:
        return f"λ = {fmt_number(setting['penalty'])}"
    return otherwise


def failed_setting(entry: dict) -> tuple[str, str]:
    """A sweep setting with no model, as the chart names settings, and why."""
    return (setting_label(entry, f"setting {fmt_value(entry.get('sweep_index'))}"),
            str(entry.get("reason") or UNDEFINED))


def chart_caption(words, has_bounds: bool, left_out: list[str], unconstrained: bool) -> str:
    text = (f"{words.accuracy} against the achieved gap on the {words.rows}, each with its 95% interval as "
            "whiskers (Jeffreys). ")
    if has_bounds:
        text += ("The marker gives the verdict, so the chart reads without colour: a circle ✓ is met (the interval "
                 "within the bound), a diamond ? inconclusive (it crosses the bound), a cross ✗ not met; dotted "
                 "lines are the bounds. ")
    else:
        text += "No setting has a bound, so no point is met or not met. "
    text += ("A hollow marker is dominated: another point is at least as accurate with no larger gap; the line "
             "joins the points that are not. The dashed line is the majority-class rate, what predicting the "
             "common class for every row scores")
    text += "; the star is the same model trained without the criterion." if unconstrained else "."
    if left_out:
        text += f" Not drawn, as their gap on the {words.rows} was not measured: " + ", ".join(left_out) + "."
    return text


def frontier_point(metrics_doc: dict, label: str, state: str | None,
                   unconstrained: bool = False) -> FrontierPoint | None:
    """A run's point on the chart: its gap on the verdict rows and accuracy, with intervals."""
    fairness = metrics_doc.get("fairness") or {}
    block = metrics_doc.get("test") or metrics_doc.get("train") or {}
    if metrics_doc.get("test"):
        gap, interval = fairness.get("achieved_test"), fairness.get("interval_test")
    else:
        gap, interval = fairness.get("achieved_train"), None
    accuracy = block.get("accuracy")
    if gap is None or accuracy is None:
        return None
    return FrontierPoint(label, float(gap), float(accuracy), tuple(interval) if interval else None,
                         tuple(accuracy_interval(block) or ()) or None, state, unconstrained)


def unconstrained_point(metrics_doc: dict) -> FrontierPoint | None:
    """The model trained without the criterion, on the same chart (its gap on the criterion)."""
    other = metrics_doc.get("unconstrained")
    criterion = (metrics_doc.get("fairness") or {}).get("criterion")
    if not isinstance(other, dict) or not criterion:
        return None
    block = other.get("test") or other.get("train")
    if not block or (block.get("gaps") or {}).get(criterion) is None or block.get("accuracy") is None:
        return None
    interval = ((block.get("gap_intervals") or {}).get("gaps") or {}).get(criterion)
    return FrontierPoint("no criterion", float(block["gaps"][criterion]), float(block["accuracy"]),
                         tuple(interval) if interval else None, tuple(accuracy_interval(block) or ()) or None,
                         None, True)


def build(sweep: list[tuple[dict, dict]], runs, failed: list[dict] | None = None) -> SweepView:
    rows, points, left_out, bounds = [], [], [], []
    criterion, form = "none declared", "none"
    for index, ((_, metrics_doc), run) in enumerate(zip(sweep, runs)):
        fairness = metrics_doc.get("fairness") or {}
        criterion = str(fairness.get("criterion") or criterion)
        form = run.fairness.form
        measured_on = metrics_doc.get("test") or metrics_doc.get("train") or {}
        label = setting_label(fairness, f"point {index}")
        rows.append(SweepRow(anchor=run.anchor, index=str(index), setting=run.fairness.setting,
                             test_accuracy=fmt_rate(measured_on.get("accuracy")),
                             achieved_train=run.fairness.achieved_train, achieved_test=run.fairness.achieved_test,
                             badge=run.fairness.badge, interval_test=run.fairness.interval_test))
        if metrics_doc.get("test"):
            met = _met_test(fairness)
        else:
            met = _met(fairness.get("achieved_train"), fairness.get("bound"), fairness.get("met_train"))
        state = run.fairness.state if met is not None else None
        point = frontier_point(metrics_doc, label + STATE_MARKS.get(state, ""), state)
        if point is None:
            left_out.append(label)
        else:
            points.append(point)
        if fairness.get("bound") is not None:
            bounds.append(fairness["bound"])
    words = evaluation_words(sweep[0][1])
    chart = None
    if points:
        other = unconstrained_point(sweep[0][1])
        drawn = points + ([other] if other else [])
        majority = majority_rate(sweep[0][1].get("test") or sweep[0][1].get("train"))
        svg = frontier_svg(drawn, name="sweep", label=f"{words.accuracy} against the achieved gap on the {words.rows}, "
                                                      "one point per sweep setting",
                           x_label=f"{criterion} gap on the {words.rows}", y_label=words.accuracy.lower(),
                           majority=majority, bounds=bounds)
        chart = FigureView("frontier", "Accuracy against the gap", svg,
                           chart_caption(words, bool(bounds), left_out, other is not None))
    return SweepView(criterion=criterion, form=form, rows=tuple(rows), chart=chart,
                     failed=tuple(failed_setting(f) for f in failed or ()))
