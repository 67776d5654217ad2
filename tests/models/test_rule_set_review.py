"""The rule-set family as a careful Python caller meets it: found in the review of 2026-11-24."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.models.rule_set import FairRuleSetClassifier, emit_model
from fairspec.registry.criteria import EqualOpportunity, make_criterion

#: small work limits: these tests are about what the estimator accepts and returns
FAST = dict(time_limit=2.0, clock_cap=False, max_complexity=6, max_conditions=2, max_rounds=3, search_iterations=20)


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int), rng.choice(["a", "b"], n)


@pytest.mark.parametrize("params", [
    dict(time_limit=float("inf")),  # had been an OverflowError after column generation
    dict(time_limit=float("nan")),
    dict(time_limit=-1.0),  # had been read as 0
    dict(time_limit=None),
    dict(complexity_cost=float("nan")),  # had made HiGHS spin on the final IP past every time limit
    dict(complexity_cost=-0.01),
    dict(mip_gap=float("nan")),
    dict(mip_gap=-1.0),
])
def test_a_time_limit_cost_or_gap_that_is_no_finite_nonnegative_number_is_refused_before_any_work(params):
    X, y, _ = _data()
    name = next(iter(params))
    if name == "complexity_cost":
        X = np.ones_like(X)  # no condition, so no final IP: the old code ended at once instead of hanging
    with pytest.raises(ValueError, match=rf"{name} must be a finite number of at least 0"):
        FairRuleSetClassifier(**{**FAST, **params}).fit(X, y)


@pytest.mark.parametrize("name, value, words", [
    ("beam_width", 0, "a whole number of at least 1"),  # 0 priced nothing: a worse model without a word
    ("beam_width", 2.5, "a whole number of at least 1"),  # had been a TypeError deep in the beam search
    ("columns_per_round", 0, "a whole number of at least 1"),
    ("max_rounds", -1, "a whole number of at least 0"),
    ("max_ip_columns", 0, "a whole number of at least 1"),
    ("max_search_columns", 0, "a whole number of at least 1"),
    ("pricing_rows", 0, "a whole number of at least 1"),  # had divided by zero
    ("fairness_folds", -1, "a whole number of at least 0"),
    ("search_iterations", -1, "a whole number of at least 0"),
    ("tilt_rounds", -1, "a whole number of at least 0"),
    ("max_enumerated_rules", -1, "a whole number of at least 0"),
    ("search_cells", -1, r"a whole number of at least 0 \(or None\)"),
    ("ip_checkpoints", 0, r"a whole number of at least 1 \(or None\)"),
    ("threads", 0, "a whole number of at least 1"),  # had reached HiGHS
    ("threads", -1, "a whole number of at least 1"),
    ("cg_fraction", float("nan"), "a finite number from 0 to 1"),
    ("cg_fraction", 2.0, "a finite number from 0 to 1"),
    ("clock_cap", "no", "True or False"),  # bool("no") had been True
])
def test_an_advanced_setting_out_of_its_range_is_refused_by_name_before_any_work(name, value, words):
    X, y, _ = _data()
    with pytest.raises(ValueError, match=rf"{name} must be {words}; got"):
        FairRuleSetClassifier(**{**FAST, name: value}).fit(X, y)


def test_the_advanced_settings_at_their_least_values_still_fit():
    # the least accepted value of each is a real setting, not an error
    X, y, _ = _data()
    least = dict(beam_width=1, columns_per_round=1, max_rounds=0, max_ip_columns=1, max_search_columns=1,
                 pricing_rows=1, fairness_folds=0, search_iterations=0, tilt_rounds=0, max_enumerated_rules=0,
                 search_cells=0, ip_checkpoints=1, threads=1, cg_fraction=0.0, clock_cap=np.bool_(False))
    model = FairRuleSetClassifier(**{**FAST, **least}).fit(X, y)
    assert model.predict(X).shape == y.shape


@pytest.mark.parametrize("bound", [-0.1, float("nan")])  # no gap meets the one; the other had failed in Pyomo
def test_a_bound_no_gap_can_meet_or_no_number_is_refused_saying_so(bound):
    X, y, g = _data()
    with pytest.raises(ValueError, match="the bound of equal_opportunity must be a finite number of at least 0"):
        FairRuleSetClassifier(criterion=EqualOpportunity(bound=bound), **FAST).fit(X, y, sensitive_features=g)


def test_a_rule_covering_only_negatives_scores_its_rows_for_the_class_predict_gives():
    # equalized odds keeps a rule of precision 0 here (it raises one group's FPR); its rows had
    # scored exactly 1/2, so argmax(predict_proba) said 0 where predict said 1
    rng = np.random.default_rng(37)
    n = 80
    g, x0, x1 = rng.integers(0, 2, n), rng.integers(0, 4, n), rng.integers(0, 3, n)
    y = ((x0 >= 2) & (rng.random(n) < 0.8) | (rng.random(n) < 0.1)).astype(int)
    X = np.column_stack([x0, x1, g]).astype(float)
    est = FairRuleSetClassifier(**{**FAST, "max_complexity": 8}, criterion=make_criterion("equalized_odds", 0.05))
    est.fit(X, y, sensitive_features=g)
    assert 0.0 in est.rule_precision_
    proba = est.predict_proba(X)
    pred = est.predict(X)
    assert np.array_equal(est.classes_[proba.argmax(axis=1)], pred)
    assert np.array_equal(proba[:, 1] > 0.5, pred == 1)


def test_emitting_the_model_of_a_fitted_estimator_leaves_it_predicting_as_before(tmp_path):
    X, y, _ = _data()
    est = FairRuleSetClassifier(**FAST).fit(X, y)
    before = est.predict(X)
    emit_model(est, X[:, :2], np.where(y == 1, "yes", "no"), None, tmp_path / "m.lp")
    assert est.n_features_in_ == 3 and list(est.classes_) == [0, 1]
    assert np.array_equal(est.predict(X), before)


def test_a_short_time_limit_leaves_the_local_search_its_time_after_column_generation():
    # a reserve of at least 0.5 s put the search's clock cap before column generation's share
    # ended under 1.25 s, and before the fit began under 0.55 s: such fits returned the empty
    # rule set on any machine (found in review)
    from fairspec.models.rule_set.estimator import IP_CLOCK_SHARE, clock_reserve

    cg_share = FairRuleSetClassifier().cg_fraction
    for limit in (0.05, 0.3, 0.5, 0.55, 1.0, 1.25, 4.9, 5.0, 28.0, 100.0):
        reserve = clock_reserve(limit)
        assert 0 < reserve <= 0.1 * limit + 1e-12
        assert (1 - IP_CLOCK_SHARE) * limit - reserve >= cg_share * limit  # the search starts after CG
    assert (clock_reserve(28.0), clock_reserve(100.0)) == (0.05 * 28.0, 5.0)  # the benchmark's budgets keep theirs


def test_an_empty_rule_set_is_named_as_the_empty_candidate_whatever_found_it():
    # the final IP's solution, inserted first, won the tie with the empty candidate: the log
    # said "final_ip" and dropped the note that nothing better met the bound (found in review)
    rng = np.random.default_rng(0)
    X, g = np.ones((200, 2)), rng.choice(["a", "b"], 200)
    y = (rng.random(200) < 0.3).astype(int)
    est = FairRuleSetClassifier(criterion=make_criterion("equal_opportunity", 0.0), time_limit=5,
                                clock_cap=False).fit(X, y, sensitive_features=g)
    assert est.rules_ == [] and est.fit_log_["selected_from"] == "empty"
    assert est.fit_log_["note"].startswith("no non-empty rule set found meets the bound")


def test_the_status_is_the_final_ips_only_when_the_rule_set_returned_is_its_solution():
    # the IP's "optimal" (over its pooled columns) was reported for a returned "ALWAYS 1", the
    # all-positive fallback no IP produced (found in review)
    rng = np.random.default_rng(3)
    grp = rng.choice(["a", "b"], 300)
    x1, x2 = rng.normal(size=300), rng.normal(size=300)
    y = (rng.random(300) < 0.75 + 0.1 * (x1 > 0) - 0.1 * (grp == "b") * (x2 > 0)).astype(int)
    X = np.column_stack([x1, x2])
    est = FairRuleSetClassifier(max_complexity=3, max_conditions=2, thresholds=3, time_limit=3, clock_cap=False,
                                criterion=EqualOpportunity(bound=0.0), random_state=1).fit(X, y, grp)
    log = est.fit_log_
    assert (log["selected_from"], log["ip_status"], log["status"]) == ("all_positive", "optimal", "heuristic")
    # unconstrained, the IP's solution is returned, with the IP's status
    balanced = ((x1 > 0.3) ^ (rng.random(300) < 0.1)).astype(int)
    free = FairRuleSetClassifier(max_complexity=3, max_conditions=2, thresholds=3, time_limit=3, clock_cap=False,
                                 random_state=1).fit(X, balanced)
    assert free.fit_log_["selected_from"] in ("final_ip", "simplified")
    assert free.fit_log_["status"] == free.fit_log_["ip_status"] == "optimal"
