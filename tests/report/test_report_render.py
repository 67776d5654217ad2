"""The audit report: escaping, self-containment, verdicts, tables and atomic writing."""
from __future__ import annotations

import dataclasses
import hashlib
import html as html_lib
import os
import re
from pathlib import Path

import pytest
from conftest import GROUPS, HOSTILE_COLUMN, SPEC_TEXT, make_docs

import fairspec.report.render as render_module
from fairspec.metrics import fairness_summary
from fairspec.registry.criteria import make_criterion
from fairspec.report import build_context, render_report, write_report
from fairspec.report.context import fmt_number, fmt_rate, fmt_value

TEMPLATES = Path(render_module.__file__).parent / "templates"


def rendered(**kwargs) -> str:
    return render_report(build_context(*make_docs(**kwargs)))


def group_rows(page: str, table_id: str) -> dict[str, list[str]]:
    """{group name: cell texts} of one <table class="groups" id=...>, unescaped."""
    match = re.search(rf'<table class="groups" id="{re.escape(table_id)}">(.*?)</table>', page, re.S)
    assert match, f"no table {table_id}"
    rows = {}
    for row in re.findall(r"<tr data-group=.*?</tr>", match.group(1), re.S):
        head = re.search(r'<th scope="row">(.*?)</th>', row, re.S).group(1)
        name = html_lib.unescape(re.sub(r' <span class="tag">[^<]*</span>', "", head))  # the reference's tag
        # a rate's cell holds its interval under it, in a <span class="ci">: the value alone here
        rows[name] = [html_lib.unescape(re.sub(r'<span class="ci">.*?</span>', "", c))
                      for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
    return rows


def test_user_strings_are_escaped():
    page = rendered()
    assert HOSTILE_COLUMN not in page and "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "compas&amp;co.csv.gz" in page and "&lt;M&gt;" in page  # path and category name
    assert "&lt;i&gt;log&lt;/i&gt;" in page  # a fit-log entry
    # the spec is shown in full and unchanged once the browser unescapes it
    shown = re.search(r'<pre class="spec-text">(.*?)</pre>', page, re.S).group(1)
    assert html_lib.unescape(shown) == SPEC_TEXT


def test_page_is_self_contained():
    pts = [make_docs(bound=b, seed=i) for i, b in enumerate([0.05, 0.2])]
    for page in (rendered(), render_report(build_context(*pts[0], sweep=pts))):
        lowered = page.lower()
        for needle in ('src="http', "src='http", 'href="http', "href='http", "@import", "<link",
                       "<script", "<iframe", "//fonts."):
            assert needle not in lowered, needle
        # the figures clip to their own shapes (url(#id)); nothing else is fetched
        assert re.findall(r"url\((?!#)", lowered) == []
        assert re.findall(r'href="(?!#)', lowered) == []
        assert "<style>" in page and ".badge-met" in page  # the CSS is inlined
        assert "@media print" in page


def test_templates_never_bypass_autoescape():
    for path in TEMPLATES.iterdir():
        text = path.read_text()
        assert "|safe" not in text.replace(" ", "") and "Markup(" not in text
        assert "autoescape false" not in text.replace("  ", " ").lower()
    # the one string the report marks as markup is a figure's SVG, and only render.py's svg
    # filter does it, after parsing the SVG again (fairspec.report.figures.checked)
    package = Path(render_module.__file__).parent
    for path in package.rglob("*.py"):
        text = path.read_text()
        assert "|safe" not in text and "autoescape=False" not in text
        assert text.count("Markup(") == (1 if path.name == "render.py" else 0), path
    assert "return Markup(checked(str(svg)))" in (package / "render.py").read_text()
    env = render_module.environment()
    assert env.from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"


def test_the_svg_filter_refuses_a_figure_with_anything_but_drawing_and_text():
    from fairspec.report.figures import FigureError

    svg = render_module.environment().filters["svg"]
    assert "<text>ok</text>" in str(svg('<svg xmlns="http://www.w3.org/2000/svg"><text>ok</text></svg>'))
    for hostile in ('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
                    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
                    '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>x</p></foreignObject></svg>',
                    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
                    '<use xlink:href="http://example.com/a.svg#x"/></svg>',
                    '<svg xmlns="http://www.w3.org/2000/svg"><style>*{}</style></svg>',
                    '<svg><text>unclosed</svg>'):
        with pytest.raises(FigureError):
            svg(hostile)


@pytest.mark.parametrize("split", ["train", "test"])
def test_group_tables_show_every_group_with_its_numbers(split):
    model_doc, metrics_doc = make_docs()
    rows = group_rows(render_report(build_context(model_doc, metrics_doc)), f"groups-{split}")
    block = metrics_doc[split]["groups"]
    compared = metrics_doc[split]["disparities"]["groups"]
    assert set(rows) == set(GROUPS) == set(block) == set(compared)
    for name, cells in rows.items():
        g, d = block[name], compared[name]
        expected = ([f"{g['count']:,}", fmt_rate(g["base_rate"])]
                    + [fmt_rate(g[k]) for k in ("selection_rate", "tpr", "fpr", "fnr")]
                    + [fmt_rate(d["precision"]), fmt_rate(g["accuracy"])])
        assert cells == expected


def test_a_metrics_file_without_the_reference_comparison_shows_the_rates_alone():
    model_doc, metrics_doc = make_docs(audit=False)
    page = render_report(build_context(model_doc, metrics_doc))
    rows = group_rows(page, "groups-test")
    g = metrics_doc["test"]["groups"][GROUPS[0]]
    assert rows[GROUPS[0]] == [f"{g['count']:,}"] + [fmt_rate(g[k]) for k in
                                                     ("base_rate", "selection_rate", "tpr", "fpr", "fnr", "accuracy")]
    assert "predates the reference-group comparison" in page and 'class="compare"' not in page


@pytest.mark.parametrize("flag", [True, False, None])
def test_auc_and_abroca_of_scores_that_are_the_labels_say_so(flag):
    model_doc, metrics_doc = make_docs()
    for split in ("train", "test"):
        if flag is None:
            metrics_doc[split].pop("scores_are_labels", None)  # a file from before the flag
        else:
            metrics_doc[split]["scores_are_labels"] = flag
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    # each split's AUC on its line of the whole model; the ABROCA row of the gaps table
    assert page.count("AUC of 0/1 scores (= balanced accuracy) <strong>") == (2 if flag else 0)
    assert page.count("ABROCA of 0/1 scores (one-point ROC curves)") == (1 if flag else 0)
    assert page.count(">AUC <strong>") == (0 if flag else 2)
    assert ("ABROCA (area between the groups' ROC curves)" in page) is not bool(flag)


@pytest.mark.parametrize("value, below", [(0.47, True), (0.5, False), (0.81, False)])
def test_a_balanced_accuracy_below_chance_says_so_in_its_card(value, below):
    model_doc, metrics_doc = make_docs()
    metrics_doc["test"]["balanced_accuracy"] = value
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    card = re.search(r"Balanced accuracy <strong>([^<]+)</strong>", page[page.index("Test rows"):]).group(1)
    assert card.startswith(fmt_rate(value))
    assert ("below 0.5, what a constant or random prediction scores" in card) is below


def test_undefined_rate_shows_a_dash():
    model_doc, metrics_doc = make_docs()
    for where in (metrics_doc["test"]["groups"]["Other"], metrics_doc["test"]["disparities"]["groups"]["Other"]):
        where["tpr"] = where["fnr"] = None
    cells = group_rows(render_report(build_context(model_doc, metrics_doc)), "groups-test")["Other"]
    assert cells[3] == "—" and cells[5] == "—" and cells[4] != "—"  # TPR, FNR; FPR


def badge_of(page: str) -> str:
    """The verdict badge of the summary (a sweep point's: its fairness block)."""
    verdict = (re.search(r'<div class="card verdict-card">.*?<span class="badge badge-([a-z-]+)"[^>]*>([^<]+)</span>',
                         page, re.S)
               or re.search(r'<div class="verdict"><span class="badge badge-([a-z-]+)"[^>]*>([^<]+)</span>', page))
    assert verdict, "no verdict badge"
    return f"{verdict.group(1)}:{verdict.group(2)}"


def test_met_and_not_met_follow_the_test_gap():
    # without an interval (a file from before them) the measured test gap alone decides
    model_doc, metrics_doc = make_docs(bound=0.05)
    test_gap = metrics_doc["test"]["gaps"]["equal_opportunity"]
    train_gap = metrics_doc["train"]["gaps"]["equal_opportunity"]
    assert train_gap < test_gap  # the fixture data make the two verdicts differ
    bound_between = (train_gap + test_gap) / 2
    page = rendered(bound=bound_between, intervals=False)
    assert badge_of(page) == "not-met:NOT MET"  # met on train does not count
    assert badge_of(rendered(bound=test_gap + 0.01, intervals=False)) == "met:MET"
    assert badge_of(rendered(bound=test_gap, intervals=False)) == "met:MET"  # a gap equal to the bound meets it
    assert "so the test gap alone decides" in html_lib.unescape(rendered(bound=test_gap, intervals=False))
    assert badge_of(rendered(bound=None, penalty=0.5)) == "neutral:PENALIZED, NO BOUND"
    assert badge_of(rendered(bound=None)) == "neutral:AUDITED, NOT ENFORCED"
    assert badge_of(rendered(criterion=None, bound=None)) == "neutral:NO CRITERION"


def _rendered_with_interval(bound: float, interval: list[float]) -> str:
    """The report of ``make_docs(bound=bound)`` with the test gap's interval replaced."""
    model_doc, metrics_doc = make_docs(bound=bound)
    metrics_doc["test"]["gap_intervals"]["gaps"]["equal_opportunity"] = interval
    metrics_doc["fairness"] = fairness_summary(make_criterion("equal_opportunity", bound=bound),
                                               metrics_doc["train"], metrics_doc["test"])
    return render_report(build_context(model_doc, metrics_doc))


def test_the_verdict_says_what_the_interval_of_the_test_gap_allows():
    _, metrics_doc = make_docs()
    gap = metrics_doc["test"]["gaps"]["equal_opportunity"]
    # the fixture's groups share one TPR, so the measured 0.135 (a 45-row group) is noise and
    # the interval starts at 0; the last case needs one that does not
    assert metrics_doc["test"]["gap_intervals"]["gaps"]["equal_opportunity"][0] == 0.0
    low, high = gap / 2, metrics_doc["test"]["gap_intervals"]["gaps"]["equal_opportunity"][1]
    assert low < gap < high
    shown = f"{low:.4f} to {high:.4f}"
    # three states: the interval within the bound, across it (on either side of the measured
    # gap), or wholly above it
    cases = [(high + 0.01, "met:MET", "lies within the bound too"),
             ((gap + high) / 2, "inconclusive:INCONCLUSIVE", "reaches above the bound"),
             ((low + gap) / 2, "inconclusive:INCONCLUSIVE", "includes the bound"),
             (low / 2, "not-met:NOT MET", "lies above the bound too")]
    for bound, verdict, sentence in cases:
        page = _rendered_with_interval(bound, [low, high])
        card = page.split('<div class="card verdict-card">', 1)[1].split("</div>\n    </div>", 1)[0]
        explanation = html_lib.unescape(re.sub(r'title="[^"]*"', "", card))
        assert badge_of(page) == verdict and sentence in explanation and f"95% interval, {shown}," in explanation
        assert f"{shown} (95%)" in page  # the summary card's interval
    # the gaps table has a column of intervals, one per gap measured on the test rows
    page = rendered()
    gaps_table = re.search(r'<table class="gaps">(.*?)</table>', page, re.S).group(1)
    assert "95% interval, test rows" in gaps_table
    for name, interval in metrics_doc["test"]["gap_intervals"]["gaps"].items():
        assert f"{interval[0]:.4f} to {interval[1]:.4f}" in gaps_table
    # a metrics.json written before intervals: no column, no sentence, a dash in the row
    old = render_report(build_context(*make_docs(bound=(gap + high) / 2, intervals=False)))
    assert "interval, test rows" not in old and "reaches above" not in old
    assert "; interval —" in old


def test_a_test_gap_that_cannot_be_measured_is_not_called_met():
    import numpy as np

    from fairspec.metrics import evaluate_predictions, fairness_summary
    from fairspec.registry.criteria import make_criterion

    model_doc, metrics_doc = make_docs(bound=0.05)
    # two test rows, one positive: only one group has a TPR, so there is no gap to compare
    test = evaluate_predictions(np.array([1, 0]), np.array([1, 0]), np.array([0.9, 0.1]), np.array(["a", "b"]))
    assert test["gaps"]["equal_opportunity"] is None
    metrics_doc["test"] = test
    metrics_doc["fairness"] = fairness_summary(make_criterion("equal_opportunity", bound=0.05),
                                               metrics_doc["train"], test)
    assert metrics_doc["fairness"]["met_test"] is None
    page = render_report(build_context(model_doc, metrics_doc))
    assert badge_of(page) == "neutral:NOT MEASURED ON TEST"


def test_a_group_missing_from_the_test_rows_is_named_and_the_verdict_is_not_met():
    import numpy as np

    from fairspec.metrics import evaluate_predictions, fairness_summary
    from fairspec.registry.criteria import make_criterion

    model_doc, metrics_doc = make_docs(bound=0.05)
    train = metrics_doc["train"]
    # the test rows hold only two of the training groups, and their gap is 0
    names = sorted(train["groups"])
    assert len(names) >= 3
    kept = np.array(names[:2] * 2)
    test = evaluate_predictions(np.array([1, 1, 0, 0]), np.array([1, 1, 0, 0]), np.array([0.9, 0.9, 0.1, 0.1]),
                                kept)
    metrics_doc["test"] = test
    metrics_doc["fairness"] = fairness_summary(make_criterion("equal_opportunity", bound=0.05), train, test)
    assert metrics_doc["fairness"]["achieved_test"] == 0.0 and metrics_doc["fairness"]["met_test"] is None
    page = render_report(build_context(model_doc, metrics_doc))
    assert badge_of(page) == "neutral:NOT MEASURED ON TEST"  # was "met:MET" with a gap over two groups
    assert "&#34;" + names[2] + "&#34;" in page or "&quot;" + names[2] + "&quot;" in page


def test_without_test_split_the_verdict_is_on_train_and_says_so():
    page = rendered(bound=0.9, with_test=False)
    assert badge_of(page) == "met:MET ON TRAIN"
    assert 'id="groups-train"' in page and 'id="groups-test"' not in page
    assert "No held-out evaluation" in page


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_without_test_rows_nothing_claims_a_test_result():
    model_doc, metrics_doc = make_docs(bound=0.9, with_test=False)
    metrics_doc["evaluation"] = {"kind": "none", "test_size": None, "folds": None, "stratify": True,
                                 "stratified_by": None, "seed": 7}
    text = _text(render_report(build_context(model_doc, metrics_doc)))
    assert "Fairness on training rows (no test rows)" in text and "There are no test rows (evaluate none)" in text
    assert "Rows used 1,000 (all for training; no test rows)" in text
    for claim in ("Fairness on test rows", "read on the test rows", "Achieved gap, test rows", "test interval"):
        assert claim not in text, claim
    # a sweep: its verdict column and accuracy are the training rows'
    points = [make_docs(bound=b, with_test=False) for b in (0.05, 0.9)]
    for _, m in points:
        m["evaluation"] = metrics_doc["evaluation"]
    text = _text(render_report(build_context(*points[0], sweep=points)))
    assert "each trained and measured on the same rows (there are no test rows)" in text
    assert "Training accuracy Gap, train On train" in text and "evaluated on the same test rows" not in text
    accuracy = f"{points[1][1]['train']['accuracy']:.3f}"
    assert f"gap ≤ 0.9 (hard bound) {accuracy}" in text


def test_under_cross_validation_the_verdict_is_on_out_of_fold_rows():
    model_doc, metrics_doc = make_docs(bound=0.9)
    metrics_doc["evaluation"] = {"kind": "cv", "test_size": None, "folds": 5, "stratify": True,
                                 "stratified_by": "target", "seed": 7}
    text = _text(render_report(build_context(model_doc, metrics_doc)))
    assert "Fairness out of fold (cross-validation)" in text and "The out-of-fold gap" in text
    assert "gap, out-of-fold rows" in text and "read on out-of-fold predictions" in text
    assert "Rows used 1,000 (each tested once, out of fold" in text and "training 1,000" not in text
    assert "5-fold cross-validation, stratified by target only" in text
    assert "The test gap" not in text and "read on the test rows" not in text


def test_under_cross_validation_a_kept_model_predicting_one_class_is_named_beside_the_out_of_fold_verdict():
    model_doc, metrics_doc = make_docs(bound=0.9)
    metrics_doc["evaluation"] = {"kind": "cv", "test_size": None, "folds": 5, "stratify": True,
                                 "stratified_by": "target", "seed": 7}
    said = "The model kept, fitted on every row, predicts negative for every one of them"
    assert said not in _text(render_report(build_context(model_doc, metrics_doc)))
    for group in metrics_doc["train"]["groups"].values():
        group["selection_rate"] = 0.0
    text = _text(render_report(build_context(model_doc, metrics_doc)))
    assert said in text
    # under a hold-out the training rows are the kept model's too, and the test rows decide
    metrics_doc["evaluation"]["kind"] = "holdout"
    assert said not in _text(render_report(build_context(model_doc, metrics_doc)))


def test_the_evaluation_says_what_a_hold_out_was_stratified_by():
    model_doc, metrics_doc = make_docs()
    for by, says in (("target and group", "stratified by target and group,"),
                     ("target", "stratified by target only (some target-and-group cell has too few rows to be split)"),
                     # asked for, but not even the target could be divided: it had read "stratified"
                     (None, "kept for testing, not stratified (a target class has too few rows to split),"),
                     ("absent", "kept for testing, stratified,")):  # a metrics.json from before stratified_by
        metrics_doc["evaluation"]["stratified_by"] = by
        if by == "absent":
            del metrics_doc["evaluation"]["stratified_by"]
        assert says in _text(render_report(build_context(model_doc, metrics_doc)))
    metrics_doc["evaluation"].update(stratify=False, stratified_by=None)  # not asked for
    assert "kept for testing, seed" in _text(render_report(build_context(model_doc, metrics_doc)))


def test_report_sections_and_fit_log():
    page = rendered()
    for section in ("summary", "model-card", "groups", "figures", "model", "data", "spec", "how-to-read", "appendix"):
        assert re.search(rf'<section (class="[^"]*" )?id="{section}">', page), section
    assert hashlib.sha256(SPEC_TEXT.encode()).hexdigest() in page and "cd" * 32 in page  # both hashes
    assert "2026-11-22T21:00:00Z" in page and "0.1.0" in page
    assert "<code>optimal</code>" in page and "0.00%" in page  # status and MIP gap
    assert "[3, 5, 8]" in page and "nodes" in page  # other fit-log entries as key/value rows
    assert "never read at prediction" in page  # privileged features are named as such
    assert 'id="missing-by-group"' in page and "0.125" in page


def test_sweep_report_lists_every_point_with_details():
    bounds = [0.05, 0.1, 0.2]
    pts = [make_docs(bound=b, seed=i) for i, b in enumerate(bounds)]
    context = build_context(*pts[0], sweep=pts)
    page = render_report(context)
    table = re.search(r'<table class="sweep" id="sweep-points">(.*?)</table>', page, re.S).group(1)
    body_rows = re.findall(r"<tr><td>", table)
    assert len(body_rows) == len(bounds)
    for i, (b, (_, metrics_doc)) in enumerate(zip(bounds, pts)):
        assert f'<details class="point" id="point-{i}"' in page
        assert f'id="groups-test-point-{i}"' in page
        f = metrics_doc["fairness"]
        low, high = f["interval_test"]
        state = ("MET" if high <= f["bound"] else "INCONCLUSIVE") if f["met_test"] else \
            ("NOT MET" if low > f["bound"] else "INCONCLUSIVE")
        assert context.sweep.rows[i].badge.text == state
        assert context.sweep.rows[i].test_accuracy == fmt_rate(metrics_doc["test"]["accuracy"])
        assert context.sweep.rows[i].interval_test == f"{low:.4f} to {high:.4f} (95%)"
    # one chart, every point on it by its setting
    assert page.count('id="figure-frontier"') == 1
    chart = context.sweep.chart.svg
    for b in bounds:
        assert f"≤ {b:g}" in chart


def test_settings_and_logged_counts_print_every_digit():
    # a bound of 0.01234567 printed as 0.0123457 and a logged count of 1234567.0 as
    # 1.23457e+06 (found in review)
    assert [fmt_number(v) for v in (0.01234567, 1234567.0, 0.025, 1e-05, 120.0)] == [
        "0.01234567", "1234567", "0.025", "1e-05", "120"]
    assert [fmt_value(v) for v in (1234567.0, 0.824312345, 3.0)] == ["1234567", "0.824312", "3"]


def test_rendering_is_deterministic():
    assert rendered() == rendered()


def test_write_report_is_atomic(tmp_path):
    old_mask = os.umask(0o022)
    try:
        _check_write_report_is_atomic(tmp_path)
    finally:
        os.umask(old_mask)


def _check_write_report_is_atomic(tmp_path):
    context = build_context(*make_docs())
    target = tmp_path / "out" / "report.html"
    write_report(target, context)
    assert target.read_text(encoding="utf-8") == render_report(context)
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.html"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)


def test_render_failure_leaves_the_old_report_untouched(tmp_path):
    target = tmp_path / "report.html"
    target.write_text("old report", encoding="utf-8")
    broken = dataclasses.replace(build_context(*make_docs()), header=object())  # StrictUndefined raises
    with pytest.raises(Exception):
        write_report(target, broken)
    assert target.read_text(encoding="utf-8") == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_write_failure_removes_the_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("old report", encoding="utf-8")

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_report(target, build_context(*make_docs()))
    assert target.read_text(encoding="utf-8") == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_structured_fit_log_entries_become_tables():
    model_doc, metrics_doc = make_docs()
    metrics_doc["training_log"]["phases"] = [{"name": "fair_master", "rounds": 11, "seconds": 7.5},
                                             {"name": "<tilt>", "rounds": 8, "certified": False}]
    metrics_doc["training_log"]["big"] = {f"k{i}": i for i in range(40)}
    context = build_context(model_doc, metrics_doc)
    other = {kv.key: kv for kv in context.runs[0].training.other}
    phases = other["phases"].table
    assert phases.columns == ("name", "certified", "rounds", "seconds")
    assert phases.rows == (("fair_master", "—", "11", "7.5"), ("<tilt>", "no", "8", "—"))
    # model.json and metrics.json are written with sorted keys: a report re-rendered from them
    # must show the same table as the one written from the fit's own dicts
    metrics_doc["training_log"]["phases"] = [dict(sorted(p.items())) for p in metrics_doc["training_log"]["phases"]]
    again = {kv.key: kv for kv in build_context(model_doc, metrics_doc).runs[0].training.other}["phases"].table
    assert again == phases
    assert other["big"].block is not None and other["big"].value == "40 keys"
    page = render_report(context)
    assert '<table class="records">' in page and "&lt;tilt&gt;" in page and "<tilt>" not in page


def test_report_says_whether_the_protected_attribute_is_a_model_input():
    model_doc, metrics_doc = make_docs()
    assert "it is not a model input" in render_report(build_context(model_doc, metrics_doc))
    model_doc["schema"]["features"].append({"name": "race", "kind": "categorical",
                                            "categories": list(GROUPS)})
    page = render_report(build_context(model_doc, metrics_doc))
    assert "The protected attribute is also a model input." in page
    assert "protected attribute, used as a model input" in page
    assert "it is not a model input" not in page


@pytest.mark.parametrize("family, strategy, categorical, expected", [
    ("rule_set", "mia", True, ['A condition on a missing value is false unless it says "(or missing)".',
                               "A category not seen in the training rows is read as a missing value."]),
    ("rule_set", "impute", True, ["A category not seen in the training rows is read as a missing value, "
                                  "and filled in as one (the imputed values below)."]),
    ("tree", "drop", True, ["Missing values (drop): training rows with a missing feature were left out, and a row "
                            "with one cannot be scored.",
                            "A category not seen in the training rows is read as a missing value: as a row "
                            "with a missing value, such a row cannot be scored."]),
    ("rule_set", "mia", False, ['A condition on a missing value is false unless it says "(or missing)".']),
    ("tree", "mia", False, ["Missing values (mia, Missing Incorporated in Attributes): each split also chose, on the "
                            'training rows, the branch a row missing its feature takes, marked "(or missing)"; a '
                            "split may also separate present from missing values."]),
    ("tree", "fractional", False, ["Missing values (fractional cases, C4.5): a row missing a split's feature goes "
                                   "down both branches, weighted by the training rows' shares, and its score mixes "
                                   "the leaves it reaches."]),
])
def test_the_model_text_says_how_it_reads_a_missing_value_and_an_unseen_category(family, strategy, categorical,
                                                                                expected):
    # "IF color != red THEN 1" scores purple 0: purple was never seen, so it is missing, and
    # the condition is false on a missing value; a reviewer reading the rule by hand said 1
    model_doc, metrics_doc = make_docs()
    model_doc["model"]["family"] = family
    # a text without leaves: the note on what a leaf's p and n are is another test's
    model_doc["model"]["text"] = ["IF age <= 25 AND c_charge_degree == F THEN 1", "ELSE 0"]
    model_doc["preprocessing"]["missing"]["strategy"] = strategy
    if not categorical:
        model_doc["schema"]["features"] = [f for f in model_doc["schema"]["features"] if f["kind"] != "categorical"]
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    reading = re.search(r'<p class="reading">(.*?)</p>', page, re.S)
    assert (reading.group(1) if reading else "") == " ".join(expected)


@pytest.mark.parametrize("line, fragment", [
    ("  leaf: 1  (p=0.32, n=63; relabelled for the fairness bound)", "the integer program that meets the bound"),
    ("x is missing   (third child, grown on all 1400 rows of this node)", "a path through it can hold more splits"),
    ("x < 2.5   (missing: weight 0.5)", "n counts it in each of them"),
])
def test_the_reading_notes_explain_relabelled_leaves_third_children_and_fractional_weights(line, fragment):
    # a leaf printed 1 at p=0.32, leaves whose n add up to more than the training rows, a path
    # longer than the depth: each read as a mistake without a word
    model_doc, metrics_doc = make_docs()
    model_doc["model"]["family"] = "tree"
    plain = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    model_doc["model"]["text"] = [line, "  leaf: 0  (p=0.10, n=5)"]
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert fragment in page and fragment not in plain


def test_a_forest_leafs_p_and_n_are_said_to_be_over_its_trees_bootstrap_sample():
    # a leaf printed p=0.52, n=20 where 40 training rows reach it, 70% positive: the tree's
    # bootstrap sample, weighted by draws, which the note did not say (found in review)
    from fairspec.report.sections.model import _reading_notes

    text = ["tree 1 of 3:", "x <= 2.5", "  leaf: 1  (p=0.52, n=20)"]
    said = " ".join(_reading_notes("tree", "mia", {}, text, True, "forest", bootstrapped=True))
    assert "the rows of the tree's own bootstrap sample" in said and "number of times it was drawn" in said
    for scoring, bootstrapped in (("forest", False), (None, False), ("relabelled", False)):
        assert "bootstrap" not in " ".join(_reading_notes("tree", "mia", {}, text, True, scoring, bootstrapped))
    model_doc, metrics_doc = make_docs()
    model_doc["model"].update(family="tree", text=text, params={"depth": 2, "forest": {"trees": 3}},
                              estimator={"trees": []})
    assert "bootstrap sample" in html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    model_doc["model"]["params"]["forest"]["bootstrap"] = False
    assert "bootstrap sample" not in html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))


