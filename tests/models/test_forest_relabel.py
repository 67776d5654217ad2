"""A forest's leaves relabelled one tree at a time (forest_relabel), and the relabelling MIP
with a fixed share of the vote, an elastic bound and a start, each against brute force."""
from __future__ import annotations

import dataclasses
import itertools
import time

import numpy as np
import pytest

from fairspec.errors import NoUsableModelError
from fairspec.models.missing_tree import MissingAwareForestClassifier
from fairspec.models.tree import relabel
from fairspec.models.tree.forest_relabel import MAX_SWEEPS, TreeRoutes, lexicographic_excess_cost, tree_by_tree_labels
from fairspec.models.tree.relabel import relabel_leaves, vote_labels
from fairspec.registry.criteria import make_criterion


def _fixed_share_problem(seed, n=90):
    """Three trees' worth of vote: the free tree's leaves 0..4 carry 1/3 of each row's vote
    (some rows split it over two leaves, as fractional routing does); the other two trees'
    share, 0, 1/3 or 2/3, is fixed."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.35 + 0.25 * g).astype(int)
    offset = rng.integers(0, 3, n) / 3.0
    rows, leaves, weights = [], [], []
    for r in range(n):
        if rng.random() < 0.2:
            a, b = rng.choice(5, 2, replace=False)
            rows += [r, r]
            leaves += [a, b]
            weights += [1 / 6, 1 / 6]
        else:
            rows.append(r)
            leaves.append(int(rng.integers(0, 5)))
            weights.append(1 / 3)
    return np.array(rows), np.array(leaves), np.array(weights), offset, y, g


def _objective(labels, rows, leaves, weights, offset, y, g, crit, cost):
    pred = vote_labels(rows, leaves, weights, labels, len(y), base=offset)
    excess = max(crit.gap(y, pred, g) - crit.bound, 0.0)
    return float((pred == y).sum()), excess, float((pred == y).sum()) - (cost or 0.0) * excess


@pytest.mark.parametrize("seed, criterion, bound", [(0, "equal_opportunity", 0.05), (1, "demographic_parity", 0.02),
                                                    (2, "equalized_odds", 0.08), (3, "demographic_parity", 0.0)])
def test_a_fixed_share_of_the_vote_and_an_elastic_bound_match_brute_force(seed, criterion, bound):
    rows, leaves, weights, offset, y, g = _fixed_share_problem(seed)
    crit = make_criterion(criterion, bound)
    every = [np.array(bits, float) for bits in itertools.product([0, 1], repeat=5)]
    feasible = [_objective(z, rows, leaves, weights, offset, y, g, crit, None)[0] for z in every
                if _objective(z, rows, leaves, weights, offset, y, g, crit, None)[1] <= 1e-9]
    if feasible:
        labels, _ = relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, bound, offset=offset)
        assert _objective(labels, rows, leaves, weights, offset, y, g, crit, None)[0] == max(feasible)
    else:
        with pytest.raises(NoUsableModelError):
            relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, bound, offset=offset)
    # elastic: any excess outweighs the accuracy, so the optimum is the least excess, then accuracy
    cost = lexicographic_excess_cost(y, g, crit.rates, np.ones(len(y)))
    labels, _ = relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, bound, offset=offset, excess_cost=cost)
    best = max(_objective(z, rows, leaves, weights, offset, y, g, crit, cost)[2] for z in every)
    assert _objective(labels, rows, leaves, weights, offset, y, g, crit, cost)[2] == pytest.approx(best, abs=1e-6)


def test_a_feasible_start_is_kept_when_highs_returns_nothing(monkeypatch):
    rows, leaves, weights, offset, y, g = _fixed_share_problem(0)
    crit = make_criterion("equal_opportunity", 0.05)
    # the least accurate labelling that meets the bound: not the optimum HiGHS would return
    every = [np.array(bits, float) for bits in itertools.product([0, 1], repeat=5)]
    start = min((z for z in every if _objective(z, rows, leaves, weights, offset, y, g, crit, None)[1] <= 1e-9),
                key=lambda z: _objective(z, rows, leaves, weights, offset, y, g, crit, None)[0])
    real_solve = relabel.highs.HighsSession.solve
    monkeypatch.setattr(relabel.highs.HighsSession, "solve", lambda *a, **k: dataclasses.replace(
        real_solve(*a, **k), status=relabel.highs.TIME_LIMIT_NO_SOLUTION, has_solution=False, objective=None))
    with pytest.raises(NoUsableModelError, match="found no labelling"):
        relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, 0.05, offset=offset)
    labels, log = relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, 0.05, offset=offset,
                                 initial_labels=start)
    assert np.array_equal(labels, start) and log["relabel_start_used"].startswith("kept")


def _small_forest(seed, n_trees=3, depth=2, n=240):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + 0.9 * g, rng.normal(size=n)])
    y = ((X[:, 0] + X[:, 1] + rng.normal(size=n)) > 0.6).astype(int)
    forest = MissingAwareForestClassifier(n_estimators=n_trees, max_depth=depth, random_state=seed,
                                          max_features="all").fit(X, y)
    routes, _ = TreeRoutes.of(forest.trees_, X)
    labels = np.concatenate([t.leaf_labels() for t in forest.trees_])
    return routes, labels, y, g


@pytest.mark.parametrize("seed, criterion, bound", [(0, "equal_opportunity", 0.02), (1, "demographic_parity", 0.05),
                                                    (2, "equalized_odds", 0.05)])
def test_the_descent_ends_where_no_single_tree_can_do_better(seed, criterion, bound):
    routes, labels, y, g = _small_forest(seed)
    crit = make_criterion(criterion, bound)
    z, log = tree_by_tree_labels(routes, labels, y, g, crit.rates, bound, deadline=time.perf_counter() + 60)
    assert log["relabel_descent_sweeps"] < MAX_SWEEPS, "the descent should converge on this data"
    rows, leaves, weights = routes.concatenated()
    cost = lexicographic_excess_cost(y, g, crit.rates, np.ones(len(y)))
    reached = _objective(z, rows, leaves, weights, None, y, g, crit, cost)
    assert log["relabel_descent_meets_bound"] == (reached[1] <= 1e-9)
    assert log["relabel_descent_train_accuracy"] == pytest.approx(reached[0] / len(y))
    for own in routes.leaves:
        ids = np.unique(own)
        for bits in itertools.product([0.0, 1.0], repeat=len(ids)):
            other = z.copy()
            other[ids] = bits
            assert _objective(other, rows, leaves, weights, None, y, g, crit, cost)[2] <= reached[2] + 1e-6


def test_a_fair_forest_keeps_the_descents_labels_when_they_meet_the_bound():
    rng = np.random.default_rng(11)
    n = 1500
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + 0.8 * g, rng.normal(size=n), rng.normal(size=n)])
    y = ((X[:, 0] + X[:, 1] + 0.5 * X[:, 2] + rng.normal(size=n)) > 0.8).astype(int)
    crit = make_criterion("equal_opportunity", 0.02)
    model = MissingAwareForestClassifier(n_estimators=15, max_depth=4, random_state=0, time_limit=20.0,
                                         fairness=crit).fit(X, y, sensitive_features=g)
    log = model.fit_log_
    pred = model.predict(X)
    assert log["relabel_descent_meets_bound"]
    assert (pred == y).mean() == pytest.approx(log["relabel_descent_train_accuracy"], abs=1e-12)
    assert crit.gap(y, pred, g) <= 0.02 + 1e-9
    # no joint MIP ran, so there is no MIP gap to claim
    assert "relabel_status" not in log and log["status"] == "heuristic" and log["mip_gap"] is None
    # the descent did real work: far better than predicting one class for everyone
    assert log["relabel_descent_train_accuracy"] > max(y.mean(), 1 - y.mean()) + 0.1


def test_a_block_the_clock_cuts_keeps_the_labels_it_found(monkeypatch):
    """The standard: a solve stopped by its time limit keeps its best incumbent. A block's
    answer is never worse than its start, so the descent must take it before stopping."""
    from fairspec.models.tree import forest_relabel
    routes, labels, y, g = _small_forest(1)
    crit = make_criterion("equal_opportunity", 0.02)
    real = forest_relabel.relabel_leaves
    blocks = []

    def first_block_cut(*a, **k):
        block, log = real(*a, **k)
        if "offset" in k:  # a block of the descent, not "each tree alone"
            blocks.append((k["initial_labels"].copy(), block.copy()))
            if len(blocks) == 1:
                log = {**log, "relabel_status": relabel.highs.TIME_LIMIT}
        return block, log

    monkeypatch.setattr(forest_relabel, "relabel_leaves", first_block_cut)
    z, log = tree_by_tree_labels(routes, labels, y, g, crit.rates, 0.02, deadline=time.perf_counter() + 60)
    assert log["relabel_descent_cut_by_clock"] and log["relabel_descent_blocks"] == 1
    start, found = blocks[0]
    own = np.unique(routes.leaves[0])
    assert not np.array_equal(start[own], found[own]), "the first block should move the first tree's labels"
    assert np.array_equal(z[own], found[own])


def test_with_no_time_left_the_mip_is_not_built_and_the_best_labelling_at_hand_is_returned(monkeypatch):
    rows, leaves, weights, offset, y, g = _fixed_share_problem(0)
    crit = make_criterion("equal_opportunity", 0.05)
    every = [np.array(bits, float) for bits in itertools.product([0, 1], repeat=5)]
    fair = [z for z in every if _objective(z, rows, leaves, weights, offset, y, g, crit, None)[1] <= 1e-9]
    worst, best = (f(fair, key=lambda z: _objective(z, rows, leaves, weights, offset, y, g, crit, None)[0])
                   for f in (min, max))
    unfair = next(z for z in every if _objective(z, rows, leaves, weights, offset, y, g, crit, None)[1] > 1e-9)

    def not_built(*a, **k):
        raise AssertionError("the MIP was built with no time left")
    monkeypatch.setattr(relabel.pyo, "ConcreteModel", not_built)
    labels, log = relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, 0.05, offset=offset, time_limit=-2.0,
                                 initial_labels=unfair, fallback_labels=(worst, best))
    assert np.array_equal(labels, best) and log["relabel_labels_from"] == "fallback"
    assert log["relabel_status"] == relabel.highs.TIME_LIMIT_NO_SOLUTION and log["relabel_mip_gap"] is None
    assert log["relabel_objective"] == _objective(best, rows, leaves, weights, offset, y, g, crit, None)[0]
    labels, log = relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, 0.05, offset=offset, time_limit=0.0,
                                 initial_labels=best, fallback_labels=(worst,))
    assert np.array_equal(labels, best) and log["relabel_labels_from"] == "start"
    with pytest.raises(NoUsableModelError, match="time limit had passed"):
        relabel_leaves(rows, leaves, weights, 5, y, g, crit.rates, 0.05, offset=offset, time_limit=0.0,
                       initial_labels=unfair)


def test_a_forest_whose_descent_used_up_the_time_says_the_joint_mip_was_not_run(monkeypatch):
    from fairspec.models.tree import estimators, forest_relabel
    rng = np.random.default_rng(4)
    n = 400
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + 1.2 * g, rng.normal(size=n)])
    y = ((X[:, 0] + rng.normal(size=n)) > 0.6).astype(int)
    crit = make_criterion("equal_opportunity", 0.01)

    def descent_out_of_time(routes, labels, *a, deadline, **k):
        time.sleep(max(0.0, deadline - time.perf_counter()) + 0.01)
        return labels, {"relabel_descent_meets_bound": False, "relabel_descent_cut_by_clock": True}
    monkeypatch.setattr(forest_relabel, "tree_by_tree_labels", descent_out_of_time)
    model = MissingAwareForestClassifier(n_estimators=4, max_depth=3, random_state=0, time_limit=0.5,
                                         fairness=crit).fit(X, y, sensitive_features=g)
    log = model.fit_log_
    assert log["relabel_status"] == relabel.highs.TIME_LIMIT_NO_SOLUTION and "not run" in log["note"]
    assert log["cut_by_clock"] == ["relabel_descent", "relabel_mip"] and log["reproducible"] is False
    assert crit.gap(y, model.predict(X), g) <= 0.01


def test_an_infeasible_forest_is_named_by_all_its_leaves_not_one_trees():
    # "no labelling of the tree's 6 leaves ... grow a deeper tree" was said of three trees of two leaves
    rng = np.random.default_rng(0)
    n = 300
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + g, rng.normal(size=n)])
    y = ((X[:, 0] + rng.normal(size=n)) > 0.5).astype(int)
    forest = MissingAwareForestClassifier(n_estimators=3, max_depth=1, random_state=0, time_limit=20.0,
                                          fairness=make_criterion("accuracy_parity", 0.0))
    with pytest.raises(NoUsableModelError, match=r"no labelling of the 6 leaves meets .* or grow deeper"):
        forest.fit(X, y, sensitive_features=g)
