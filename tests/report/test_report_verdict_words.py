"""What the report says beside its numbers: a verdict on a constant model, a MIP gap of a
solution that is not the model, the sweep chart's caption, the positive class, and gaps
printed against a bound of many decimals.  Each was found in review of the rendered reports."""
from __future__ import annotations

import html as html_lib
import re

import numpy as np
from conftest import GROUPS, make_docs

from fairspec.metrics import evaluate_predictions, fairness_summary
from fairspec.metrics.intervals import gap_intervals
from fairspec.registry.criteria import make_criterion
from fairspec.report import build_context, render_report
from fairspec.report.context import fmt_gap_against


def _constant_on_test(bound=0.05, intervals=False):
    """make_docs' run with test predictions all 0 (a tree whose leaves were all relabelled to
    the negative class, which a bound finer than a small group's rows often leaves)."""
    model_doc, metrics_doc = make_docs(bound=bound)
    rng = np.random.default_rng(3)
    y, groups = rng.integers(0, 2, 90), rng.choice(np.asarray(GROUPS, dtype=object), 90)
    test = evaluate_predictions(y, np.zeros(90, dtype=int), None, groups)
    if intervals:
        test["gap_intervals"] = gap_intervals(y, np.zeros(90, dtype=int), groups, seed=7)
    metrics_doc["test"] = test
    metrics_doc["fairness"] = fairness_summary(make_criterion("equal_opportunity", bound=bound),
                                               metrics_doc["train"], test)
    return model_doc, metrics_doc


def test_a_verdict_on_a_model_that_predicts_one_class_says_so():
    # found in review: a tree relabelled to predict every row negative met the bound with a
    # green MET and "gap 0.0000", and nothing near the verdict said the model was constant
    model_doc, metrics_doc = _constant_on_test()
    assert metrics_doc["fairness"]["met_test"] is True
    context = build_context(model_doc, metrics_doc)
    badge = context.runs[0].fairness.badge
    assert badge.text == "MET"
    assert "Every one of the test rows is predicted negative" in badge.explanation
    assert "their gaps on these rows are 0" in badge.explanation and "The interval reaches" not in badge.explanation
    # beside an interval reaching above 0 (the test counts allow a gap on new data, where the
    # model need not be constant), the sentence says why the two differ
    model_doc, metrics_doc = _constant_on_test(intervals=True)
    low, high = metrics_doc["fairness"]["interval_test"]
    assert low == 0 and high > 0.05
    explanation = build_context(model_doc, metrics_doc).runs[0].fairness.badge.explanation
    assert explanation.endswith("The interval reaches above 0 because it is about new data, where the model "
                                "need not predict negative for every row.")
    assert "every row predicted negative" in badge.caveat
    card = render_report(context).split('<div class="summary-cards">', 1)[1]
    assert "is predicted negative" in html_lib.unescape(re.sub(r'title="[^"]*"', "", card))
    # in a sweep, the table's verdict column says it where the explanation has no room
    sweep = [_constant_on_test(), make_docs(bound=0.2, seed=1)]
    rows = build_context(*sweep[0], sweep=sweep).sweep.rows
    assert "every row predicted negative" in rows[0].badge.caveat
    assert "predicted" not in rows[1].badge.caveat


def test_a_model_predicting_both_classes_gets_no_constant_sentence():
    badge = build_context(*make_docs()).runs[0].fairness.badge
    assert "predicted negative" not in badge.explanation and "predicted positive" not in badge.explanation


def test_the_mip_gap_says_when_the_model_returned_is_not_the_programs_solution():
    # found in review: the compas_rules report showed "MIP gap 6.95% (of the final integer
    # program ...)" for a rule set its fit log says came from the refinement step
    model_doc, metrics_doc = make_docs()
    metrics_doc["training_log"].update(status="work_limit", mip_gap=0.0695, mip_gap_of="the final IP",
                                       selected_from="refined")
    row = build_context(model_doc, metrics_doc).runs[0].training.mip_gap
    assert row.startswith("6.95% (of the final IP)")
    assert "the model returned is another candidate (selected_from refined)" in row
    metrics_doc["training_log"]["selected_from"] = "final_ip"
    assert build_context(model_doc, metrics_doc).runs[0].training.mip_gap == "6.95% (of the final IP)"


def test_the_sweep_chart_caption_speaks_of_bounds_only_when_there_are_some():
    penalty = [make_docs(bound=None, penalty=p, seed=i) for i, p in enumerate([0.5, 2.0])]
    page = html_lib.unescape(render_report(build_context(*penalty[0], sweep=penalty)))
    caption = re.search(r'id="figure-frontier">.*?<figcaption>(.*?)</figcaption>', page, re.S).group(1)
    assert "the bounds" not in caption and "no point is met or not met" in caption
    bounded = [make_docs(bound=b, seed=i) for i, b in enumerate([0.001, 0.5])]
    page = html_lib.unescape(render_report(build_context(*bounded[0], sweep=bounded)))
    caption = re.search(r'id="figure-frontier">.*?<figcaption>(.*?)</figcaption>', page, re.S).group(1)
    assert "dotted lines are the bounds" in caption and "a cross ✗ not met" in caption


