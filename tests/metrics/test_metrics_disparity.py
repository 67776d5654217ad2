"""Every group against a reference group (fairspec.metrics.disparity), checked against fairlearn's
MetricFrame: counts, rates, differences and ratios; the four-fifths flag; the curves."""
from __future__ import annotations

import numpy as np
import pytest
from fairlearn.metrics import (MetricFrame, count, false_negative_rate, false_positive_rate, selection_rate,
                               true_positive_rate)
from sklearn.metrics import accuracy_score, confusion_matrix, precision_score, roc_curve

from fairspec.metrics.curves import calibration_by_group, roc_by_group
from fairspec.metrics.disparity import FOUR_FIFTHS, RATES, against_reference, confusion_by_group, four_fifths, \
    four_fifths_flag, four_fifths_rate, largest_group, rule_rate


def _data(seed: int, n: int = 900, groups=("a", "b", "c", "d")):
    rng = np.random.default_rng(seed)
    weights = np.linspace(1, 2, len(groups))
    g = rng.choice(np.asarray(groups, dtype=object), n, p=weights / weights.sum())
    y = (rng.random(n) < np.where(g == groups[0], 0.6, 0.35)).astype(int)
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    pred = (score > np.where(g == groups[-1], 0.45, 0.55)).astype(int)
    return y, pred, score, g


def _precision(y_true, y_pred):
    return precision_score(y_true, y_pred, zero_division=np.nan)


def _cell(y_true, y_pred, i, j):
    return int(confusion_matrix(y_true, y_pred, labels=[0, 1])[i, j])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counts_rates_differences_and_ratios_match_fairlearns_metricframe(seed):
    y, pred, _, g = _data(seed)
    metrics = {"selection_rate": selection_rate, "tpr": true_positive_rate, "fpr": false_positive_rate,
               "fnr": false_negative_rate, "precision": _precision, "accuracy": accuracy_score, "count": count,
               "tp": lambda t, p: _cell(t, p, 1, 1), "fp": lambda t, p: _cell(t, p, 0, 1),
               "fn": lambda t, p: _cell(t, p, 1, 0), "tn": lambda t, p: _cell(t, p, 0, 0)}
    frame = MetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=g)
    by_group = frame.by_group
    reference = largest_group({k: int(by_group.loc[k, "count"]) for k in by_group.index})
    assert reference == by_group["count"].astype(int).idxmax()
    ours = against_reference(confusion_by_group(y, pred, g))
    assert ours["reference"] == reference and ours["reference_from"] == "largest group"
    for name, entry in ours["groups"].items():
        for k in ("tp", "fp", "fn", "tn"):
            assert entry[k] == by_group.loc[name, k]
        for rate in RATES:
            assert entry[rate] == pytest.approx(by_group.loc[name, rate], abs=1e-12)
            assert entry[f"{rate}_difference"] == pytest.approx(
                by_group.loc[name, rate] - by_group.loc[reference, rate], abs=1e-12)
            assert entry[f"{rate}_ratio"] == pytest.approx(
                by_group.loc[name, rate] / by_group.loc[reference, rate], rel=1e-12)
            low, high = entry[f"{rate}_interval"]
            assert low <= entry[rate] <= high
    # the four-fifths ratio is fairlearn's demographic-parity ratio between groups
    ratio = frame.ratio(method="between_groups")["selection_rate"]
    assert ours["four_fifths"]["ratio"] == pytest.approx(ratio, rel=1e-12)
    assert ours["four_fifths"]["flagged"] == (ratio < FOUR_FIFTHS)


def test_a_named_reference_is_used_and_an_undefined_rate_has_no_difference_or_ratio():
    y = np.array([1, 1, 0, 0, 0, 0, 1, 0])
    pred = np.array([1, 0, 0, 1, 0, 0, 1, 1])
    g = np.array(["a", "a", "a", "a", "b", "b", "c", "c"], dtype=object)  # b: no positive row
    out = against_reference(confusion_by_group(y, pred, g), "c", "spec")
    assert out["reference"] == "c" and out["reference_from"] == "spec"
    b = out["groups"]["b"]
    assert b["tpr"] is None and b["tpr_interval"] is None and b["tpr_difference"] is None and b["tpr_ratio"] is None
    assert b["precision"] is None  # nothing predicted positive
    assert out["groups"]["a"]["selection_rate_ratio"] == pytest.approx(0.5 / 1.0)
    assert out["groups"]["c"]["selection_rate_difference"] == 0.0
    # a reference with no rows here (absent from the test rows) leaves every comparison empty
    absent = against_reference(confusion_by_group(y, pred, g), "z", "spec")
    assert all(e["accuracy_difference"] is None for e in absent["groups"].values())


