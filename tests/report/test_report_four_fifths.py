"""The four-fifths rule when the spec says the positive class is adverse: the report reads it on
the favourable predictions (1 - selection rate), says so, and `fairspec report` rechecks it so;
with favourable or no word it reads the selection rate as before."""
from __future__ import annotations

import copy
import html as html_lib
import re
from pathlib import Path

import pytest
from conftest import GROUPS, HOSTILE_GROUP, make_docs

from fairspec.metrics.disparity import against_reference
from fairspec.pipeline.outputs import read_outputs, render_outputs
from fairspec.report import build_context, render_report
from tests.helpers_outputs import edit, refusal

#: hand-made test rows: 100 per group, African-American (the reference) 20 predicted positive,
#: the hostile group 10, Other 15.  Selection rates 0.20, 0.10, 0.15: 0.10 / 0.20 = 0.50 fails.
#: Favourable (negative) rates 0.80, 0.90, 0.85: 0.80 / 0.90 = 0.89 passes.
SELECTED = {GROUPS[0]: 20, GROUPS[1]: 10, GROUPS[2]: 15}


def _hand_made(outcome):
    """make_docs' documents with the test block's disparities replaced by :data:`SELECTED`'s."""
    model_doc, metrics_doc = make_docs(outcome=outcome)
    confusion = {g: {"tp": k // 2, "fp": k - k // 2, "fn": (100 - k) // 2, "tn": 100 - k - (100 - k) // 2}
                 for g, k in SELECTED.items()}
    metrics_doc["test"]["disparities"] = against_reference(confusion, GROUPS[0], "largest group", outcome=outcome)
    return model_doc, metrics_doc


def _page(docs) -> tuple[str, str]:
    raw = render_report(build_context(*docs))
    return raw, html_lib.unescape(raw)


def _flag(page: str, table_id: str, group: str) -> str:
    table = re.search(rf'<table class="compare" id="{re.escape(table_id)}">(.*?)</table>', page, re.S).group(1)
    row = re.search(rf'<tr data-group="{re.escape(group)}"[^>]*>.*?<td class="flag[^"]*">([^<]*)</td>', table, re.S)
    return row.group(1)


def test_an_adverse_positive_class_reads_the_favourable_predictions():
    raw, page = _page(_hand_made("adverse"))
    said = ("0.89: the lowest rate of favourable predictions (predicted two_year_recid = 0, as the positive class "
            f"is adverse), \u201c{GROUPS[0]}\u201d, over the highest, \u201c{HOSTILE_GROUP}\u201d, at least 0.8: the "
            "four-fifths rule does not flag it.")
    assert page.count(said) == 2  # the summary's card and the test rows' line under the table
    assert "Four-fifths rule on favourable-prediction rates (whatever the criterion)" in page
    assert "Four-fifths rule on selection rates" not in page
    assert "the rule reads each group's rate of favourable predictions, 1 \u2212 selection rate" in page
    # the hostile group is selected at half the reference's rate but predicted favourably more
    raw_table = raw[raw.index('id="compare-groups-test"') - 40:]
    assert _flag(html_lib.unescape(raw_table), "compare-groups-test", HOSTILE_GROUP) == "1.12\u00d7 passes \u2713"
    assert _flag(html_lib.unescape(raw_table), "compare-groups-test", GROUPS[0]) == "reference"
    assert HOSTILE_GROUP not in raw and "<img" not in raw


@pytest.mark.parametrize("outcome", [None, "favourable"])
def test_a_favourable_or_unsaid_positive_class_reads_the_selection_rate(outcome):
    raw, page = _page(_hand_made(outcome))
    said = (f"0.50: the lowest selection rate (\u201c{HOSTILE_GROUP}\u201d) over the highest (\u201c{GROUPS[0]}\u201d), "
            "below 0.8: the four-fifths rule flags it.")
    assert page.count(said) == 2
    assert "Four-fifths rule on selection rates (whatever the criterion)" in page
    assert "favourable predictions" not in page and "favourable-prediction" not in page
    assert _flag(page, "compare-groups-test", HOSTILE_GROUP) == "below 0.8 \u2717"
    assert HOSTILE_GROUP not in raw and "<img" not in raw


def _write(d: Path, docs) -> Path:
    d.mkdir(parents=True)
    for rel, text in render_outputs([docs]).items():
        (d / rel).write_text(text, encoding="utf-8")
    return d


def test_fairspec_report_rechecks_the_rule_on_the_rate_the_outcome_gives(tmp_path):
    run = _write(tmp_path / "adverse", make_docs(outcome="adverse"))
    assert read_outputs(run)

    def on_selection(m):  # the rule as a run that ignored the outcome would have written it
        from fairspec.metrics.disparity import COUNTS
        d = m["test"]["disparities"]
        confusion = {g: {k: e[k] for k in COUNTS} for g, e in d["groups"].items()}
        d["four_fifths"] = {**against_reference(confusion, d["reference"], d["reference_from"])["four_fifths"],
                            "rate": "favourable_rate"}  # and says it read the favourable predictions

    wanted = make_docs(outcome="adverse")[1]["test"]["disparities"]["four_fifths"]
    edit(run / "metrics.json", on_selection)
    found = against_reference({g: {k: e[k] for k in ("tp", "fp", "fn", "tn")}
                               for g, e in make_docs()[1]["test"]["disparities"]["groups"].items()},
                              GROUPS[0])["four_fifths"]
    assert found["highest"] != wanted["highest"]  # the first key the check compares that differs
    assert refusal(run).endswith(f'(metrics.test.disparities.four_fifths.highest is "{found["highest"]}", '
                                 f'but the counts give "{wanted["highest"]}")')
    # and a run whose positive class is not said adverse cannot claim the favourable rate
    plain = _write(tmp_path / "plain", make_docs())
    edit(plain / "metrics.json", lambda m: m["test"]["disparities"]["four_fifths"].update(rate="favourable_rate"))
    assert refusal(plain).endswith('(metrics.test.disparities.four_fifths.rate is "favourable_rate", but the '
                                   'counts give null)')


def test_a_favourable_run_writes_the_rule_as_before_and_an_old_adverse_file_is_refused(tmp_path):
    model_doc, metrics_doc = make_docs(outcome="favourable")
    assert all("rate" not in metrics_doc[k]["disparities"]["four_fifths"] for k in ("train", "test"))
    assert read_outputs(_write(tmp_path / "favourable", (model_doc, metrics_doc)))
    # an adverse run's file written before the rule read favourable predictions: the selection rate's rule
    model_doc, metrics_doc = make_docs(outcome="adverse")
    for key in ("train", "test"):
        d = metrics_doc[key]["disparities"]
        d["four_fifths"] = against_reference({g: {k: e[k] for k in ("tp", "fp", "fn", "tn")}
                                              for g, e in d["groups"].items()}, d["reference"])["four_fifths"]
    run = _write(tmp_path / "old", (model_doc, copy.deepcopy(metrics_doc)))
    assert refusal(run).endswith("(metrics.train.disparities.four_fifths has no rate: the positive class is adverse "
                                 "(model.json's schema.target.outcome), and the file was written before fairspec "
                                 "read the four-fifths rule on favourable predictions for it; train again)")
    # the report itself words what the block holds
    _, page = _page((model_doc, metrics_doc))
    assert "the lowest selection rate (" in page and "favourable predictions" not in page


def test_the_comparison_flag_states_the_favourable_ratio_it_read():
    from fairspec.report.sections.groups import _compare_flag

    def group(negative):  # 100 rows, ``negative`` of them predicted negative
        return {"tp": 0, "fp": 100 - negative, "fn": 0, "tn": negative}

    reference = group(50)
    assert _compare_flag("favourable_rate", group(35), reference) == "0.70\u00d7 below 0.8 \u2717"
    assert _compare_flag("favourable_rate", group(70), reference).startswith("1.40\u00d7 above 1.25 \u2717")
    assert _compare_flag("favourable_rate", group(45), reference) == "0.90\u00d7 passes \u2713"
    # the selection rate's flag reads the table's own ratio, as before
    assert _compare_flag("selection_rate", {"selection_rate_ratio": 0.7}, reference) == "below 0.8 \u2717"
    assert _compare_flag("selection_rate", {"selection_rate_ratio": 0.9}, reference) == ""
