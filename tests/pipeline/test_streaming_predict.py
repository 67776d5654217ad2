"""fairspec predict scores a file chunk by chunk: the predictions, warnings, errors and metrics
are those of the whole file at once."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.metrics.groups import evaluate_predictions
from fairspec.metrics.intervals import gap_intervals
from fairspec.pipeline.scoring import prediction_text

SPEC = """spec toy
data "{data}"
target y positive 1
protected group
features {{ x1 numeric  x2 numeric  color categorical }}
missing mia
fairness equal_opportunity <= 0.1
model tree {{ depth 3 }}
evaluate {{ holdout 0.3 stratify seed 5 }}
"""


def _data(path, n, seed, colors=("red", "green", "blue")):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c & d"], size=n)
    x1 = np.round(rng.normal(size=n) + (group == "a"), 3)
    x2 = np.round(rng.normal(size=n), 3)
    color = rng.choice(list(colors), size=n).astype(object)
    y = ((x1 + 0.5 * np.nan_to_num(x2) + (color == "red") + rng.normal(scale=0.5, size=n)) > 0.8).astype(int)
    frame = pd.DataFrame({"x1": x1, "x2": x2, "color": color, "group": group, "y": y})
    frame.loc[rng.random(n) < 0.1, "x2"] = np.nan
    frame.loc[rng.random(n) < 0.05, "color"] = None
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stream")
    data = _data(tmp / "train.csv", 600, 0)
    spec = tmp / "toy.fair"
    spec.write_text(SPEC.format(data=data))
    assert main(["compile-and-train", str(spec), "--out", str(tmp / "run"), "-q"]) == 0
    return tmp / "run" / "model.json", tmp


def _predict(capsys, *argv):
    code = main(["predict", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_chunks_give_the_whole_files_predictions_warnings_and_metrics(model, capsys):
    model_file, tmp = model
    data = _data(tmp / "score.csv", 1000, 1, colors=("red", "green", "blue", "violet", "teal"))
    runs = {}
    for rows in (None, 7, 333, 5000):
        extra = [] if rows is None else ["--chunk-rows", rows]
        out = tmp / f"pred-{rows}.csv"
        code, _, err = _predict(capsys, model_file, data, "-o", out, "--metrics", tmp / f"m-{rows}.json", *extra)
        assert code == 0
        runs[rows] = (out.read_text(), json.loads((tmp / f"m-{rows}.json").read_text())["test"],
                      [line for line in err.splitlines() if "warning" in line])
    whole = runs[None]
    assert all(run == whole for run in runs.values())
    assert len(whole[2]) == 1 and "'violet'" in whole[2][0] and "'teal'" in whole[2][0]
    # and the metrics are evaluate_predictions' and gap_intervals' on the file in memory
    frame = pd.read_csv(data)
    predicted = pd.read_csv(tmp / "pred-None.csv")
    seed = json.loads(model_file.read_text())["training"]["seed"]
    expected = evaluate_predictions(frame["y"], predicted["prediction"], predicted["score"], frame["group"])
    expected["gap_intervals"] = gap_intervals(frame["y"], predicted["prediction"], frame["group"], seed=seed)
    assert whole[1] == expected


def test_an_error_in_a_later_chunk_of_an_earlier_column_is_the_one_the_whole_file_gives(model, capsys):
    model_file, tmp = model
    data = _data(tmp / "bad.csv", 300, 2)
    lines = data.read_text().splitlines()
    cells = lines[5].split(",")
    cells[1] = "many"  # x2 on line 6, in the first chunk
    lines[5] = ",".join(cells)
    cells = lines[250].split(",")
    cells[0] = "lots"  # x1 on line 251, a later chunk
    lines[250] = ",".join(cells)
    data.write_text("\n".join(lines) + "\n")
    out = tmp / "bad-pred.csv"
    messages = set()
    for rows in (None, 50):
        code, _, err = _predict(capsys, model_file, data, "-o", out, *([] if rows is None else ["--chunk-rows", rows]))
        assert code == 1 and not out.exists()
        messages.add(err.strip())
    assert messages == {f"{data}: error: column 'x1', line 251: 'lots' is not a number (the column is numeric)"}


def test_the_prediction_text_is_pandas_to_csv_text():
    rng = np.random.default_rng(4)
    scores = np.concatenate([rng.random(500), [0.0, 1.0, 0.5, 1e-05, 1 / 3, 2 / 3, 0.1 + 0.2, 5e-324]])
    labels = (scores > 0.5).astype(int)
    expected = pd.DataFrame({"prediction": labels, "score": scores}).to_csv(index=False)
    assert "prediction,score\n" + prediction_text(labels, scores) == expected
    assert prediction_text(labels[:0], scores[:0]) == ""