def test_the_four_fifths_flag():
    assert four_fifths({"a": 0.40, "b": 0.50})["flagged"] is False  # 0.8 exactly passes
    rule = four_fifths({"a": 0.30, "b": 0.45, "c": 0.40})
    assert rule["flagged"] is True and rule["lowest"] == "a" and rule["highest"] == "b"
    assert rule["ratio"] == pytest.approx(0.30 / 0.45)
    assert four_fifths({"a": 0.0, "b": 0.0})["ratio"] is None  # nobody selected: nobody selected less
    assert four_fifths({"a": 0.3, "b": None})["ratio"] is None
    # against the reference, either way round
    assert [four_fifths_flag(r) for r in (0.79, 0.8, 1.0, 1.25, 1.26, None)] == [True, False, False, False, True,
                                                                              False]


def _counts(selected: int, rows: int) -> dict[str, int]:
    """A group of ``rows`` rows of which ``selected`` are predicted positive (half of each truly positive)."""
    return {"tp": selected // 2, "fp": selected - selected // 2,
            "fn": (rows - selected) // 2, "tn": rows - selected - (rows - selected) // 2}


@pytest.mark.parametrize("selected, selection_flagged, favourable_flagged, favourable_ratio", [
    # selection rates 0.10 and 0.20: 0.10 / 0.20 = 0.5 fails; favourable 0.80 / 0.90 = 0.889 passes
    ({"a": 10, "b": 20}, True, False, 0.80 / 0.90),
    # selection rates 0.60 and 0.70: 0.857 passes; favourable 0.30 / 0.40 = 0.75 fails
    ({"a": 60, "b": 70}, False, True, 0.30 / 0.40),
])
def test_an_adverse_positive_class_puts_the_rule_on_favourable_predictions(selected, selection_flagged,
                                                                          favourable_flagged, favourable_ratio):
    confusion = {g: _counts(k, 100) for g, k in selected.items()}
    for outcome in (None, "favourable"):  # as before the spec could say: the selection rate
        rule = against_reference(confusion, "a", "spec", outcome=outcome)["four_fifths"]
        assert rule == {"threshold": FOUR_FIFTHS, "lowest": "a", "highest": "b",  # no rate: as before
                        "ratio": pytest.approx(selected["a"] / selected["b"]), "flagged": selection_flagged}
        assert rule == four_fifths({"a": selected["a"] / 100, "b": selected["b"] / 100})
    rule = against_reference(confusion, "a", "spec", outcome="adverse")["four_fifths"]
    # b is predicted favourably (negative) least, a most
    assert rule == {"threshold": FOUR_FIFTHS, "rate": "favourable_rate", "lowest": "b", "highest": "a",
                    "ratio": pytest.approx(favourable_ratio), "flagged": favourable_flagged}
    assert four_fifths_rate("adverse") == "favourable_rate"
    assert [four_fifths_rate(o) for o in (None, "favourable")] == ["selection_rate"] * 2
    assert rule_rate(confusion["b"], "favourable_rate") == pytest.approx(1 - selected["b"] / 100)
    # the rest of the block does not move with the outcome
    plain = against_reference(confusion, "a", "spec")
    adverse = against_reference(confusion, "a", "spec", outcome="adverse")
    assert {k: v for k, v in plain.items() if k != "four_fifths"} == \
        {k: v for k, v in adverse.items() if k != "four_fifths"}


def test_the_rule_reads_only_the_rates_it_knows():
    with pytest.raises(ValueError, match="favourable_rate"):
        four_fifths({"a": 0.5, "b": 0.6}, "tpr")


def test_roc_curves_are_thinned_but_keep_their_ends_and_calibration_counts_every_row():
    y, _, score, g = _data(5, n=4000, groups=("a", "b"))
    curves = roc_by_group(y, score, g, most=30)["groups"]
    for name, points in curves.items():
        rows = g == name
        fpr, tpr, _ = roc_curve(y[rows], score[rows], drop_intermediate=True)
        assert len(points) <= 30 < len(fpr)
        assert points[0] == [round(fpr[0], 4), round(tpr[0], 4)] and points[-1] == [1.0, 1.0]
        assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(points, points[1:]))
    calibration = calibration_by_group(y, score, g, bins=10)
    for name, bins in calibration["groups"].items():
        rows = g == name
        assert sum(b[2] for b in bins) == rows.sum() and sum(b[1] for b in bins) == y[rows].sum()
        assert all(0 <= b[0] <= 1 for b in bins)
    # a one-class group has no ROC curve
    more_g = np.concatenate([g, np.array(["c", "c"], dtype=object)])
    assert "c" not in roc_by_group(np.r_[y, 0, 0], np.r_[score, 0.2, 0.3], more_g)["groups"]
