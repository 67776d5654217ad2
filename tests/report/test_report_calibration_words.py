"""What the report says of a calibrated bound (fairspec.calibration): where it applies, the
internal bound chosen by inner cross-validation, and the inner gap beside its own interval."""
from __future__ import annotations

import copy

from conftest import make_docs

from fairspec.report import build_context, render_report
from fairspec.report.verdict import calibration_words, choice_words

#: compas_tree_sweep's first point (≤ 0.02) as a run wrote it: the measured inner gap at the
#: candidate ε′ = 0 is 0 with an interval of 0 to 0.004; the smoothed gap at ε′ is 0.02
SWEEP_POINT = {"criterion": "demographic_parity", "bound": 0.02, "holds_on": "unseen", "calibration": {
    "folds": 3, "method": "inner cross-validation", "met": True, "internal_bound": 0.003822368421,
    "inner_gap": 0.019999999999724627, "inner_gap_candidate": 0.0, "inner_gap_measured": 0.0,
    "inner_gap_interval": [0.0, 0.0039776187609338], "inner_gap_interval_level": 0.95}}


def test_the_inner_gap_is_printed_beside_its_own_interval():
    where, inner = calibration_words(SWEEP_POINT)
    assert where.startswith("unseen rows (the model was fitted at the internal bound ε′ = 0.003822,")
    assert where.endswith("at most 0.02)")
    assert "3-fold inner cross-validation" in where and "at most 0.02" in where
    # the measured gap (0) comes with the interval (0 to 0.0040); the smoothed 0.02 comes after,
    # named as such, never inside the interval's sentence
    measured_part, smoothed_part = inner.split("; ")
    assert measured_part == "0.0000 at the candidate ε′ = 0 (interval 0.0000 to 0.0040, 95%)"
    assert smoothed_part == "smoothed over the candidates, at the chosen ε′: 0.0200"


def test_a_measured_probe_is_said_and_so_is_a_fit_at_zero():
    point = copy.deepcopy(SWEEP_POINT)
    point["calibration"].update(internal_bound=0.002545304527, probe={"proposed": 0.003822368421,
                                                                      "bounds": [0.003822368421, 0.001911184211]})
    where, _ = calibration_words(point)
    assert "the line from ε′ = 0 had proposed 0.003822, which was measured with half of it before use)" in where
    point["calibration"]["internal_bound"] = 0.0
    where, _ = calibration_words(point)
    assert where.endswith("before use, and every positive bound measured missed, so the model is fitted at 0)")
    assert "proposed" not in calibration_words(SWEEP_POINT)[0]


def test_a_bound_on_train_says_nothing_is_promised_about_new_rows():
    where, inner = calibration_words({"bound": 0.05, "holds_on": "train"})
    assert where == "the training rows only (`on train`; nothing is promised about new rows)"
    assert inner == ""
    assert calibration_words({"bound": 0.05}) == ("", "")  # a file written before calibration


def test_the_summary_says_where_the_bound_holds_and_how_it_was_chosen():
    model_doc, metrics_doc = make_docs()
    metrics_doc = copy.deepcopy(metrics_doc)
    metrics_doc["fairness"].update(holds_on="unseen", calibration=dict(SWEEP_POINT["calibration"], folds=5))
    page = render_report(build_context(model_doc, metrics_doc))
    assert "Where the bound holds: unseen rows (the model was fitted at the internal bound" in page
    assert "5-fold inner cross-validation" in page
    assert "The bound holds on" not in page
    assert "gap ≤ 0.05 on unseen rows;" in page and "gap ≤ 0.05 on the training rows" not in page


#: a calibration that chose among the values a spec listed (model tree { depth [2, 4, 6] })
CHOICES = {"choices": [
    {"params": {"max_depth": 2}, "internal_bound": 0.05, "met": True, "inner_gap": 0.01, "inner_accuracy": 0.80},
    {"params": {"max_depth": 4}, "internal_bound": 0.031, "met": True, "inner_gap": 0.05, "inner_accuracy": 0.83},
    {"params": {"max_depth": 6}, "internal_bound": 0.0, "met": False, "inner_gap": 0.07, "inner_accuracy": 0.85}],
    "chosen": {"max_depth": 4}, "chosen_among": {"parameter": "depth", "values": [2, 4, 6], "chosen": 4}}


def test_the_value_kept_among_the_listed_ones_is_said_with_each_value_s_inner_measures():
    fairness = dict(SWEEP_POINT, calibration={**SWEEP_POINT["calibration"], **CHOICES})
    chosen, name, rows = choice_words(fairness)
    assert chosen == ("depth 4, among 2, 4, 6: the most accurate on the inner held-out rows of those whose inner "
                      "gap meets the bound")
    assert name == "depth"
    assert [(r.value, r.internal_bound, r.inner_accuracy, r.inner_gap, r.met, r.kept) for r in rows] == [
        ("2", "0.05", "0.800", "0.0100", "yes", False), ("4", "0.031", "0.830", "0.0500", "yes", True),
        ("6", "0", "0.850", "0.0700", "no", False)]
    # none met: the smallest inner gap was kept, and the words say so
    unmet = copy.deepcopy(fairness)
    for c in unmet["calibration"]["choices"]:
        c["met"] = False
    assert choice_words(unmet)[0].endswith("no value met the bound on the inner held-out rows, so the one with the "
                                           "smallest inner gap")
    # without a list (or in a file written before), nothing is said
    assert choice_words(SWEEP_POINT) == ("", "", ())


def test_the_choice_is_in_the_summary_and_every_listed_value_is_escaped():
    model_doc, metrics_doc = make_docs()
    metrics_doc = copy.deepcopy(metrics_doc)
    hostile = copy.deepcopy(CHOICES)
    hostile["chosen_among"].update(parameter="<b>depth</b>", values=["<i>a</i>", 4, 6], chosen=4)
    metrics_doc["fairness"].update(holds_on="unseen", calibration=dict(SWEEP_POINT["calibration"], **hostile))
    page = render_report(build_context(model_doc, metrics_doc))
    assert "Chosen by the calibration: &lt;b&gt;depth&lt;/b&gt; 4, among &lt;i&gt;a&lt;/i&gt;, 4, 6:" in page
    assert "<b>depth</b>" not in page and "<i>a</i>" not in page
    assert '<tr class="kept"><td>4 (kept)</td><td class="num">0.031</td><td class="num">0.830</td>' in page


def test_each_sweep_point_shows_its_own_choice():
    pts = [make_docs(bound=b, seed=i) for i, b in enumerate([0.05, 0.1])]
    for (_, metrics_doc), kept in zip(pts, (2, 4)):
        record = copy.deepcopy(CHOICES)
        record["chosen_among"]["chosen"] = kept
        metrics_doc["fairness"].update(holds_on="unseen", calibration=dict(SWEEP_POINT["calibration"], **record))
    page = render_report(build_context(*pts[0], sweep=pts))
    assert "depth 2, among 2, 4, 6" in page and "depth 4, among 2, 4, 6" in page