def test_the_sweep_chart_is_labelled_by_the_rows_it_shows():
    # the chart's label said "test" for a sweep without test rows
    pts = [make_docs(bound=b, seed=i, with_test=False) for i, b in enumerate([0.001, 0.5])]
    page = render_report(build_context(*pts[0], sweep=pts))
    label = re.search(r'role="img" aria-label="([^"]*)"', page).group(1)
    assert label == "Training accuracy against the achieved gap on the training rows, one point per sweep setting"


def test_a_sweep_point_without_a_measured_gap_is_named_under_the_chart():
    pts = [make_docs(bound=b, seed=i) for i, b in enumerate([0.05, 0.2])]
    pts[1][1]["fairness"]["achieved_test"] = None
    pts[1][1]["fairness"]["met_test"] = None
    chart = build_context(*pts[0], sweep=pts).sweep.chart
    assert "≤ 0.05" in chart.svg and "≤ 0.2" not in chart.svg
    assert "Not drawn, as their gap on the test rows was not measured: ≤ 0.2." in chart.caption


def test_a_boolean_positive_class_is_spelled_as_the_model_spells_it():
    # found in review: `target approved positive true` printed "positive class yes" beside
    # leaves reading "leaf: True"
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["positive"] = True
    model_doc["schema"]["target"]["positive"] = True
    assert build_context(model_doc, metrics_doc).data.positive == "True"


def test_a_gap_within_a_bound_of_many_decimals_never_prints_above_it():
    assert fmt_gap_against(0.0012549, 0.001255) == "0.0012549"  # four decimals would print 0.0013
    assert fmt_gap_against(0.0012, 0.001255) == "0.0012"
    assert fmt_gap_against(0.05, 0.05) == "0.0500"


def test_the_gaps_table_prints_the_declared_gap_as_the_verdict_does():
    model_doc, metrics_doc = make_docs(bound=0.05)
    for block in ("train", "test"):
        metrics_doc[block]["gaps"]["equal_opportunity"] = 0.050025
    metrics_doc["fairness"].update(achieved_train=0.050025, achieved_test=0.050025, met_train=False, met_test=False)
    run = build_context(model_doc, metrics_doc).runs[0]
    declared = next(g for g in run.gaps if g.is_criterion)
    assert declared.values == ("0.050025", "0.050025") == (run.fairness.achieved_train, run.fairness.achieved_test)
    other = next(g for g in run.gaps if g.name == "demographic_parity")
    assert all(len(v.split(".")[1]) == 4 for v in other.values)


def test_the_gaps_table_gives_the_declared_gap_the_interval_the_verdict_gives():
    # found in review: with a group that has no positive test rows the fairness block printed
    # "0.0000 to 1.0000", and the gaps table's declared row the interval over the measured
    # groups only, wholly within the bound, beside "not measured on test"
    model_doc, metrics_doc = make_docs(bound=0.5)
    metrics_doc["test"]["gap_intervals"]["gaps"]["equal_opportunity"] = [0.0, 0.3095]
    metrics_doc["fairness"].update(interval_test=[0.0, 1.0], unmeasured_test=["D"], met_test=None)
    run = build_context(model_doc, metrics_doc).runs[0]
    declared = next(g for g in run.gaps if g.is_criterion)
    assert declared.interval == "0.0000 to 1.0000"
    assert run.fairness.interval_test.startswith("0.0000 to 1.0000")


def test_a_small_missing_rate_of_a_group_never_reads_as_none():
    # one missing cell in 2,500 rows printed "0.000", as if the group had none
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["missing"]["age"] = {g: (0.0004 if i == 0 else 0.0) for i, g in enumerate(GROUPS)}
    (table,) = build_context(model_doc, metrics_doc).data.missing
    age = next(row for row in table.rows if row.name == "age")
    assert age.cells[:2] == ("<0.001", "0.000")


def test_the_sweep_table_prints_a_gap_against_its_bound_beside_its_mark_on_the_chart():
    # 0.05004 at a bound of 0.05 read "test gap 0.0500" beside its ✗
    pts = [make_docs(bound=b, seed=i, intervals=False) for i, b in enumerate([0.05, 0.2])]
    pts[0][1]["fairness"].update(achieved_test=0.05004, met_test=False)
    sweep = build_context(*pts[0], sweep=pts).sweep
    assert sweep.rows[0].achieved_test == "0.05004" and "≤ 0.05 ✗" in sweep.chart.svg
