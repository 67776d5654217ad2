"""What the report says of a calibrated bound (fairspec.calibration): where it applies, the
internal bound chosen by inner cross-validation, and the inner gap beside its own interval."""
from __future__ import annotations

import copy

from conftest import make_docs

from fairspec.report import build_context, render_report
from fairspec.report.verdict import calibration_words

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
