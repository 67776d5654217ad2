"""Derived and labelled groups through training: what model.json, metrics.json, the report and
the model's text record of them, and that prediction needs none of the protected columns."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.errors import ModelFileError
from fairspec.pipeline.artifact import LoadedModel
from fairspec.pipeline.outputs import read_outputs


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A baseline trained on a table whose groups are merged codes x age bins, with a labelled
    feature and a labelled protected column (labels holding characters HTML must escape)."""
    tmp = tmp_path_factory.mktemp("groups")
    rng = np.random.default_rng(0)
    n = 240
    frame = pd.DataFrame({
        "status": rng.choice(["A11", "A12", "A14"], n),
        "amount": rng.integers(100, 5000, n),
        "ps": rng.choice(["A91", "A92", "A93"], n),
        "age": rng.integers(19, 70, n),
        "y": rng.integers(0, 2, n),
    })
    frame.to_csv(tmp / "data.csv", index=False)
    spec = tmp / "g.fair"
    spec.write_text(
        'spec g\ndata "data.csv"\ntarget y positive 1\n'
        'protected sex from ps { ["A91", "A93"] as "male"  "A92" as "female" } * age bins [30, 50] * ps\n'
        'labels ps { "A91" as "<b>divorced</b>"  "A93" as "single" }\n'
        'labels status { "A12" as "0 to 200"  "A14" as "no account & co" }\n'
        "features { status categorical  amount numeric }\n"
        "fairness demographic_parity\nmodel baseline { learner tree depth 2 }\n"
        'evaluate { holdout 0.3 seed 1 }\noutput "out"\n')
    out = tmp / "out"
    assert main(["compile-and-train", str(spec), "-o", str(out), "-q"], stdout=io.StringIO(),
                stderr=io.StringIO()) == 0
    return tmp, out


def test_model_json_records_how_the_groups_are_made_and_the_labels(trained):
    _, out = trained
    schema = json.loads((out / "model.json").read_text())["schema"]
    assert schema["protected"] == ["sex", "age", "ps"]
    assert schema["groups"] == [
        {"name": "sex", "column": "ps", "kind": "merged", "groups": {"female": ["A92"], "male": ["A91", "A93"]}},
        {"name": "age", "column": "age", "kind": "bins", "edges": [30, 50], "closed": "left",
         "groups": ["< 30", "30–49", "≥ 50"]},
        {"name": "ps", "column": "ps", "kind": "column", "labels": {"A91": "<b>divorced</b>", "A93": "single"}}]
    assert schema["labels"] == {"ps": {"A91": "<b>divorced</b>", "A93": "single"},
                                "status": {"A12": "0 to 200", "A14": "no account & co"}}


def test_metrics_json_keys_groups_by_their_names_and_gives_the_labels(trained):
    tmp, out = trained
    summary = json.loads((out / "metrics.json").read_text())["data_summary"]
    frame = pd.read_csv(tmp / "data.csv")
    sex = np.where(frame["ps"] == "A92", "female", "male")
    age = np.select([frame["age"] < 30, frame["age"] < 50], ["< 30", "30–49"], "≥ 50")
    expected = pd.Series(sex + " & " + age + " & " + frame["ps"]).value_counts().to_dict()
    assert {g: v["count"] for g, v in summary["groups"].items()} == expected
    assert summary["group_labels"] == {g: g.replace("A91", "<b>divorced</b>").replace("A93", "single")
                                       for g in expected if "A92" not in g}


def test_the_report_shows_the_labels_escaped(trained):
    _, out = trained
    html = (out / "report.html").read_text()
    assert "<b>divorced</b>" not in html
    assert ('male &amp; &lt; 30 &amp; &lt;b&gt;divorced&lt;/b&gt; <span class="group-code">(male &amp; &lt; 30 &amp; '
            'A91)') in html
    assert "A14 (no account &amp; co)" in html
    assert "values of ps merged into groups" in html and "bins of age, closed on the left" in html


def test_the_model_text_names_labelled_categories_and_an_edited_label_is_refused(trained):
    _, out = trained
    doc = json.loads((out / "model.json").read_text())
    text = "\n".join(doc["model"]["text"])
    assert 'status == "A12 (0 to 200)"' in text and "status == A12\n" not in text
    LoadedModel.from_document(doc)
    doc["schema"]["labels"]["status"]["A12"] = "edited"
    with pytest.raises(ModelFileError, match="model.text is not the model that scores"):
        LoadedModel.from_document(doc)


def test_report_reads_the_files_back_and_prediction_needs_no_protected_column(trained, tmp_path):
    tmp, out = trained
    read_outputs(out)  # the schemas accept the new keys
    assert main(["report", str(out)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    rows = pd.read_csv(tmp / "data.csv").drop(columns=["ps", "age", "y"])
    rows.to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(out / "model.json"), str(tmp_path / "new.csv"), "-o", str(tmp_path / "p.csv")],
                stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert len(pd.read_csv(tmp_path / "p.csv")) == len(rows)
