"""Fair MP-Boost's figure in the model section: its fit log's averaged feature probabilities (and
how often each class and group was drawn) drawn with matplotlib, present for the mp_boost family
only, every name in it escaped."""
from __future__ import annotations

import copy
import re

import pandas as pd
from conftest import HOSTILE_COLUMN, HOSTILE_GROUP, make_docs

from fairspec.cli import main
from fairspec.report import build_context, render_report
from fairspec.report.sections import model as model_section


def _mp_boost_docs(summary=True):
    """make_docs' pair, relabelled as an mp_boost run: three features (one hostile) with known
    probabilities, and a row summary naming the hostile group."""
    model_doc, metrics_doc = make_docs()
    model_doc, metrics_doc = copy.deepcopy(model_doc), copy.deepcopy(metrics_doc)
    model_doc["model"]["family"] = "mp_boost"
    model_doc["model"]["estimator"] = {"kind": "fair_mp_boost", "feature_probabilities": [0.2, 0.7, 0.1]}
    log = {"alpha": 0.9, "averaged_rounds": 150, "feature_probabilities": [0.2, 0.7, 0.1]}
    if summary:
        log["row_probability_summary"] = [
            {"label": 0, "group": HOSTILE_GROUP, "rows": 40, "share_of_draws": 0.5, "draws_per_uniform": 1.25},
            {"label": 1, "group": "Other", "rows": 60, "share_of_draws": 0.5, "draws_per_uniform": 0.83}]
    metrics_doc["training_log"] = log
    return model_doc, metrics_doc


def _tick_labels(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_mp_boost_model_section_draws_the_feature_probabilities_largest_first():
    model_doc, metrics_doc = _mp_boost_docs()
    names = model_section._model_feature_names(model_doc, 3)
    assert HOSTILE_COLUMN in names
    figure = model_section.mp_boost_figure(model_doc, metrics_doc)
    assert figure is not None and figure.key == "mp-boost"
    # the bars are sorted by q, largest on top (matplotlib writes the tick labels in the order given):
    # the hostile column (0.7), then age (0.2), then c_charge_degree (0.1)
    escaped = [n.replace("<", "&lt;").replace(">", "&gt;") for n in (names[1], names[0], names[2])]
    assert [t for t in _tick_labels(figure.svg) if t in escaped] == escaped
    tops = [float(re.search(r"rotate\(-?0 [\d.]+ ([\d.]+)\)\">" + re.escape(t) + "<", figure.svg).group(1))
            for t in escaped]
    assert tops == sorted(tops)  # drawn top to bottom in that order
    assert "uniform draws, 1/3 = 0.333" in figure.svg
    assert "alpha = 0.9" in figure.caption


def test_the_mp_boost_figure_is_on_the_page_and_escaped():
    model_doc, metrics_doc = _mp_boost_docs()
    page = render_report(build_context(model_doc, metrics_doc))
    found = re.search(r'<figure class="chart" id="figure-mp-boost">.*?</figure>', page, re.S)
    assert found, "the mp_boost model section has no feature-probability figure"
    svg = found.group(0)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg  # the hostile feature, as text
    assert "&lt;img src=x" in svg  # the hostile group of the row summary, as text
    assert "<script" not in svg and "<img" not in svg


def test_other_families_have_no_mp_boost_figure_and_one_without_row_summary_still_draws_q():
    model_doc, metrics_doc = make_docs()
    assert 'id="figure-mp-boost"' not in render_report(build_context(model_doc, metrics_doc))
    model_doc, metrics_doc = _mp_boost_docs(summary=False)
    figure = model_section.mp_boost_figure(model_doc, metrics_doc)
    assert figure is not None and "draws of the class" not in figure.svg


def test_a_trained_mp_boost_run_shows_its_figure(tmp_path):
    """Through the command line, on 600 rows of adult and 8 rounds: the report a run writes has the
    figure, one bar per feature of the spec."""
    frame = pd.read_csv("data/adult.csv.gz").sample(n=600, random_state=3)
    data = tmp_path / "adult.csv"
    frame.to_csv(data, index=False)
    spec = tmp_path / "boost.fair"
    spec.write_text(f'spec boost\ndata "{data}"\ntarget income positive ">50K"\nprotected sex\n'
                    "features { age numeric  education_num numeric  hours_per_week numeric  workclass categorical }\n"
                    "fairness demographic_parity penalty 9\nmodel mp_boost { rounds 8 depth 2 }\n"
                    "evaluate { holdout 0.3 stratify seed 2 }\n")
    assert main(["compile-and-train", str(spec), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    page = (tmp_path / "out" / "report.html").read_text()
    found = re.search(r'id="figure-mp-boost">.*?</figure>', page, re.S)
    assert found, "the report of an mp_boost run has no feature-probability figure"
    texts = _tick_labels(found.group(0))
    for feature in ("age", "education_num", "hours_per_week", "workclass"):
        assert feature in texts
