"""The report's sections (fairspec.report.sections): the three-state verdict, the direction of a gap,
the figures, the model card, proxies, and the model read-outs."""
from __future__ import annotations

import html as html_lib
import re

import pytest
from conftest import GROUPS, HOSTILE_GROUP, make_docs

from fairspec.report import build_context, render_report
from fairspec.report.sections.model import logistic_table, rule_table, shown_lines
from fairspec.report.sections.summary import direction
from fairspec.report.verdict import INCONCLUSIVE, MET, NOT_MET, fairness_view, verdict_state
from fairspec.report.words import OutcomeWords


# ---------------------------------------------------------------- the verdict's three states

@pytest.mark.parametrize("gap, interval, state", [
    (0.010, [0.000, 0.040], MET),            # the whole interval within the bound
    (0.010, [0.000, 0.087], INCONCLUSIVE),   # measured within, the interval reaches above
    (0.060, [0.020, 0.120], INCONCLUSIVE),   # measured above, the interval includes the bound
    (0.170, [0.095, 0.242], NOT_MET),        # the whole interval above
    (0.050, [0.050, 0.050], MET),            # at the bound is within it
    (0.010, None, MET),                      # no interval: the measured gap decides
    (0.060, None, NOT_MET),
])
def test_each_verdict_state_on_constructed_metrics(gap, interval, state):
    bound = 0.05
    met = gap <= bound
    assert verdict_state(met, interval, bound) == state
    fairness = {"criterion": "equal_opportunity", "bound": bound, "penalty": None, "achieved_train": 0.01,
                "achieved_test": gap, "met_train": True, "met_test": met, "interval_test": interval,
                "unmeasured_test": []}
    view = fairness_view(fairness, True, 0.95 if interval else None)
    assert view.state == state
    assert (view.badge.text, view.badge.css) == {MET: ("MET", "met"), NOT_MET: ("NOT MET", "not-met"),
                                                 INCONCLUSIVE: ("INCONCLUSIVE", "inconclusive")}[state]
    if interval is None:
        assert "alone decides" in view.badge.explanation


def test_no_bound_gives_no_three_state_verdict():
    for fairness in ({"criterion": "equal_opportunity", "bound": None, "penalty": 0.5},
                     {"criterion": "equal_opportunity", "bound": None, "penalty": None}, {"criterion": None}):
        assert fairness_view(fairness, True, 0.95).state is None


# ---------------------------------------------------------------- which group a gap disadvantages

def _block(rates: dict[str, dict[str, float]]) -> dict:
    return {"groups": {g: {"count": 100, **r} for g, r in rates.items()}}


ADVERSE = OutcomeWords("adverse", "two_year_recid", "1", "0")
FAVOURABLE = OutcomeWords("favourable", "credit", "good", "bad")
UNSAID = OutcomeWords(None, "two_year_recid", "1", "0")


def test_the_direction_names_the_disadvantaged_group_of_two():
    # COMPAS-like: flagged (adverse) more often among those who did not reoffend
    block = _block({"African-American": {"fpr": 0.34, "tpr": 0.70}, "Caucasian": {"fpr": 0.24, "tpr": 0.47}})
    found = direction(block, "fpr_parity", ADVERSE)
    assert found.worse == "African-American"
    assert found.sentence.startswith("\u201cAfrican-American\u201d is on the worse side of the false-positive rate")
    assert ("Of the test rows with two_year_recid = 0, 34 % of \u201cAfrican-American\u201d rows were predicted "
            "two_year_recid = 1 (adverse), against 24 % of \u201cCaucasian\u201d rows.") in found.sentence
    # favourable: the group granted less often is the disadvantaged one
    loans = _block({"men": {"selection_rate": 0.62}, "women": {"selection_rate": 0.48}})
    assert direction(loans, "demographic_parity", FAVOURABLE).worse == "women"
    assert direction(loans, "demographic_parity", ADVERSE).worse == "men"
    # unsaid: both ends named, neither called disadvantaged
    unsaid = direction(block, "fpr_parity", UNSAID)
    assert unsaid.worse is None and "does not say which side is worse" in unsaid.sentence
    assert unsaid.highest == "African-American" and unsaid.lowest == "Caucasian"


def test_the_direction_names_the_disadvantaged_group_of_four():
    block = _block({"a": {"tpr": 0.61, "fpr": 0.20}, "b": {"tpr": 0.44, "fpr": 0.21},
                    "c": {"tpr": 0.52, "fpr": 0.19}, "d": {"tpr": 0.70, "fpr": 0.22}})
    # equalized odds: the TPR gap (0.26) is the larger, and under adverse the highest TPR is worse
    found = direction(block, "equalized_odds", ADVERSE)
    assert (found.rate, found.worse, found.highest, found.lowest) == ("tpr", "d", "d", "b")
    assert "the other groups lie between" in found.sentence
    assert direction(block, "equal_opportunity", FAVOURABLE).worse == "b"
    # accuracy: the lower is worse whatever the outcome
    acc = _block({"a": {"accuracy": 0.8}, "b": {"accuracy": 0.7}, "c": {"accuracy": 0.75}, "d": {"accuracy": 0.9}})
    assert direction(acc, "accuracy_parity", UNSAID).worse == "b"
    # a rate fewer than two groups have gives no direction
    assert direction(_block({"a": {"tpr": 0.5}, "b": {"tpr": None}}), "equal_opportunity", ADVERSE) is None


