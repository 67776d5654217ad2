"""Proxy scores (fairspec.metrics.proxies): a feature that copies the group is flagged, noise is not."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from fairspec.metrics.proxies import PROXY_AUC, proxy_scores


def _frame(n: int, groups, seed: int):
    rng = np.random.default_rng(seed)
    g = rng.choice(np.asarray(groups, dtype=object), n)
    frame = pd.DataFrame({
        "copy": g,  # the protected attribute under another name
        "noise": rng.normal(size=n),
        "noise_codes": rng.choice([f"c{i}" for i in range(40)], n),  # many small categories: no in-sample luck
        "partial": (g == groups[0]) * 1.0 + rng.normal(scale=1.0, size=n),
    })
    frame.loc[rng.random(n) < 0.1, "noise"] = np.nan
    return frame, g


@pytest.mark.parametrize("groups", [("A", "B"), ("A", "B", "C", "D")])
def test_a_feature_that_copies_the_group_is_flagged_and_noise_is_not(groups):
    frame, g = _frame(3000, groups, seed=len(groups))
    kinds = [("copy", "categorical"), ("noise", "numeric"), ("noise_codes", "categorical"), ("partial", "numeric")]
    scores = proxy_scores(frame, kinds, g, seed=3)
    features = {r["name"]: r for r in scores["features"]}
    assert [r["name"] for r in scores["features"]] == [name for name, _ in kinds]
    assert scores["threshold"] == PROXY_AUC
    assert features["copy"]["auc"] == pytest.approx(1.0)
    assert features["copy"]["auc"] >= PROXY_AUC
    for noise in ("noise", "noise_codes"):
        assert abs(features[noise]["auc"] - 0.5) < 0.05 and features[noise]["auc"] < PROXY_AUC
    assert 0.6 < features["partial"]["auc"] < 1.0
    if len(groups) > 2:
        assert features["partial"]["group"] == "A"  # the group it tells apart


def test_a_monotone_numeric_feature_scores_its_own_auc_out_of_fold():
    # one-feature model of a monotone feature: its deciles rank the rows as the feature does, so the
    # out-of-fold AUC is close to the feature's own AUC
    rng = np.random.default_rng(0)
    g = rng.choice(np.array(["x", "y"], dtype=object), 4000)
    value = (g == "x") * 0.8 + rng.normal(size=4000)
    scores = proxy_scores(pd.DataFrame({"v": value}), [("v", "numeric")], g, seed=1)
    (entry,) = scores["features"]
    direct = roc_auc_score(g == entry["group"], value)
    direct = max(direct, 1 - direct)
    assert abs(entry["auc"] - direct) < 0.02
    # the same data and seed give the same scores
    assert proxy_scores(pd.DataFrame({"v": value}), [("v", "numeric")], g, seed=1) == scores


def test_more_rows_than_the_cap_are_scored_on_a_seeded_draw_that_still_flags_a_copy(monkeypatch):
    from fairspec.metrics import proxies
    frame, g = _frame(3000, ("A", "B"), seed=5)
    kinds = [("copy", "categorical"), ("noise", "numeric"), ("partial", "numeric")]
    whole = proxy_scores(frame, kinds, g, seed=3)
    monkeypatch.setattr(proxies, "MAX_ROWS", 1000)
    drawn = proxy_scores(frame, kinds, g, seed=3)
    assert whole["rows"] == 3000 and drawn["rows"] == 1000
    assert drawn == proxy_scores(frame, kinds, g, seed=3)  # the draw is seeded
    features = {r["name"]: r for r in drawn["features"]}
    assert features["copy"]["auc"] == 1.0 and features["noise"]["auc"] < PROXY_AUC
    # a draw of a third of the rows measures the partial proxy's AUC to within a few hundredths
    assert abs(features["partial"]["auc"] - whole["features"][2]["auc"]) < 0.05
