"""Per-group rates and gaps checked against fairlearn and against fairspec.registry.criteria."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import (
    MetricFrame,
    demographic_parity_difference,
    equal_opportunity_difference,
    equalized_odds_difference,
    false_negative_rate,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)
from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

from fairspec.metrics import evaluate_predictions, fairness_summary, group_counts, missing_by_group
from fairspec.metrics.intervals import gap_intervals
from fairspec.registry.criteria import CRITERIA, make_criterion
from fairspec.metrics.groups import distinct_labels

FAIRLEARN_METRICS = {
    "selection_rate": selection_rate,
    "tpr": true_positive_rate,
    "fpr": false_positive_rate,
    "fnr": false_negative_rate,
    "accuracy": accuracy_score,
}


def random_case(seed: int, n: int, group_names, skew: float = 0.0):
    """Labels, scores correlated with the labels, a threshold, and unequal groups."""
    rng = np.random.default_rng(seed)
    groups = rng.choice(np.asarray(group_names, dtype=object), size=n)
    shift = np.array([skew * i for i in range(len(group_names))])[
        np.searchsorted(np.asarray(sorted(map(str, group_names))), [str(g) for g in groups])]
    y = (rng.random(n) < 0.35 + shift).astype(int)
    score = np.clip(0.3 * y + 0.7 * rng.random(n) + shift, 0, 1)
    pred = (score > 0.5).astype(int)
    return y, pred, score, groups


def assert_matches_fairlearn(block, y, pred, groups):
    frame = MetricFrame(metrics=FAIRLEARN_METRICS, y_true=y, y_pred=pred,
                        sensitive_features=pd.Series([str(g) for g in groups], name="g"))
    by_group = frame.by_group
    assert set(block["groups"]) == set(by_group.index)
    for name, row in by_group.iterrows():
        mine = block["groups"][name]
        for rate in FAIRLEARN_METRICS:
            assert mine[rate] == pytest.approx(row[rate], abs=1e-12), (name, rate)
        assert mine["count"] == int(np.sum(np.asarray([str(g) for g in groups]) == name))
    sf = [str(g) for g in groups]
    gaps = block["gaps"]
    assert gaps["demographic_parity"] == pytest.approx(demographic_parity_difference(y, pred, sensitive_features=sf))
    assert gaps["equalized_odds"] == pytest.approx(equalized_odds_difference(y, pred, sensitive_features=sf))
    assert gaps["equal_opportunity"] == pytest.approx(equal_opportunity_difference(y, pred, sensitive_features=sf))
    assert gaps["fpr_parity"] == pytest.approx(frame.difference()["fpr"])
    assert gaps["accuracy_parity"] == pytest.approx(frame.difference()["accuracy"])
    assert block["accuracy"] == pytest.approx(accuracy_score(y, pred))
    assert block["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y, pred))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_groups_match_fairlearn(seed):
    y, pred, score, groups = random_case(seed, 400, ["a", "b"], skew=0.1)
    block = evaluate_predictions(y, pred, score, groups)
    assert_matches_fairlearn(block, y, pred, groups)
    assert block["auc"] == pytest.approx(roc_auc_score(y, score))
    assert block["n"] == 400


def test_four_groups_match_fairlearn_and_keys_are_strings():
    # integer labels, so the str(label) keys are exercised too
    y, pred, score, groups = random_case(3, 1000, [1, 2, 3, 10], skew=0.08)
    block = evaluate_predictions(y, pred, score, groups)
    assert sorted(block["groups"]) == ["1", "10", "2", "3"]
    assert_matches_fairlearn(block, y, pred, groups)
    # a 4-group gap is max - min over all four, not a pairwise difference of two of them
    tprs = [g["tpr"] for g in block["groups"].values()]
    assert block["gaps"]["equal_opportunity"] == pytest.approx(max(tprs) - min(tprs))
    assert block["gaps"]["equalized_odds"] == pytest.approx(
        max(block["gaps"]["equal_opportunity"], block["gaps"]["fpr_parity"]))


def test_group_without_positives_is_left_out_of_tpr_gaps():
    y, pred, score, groups = random_case(4, 600, ["a", "b", "c"], skew=0.1)
    y = y.copy()
    y[groups == "c"] = 0  # group c has no positives: it has no TPR/FNR
    block = evaluate_predictions(y, pred, score, groups)
    c = block["groups"]["c"]
    assert c["tpr"] is None and c["fnr"] is None and c["base_rate"] == 0.0
    assert c["fpr"] is not None
    # the TPR gap is the one fairlearn measures on the groups that do have positives
    keep = groups != "c"
    expected = equal_opportunity_difference(y[keep], pred[keep], sensitive_features=list(groups[keep]))
    assert block["gaps"]["equal_opportunity"] == pytest.approx(expected)
    # c still counts for the rates it has
    frame = MetricFrame(metrics={"fpr": false_positive_rate, "sel": selection_rate}, y_true=y, y_pred=pred,
                        sensitive_features=list(groups))
    assert block["gaps"]["fpr_parity"] == pytest.approx(frame.difference()["fpr"])
    assert block["gaps"]["demographic_parity"] == pytest.approx(frame.difference()["sel"])
    # ABROCA: c has no ROC curve, so only a-b remains
    assert block["gaps"]["abroca"] is not None
    json.dumps(block, allow_nan=False)


def test_a_gap_fewer_than_two_groups_have_is_not_measurable_and_one_class_gives_null_auc():
    y = np.array([0, 0, 0, 0, 0, 0])
    pred = np.array([0, 1, 0, 1, 1, 0])
    score = np.linspace(0, 1, 6)
    groups = np.array(["a", "a", "a", "b", "b", "b"])
    block = evaluate_predictions(y, pred, score, groups)
    assert block["auc"] is None and block["gaps"]["abroca"] is None
    assert block["gaps"]["equal_opportunity"] is None  # no group has a TPR: nothing to compare
    assert block["gaps"]["equalized_odds"] is None  # its TPR half cannot be measured
    assert block["gaps"]["fpr_parity"] == pytest.approx(2 / 3 - 1 / 3)
    assert block["balanced_accuracy"] == pytest.approx(0.5)
    text = json.dumps(block, allow_nan=False)  # raises on NaN
    assert "NaN" not in text


def test_no_scores_gives_null_auc_and_abroca():
    y, pred, _, groups = random_case(5, 100, ["a", "b"])
    block = evaluate_predictions(y, pred, None, groups)
    assert block["auc"] is None and block["gaps"]["abroca"] is None
    assert block["scores_are_labels"] is None


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_score_that_is_no_finite_number_is_named_by_its_row(bad):
    y, pred, score, groups = random_case(9, 50, ["a", "b"])
    score = score.copy()
    score[7] = bad
    with pytest.raises(ValueError, match=f"y_score must hold finite numbers .*; row 7 holds {bad!r}"):
        evaluate_predictions(y, pred, score, groups)


def test_scores_that_are_the_labels_are_flagged_and_their_auc_is_the_balanced_accuracy():
    y, pred, score, groups = random_case(9, 300, ["a", "b"])
    hard = evaluate_predictions(y, pred, pred.astype(float), groups)
    assert hard["scores_are_labels"] is True
    assert hard["auc"] == pytest.approx(hard["balanced_accuracy"])  # what the report's note says
    soft = evaluate_predictions(y, pred, score, groups)
    assert soft["scores_are_labels"] is False
    # one row scored 0.5 is enough for a real ranking
    nearly = evaluate_predictions(y, pred, np.where(np.arange(len(y)) == 0, 0.5, pred), groups)
    assert nearly["scores_are_labels"] is False


@pytest.mark.parametrize("name", sorted(CRITERIA))
@pytest.mark.parametrize("seed", [0, 6])
def test_training_time_criterion_gap_agrees(name, seed):
    """fairspec.registry.criteria.Criterion.gap is a second implementation: both must agree."""
    y, pred, score, groups = random_case(seed, 500, ["w", "x", "y", "z"], skew=0.07)
    if seed == 6:
        y = y.copy()
        y[groups == "z"] = 1  # z has no negatives: no FPR
    block = evaluate_predictions(y, pred, score, groups)
    criterion = make_criterion(name, bound=0.05)
    assert criterion.gap(y, pred, groups) == pytest.approx(block["gaps"][name], abs=1e-12)


def test_fairness_summary_met_logic():
    y, pred, score, groups = random_case(7, 400, ["a", "b"], skew=0.1)
    train = evaluate_predictions(y[:250], pred[:250], score[:250], groups[:250])
    test = evaluate_predictions(y[250:], pred[250:], score[250:], groups[250:])
    gap_tr, gap_te = train["gaps"]["demographic_parity"], test["gaps"]["demographic_parity"]
    bound = (gap_tr + gap_te) / 2  # between the two: met on one split, not on the other
    s = fairness_summary(make_criterion("demographic_parity", bound=bound), train, test)
    assert s["achieved_train"] == gap_tr and s["achieved_test"] == gap_te
    assert s["met_train"] == (gap_tr <= bound) and s["met_test"] == (gap_te <= bound)
    assert s["met_train"] != s["met_test"]
    # a bound equal to the gap up to float noise is met
    exact = fairness_summary(make_criterion("demographic_parity", bound=gap_te - 1e-12), train, test)
    assert exact["met_test"] is True
    pen = fairness_summary(make_criterion("equal_opportunity", penalty=0.5), train, None)
    assert pen["met_train"] is None and pen["met_test"] is None and pen["achieved_test"] is None
    assert pen["penalty"] == 0.5 and pen["bound"] is None
    assert pen["achieved_train"] == train["gaps"]["equal_opportunity"]
    none = fairness_summary(None, train, test)
    assert none["criterion"] is None and none["achieved_train"] is None
    assert set(s) == set(none) == {"criterion", "bound", "penalty", "achieved_train", "achieved_test",
                                   "met_train", "met_test", "interval_test", "unmeasured_test"}
    # the test block's interval for the criterion, when the block has intervals
    assert s["interval_test"] is None
    assert s["unmeasured_test"] == [] == none["unmeasured_test"]


def test_a_group_without_test_rows_of_the_compared_kind_never_gets_a_met_verdict():
    y, pred, score, groups = random_case(7, 400, ["a", "b"], skew=0.1)
    train_groups = groups[:250].copy()
    train_groups[0] = "c"  # a group of one training row, none on test: the hold-out of a tiny group
    train = evaluate_predictions(y[:250], pred[:250], score[:250], train_groups)
    test = evaluate_predictions(y[250:], pred[250:], score[250:], groups[250:])
    gap_te = test["gaps"]["demographic_parity"]
    loose = fairness_summary(make_criterion("demographic_parity", bound=gap_te + 0.01), train, test)
    assert loose["unmeasured_test"] == ["c"] and loose["achieved_test"] == gap_te
    assert loose["met_test"] is None  # was True: a gap that leaves "c" out cannot show the bound holds for it
    tight = fairness_summary(make_criterion("demographic_parity", bound=gap_te - 0.01), train, test)
    assert tight["met_test"] is False  # more groups can only widen the gap: missed is certain
    # the rate's rows, not the group's: on test, "b" keeps its rows but loses its positives
    no_pos = y[250:].copy()
    no_pos[groups[250:] == "b"] = 0
    test_b = evaluate_predictions(no_pos, pred[250:], score[250:], groups[250:])
    eo = fairness_summary(make_criterion("equal_opportunity", bound=1.0), train, test_b)
    assert eo["unmeasured_test"] == (["b", "c"] if y[0] == 1 else ["b"])  # "c" has a TPR iff its row is positive
    assert eo["met_test"] is None
    dp = fairness_summary(make_criterion("demographic_parity", bound=1.0), train, test_b)
    assert dp["unmeasured_test"] == ["c"]
    test["gap_intervals"] = gap_intervals(y[250:], pred[250:], groups[250:], seed=3)
    every_group = evaluate_predictions(y[:250], pred[:250], score[:250], groups[:250])
    s = fairness_summary(make_criterion("fpr_parity", bound=0.1), every_group, test)
    assert s["unmeasured_test"] == [] and s["interval_test"] == test["gap_intervals"]["gaps"]["fpr_parity"]
    # with "c" left out, the interval's high end bounds only the gap over "a" and "b": over
    # every group only its low end holds (the report had stated 0.047 to 0.090 for a gap of 0.6)
    s = fairness_summary(make_criterion("demographic_parity", bound=0.1), train, test)
    low, high = test["gap_intervals"]["gaps"]["demographic_parity"]
    assert s["unmeasured_test"] == ["c"] and high < 1.0 and s["interval_test"] == [low, 1.0]


def test_a_data_frame_of_groups_is_one_label_per_row_as_fairlearn_reads_it():
    y, pred, score, _ = random_case(11, 300, ["a"], skew=0.1)
    rng = np.random.default_rng(11)
    race, sex = rng.choice(["A", "B"], 300), rng.choice(["F", "M"], 300)
    frame = pd.DataFrame({"race": race, "sex": sex})
    block = evaluate_predictions(y, pred, score, frame)
    # a frame iterated gives its column names: it had been read as two rows labelled "race"
    # and "sex", whatever its length
    assert sorted(block["groups"]) == sorted(str(t) for t in {("A", "F"), ("A", "M"), ("B", "F"), ("B", "M")})
    expected = MetricFrame(metrics={"sel": selection_rate}, y_true=y, y_pred=pred,
                           sensitive_features=frame).difference()["sel"]
    assert block["gaps"]["demographic_parity"] == pytest.approx(expected)
    one = evaluate_predictions(y, pred, score, frame[["race"]])
    assert one == evaluate_predictions(y, pred, score, race)


def test_missing_by_group_and_group_counts():
    frame = pd.DataFrame({
        "age": [1.0, np.nan, 3.0, np.nan, 5.0, 6.0],
        "job": ["x", None, "y", "z", None, None],
        "race": ["A", "A", "A", "B", "B", "B"],
    }, index=[10, 11, 12, 13, 14, 15])
    out = missing_by_group(frame, ["age", "job"], "race")
    assert out == {"age": {"A": pytest.approx(1 / 3), "B": pytest.approx(1 / 3)},
                   "job": {"A": pytest.approx(1 / 3), "B": pytest.approx(2 / 3)}}
    # groups as an array aligned with the rows (index is ignored)
    out2 = missing_by_group(frame, ["age"], np.array([0, 0, 1, 1, 1, 1]))
    assert out2 == {"age": {"0": 0.5, "1": 0.25}}
    counts = group_counts(np.array([1, 0, 1, 1, 0, 0]), frame["race"].to_numpy())
    assert counts == {"A": {"count": 3, "base_rate": pytest.approx(2 / 3)},
                      "B": {"count": 3, "base_rate": pytest.approx(1 / 3)}}


def test_block_keys_follow_artifacts_contract():
    y, pred, score, groups = random_case(8, 200, ["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no sklearn/numpy warnings leak from the metrics
        block = evaluate_predictions(y, pred, score, groups)
    assert set(block) == {"n", "accuracy", "balanced_accuracy", "auc", "scores_are_labels", "groups", "gaps"}
    assert set(block["gaps"]) == {"demographic_parity", "equal_opportunity", "fpr_parity", "equalized_odds",
                                  "accuracy_parity", "abroca"}
    for g in block["groups"].values():
        assert set(g) == {"count", "base_rate", "selection_rate", "tpr", "fpr", "fnr", "accuracy"}
        assert all(v is None or (isinstance(v, (int, float)) and math.isfinite(v)) for v in g.values())


def test_intersectional_tuple_labels_and_series_input():
    y, pred, score, _ = random_case(9, 300, ["a", "b"])
    rng = np.random.default_rng(9)
    race = rng.choice(["A", "B"], 300)
    sex = rng.choice(["F", "M"], 300)
    tuples = list(zip(race, sex))
    block = evaluate_predictions(y, pred, score, tuples)
    assert set(block["groups"]) == {str(("A", "F")), str(("A", "M")), str(("B", "F")), str(("B", "M"))}
    joined = pd.Series([f"{r}|{s}" for r, s in tuples])  # a Series of joined labels gives the same numbers
    other = evaluate_predictions(y, pred, score, joined)
    assert sorted(other["gaps"].items()) == sorted(block["gaps"].items())
    assert_matches_fairlearn(other, y, pred, joined.to_numpy())


def test_groups_without_rate_names_the_groups_a_rate_is_undefined_for():
    y = np.array([1, 0, 0, 0, 1, 1])
    groups = np.array(["a", "a", "b", "b", "c", "c"])  # b: no positive, c: no negative
    assert make_criterion("equal_opportunity", 0.1).groups_without_rate(y, groups) == {"tpr": ["b"]}
    assert make_criterion("equalized_odds", 0.1).groups_without_rate(y, groups) == {"tpr": ["b"], "fpr": ["c"]}
    assert make_criterion("demographic_parity", 0.1).groups_without_rate(y, groups) == {}
    # the gap leaves b out: a bound "met" there says nothing about b, hence require_every_rate
    assert make_criterion("equal_opportunity").gap(y, np.array([1, 0, 1, 1, 1, 0]), groups) == 0.5


def test_equalized_odds_not_measurable_in_full_is_not_met_when_its_measurable_part_exceeds_the_bound():
    # found in review: group b has no negative test row, so the FPR gap (and the equalized-odds
    # gap) cannot be measured, but the TPR gap alone, 0.5, is above the bound 0.1
    from fairspec.metrics.groups import measurable_part
    from fairspec.registry.criteria import make_criterion
    train = evaluate_predictions([1, 0, 1, 0, 1, 0, 1, 0], [1, 0, 1, 0, 1, 0, 1, 0], None, list("aaaabbbb"))
    test = evaluate_predictions([1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 0], None, list("aaaabb"))
    assert test["gaps"]["equalized_odds"] is None and test["gaps"]["equal_opportunity"] == 0.5
    assert measurable_part(test, ("tpr", "fpr")) == (0.5, ["tpr"])
    summary = fairness_summary(make_criterion("equalized_odds", bound=0.1), train, test)
    assert summary["achieved_test"] is None and summary["met_test"] is False
    # a measurable part within the bound shows nothing: still not measured
    summary = fairness_summary(make_criterion("equalized_odds", bound=0.6), train, test)
    assert summary["met_test"] is None


@pytest.mark.parametrize("y_true, y_pred, message", [
    ([1, 2, 1], [1, 1, 0], "y_true must hold 0 and 1 only .* row 1 holds 2"),
    ([1, 0, 1], [0.7, 0, 1], "y_pred must hold 0 and 1 only .* row 0 holds 0.7"),
    (["yes", "no", "yes"], [1, 0, 1], "y_true must hold 0 and 1 only .* row 0 holds 'yes'"),
])
def test_labels_other_than_0_and_1_are_refused_not_cast(y_true, y_pred, message):
    # found in review: labels {1, 2} gave a TPR of 2.0 and an FNR of -1, and scores passed as
    # predictions were cut to 0
    from fairspec.metrics.intervals import gap_intervals
    with pytest.raises(ValueError, match=message):
        evaluate_predictions(y_true, y_pred, None, ["a", "b", "a"])
    with pytest.raises(ValueError, match=message):
        gap_intervals(y_true, y_pred, ["a", "b", "a"])
    assert evaluate_predictions([True, False, True], [1, 0, 0], None, ["a", "b", "a"])["accuracy"] == 2 / 3


_TEXTS = ["A", "B", "a", "", "Z & y", "\u00e9", "10", "9", " A"]


def _labels(rng, n: int, kind: str) -> np.ndarray:
    if kind == "text":
        return np.array(_TEXTS, dtype=object)[rng.integers(0, len(_TEXTS), n)]
    if kind == "ints":
        return rng.integers(0, 4, n)
    if kind == "floats with nan":
        return np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 3, n).astype(float))
    return np.array([1, 1.0, True, 0], dtype=object)[rng.integers(0, 4, n)]  # 1, 1.0 and True are equal


@pytest.mark.parametrize("kind", ["text", "ints", "floats with nan", "mixed"])
def test_distinct_labels_are_numpys_unique(kind):
    rng = np.random.default_rng(2)
    for n in (0, 1, 5, 400):
        labels = _labels(rng, n, kind)
        names, index = distinct_labels(labels)
        expected_names, expected_index = np.unique(labels, return_inverse=True)
        np.testing.assert_array_equal(names, expected_names)
        assert names.dtype == expected_names.dtype and index.dtype == expected_index.dtype
        np.testing.assert_array_equal(index, expected_index)


def test_a_block_keys_and_counts_text_groups_as_sorted_labels_do():
    rng = np.random.default_rng(6)
    y, pred = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    groups = _labels(rng, 500, "text")
    block = evaluate_predictions(y, pred, None, groups)
    assert list(block["groups"]) == sorted(set(groups))
    for name, rates in block["groups"].items():
        rows = groups == name
        assert rates["count"] == int(rows.sum())
        assert rates["base_rate"] == float(y[rows].sum() / rows.sum())
