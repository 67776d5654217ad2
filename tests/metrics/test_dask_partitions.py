"""Metrics over a dask.dataframe's partitions merge to the in-memory block (needs fairspec[dask])."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairspec import load_model
from fairspec.cli import main
from fairspec.pipeline.scoring import dask_metrics, partition_metrics

SPEC = """spec toy
data "{data}"
target y positive 1
protected group
features {{ x1 numeric  x2 numeric  color categorical }}
missing mia
model tree {{ depth 3 }}
evaluate {{ holdout 0.3 stratify seed 5 }}
"""


def test_partitions_merge_to_the_block_of_all_rows(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(3)
    n = 900
    frame = pd.DataFrame({"x1": np.round(rng.normal(size=n), 3), "x2": np.round(rng.normal(size=n), 3),
                          "color": rng.choice(["r", "g", "b"], n), "group": rng.choice(["a", "b", "c"], n)})
    frame.loc[rng.random(n) < 0.1, "x2"] = np.nan
    frame["y"] = ((frame["x1"] + (frame["color"] == "r") + rng.normal(scale=0.7, size=n)) > 0.5).astype(int)
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    (tmp_path / "s.fair").write_text(SPEC.format(data=data))
    assert main(["compile-and-train", str(tmp_path / "s.fair"), "--out", str(tmp_path / "run"), "-q"]) == 0
    model = load_model(tmp_path / "run")
    whole = partition_metrics(model, frame).block(seed=4)
    with __import__("dask").config.set(scheduler="synchronous"):
        assert dask_metrics(model, dd.from_pandas(frame, npartitions=7), seed=4) == whole
