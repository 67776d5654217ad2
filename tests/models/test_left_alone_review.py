"""Defects earlier reviews noticed and left alone, reproduced and fixed (review of 2026-11-25)."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from fairspec.errors import DataError
from fairspec.models import inputs
from fairspec.models.inputs import binary_labels, group_labels
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.rule_set.master import Patterns
from fairspec.models.tree.estimators import MissingAwareForestClassifier, MissingAwareTreeClassifier
from fairspec.registry.criteria import make_criterion

#: small work limits, no clock: these tests are about what a fit logs and returns
FAST = dict(time_limit=2.0, clock_cap=False, max_complexity=6, max_conditions=2, max_rounds=3, search_iterations=20)


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)


# 1. the final IP over an empty pool ----------------------------------------------------------

@pytest.mark.parametrize("criterion", [None, make_criterion("equal_opportunity", 0.05)])
def test_a_final_ip_over_an_empty_pool_says_it_did_not_run(criterion):
    # constant features: no literal, so no rule with a condition and nothing for an IP to
    # choose; the log had said "optimal" with a MIP gap of 0 "over the 0 pooled rules"
    y = np.array([0, 1] * 10)
    est = FairRuleSetClassifier(criterion=criterion, **FAST).fit(np.zeros((20, 1)), y, np.repeat(["a", "b"], 10))
    log = est.fit_log_
    assert (log["n_literals"], log["ip_columns"]) == (0, 0)
    assert (log["ip_status"], log["status"], log["mip_gap"]) == ("not_run", "heuristic", None)
    assert "mip_gap_of" not in log and "pool held no rule" in log["ip_not_run_because"]
    # nothing was cut by the clock: the fit is as reproducible as any other
    assert log["reproducible"] and log["cut_by_clock"] == []


# 2. a single group has no gap ----------------------------------------------------------------

def test_a_fit_over_a_single_group_logs_no_gap_and_no_verdict_as_metrics_json_does():
    X, y = _data()
    one = np.full(len(y), "a")
    bound = make_criterion("equal_opportunity", 0.05)
    rules = FairRuleSetClassifier(criterion=bound, **FAST).fit(X, y, one)
    # had been a gap of 0.0 and "met", where metrics.json says null and null
    assert rules.fit_log_["train_gap"] is None and rules.fit_log_["bound_met_on_train"] is None
    assert rules.predict(X).shape == y.shape
    for model in (MissingAwareTreeClassifier(max_depth=3, fairness=bound, time_limit=5),
                  MissingAwareForestClassifier(n_estimators=3, max_depth=3, fairness=bound, time_limit=5)):
        log = model.fit(X, y, sensitive_features=one).fit_log_
        assert log["train_gap_before_relabel"] is None and log["train_gap_after_relabel"] is None
        # no bound binds on one group: the grown leaves keep their labels
        assert log["note"].startswith("the training rows hold a single group")
    penalised = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", penalty=1.0))
    assert penalised.fit(X, y, sensitive_features=one).fit_log_["train_gap"] is None


# 3. group labels are values, not spellings ---------------------------------------------------

def test_the_numbers_1_and_1_0_are_one_group_whatever_their_type():
    assert group_labels([1, 1.0, 2, 2.0], 4).tolist() == ["1", "1", "2", "2"]
    assert group_labels([np.int64(1), np.float64(1.0), 1], 3).tolist() == ["1", "1", "1"]
    assert group_labels(np.array([1.0, 2.0]), 2).tolist() == ["1", "2"]  # had been "1.0" and "2.0"
    assert group_labels(np.array([[1, "a"], [1.0, "a"]], dtype=object), 2).tolist() == ["1 & a", "1 & a"]
    # a text stays as written, a bool is no number, a fraction keeps its digits
    assert group_labels(["1", "1.0", "01", True, 1, 1.5], 6).tolist() == ["1", "1.0", "01", "True", "1", "1.5"]


def test_a_bound_is_not_imposed_between_the_rows_of_one_group_written_1_and_1_0():
    X, y = _data(n=120, seed=3)
    groups = np.where(np.arange(len(y)) % 2 == 0, 1, 2).astype(object)
    # some of group 1's negatives arrive as the float 1.0 (a list built from two sources): as the
    # group "1.0" they had no positive, and the fit refused a group the caller never had
    groups[(groups == 1) & (y == 0) & (np.arange(len(y)) % 4 == 0)] = 1.0
    bound = make_criterion("equal_opportunity", 0.1)
    as_ints = MissingAwareTreeClassifier(max_depth=3, fairness=bound, time_limit=5).fit(
        X, y, sensitive_features=groups.astype(int))
    mixed = MissingAwareTreeClassifier(max_depth=3, fairness=bound, time_limit=5).fit(X, y, sensitive_features=groups)
    assert np.array_equal(mixed.predict(X), as_ints.predict(X))
    assert mixed.fit_log_["train_gap_after_relabel"] == as_ints.fit_log_["train_gap_after_relabel"]


# 4. one label cannot say which class is positive ---------------------------------------------

@pytest.mark.parametrize("only, read", [(1, "positive"), (0, "negative"), (1.0, "positive")])
def test_a_lone_0_or_1_is_read_as_a_0_1_label_and_a_warning_says_so(only, read):
    # all 1s of labels 1 and 2 had silently made 1 the positive class (classes_ [0, 1]), while
    # all 2s were refused: one label cannot say which class is positive
    y = np.full(10, only)
    with pytest.warns(inputs.OneClassWarning, match=f"one class only .*read as the {read} class of labels 0 and 1"):
        classes, y01 = binary_labels(y, 10, None)
    assert classes.tolist() == [0, 1] and y01.tolist() == [int(only)] * 10
    X, _ = _data(n=10)
    with pytest.warns(inputs.OneClassWarning, match="fit on rows of both classes") as caught:
        MissingAwareTreeClassifier(max_depth=2).fit(X, y)
    assert caught[0].filename == __file__  # the warning names the caller's line, not fairspec's


def test_a_lone_bool_is_no_guess_and_any_other_lone_label_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # False and True are all the bools there are
        assert binary_labels(np.full(5, True), 5, None)[0].tolist() == [False, True]
    for only in (2, -1, "yes"):
        with pytest.raises(DataError, match="one class only"):
            binary_labels(np.full(5, only), 5, None)


# 5. with enumeration, the all-positive rule is not an IP column: the choice is still exact ---

def _brute_force_with_all_positive(patterns, max_conditions, max_complexity, criterion, cost_per_unit):
    """Lowest 0-1 loss plus complexity cost over every rule set of rules with up to
    ``max_conditions`` literals, the rule with no condition (complexity 1, covers every row)
    among them, within the complexity and gap bounds."""
    rules = [()] + [r for d in range(1, max_conditions + 1)
                    for r in itertools.combinations(range(patterns.literals.shape[1]), d)]
    cover = [patterns.coverage(r) for r in rules]
    best = np.inf
    for size in range(max_complexity + 1):  # each rule costs at least 1
        sets = [c for c in itertools.combinations(range(len(rules)), size)
                if sum(1 + len(rules[k]) for k in c) <= max_complexity]
        if not sets:
            break
        for chosen in sets:
            pred = np.zeros(len(patterns.y), dtype=bool)
            for k in chosen:
                pred |= cover[k]
            gap = criterion.gap(patterns.y, pred.astype(int), patterns.group, sample_weight=patterns.count)
            if gap > criterion.bound + 1e-9:
                continue
            loss = patterns.count[pred.astype(int) != patterns.y].sum()
            best = min(best, loss + cost_per_unit * sum(1 + len(rules[k]) for k in chosen))
    return best


@pytest.mark.parametrize("seed, shift, name, bound, cost", [
    (0, 2.0, "equalized_odds", 0.02, 0.0),     # the all-positive rule set is the fair optimum
    (1, 1.5, "equal_opportunity", 0.0, 0.02),  # ... and under a complexity cost
    (2, 0.0, "equal_opportunity", 0.05, 0.0),  # a rule set the IP chose is
])
def test_an_enumerated_fit_is_optimal_over_rule_sets_that_may_hold_the_all_positive_rule(seed, shift, name, bound,
                                                                                         cost):
    # any rule set holding the rule with no condition predicts every row positive, as that
    # rule alone does at complexity 1: the candidate the final choice adds beside the IP's
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 4, 60), rng.integers(0, 3, 60)]).astype(float)
    g = rng.integers(0, 2, 60)
    y = (rng.random(60) < 1 / (1 + np.exp(-(0.9 * X[:, 0] - 0.8 * X[:, 1] + 0.8 * g - 1.0 + shift)))).astype(int)
    criterion = make_criterion(name, bound)
    est = FairRuleSetClassifier(criterion=criterion, max_complexity=5, max_conditions=2, thresholds=3,
                                missing="none", complexity_cost=cost, time_limit=10.0, clock_cap=False, mip_gap=0.0)
    est.fit(X, y, sensitive_features=g)
    assert est.fit_log_["enumerated"]
    patterns = Patterns.from_rows(est.binarizer_.transform(X), y, g)
    best = _brute_force_with_all_positive(patterns, 2, 5, criterion, cost * len(y))
    found = (est.predict(X) != y).sum() + cost * len(y) * est.fit_log_["complexity"]
    assert found == pytest.approx(best)
    assert (est.fit_log_["selected_from"] == "all_positive") == (shift > 0)


def test_a_list_mixing_numbers_and_text_keeps_1_and_1_0_one_group():
    # numpy makes such a list text ("1", "1.0", "x"): only an array given as text is taken as written
    assert group_labels([1, 1.0, "x"], 3).tolist() == ["1", "1", "x"]
    assert group_labels(np.array(["1", "1.0"]), 2).tolist() == ["1", "1.0"]