def test_the_page_says_whether_the_positive_class_is_favourable_or_adverse():
    model_doc, metrics_doc = make_docs()
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "does not say whether the positive class (two_year_recid = 1) is favourable or adverse" in page
    model_doc["schema"]["target"]["outcome"] = "adverse"
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "The positive class (two_year_recid = 1) is adverse to whom it is predicted" in page
    assert "is on the worse side of the" in page


# ---------------------------------------------------------------- figures

def test_the_figures_are_present_and_every_group_name_in_them_is_escaped():
    model_doc, metrics_doc = make_docs()
    assert HOSTILE_GROUP in GROUPS
    context = build_context(model_doc, metrics_doc)
    figures = context.runs[0].figures.figures
    assert [f.key for f in figures] == ["rates", "roc", "calibration"]
    page = render_report(context)
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) == 3
    for svg in svgs:
        assert 'role="img" aria-label=' in svg
        # the hostile name is text inside the SVG, escaped (a legend shortens it to 24 characters:
        # the tables name it in full): no element, no attribute came of it
        assert "&lt;img src=x" in svg
        assert "<img" not in svg and "onerror=alert(2)>" not in svg and "<script" not in svg
        assert "<style" not in svg and "<!--" not in svg and "font-family:" not in svg


def test_a_ranking_score_has_no_calibration_figure_and_says_so():
    model_doc, metrics_doc = make_docs()
    metrics_doc["test"]["score_kind"] = "ranking"
    context = build_context(model_doc, metrics_doc)
    keys = [f.key for f in context.runs[0].figures.figures]
    assert keys == ["rates", "roc"]
    assert "The score ranks the rows; it is not a probability." in context.runs[0].figures.figures[1].caption
    overall = {kv.key for kv in context.runs[0].splits[0].overall}
    assert "AUC (of a ranking score, not a probability)" in overall


def test_figures_render_the_same_bytes_every_time():
    first = render_report(build_context(*make_docs()))
    assert first == render_report(build_context(*make_docs()))
    assert "<dc:date>" not in first and "<metadata>" not in first


# ---------------------------------------------------------------- model card, sign-off, hashes

def test_the_model_card_shows_every_field_the_spec_gives_and_names_the_others():
    model_doc, metrics_doc = make_docs()
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "The spec has no <code>model_card</code> statement" in page
    model_doc["model_card"] = {"intended_use": "Pretrial <risk> screening", "owner": "Court analytics",
                               "limitations": ["Two groups only", "2013-2014 data"]}
    context = build_context(model_doc, metrics_doc)
    page = render_report(context)
    assert "Pretrial &lt;risk&gt; screening" in page and "<li>Two groups only</li>" in page
    card = page.split('id="model-card"', 1)[1].split("</section>", 1)[0]
    for missing in ("Out-of-scope use", "Data source", "Data period"):
        assert re.search(rf"<th scope=\"row\">{missing}</th><td class=\"muted\">not stated in the spec</td>", card)
    for line in ("Name", "Role", "Date", "Decision"):
        assert f'<th scope="row">{line}' in card
    # the header names the model file by its SHA-256, as metrics.json records it
    sha = context.header.model_sha256[0][1]
    assert re.fullmatch(r"[0-9a-f]{64}", sha) and sha in page


# ---------------------------------------------------------------- proxies and missing values

def test_proxies_are_listed_by_auc_and_flagged_at_the_threshold():
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["proxies"] = {
        "method": "one-feature model, out of fold", "folds": 5, "seed": 0, "threshold": 0.7,
        "features": [{"name": "age", "auc": 0.52, "group": GROUPS[0]},
                     {"name": "c_charge_degree", "auc": 0.91, "group": GROUPS[1]}]}
    context = build_context(model_doc, metrics_doc)
    rows = context.data.proxies
    assert [(r.name, r.auc, r.flagged) for r in rows] == [("c_charge_degree", "0.910", True), ("age", "0.520", False)]
    page = render_report(context)
    assert "flagged at 0.70 or more" in page and "proxy ✗" in page


def test_a_missing_values_table_of_zeros_is_folded():
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["missing"] = {"age": {g: 0.0 for g in GROUPS}}
    page = render_report(build_context(model_doc, metrics_doc))
    assert '<details class="records missing-none"><summary>Missing values: none' in page
    assert '<details class="records missing-none">' not in render_report(build_context(*make_docs()))


# ---------------------------------------------------------------- model read-outs

