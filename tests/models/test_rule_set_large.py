"""The rule set's large-data paths (issue 48): the master LP handed to HiGHS as arrays, the
master's first solve bounded by the stage budget, and the post-stage work on merged patterns."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.rule_set.column_generation import MasterLP, RulePool
from fairspec.registry.criteria import make_criterion
from fairspec.solvers.highs import HighsSession


def _problem(criterion, seed=1, n=600, groups=3):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, n)
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * X[:, 0] - X[:, 1] + 0.5 * g)))).astype(int)
    est = FairRuleSetClassifier(criterion=make_criterion(criterion, 0.02), max_complexity=6, max_conditions=3,
                                thresholds=6)
    _, _, _, _, _, patterns, problem = est._prepare(X, y, g)
    return est, patterns, problem


def _canonical(lp: MasterLP):
    """The LP HiGHS holds, rows in key order and columns as w then ζ: two loads of one LP that
    differ only in the order of rows and columns give equal arrays."""
    held = lp.h.getLp()
    a = held.a_matrix_
    matrix = sp.csc_matrix((np.asarray(a.value_), np.asarray(a.index_), np.asarray(a.start_)),
                           shape=(held.num_row_, held.num_col_))
    rows = [lp.rows[key] for key in sorted(lp.rows, key=str)]
    cols = list(lp.w_cols) + list(lp.zeta_cols)
    return (matrix[rows][:, cols].toarray(), np.asarray(held.col_cost_)[cols], np.asarray(held.col_lower_)[cols],
            np.asarray(held.col_upper_)[cols], np.asarray(held.row_lower_)[rows], np.asarray(held.row_upper_)[rows])


@pytest.mark.parametrize("criterion", ["equal_opportunity", "equalized_odds"])
def test_the_master_built_as_arrays_is_the_pyomo_master(criterion):
    est, patterns, problem = _problem(criterion)
    pool = est._warm_start_pool(patterns)
    pyomo_lp = MasterLP(problem, pool, HighsSession(time_limit=30.0), arrays=False)
    array_lp = MasterLP(problem, pool, HighsSession(time_limit=30.0), arrays=True)
    assert not pyomo_lp.arrays and array_lp.arrays
    assert set(pyomo_lp.rows) == set(array_lp.rows)  # the same rows exist (none empty in one only)
    for held_pyomo, held_arrays in zip(_canonical(pyomo_lp), _canonical(array_lp)):
        np.testing.assert_array_equal(held_pyomo, held_arrays)
    first, second = pyomo_lp.solve(30.0), array_lp.solve(30.0)
    assert first[0] == second[0] == "optimal"
    assert second[1] == pytest.approx(first[1], rel=1e-9)
    np.testing.assert_allclose(second[2], first[2], atol=1e-9)  # w: unique here
    # columns appended to both (a round of column generation, with its new rows) keep them equal
    new_pool = RulePool()
    for k, rule in enumerate(pool.rules):
        new_pool.add(rule, pool.coverage[k], "test")
    rng = np.random.default_rng(0)
    added = []
    for _ in range(15):
        rule = tuple(sorted(rng.choice(patterns.literals.shape[1], size=2, replace=False)))
        covered = patterns.coverage(rule)
        if covered.any() and new_pool.add(rule, covered, "test"):
            added.append(len(new_pool.rules) - 1)
    for lp in (pyomo_lp, array_lp):
        lp.add_columns(new_pool, added)
    for held_pyomo, held_arrays in zip(_canonical(pyomo_lp), _canonical(array_lp)):
        np.testing.assert_array_equal(held_pyomo, held_arrays)
    before = first[1]
    first, second = pyomo_lp.solve(30.0), array_lp.solve(30.0)
    assert second[1] == pytest.approx(first[1], rel=1e-9)
    assert first[1] <= before + 1e-9  # more columns can only lower the minimum


def test_a_fit_through_the_array_master_meets_its_bound(monkeypatch):
    import fairspec.models.rule_set.column_generation as cg

    est, _, _ = _problem("equal_opportunity")
    rng = np.random.default_rng(1)
    g = rng.integers(0, 3, 600)
    X = rng.normal(size=(600, 3))
    y = (rng.random(600) < 1 / (1 + np.exp(-(1.5 * X[:, 0] - X[:, 1] + 0.5 * g)))).astype(int)
    monkeypatch.setattr(cg, "ARRAY_MASTER_PATTERNS", 0)
    est.set_params(time_limit=1.0, clock_cap=False, max_complexity=4).fit(X, y, sensitive_features=g)
    log = est.fit_log_
    assert log["master_lp"] == "arrays" and log["rounds"] >= 1 and log["bound_met_on_train"]
    assert log["train_accuracy"] > max(y.mean(), 1 - y.mean())  # a real rule set, not a constant one


def _data(n=3000, seed=5):
    rng = np.random.default_rng(seed)
    g = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    X = rng.normal(size=(n, 6))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + 0.3 * g)))).astype(int)
    return X, y, g


def test_the_first_master_solve_gets_the_first_phase_share_of_the_limit_not_a_fixed_cap(monkeypatch):
    import fairspec.models.rule_set.estimator as estimator

    seen = {}
    real = estimator.ColumnGenerator

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(estimator, "ColumnGenerator", spy)
    X, y, g = _data(300)
    est = FairRuleSetClassifier(criterion=make_criterion("equal_opportunity", 0.05), max_complexity=4,
                                max_conditions=2, thresholds=4, time_limit=1.0, cg_fraction=0.5)
    est.fit(X, y, sensitive_features=g)
    tilted = any(p["name"].startswith("tilt") for p in est.fit_log_["phases"]) or "tilts_skipped" in est.fit_log_
    # 0.5 of the limit for column generation, 0.6 of that for the paper's phase when tilts follow
    assert seen["first_solve_seconds"] == pytest.approx(1.0 * 0.5 * (0.6 if tilted else 1.0))
    est.set_params(clock_cap=False, time_limit=0.2).fit(X, y, sensitive_features=g)
    assert seen["first_solve_seconds"] == np.inf  # no clock at all under clock_cap false


@pytest.mark.slow  # two fits each: seconds on an idle core, tens at a load of 8
def test_tilted_phases_without_work_left_do_not_recost_the_master(monkeypatch):
    from fairspec.models.rule_set.column_generation import MasterLP

    calls = []
    real = MasterLP.set_costs
    monkeypatch.setattr(MasterLP, "set_costs", lambda self, *a: calls.append(1) or real(self, *a))
    X, y, g = _data(600)
    est = FairRuleSetClassifier(criterion=make_criterion("equal_opportunity", 0.01), max_complexity=6,
                                max_conditions=2, thresholds=5, time_limit=1e-6, clock_cap=False,
                                ip_checkpoints=1, search_iterations=5)  # one round's work spends the limit
    est.fit(X, y, sensitive_features=g)
    phases = est.fit_log_["phases"]
    assert phases[0]["rounds"] == 1 and len(phases) > 1  # the bound bound, so the tilted phases came
    assert all(p["rounds"] == 0 and p["work_limit"] for p in phases[1:])
    assert calls == []
    est.set_params(time_limit=0.3).fit(X, y, sensitive_features=g)  # with work left they are re-costed
    # a phase with work left runs a round, so does its work: each of those was re-costed, no other
    assert len(calls) == sum(1 for p in est.fit_log_["phases"][1:] if p["cells"] > 0) > 0


@pytest.mark.slow  # two fits each: seconds on an idle core, tens at a load of 8
def test_simplify_runs_on_the_patterns_merged_by_the_chosen_literals(monkeypatch):
    import fairspec.models.rule_set.estimator as estimator

    sizes = []
    real = estimator.simplify
    monkeypatch.setattr(estimator, "simplify", lambda rules, literals, scorer, **kw:
                        sizes.append((literals.shape, {j for r in rules for j in r})) or real(rules, literals, scorer, **kw))
    X, y, g = _data(2000)
    est = FairRuleSetClassifier(criterion=make_criterion("equal_opportunity", 0.05), max_complexity=8,
                                max_conditions=2, time_limit=0.3, clock_cap=False, ip_checkpoints=1,
                                search_iterations=5).fit(X, y, sensitive_features=g)
    n_patterns = est.fit_log_["n_patterns"]
    assert sizes and est.fit_log_["n_rules"] >= 1
    for (rows, width), used in sizes:
        # a column per literal the rules read; at most one pattern per (literal values, label, group)
        assert width == len(used) and rows <= min(2 ** width * 2 * 3, n_patterns)
    assert min(rows for (rows, _), _ in sizes) < n_patterns / 4  # far fewer than every pattern


def test_patterns_merged_from_merged_ones_are_those_merged_from_every_pattern():
    from fairspec.models.rule_set.estimator import _merged_from
    from fairspec.models.rule_set.master import Patterns

    rng = np.random.default_rng(0)
    literals = rng.random((4000, 14)) < 0.4
    patterns = Patterns.from_rows(literals, rng.integers(0, 2, 4000), rng.integers(0, 3, 4000))
    pool = RulePool()
    for _ in range(12):
        rule = tuple(sorted(rng.choice(14, size=2, replace=False)))
        pool.add(rule, patterns.coverage(rule), "test")
    pool.add((), patterns.coverage(()), "cover_all")  # covers every pattern: merged from any base
    base_columns = list(range(10))
    base = (base_columns, patterns.merged_by(pool.matrix(base_columns)))
    for columns in ([1, 4, 6], [0, 2, 9, len(pool.rules) - 1], [3, 11]):  # the last is not in the base
        direct = patterns.merged_by(pool.matrix(columns))
        again = _merged_from(base, columns, pool, patterns)
        for field in ("literals", "y", "group", "count", "row_pattern", "fold"):
            np.testing.assert_array_equal(getattr(again, field), getattr(direct, field))
        assert len(direct.y) < len(patterns.y)


@pytest.mark.parametrize("width", [0, 5, 8, 13, 70])
def test_distinct_rows_orders_patterns_as_one_key_column_per_byte(width):
    # the packed key must not change the patterns' order: everything downstream (the master's
    # rows, the pricing sample) reads patterns in that order, and committed models depend on it
    from fairspec.models.rule_set.master import distinct_rows

    rng = np.random.default_rng(width)
    literals = rng.random((2000, width)) < 0.5
    if width > 2:
        literals[:, 1] = literals[:, 0]
    y, g = rng.integers(0, 2, 2000), rng.integers(0, 3, 2000)
    key = np.column_stack([np.packbits(literals, axis=1).astype(np.int64), y, g])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    got_first, got_inverse = distinct_rows(literals, y, g)
    np.testing.assert_array_equal(got_first, first)
    np.testing.assert_array_equal(got_inverse, inverse.ravel())


def test_the_final_ip_stops_early_by_the_measured_cost_of_the_work_after_it(monkeypatch):
    # on a million rows the simplification and the candidates' measurement after the IP read
    # every pattern (about 2.3 merges' worth): the IP ran to the limit and the stages ended 18 %
    # over it.  Slow the local search's merge by a known second: the IP's deadline moves by
    # POST_IP_MERGES of it (the stages' clock starts before that merge)
    import time

    from fairspec.models.rule_set import estimator as rs
    from fairspec.models.rule_set.estimator import POST_IP_MERGES, clock_reserve, final_ip_deadline

    assert final_ip_deadline(100.0, 1.0, 0.0) == 99.0
    assert final_ip_deadline(100.0, 1.0, 2.0) == 100.0 - 1.0 - 2.0 * POST_IP_MERGES
    assert final_ip_deadline(100.0, 1.0, -1.0) == 99.0  # a clock step back never extends it

    rng = np.random.default_rng(4)
    g = rng.integers(0, 2, 400)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + 0.3 * g + rng.normal(size=400) > 0).astype(int)
    slow = 1.0
    merged_columns, final_ip = rs.FairRuleSetClassifier._merged_columns, rs.FairRuleSetClassifier._final_ip
    merges, deadlines = [], []

    def slowed(self, *args, **kwargs):
        start = time.perf_counter()
        if kwargs.get("base") is None:  # the local search's merge, which the deadline is sized by
            time.sleep(slow)
        out = merged_columns(self, *args, **kwargs)
        merges.append((start, time.perf_counter()))
        return out

    def spy(self, problem, pool, ks, mip_start, deadline, exact_negatives):
        deadlines.append(deadline)
        return final_ip(self, problem, pool, ks, mip_start, deadline, exact_negatives)

    monkeypatch.setattr(rs.FairRuleSetClassifier, "_merged_columns", slowed)
    monkeypatch.setattr(rs.FairRuleSetClassifier, "_final_ip", spy)
    limit = 30.0
    before = time.perf_counter()
    FairRuleSetClassifier(criterion=make_criterion("equal_opportunity", 0.05), max_complexity=6,
                          time_limit=limit, clock_cap=True).fit(X, y, sensitive_features=g)
    assert len(deadlines) == 1 and len(merges) >= 1
    (start, end), reserve = merges[0], clock_reserve(limit)
    # the clock started inside the fit and before the slowed merge, which took between `slow`
    # and end - start
    assert deadlines[0] <= start + limit - reserve - POST_IP_MERGES * slow + 1e-6
    assert deadlines[0] >= before + limit - reserve - POST_IP_MERGES * (end - start) - 1e-6