def test_the_imputed_values_are_shown_as_the_data_spells_them():
    # the section read a key no run writes, so it never showed
    page = html_lib.unescape(rendered())
    section = page.split("Imputed values (learned on the training rows)")[1].split("</table>")[0]
    cells = [c.strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", section, re.S)]
    assert cells == ["age", "31.0", HOSTILE_COLUMN, "0.5", "c_charge_degree", "<M> (the most frequent category)"]
    model_doc, metrics_doc = make_docs()
    model_doc["preprocessing"]["imputer"]["method"] = "knn"
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "the mean of its 5 nearest training rows (kNN)" in page and "kNN reference rows" not in page
    # the records kNN keeps travel with the model file: the report says so
    model_doc["preprocessing"]["imputer"]["reference"] = [[31.0, 0.5, 1.0]] * 3
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "model.json holds the feature values of 3 training rows" in page


def test_a_run_written_before_the_classes_were_named_is_read_as_it_was_written():
    # its text shows the fit's 0/1 whatever the data says, and its spec hash is of the text:
    # the notes for today's files had told a reviewer to read "leaf: 1" as the data's 1
    model_doc, metrics_doc = make_docs()
    del model_doc["model"]["class_names"], model_doc["spec"]["normalised"]
    model_doc["model"]["text"] = ["age < 30", "  leaf: 1  (p=0.60, n=10)", "age >= 30", "  leaf: 0  (p=0.30, n=5)"]
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert "This text names the classes 1, the positive class (two_year_recid = 1), and 0, the other" in page
    assert "A leaf shows 1 when it predicts the positive class" in page
    assert "Spec SHA-256 (of its text as read)" in page and "Spec file SHA-256" not in page
    today = html_lib.unescape(rendered())
    assert "This text names the classes 1" not in today and "Spec file SHA-256" in today


def test_a_tree_read_out_says_what_a_leafs_p_is():
    model_doc, metrics_doc = make_docs()
    model_doc["model"]["text"] = ["age < 30", "  leaf: 0  (p=0.40, n=10)", "age >= 30", "  leaf: 1  (p=0.70, n=5)"]
    page = html_lib.unescape(render_report(build_context(model_doc, metrics_doc)))
    assert ("A leaf shows the class it predicts; p is the share of the positive class (two_year_recid = 1) "
            "among its training rows, n their number.") in page


@pytest.mark.parametrize("family, reproducible, cut, clock_cap, expected", [
    ("rule_set", True, [], True, "yes: the clock stopped no stage; the same spec, data and seed give this model again"),
    ("rule_set", True, [], False, "yes: the clock stopped no stage and could stop none (clock_cap false); the same"),
    ("rule_set", False, ["final_ip", "<tilt>"], True, "not guaranteed: the time limit stopped final_ip, &lt;tilt&gt;"),
    ("rule_set", None, None, None, None),
    # the baseline has no stages and no clock to stop them
    ("baseline", True, [], None, "yes: this learner never looks at the clock; the same spec, data and seed"),
])
def test_training_log_says_whether_the_model_would_come_out_the_same_again(family, reproducible, cut, clock_cap,
                                                                          expected):
    model_doc, metrics_doc = make_docs()
    model_doc["model"]["family"] = family
    if reproducible is not None:
        metrics_doc["training_log"].update(reproducible=reproducible, cut_by_clock=cut, clock_cap=clock_cap)
    page = render_report(build_context(model_doc, metrics_doc))
    row = re.search(r'<th scope="row">Reproducible</th><td>(.*?)</td>', page).group(1)
    assert row.startswith(expected) if expected else row == "—"
    # shown in the row, not again among the other entries
    assert "cut_by_clock" not in page and "clock_cap</th>" not in page


def test_the_header_names_the_software_the_model_was_trained_under():
    model_doc, metrics_doc = make_docs()
    model_doc["software"] = {"numpy": "<b>2.4</b>", "python": "3.11.7", "highspy": "1.16.0"}
    page = render_report(build_context(model_doc, metrics_doc))
    row = re.search(r'<th scope="row">Software</th><td>(.*?)</td>', page).group(1)
    assert row == "python 3.11.7, highspy 1.16.0, numpy &lt;b&gt;2.4&lt;/b&gt;"
    del model_doc["software"]  # a model file written before fairspec recorded it
    page = render_report(build_context(model_doc, metrics_doc))
    assert re.search(r'<th scope="row">Software</th><td>(.*?)</td>', page).group(1) == "not recorded in model.json"


def test_the_mip_gap_names_the_problem_it_is_about():
    # "MIP gap 85%" alone reads as a verdict on the model; the family says which problem it is of
    model_doc, metrics_doc = make_docs()
    metrics_doc["training_log"].update(mip_gap=0.8516, mip_gap_of="the final <IP> over 192 pooled rules")
    page = render_report(build_context(model_doc, metrics_doc))
    row = re.search(r'<th scope="row">MIP gap</th><td>(.*?)</td>', page).group(1)
    assert row == "85.16% (of the final &lt;IP&gt; over 192 pooled rules)"
    assert "mip_gap_of" not in page  # shown in the row, not again among the other entries
    assert "A large gap says optimality was not proven" in page  # the reading notes explain it
    model_doc, metrics_doc = make_docs()
    metrics_doc["training_log"].pop("mip_gap")
    page = render_report(build_context(model_doc, metrics_doc))
    assert re.search(r'<th scope="row">MIP gap</th><td>(.*?)</td>', page).group(1) == "—"


@pytest.mark.parametrize("status, gap, shown", [
    ("time_limit", None, "not known: the solver stopped before it had a bound"),  # HiGHS's inf, written as null
    ("work_limit", 0.125, "12.50%"),
    ("heuristic", None, "\u2014"),
])
def test_a_mip_gap_not_yet_known_is_not_shown_as_no_mip(status, gap, shown):
    model_doc, metrics_doc = make_docs()
    metrics_doc["training_log"].update(status=status, mip_gap=gap)
    view = build_context(model_doc, metrics_doc)
    text = html_lib.unescape(render_report(view))
    assert shown in text.split('<th scope="row">MIP gap</th>', 1)[1][:200]


def _sweep_page(bounds_and_seeds):
    pts = [make_docs(bound=b, seed=s) for b, s in bounds_and_seeds]
    return build_context(*pts[0], sweep=pts), pts


def test_the_sweep_table_prints_what_each_interval_says_and_every_point_is_open():
    # found in review: a green MET whose interval reaches above the bound said so only in a
    # tooltip, which paper does not show
    context, pts = _sweep_page([(0.05, 0), (0.1, 1), (0.2, 2)])
    page = render_report(context)
    table = re.search(r'<table class="sweep" id="sweep-points">(.*?)</table>', page, re.S).group(1)
    without_tooltips = html_lib.unescape(re.sub(r'title="[^"]*"', "", table))
    for i, (_, metrics_doc) in enumerate(pts):
        f = metrics_doc["fairness"]
        low, high = f["interval_test"]
        expected = (("interval within the bound" if high <= f["bound"] else "interval reaches above the bound")
                    if f["met_test"] else
                    ("interval above the bound" if low > f["bound"] else "interval includes the bound"))
        assert context.sweep.rows[i].badge.caveat == expected
        row = re.findall(r"<tr><td>.*?</tr>", without_tooltips, re.S)[i]
        assert expected in row
        # a closed <details> prints only its summary line in most browsers
        assert re.search(rf'<details class="point" id="point-{i}" open>', page)


def test_the_sweep_chart_marks_met_and_not_met_in_text_not_colour_alone():
    # without intervals the measured gap decides: one point met, one not
    pts = [make_docs(bound=b, seed=s, intervals=False) for b, s in [(0.001, 0), (0.5, 1)]]
    context = build_context(*pts[0], sweep=pts)
    verdicts = [d["fairness"]["met_test"] for _, d in pts]
    assert verdicts == [False, True]  # the fixture's test gaps lie between the two bounds
    svg = context.sweep.chart.svg
    assert "≤ 0.001 ✗" in svg and "≤ 0.5 ✓" in svg  # each point's label carries its verdict
    # with intervals, a bound the interval crosses is neither
    assert "≤ 0.001 ?" in _sweep_page([(0.001, 0), (0.5, 1)])[0].sweep.chart.svg
    page = render_report(context)
    assert "a circle ✓ is met" in page and "a cross ✗ not met" in page


def test_bidirectional_controls_in_user_strings_are_shown_not_obeyed():
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["groups"]["sm\u202eall"] = {"count": 3, "base_rate": 0.5}
    model_doc["spec"]["text"] += "# \u2067isolated\u2069 comment\n"
    page = render_report(build_context(model_doc, metrics_doc))
    for control in ("\u202e", "\u2067", "\u2069"):
        assert control not in page
    assert "sm[U+202E]all" in page and "[U+2067]isolated[U+2069]" in page


def test_zero_width_and_other_invisible_characters_in_user_strings_are_shown():
    # a group "Fe\u200bmale" read as "Female" beside a filter that left "Female" out (found in review)
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["groups"]["Fe\u200bmale"] = {"count": 3, "base_rate": 0.5}
    model_doc["spec"]["text"] += "# soft\u00adhyphen, BOM\ufeff, escape\x1b[2J, tag\U000e0041\n"
    page = render_report(build_context(model_doc, metrics_doc))
    for hidden in ("\u200b", "\u00ad", "\ufeff", "\x1b", "\U000e0041"):
        assert hidden not in page
    assert "Fe[U+200B]male" in page and "soft[U+00AD]hyphen" in page and "escape[U+001B][2J" in page
    assert page.count("\n") > 100  # line ends stay line ends


def test_many_groups_split_the_missing_values_table_so_it_fits_a_page():
    model_doc, metrics_doc = make_docs()
    many = [f"g{i}" for i in range(14)]
    metrics_doc["data_summary"]["missing"] = {"age": {g: i / 100 for i, g in enumerate(many)}}
    context = build_context(model_doc, metrics_doc)
    parts = context.data.missing
    assert [len(part.groups) for part in parts] == [6, 6, 2]
    assert [g for part in parts for g in part.groups] == many
    assert [c for part in parts for c in part.rows[0].cells] == [f"{i / 100:.3f}" for i in range(14)]
    page = render_report(context)
    assert page.count('<table class="missing"') == 3 and "(3 of 3)" in page


def test_a_small_group_never_reads_as_an_empty_share():
    model_doc, metrics_doc = make_docs()
    metrics_doc["data_summary"]["rows"] = 6172
    metrics_doc["data_summary"]["groups"]["tiny"] = {"count": 2, "base_rate": 0.5}
    row = next(r for r in build_context(model_doc, metrics_doc).data.groups if r.name == "tiny")
    assert row.cells[:2] == ("2", "<0.001")


def test_the_training_note_explains_the_statuses_the_report_shows():
    model_doc, metrics_doc = make_docs()
    for status, has, lacks in [("fitted", "fitted means a scikit-learn learner", "work_limit means"),
                               ("heuristic", "heuristic means no solver proved", "optimal means"),
                               ("work_limit", "work_limit means the solver stopped at its work limit", "fitted")]:
        metrics_doc["training_log"].update(status=status, mip_gap=0.1 if status == "work_limit" else None)
        notes = " ".join(build_context(model_doc, metrics_doc).reading_notes)
        assert has in notes and lacks not in notes
        assert ("The MIP gap is how far" in notes) == (status == "work_limit")


def test_filters_print_as_the_spec_writes_them():
    model_doc, metrics_doc = make_docs()
    model_doc["data"]["filters"] = [["c charge", "!=", ["F"]], ["age", ">=", [21]]]
    assert build_context(model_doc, metrics_doc).data.filters == ('`c charge` != "F"', "age >= 21")


def test_the_timing_rows_say_what_they_cover():
    page = html_lib.unescape(rendered())
    assert "fit (encoding, imputation and the estimator" in page and "since the run started" in page
    assert "Estimator fit time" in page


def test_the_print_style_lets_long_tables_break_and_nested_tables_wrap():
    css = re.sub(r"/\*.*?\*/", "", (TEMPLATES / "style.css").read_text(), flags=re.S)
    # found by printing the rule-set report: "table.kv th { white-space: nowrap }" reached the
    # fit log's nested phases table, which outgrew the page and shrank the print to 76%
    assert "table.kv th {" not in css and "table.kv > tbody > tr > th" in css
    print_rules = css.split("@media print", 1)[1]
    assert re.search(r"tr \{ break-inside: avoid", print_rules)
    assert not re.search(r"(^|[\s,])table[\s,][^{]*\{[^}]*break-inside: avoid", print_rules)


def test_equalized_odds_whose_measurable_part_exceeds_the_bound_reads_not_met():
    from fairspec.metrics import evaluate_predictions
    model_doc, metrics_doc = make_docs(criterion="equalized_odds", bound=0.1)
    train = evaluate_predictions([1, 0, 1, 0, 1, 0, 1, 0], [1, 0, 1, 0, 1, 0, 1, 0], None, list("aaaabbbb"))
    test = evaluate_predictions([1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 0], None, list("aaaabb"))  # b: no negative
    metrics_doc.update(train=train, test=test,
                       fairness=fairness_summary(make_criterion("equalized_odds", bound=0.1), train, test))
    badge = build_context(model_doc, metrics_doc).runs[0].fairness.badge
    assert (badge.text, badge.css) == ("NOT MET", "not-met")
    assert "Fewer than two groups have a FPR" in badge.explanation and "TPR part alone, 0.5000" in badge.explanation


def test_a_sweep_without_test_rows_still_charts_its_points_on_the_training_rows():
    pts = [make_docs(bound=b, seed=i, with_test=False) for i, b in enumerate([0.001, 0.5])]
    chart = build_context(*pts[0], sweep=pts).sweep.chart
    assert chart is not None
    assert "equal_opportunity gap on the training rows" in chart.svg and "training accuracy" in chart.svg
    assert "≤ 0.001 ✗" in chart.svg and "≤ 0.5 ✓" in chart.svg


def test_a_gap_just_above_the_bound_never_prints_as_the_bound():
    from fairspec.report.context import fmt_gap_against
    assert fmt_gap_against(0.050025, 0.05) == "0.050025"
    assert fmt_gap_against(0.0502, 0.05) == "0.0502"
    assert fmt_gap_against(0.04999, 0.05) == "0.0500"  # within the bound: rounding says nothing wrong
    assert fmt_gap_against(None, 0.05) == "—"


def test_a_fit_the_clock_cut_says_so_by_its_status_its_gap_and_its_verdict():
    # a rule set whose every stage the clock stopped returned the empty rule set with a green
    # MET, status "heuristic" and MIP gap "—" (found in review)
    pts = [make_docs(bound=b, seed=i) for i, b in enumerate([0.05, 0.1])]
    pts[1][1]["training_log"].update(status="heuristic", mip_gap=None, reproducible=False,
                                     cut_by_clock=["cg", "final_ip"])
    context = build_context(*pts[0], sweep=pts)
    cut, whole = context.runs[1], context.runs[0]
    assert cut.training.status == "heuristic"
    assert cut.training.status_note == "(the time limit stopped cg, final_ip)" and whole.training.status_note == ""
    assert cut.training.mip_gap == ("none: the time limit stopped cg, final_ip before a solver returned a solution "
                                    "it could measure")
    assert cut.fairness.badge.caveat.endswith("the time limit stopped the fit")
    assert "The time limit stopped the kept model's fit (cg, final_ip)" in cut.fairness.badge.explanation
    assert "time limit" not in (whole.fairness.badge.caveat or "") + whole.fairness.badge.explanation
    page = re.sub(r"\s+", " ", html_lib.unescape(render_report(context)))
    # the sweep table's row of the point says it too
    assert page.count("the time limit stopped the fit</span>") == 2  # its table row and its section
    assert "<code>heuristic</code> (the time limit stopped cg, final_ip)" in page


def test_an_interval_end_beside_the_bound_is_printed_on_its_side_of_it():
    from fairspec.report.verdict import _interval_sentence, fmt_interval

    # four decimals had printed 0.05004 as 0.0500: "0.0000 to 0.0500 reaches above the bound 0.05"
    assert _interval_sentence([0.0, 0.05004], 0.05, 0.95, True) == (
        " Its 95% interval, 0.0000 to 0.05004, reaches above the bound: the test rows are too few to show that "
        "the gap on new data is within it.")
    assert fmt_interval([0.0, 0.05004]) == "0.0000 to 0.0500"  # a gap with no bound keeps four decimals
    model_doc, metrics_doc = make_docs(bound=0.05)
    metrics_doc["test"]["gap_intervals"]["gaps"]["equal_opportunity"] = [0.01, 0.05004]
    metrics_doc["fairness"]["interval_test"] = [0.01, 0.05004]
    run = build_context(model_doc, metrics_doc).runs[0]
    assert run.fairness.interval_test.startswith("0.0100 to 0.05004 (")
    assert {g.name: g.interval for g in run.gaps}["equal_opportunity"] == "0.0100 to 0.05004"


def test_sweep_chart_labels_never_overprint_and_one_spot_shares_one_label():
    # λ = 5 and λ = 1e9 both gave gap 0 and accuracy 0.530: their labels printed over each other
    # and read "λ = 5000000000" (found in review); two points 0.0026 apart overprinted too
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from fairspec.report.figures import FrontierPoint, frontier_figure

    points = [FrontierPoint(f"λ = {penalty:g}", gap, accuracy) for penalty, gap, accuracy in
              [(0.0, 0.20, 0.70), (5.0, 0.0, 0.53), (1e9, 0.0, 0.53), (2.0, 0.0026, 0.5302), (3.0, 0.004, 0.531)]]
    fig = frontier_figure(points, x_label="gap", y_label="accuracy", majority=0.53)
    ax = fig.axes[0]
    labels = [t for t in ax.texts]
    assert [t.get_text() for t in labels] == ["λ = 0", "λ = 5, λ = 1e+09", "λ = 2", "λ = 3"]
    renderer = FigureCanvasAgg(fig).get_renderer()
    boxes = [t.get_window_extent(renderer) for t in labels]
    inside = ax.get_window_extent(renderer)
    for i, a in enumerate(boxes):
        assert inside.x0 <= a.x0 and a.x1 <= inside.x1 and inside.y0 <= a.y0 and a.y1 <= inside.y1
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