def test_tree_branches_no_training_row_reached_are_hidden_with_a_note():
    text = ["x < 2.5",
            "  leaf: 0  (p=0.30, n=40)",
            "x >= 2.5",
            "  y < 1",
            "    leaf: 1  (p=0.70, n=12)",
            "  y is missing   (third child, no training row here was missing y: the node's own p)",
            "    leaf: 1  (p=0.70, n=0)",
            "x is missing   (third child)",
            "  z < 3",
            "    leaf: 0  (p=0.47, n=0)",
            "  z >= 3",
            "    leaf: 1  (p=0.47, n=0)"]
    lines, hidden = shown_lines(text)
    assert hidden == 2
    assert [(line.pad, line.text) for line in lines] == [(0, "x < 2.5"), (2, "leaf: 0  (p=0.30, n=40)"),
                                                         (0, "x >= 2.5"), (2, "y < 1"), (4, "leaf: 1  (p=0.70, n=12)")]
    model_doc, metrics_doc = make_docs()
    model_doc["model"].update(family="tree", text=text)
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "2 branches that no training row reached (n=0 in every leaf below them) are not shown" in page
    assert 'class="ml" style="padding-left: 4ch">leaf: 1  (p=0.70, n=12)' in page


def test_logistic_coefficients_are_per_standard_deviation_sorted_by_effect():
    model_doc = {"schema": {"features": [{"name": "status", "kind": "categorical", "categories": ["A11", "A14"]},
                                         {"name": "amount", "kind": "numeric", "categories": None},
                                         {"name": "age", "kind": "numeric", "categories": None}],
                            "labels": {"status": {"A14": "no checking account"}}},
                 "model": {"class_names": ["0", "1"],
                           "estimator": {"layout": [{"column": 0, "code": 0.0}, {"column": 0, "code": 1.0},
                                                    {"column": 1, "code": None}, {"column": 2, "code": None}],
                                         "linear": {"coef": [-0.7552277055497927, 0.8702911044191333,
                                                             -3.351120856446595e-05, 0.010787631737165453],
                                                    "intercept": 1.2827521331254972}}}}
    metrics_doc = {"data_summary": {"feature_sd": [{"name": "amount", "sd": 2822.74}, {"name": "age", "sd": 11.38}]}}
    table = logistic_table(model_doc, metrics_doc)
    # effects: status A14 +0.870, status A11 -0.755, age 0.0108 * 11.38 = +0.123, amount -0.0946
    assert [row[0] for row in table.rows] == ["status = A14 (no checking account)", "status = A11", "age", "amount"]
    assert table.rows[3][2:] == ("−0.0000335", "2,820", "−0.0946")
    assert table.rows[2][2:] == ("+0.0108", "11.4", "+0.123")
    assert "score = +1.283 + the sum of the terms" in table.notes[0]


def test_rules_show_their_coverage_and_precision():
    model_doc = {"model": {"class_names": ["0", "1"],
                           "text": ["IF age <= 25 AND priors_count > 3 THEN 1", "ELSE IF priors_count > 6 THEN 1",
                                    "ELSE 0"],
                           "estimator": {"rules": [{"support": 132, "precision": 0.803}, {"support": 66,
                                                                                           "precision": 0.727}],
                                         "uncovered_positive_rate": 0.361}},
                 "data": {"rows_used": 3694}}
    table = rule_table(model_doc, {"data_summary": {"rows_train": 3694}})
    assert table.rows == (("1", "age <= 25 AND priors_count > 3", "132 (3.6%)", "0.803"),
                          ("2", "priors_count > 6", "66 (1.8%)", "0.727"))
    assert "0.361 are positive" in table.notes[0]


def test_coded_groups_are_named_with_the_specs_labels():
    block = _block({"A91": {"selection_rate": 0.50}, "A92": {"selection_rate": 0.30}})
    found = direction(block, "demographic_parity", FAVOURABLE, labels={"A92": "female: divorced"})
    assert found.worse == "A92" and "\u201cA92\u201d (female: divorced) is on the worse side" in found.sentence
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["group_labels"] = {GROUPS[0]: "Black"}
    context = build_context(model_doc, metrics_doc)
    labels = [g.label for g in context.data.groups]
    assert labels == ["Black" if g.name == GROUPS[0] else "" for g in context.data.groups]
    page = render_report(context)
    # the data table, and the rates, comparison and counts tables of the test and the training rows
    assert page.count(f'Black <span class="group-code">({GROUPS[0]})</span>') == 7


def test_a_long_model_text_shows_its_first_lines_and_folds_the_rest_out_of_print():
    from fairspec.report.sections.model import MODEL_LINES_SHOWN

    model_doc, metrics_doc = make_docs()
    model_doc["model"].update(family="tree", text=[f"x{i} < {i}" for i in range(MODEL_LINES_SHOWN + 25)])
    model = build_context(model_doc, metrics_doc).runs[0].model
    assert len(model.lines) == MODEL_LINES_SHOWN and len(model.rest) == 25
    page = render_report(build_context(model_doc, metrics_doc))
    assert "The other 25 lines of the model's text (folded; not printed" in page
    # the print style opens the folded tables and the appendix, not these lines
    assert "details.model-rest > *:not(summary)" not in page
