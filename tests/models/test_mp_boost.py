"""Fair MP-Boost (fairspec.models.mp_boost): FairTreeFIS and impurity importance on hand-built
trees against hand-computed values, α = 0 against a plain MP-Boost loop written out here, the
out-of-patch score instrumented, the fast router against ``route_rows``, the adversary against
scikit-learn's logistic regression, the threshold against brute force, and the estimator's
promises (seed, JSON, the group never read at prediction, bounds met on the training rows)."""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from fairspec.errors import DataError, ModelFileError
from fairspec.models.mp_boost import FairMPBoostClassifier, build_estimator, estimator_from_json
from fairspec.models.lagrangian import cost_sensitive_rows, extreme_groups, flip_multiplier, multiplier_slopes
from fairspec.models.mp_boost import boosting
from fairspec.models.mp_boost.adversary import fairness_weights, logistic_adversary
from fairspec.models.mp_boost.boosting import (BoostingSettings, RoundRouting, draw_without_replacement,
                                               grow_on_patch, leaf_output)
from fairspec.models.mp_boost.importance import fair_tree_fis, impurity_importance
from fairspec.models.mp_boost.routing import leaf_of_training_rows
from fairspec.models.mp_boost.threshold import choose_threshold
from fairspec.models.tree.grow import TreeStructure
from fairspec.models.tree.split_search import LEFT, MIDDLE, EncodedFeatures
from fairspec.registry.criteria import make_criterion
from fairspec.registry.families import mp_boost_alpha

nan = np.nan


# ------------------------------------------------------------------ hand-built trees
def _split(tree, node, feature, threshold, route=LEFT):
    tree.feature[node], tree.threshold[node], tree.route[node] = feature, threshold, route
    left, right = tree.new_node(tree.depth[node] + 1), tree.new_node(tree.depth[node] + 1)
    tree.left[node], tree.right[node] = left, right
    return left, right


def _stats(tree, X, y, groups):
    """Per-node counts by 2·group + label of every row, through the boosting loop's own routing."""
    enc = EncodedFeatures.encode(X, np.zeros(X.shape[1], bool))
    return RoundRouting(tree, enc, X).node_counts(2 * groups + y, 4, np.empty(0, dtype=np.int64))


#: eight rows: x0, x1, group (0 = A, 1 = B), label
ROWS = np.array([[0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0], [1, 0, 0, 1],
                 [1, 1, 0, 1], [1, 0, 1, 0], [1, 1, 1, 1], [1, 0, 1, 0]], dtype=float)


def _rows():
    return ROWS[:, :2], ROWS[:, 3].astype(int), ROWS[:, 2].astype(int)


def _tree_x0_then_x1():
    """root: x0 < 0.5 (rows 0-2 left, a leaf); right: x1 < 0.5 (rows 3, 5, 7 | rows 4, 6)."""
    t = TreeStructure()
    t.new_node(0)
    _, right = _split(t, 0, 0, 0.5)
    _split(t, right, 1, 0.5)
    return t


def _tree_x1_then_x0():
    """root: x1 < 0.5 (rows 0, 2, 3, 5, 7 left | rows 1, 4, 6); left: x0 < 0.5 (rows 0, 2 | 3, 5, 7)."""
    t = TreeStructure()
    t.new_node(0)
    left, _ = _split(t, 0, 1, 0.5)
    _split(t, left, 0, 0.5)
    return t


def _as_float(fractions):
    return np.array([float(f) for f in fractions])


def test_fair_tree_fis_demographic_parity_by_hand():
    X, y, g = _rows()
    S = _stats(_tree_x0_then_x1(), X, y, g)
    # root split: π_L = 1/3, π_R = 3/5; group A sends 2/4 of its rows each way, B 1/4 left and 3/4 right:
    # r_A = 1/2·1/3 + 1/2·3/5 = 7/15, r_B = 1/4·1/3 + 3/4·3/5 = 8/15, bias 1/15 (the paper's form:
    # DP(pred_LR)·P_R(y=1) + DP(pred_RL)·P_L(y=1) = (1/2 - 3/4)·3/5 + (1/2 - 1/4)·1/3 = -1/15).
    # node 2 (5 of 8 rows): π = 1/3 and 1; A 1/2 each way, B 2/3 and 1/3: r_A = 2/3, r_B = 5/9, bias 1/9.
    # x0: (0 - 1/15)·1 = -1/15; x1: (1/15 - 1/9)·5/8 = -1/36
    raw = fair_tree_fis(_tree_x0_then_x1(), S, 2, 2, normalise=False)
    assert np.allclose(raw, _as_float([Fraction(-1, 15), Fraction(-1, 36)]), atol=1e-12)
    total = Fraction(1, 15) + Fraction(1, 36)
    assert np.allclose(fair_tree_fis(_tree_x0_then_x1(), S, 2, 2),
                       _as_float([Fraction(-1, 15) / total, Fraction(-1, 36) / total]), atol=1e-12)


def test_fair_tree_fis_can_be_positive_where_a_split_removes_bias():
    X, y, g = _rows()
    tree = _tree_x1_then_x0()
    # root split on x1: π = 1/5 and 1; A 2/4 each way, B 3/4 and 1/4: r_A = 6/10, r_B = 4/10, bias 1/5.
    # its left node (5 rows) on x0: π = 0 and 1/3; A 1/2 each way, B 1/3 and 2/3: r_A = 1/6, r_B = 2/9,
    # bias 1/18.  x1: -1/5; x0: (1/5 - 1/18)·5/8 = 13/144
    raw = fair_tree_fis(tree, _stats(tree, X, y, g), 2, 2, normalise=False)
    assert np.allclose(raw, _as_float([Fraction(13, 144), Fraction(-1, 5)]), atol=1e-12)
    normalised = fair_tree_fis(tree, _stats(tree, X, y, g), 2, 2)
    assert np.allclose(normalised, [65 / 209, -144 / 209], atol=1e-12)


def test_fair_tree_fis_equal_opportunity_takes_group_shares_over_positives():
    X, y, g = _rows()
    S = _stats(_tree_x0_then_x1(), X, y, g)
    # positives: A rows 1 (left), 3, 4 (right); B row 6 (right).  Root: r_A = 1/3·1/3 + 2/3·3/5 = 23/45,
    # r_B = 3/5 = 27/45, bias 4/45.  Node 2: A rows 3 | 4: r_A = 2/3; B row 6 right: r_B = 1; bias 1/3.
    # x0: -4/45; x1: (4/45 - 1/3)·5/8 = -11/72
    raw = fair_tree_fis(_tree_x0_then_x1(), S, 2, 2, positives_only=True, normalise=False)
    assert np.allclose(raw, _as_float([Fraction(-4, 45), Fraction(-11, 72)]), atol=1e-12)


def test_fair_tree_fis_counts_a_trinary_middle_child_by_the_rows_missing_the_feature():
    # rows: x0, group, label; x0 missing goes to the middle child
    X = np.array([[0.0], [0.0], [1.0], [1.0], [nan], [nan]])
    g = np.array([0, 1, 0, 0, 1, 1])
    y = np.array([0, 1, 1, 1, 0, 1])
    t = TreeStructure()
    t.new_node(0)
    _split(t, 0, 0, 0.5, route=MIDDLE)
    t.middle[0] = t.new_node(0)
    # π_L = 1/2, π_R = 1, π_M = 1/2; A: 1/3 left, 2/3 right: r_A = 5/6; B: 1/3 left, 2/3 middle: r_B = 1/2
    raw = fair_tree_fis(t, _stats(t, X, y, g), 1, 2, normalise=False)
    assert np.allclose(raw, [-1 / 3], atol=1e-12)


def test_fair_tree_fis_with_three_groups_takes_the_largest_difference():
    X = np.array([[0.0], [1.0], [0.0], [1.0], [0.0], [0.0]])
    g = np.array([0, 0, 1, 1, 2, 2])
    y = np.array([0, 1, 0, 1, 0, 1])
    t = TreeStructure()
    t.new_node(0)
    _split(t, 0, 0, 0.5)
    enc = EncodedFeatures.encode(X, np.zeros(1, bool))
    S = RoundRouting(t, enc, X).node_counts(2 * g + y, 6, np.empty(0, dtype=np.int64))
    # π_L = 1/4 (rows 0, 2, 4, 5), π_R = 1 (rows 1, 3); r_0 = r_1 = 1/2·1/4 + 1/2·1 = 5/8, r_2 = 1/4
    assert np.allclose(fair_tree_fis(t, S, 1, 3, normalise=False), [-(5 / 8 - 1 / 4)], atol=1e-12)


def test_impurity_importance_by_hand():
    X, y, g = _rows()
    tree = _tree_x0_then_x1()
    S = _stats(tree, X, y, g)
    labels = np.column_stack([S[:, 0::2].sum(axis=1), S[:, 1::2].sum(axis=1)])
    # Gini losses W·(1 - Σp²): root 8·1/2 = 4, left 3·4/9 = 4/3, right 5·12/25 = 12/5, then 4/3 and 0:
    # x0 decreases 4 - 4/3 - 12/5 = 4/15, x1 12/5 - 4/3 = 16/15
    assert np.allclose(impurity_importance(tree, labels, 2), [0.2, 0.8], atol=1e-12)


# ------------------------------------------------------------------ data
def _data(n=400, seed=0, missing=0.1, groups=2):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, n)
    X = np.column_stack([rng.normal(size=n) + 0.8 * g, rng.normal(size=n), rng.integers(0, 4, n),
                         rng.normal(size=n)]).astype(float)
    y = ((X[:, 0] + X[:, 1] + 0.5 * (X[:, 2] == 1) + rng.normal(size=n)) > 0.7).astype(int)
    X[rng.random(X.shape) < missing] = nan
    return X, y, g


SMALL = dict(n_rounds=25, max_depth=3, categorical_features=[2], patience=0, burn_in=5)


# ------------------------------------------------------------------ routing
@pytest.mark.parametrize("use_compiled", [False, True])
@pytest.mark.parametrize("missing", ["mia", "trinary", "trinary_mia", "majority", "none"])
def test_the_fast_router_sends_every_training_row_where_route_rows_does(missing, use_compiled):
    """Both routers (numpy's gathers, and the compiled loop where numba is installed)."""
    from fairspec.models.tree import compiled

    if use_compiled and not compiled.available():
        pytest.skip("numba is not installed (the optional extra fast)")
    with compiled.enabled(use_compiled):
        _check_router(missing)


def _check_router(missing):
    X, y, _ = _data(seed=3)
    if missing == "none":
        X = np.nan_to_num(X)
    cat = np.array([False, False, True, False])
    enc = EncodedFeatures.encode(X, cat)
    settings = BoostingSettings(rounds=1, patch_rows=80, patch_features=3, learning_rate=0.2, alpha=0.0,
                                positives_only=False, adversary="logistic", patience=0, burn_in=0, max_depth=4,
                                min_samples_leaf=1, criterion="gini", missing=missing, middle_growth="full")
    rng = np.random.default_rng(0)
    for _ in range(8):
        rows, feats = np.sort(rng.choice(len(y), 80, replace=False)), np.sort(rng.choice(4, 3, replace=False))
        tree = grow_on_patch(X, y, rows, feats, cat, settings)
        fast = leaf_of_training_rows(tree, enc)
        r, leaves, w = tree.route_rows(X)
        assert np.array_equal(np.sort(r), np.arange(len(y))) and np.all(w == 1.0)
        assert np.array_equal(fast[r], leaves)


def test_fractional_trees_fall_back_to_route_rows():
    X, y, _ = _data(seed=4, missing=0.3)
    cat = np.array([False, False, True, False])
    settings = BoostingSettings(rounds=1, patch_rows=150, patch_features=4, learning_rate=0.2, alpha=0.0,
                                positives_only=False, adversary="logistic", patience=0, burn_in=0, max_depth=3,
                                min_samples_leaf=1, criterion="gini", missing="fractional", middle_growth="observed")
    tree = grow_on_patch(X, y, np.arange(150), np.arange(4), cat, settings)
    assert leaf_of_training_rows(tree, EncodedFeatures.encode(X, cat)) is None
    routing = RoundRouting(tree, EncodedFeatures.encode(X, cat), X)
    rows, leaves, w = tree.route_rows(X)
    assert np.allclose(routing.output(), np.bincount(rows, weights=w * leaf_output(tree)[leaves], minlength=len(y)))


# ------------------------------------------------------------------ α = 0 is plain MP-Boost
def _plain_mp_boost(X, y, cat, n_rounds, n, m, mu, depth, seed):
    """MP-Boost as the module docstring states it, written out plainly: rows drawn by the
    exponential loss, features by impurity importance on the rows outside the minipatch, every
    row routed by ``route_rows``; the ensemble's score of every training row and the mean row and
    feature probabilities the rounds drew with."""
    N, M = X.shape
    rng = np.random.default_rng(seed)
    settings = BoostingSettings(rounds=n_rounds, patch_rows=n, patch_features=m, learning_rate=mu, alpha=0.0,
                                positives_only=False, adversary="logistic", patience=0, burn_in=0, max_depth=depth,
                                min_samples_leaf=1, criterion="gini", missing="mia", middle_growth="observed")
    p, q, F = np.full(N, 1 / N), np.full(M, 1 / M), np.zeros(N)
    p_sum, q_sum = np.zeros(N), np.zeros(M)
    for _ in range(n_rounds):
        p_sum, q_sum = p_sum + p, q_sum + q
        rows = draw_without_replacement(rng, p, n)
        feats = draw_without_replacement(rng, q, m)
        tree = grow_on_patch(X, y, rows, feats, cat, settings)
        r, leaves, w = tree.route_rows(X)
        F = F + mu * np.bincount(r, weights=w * (2 * np.asarray(tree.value)[leaves] - 1), minlength=N)
        loss = np.exp(-(2 * y - 1) * F - np.max(-(2 * y - 1) * F))
        p = loss / loss.sum()
        # impurity decrease per feature on the rows outside the minipatch, node by node
        out = np.ones(N, bool)
        out[rows] = False
        reach = {}
        for node in range(tree.n_nodes):
            reach[node] = np.zeros(2)
        for row, leaf, weight in zip(r, leaves, w):
            if out[row]:
                node = leaf
                path = [leaf]
                while node != 0:
                    node = next(i for i in range(tree.n_nodes) if node in (tree.left[i], tree.right[i], tree.middle[i])
                                and tree.feature[i] >= 0)
                    path.append(node)
                for node_on_path in path:
                    reach[node_on_path][y[row]] += weight

        def gini(c):
            return c.sum() * (1 - ((c / c.sum()) ** 2).sum()) if c.sum() else 0.0

        imp = np.zeros(M)
        for i in range(tree.n_nodes):
            if tree.feature[i] >= 0:
                kids = [k for k in (tree.left[i], tree.right[i], tree.middle[i]) if k >= 0]
                imp[tree.feature[i]] += gini(reach[i]) - sum(gini(reach[k]) for k in kids)
        imp = imp / imp.sum() if imp.sum() > 0 else imp
        q = q.copy()
        q[feats] = (1 - mu) * q[feats] + mu * imp[feats]
        q = np.maximum(q, boosting.Q_FLOOR)
        q = q / q.sum()
    return F, p_sum / n_rounds, q_sum / n_rounds


def test_alpha_zero_is_plain_minipatch_boosting():
    X, y, g = _data(n=200, seed=5)
    cat = np.array([False, False, True, False])
    model = FairMPBoostClassifier(n_rounds=12, max_depth=2, patience=0, burn_in=0, categorical_features=[2],
                                  random_state=11, alpha=0.0).fit(X, y, sensitive_features=g)
    F, p_mean, q_mean = _plain_mp_boost(X, y, cat, 12, round(np.sqrt(200)), 2, 0.2, 2, 11)
    assert np.allclose(model.decision_function(X), F, rtol=0, atol=1e-12)
    assert np.allclose(model.row_probabilities_, p_mean, rtol=1e-9, atol=0)
    assert np.allclose(model.feature_probabilities_, q_mean, rtol=1e-9, atol=0)
    assert np.array_equal(model.predict(X), (F > 0).astype(int))
    # the adversary and the groups play no part at α = 0
    for other in (FairMPBoostClassifier(n_rounds=12, max_depth=2, patience=0, burn_in=0, categorical_features=[2],
                                        random_state=11, adversary="group_rates").fit(X, y),
                  FairMPBoostClassifier(n_rounds=12, max_depth=2, patience=0, burn_in=0, categorical_features=[2],
                                        random_state=11, fairness=make_criterion("demographic_parity"))
                  .fit(X, y, sensitive_features=1 - g)):
        assert np.array_equal(other.decision_function(X), model.decision_function(X))


# ------------------------------------------------------------------ out of patch
def test_out_of_patch_scores_never_use_a_tree_that_saw_the_row(monkeypatch):
    X, y, g = _data(n=300, seed=6)
    cat = np.array([False, False, True, False])
    seen = []
    grow = boosting.grow_on_patch

    def recording(X_, y_, rows, feats, cat_, settings):  # the rows each tree is fitted on, as the grower sees them
        tree = grow(X_, y_, rows, feats, cat_, settings)
        seen.append((tree, rows.copy()))
        return tree

    monkeypatch.setattr(boosting, "grow_on_patch", recording)
    settings = BoostingSettings(rounds=30, patch_rows=40, patch_features=2, learning_rate=0.3, alpha=0.5,
                                positives_only=False, adversary="logistic", patience=0, burn_in=0, max_depth=3,
                                min_samples_leaf=1, criterion="gini", missing="mia", middle_growth="observed")
    result = boosting.boost(X, y, cat, g, 2, settings, np.random.default_rng(0))
    assert len(seen) == 30
    expected = np.zeros(len(y))
    for tree, rows in seen:
        r, leaves, w = tree.route_rows(X)
        h = 0.3 * np.bincount(r, weights=w * leaf_output(tree)[leaves], minlength=len(y))
        h[rows] = 0.0
        expected += h
    assert np.allclose(result.oop_score, expected, atol=1e-12)
    # and every tree did score the rows it did not see (the check is not vacuous)
    assert not np.allclose(result.oop_score, 0.0)
    assert np.isclose(result.oop_accuracy[-1], ((expected > 0) == (y == 1)).mean())


# ------------------------------------------------------------------ adversary and sampling
@pytest.mark.parametrize("n_groups", [2, 3])
def test_the_logistic_adversary_is_scikit_learns_logistic_regression(n_groups):
    rng = np.random.default_rng(n_groups)
    z = np.array([-0.9, -0.3, 0.1, 0.4, 0.8])
    counts = rng.integers(5, 60, (len(z), n_groups)).astype(float)
    ours = logistic_adversary(z, counts)
    # the same fit on the rows one by one
    rows_z = np.repeat(np.tile(z, n_groups), counts.T.reshape(-1).astype(int))
    rows_g = np.repeat(np.repeat(np.arange(n_groups), len(z)), counts.T.reshape(-1).astype(int))
    ref = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(rows_z[:, None], rows_g)
    assert np.allclose(ours, ref.predict_proba(z[:, None]), atol=2e-3)


def test_fairness_weights_under_equal_opportunity_give_negatives_the_positives_mean():
    cell = np.array([0, 0, 1, 1, 0, 1])
    groups = np.array([0, 1, 0, 1, 0, 1])
    y = np.array([1, 1, 1, 1, 0, 0])
    w = fairness_weights(cell, np.array([-1.0, 1.0]), groups, 2, y, True, "group_rates")
    # positives: cell 0 holds groups 0, 1 (1/2 each), cell 1 the same: every positive 1/2; negatives 1/2 too
    assert np.allclose(w, np.full(6, 1 / 6))
    w = fairness_weights(cell, np.array([-1.0, 1.0]), groups, 2, y, False, "group_rates")
    # all rows: cell 0 holds groups 0, 1, 0 -> 2/3 and 1/3; cell 1 holds 0, 1, 1 -> 1/3 and 2/3
    own = np.array([2 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3])
    assert np.allclose(w, own / own.sum())


def test_minipatch_draws_follow_the_probabilities_without_replacement():
    rng = np.random.default_rng(0)
    p = np.array([0.5, 0.3, 0.15, 0.05, 0.0])
    first = np.zeros(5)
    for _ in range(4000):
        picked = draw_without_replacement(rng, p, 2)
        assert len(set(picked)) == 2 and 4 not in picked
        first[picked] += 1
    # P(i among two successive draws) = p_i + Σ_j p_j p_i / (1 - p_j)
    exact = np.array([p[i] + sum(p[j] * p[i] / (1 - p[j]) for j in range(5) if j != i) for i in range(5)])
    assert np.allclose(first / 4000, exact, atol=0.03)


# ------------------------------------------------------------------ threshold
def test_the_threshold_is_the_most_accurate_that_meets_the_bound_by_brute_force():
    rng = np.random.default_rng(1)
    for trial in range(20):
        n = 40
        score = np.round(rng.normal(size=n), 1)
        y = (score + rng.normal(size=n) > 0).astype(int)
        g = rng.integers(0, 2 + trial % 2, n)
        positives_only = bool(trial % 3 == 0)
        bound = [0.0, 0.05, 0.2][trial % 3]
        crit = make_criterion("equal_opportunity" if positives_only else "demographic_parity", bound)
        tau, acc, gap = choose_threshold(score, y, g, int(g.max()) + 1, positives_only, bound)
        pred = (score > tau).astype(int)
        assert np.isclose(acc, (pred == y).mean()) and np.isclose(gap, crit.gap(y, pred, g))
        assert crit.meets(gap)
        best = max((pred_acc for t in np.concatenate([[-9], np.unique(score)])
                    for pred_acc in [((score > t).astype(int) == y).mean()]
                    if crit.meets(crit.gap(y, (score > t).astype(int), g))))
        assert np.isclose(acc, best)


# ------------------------------------------------------------------ the estimator
def test_the_same_seed_gives_the_same_model_and_another_seed_another():
    X, y, g = _data(seed=7)
    crit = make_criterion("demographic_parity", penalty=1.0)
    a = FairMPBoostClassifier(fairness=crit, random_state=3, **SMALL).fit(X, y, sensitive_features=g).to_json()
    b = FairMPBoostClassifier(fairness=crit, random_state=3, **SMALL).fit(X, y, sensitive_features=g).to_json()
    c = FairMPBoostClassifier(fairness=crit, random_state=4, **SMALL).fit(X, y, sensitive_features=g).to_json()
    for doc in (a, b, c):
        doc["fit_log"].pop("seconds")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["rounds"] != c["rounds"]


def test_prediction_never_reads_the_group_and_a_json_round_trip_predicts_the_same():
    X, y, g = _data(seed=8)
    model = FairMPBoostClassifier(fairness=make_criterion("equal_opportunity", penalty=4.0), **SMALL)
    model.fit(X, y, sensitive_features=np.where(g == 1, "b", "a"))
    assert model.alpha_ == pytest.approx(0.8) and model.n_features_in_ == X.shape[1]
    loaded = estimator_from_json(json.loads(json.dumps(model.to_json())))
    X_new, _, _ = _data(n=120, seed=9, missing=0.3)
    X_new[0, 2] = 17.0  # a category no training row had: routed as a missing value
    for est in (model, loaded):
        assert est.predict(X_new).shape == (120,)
    assert np.array_equal(loaded.decision_function(X_new), model.decision_function(X_new))
    assert np.array_equal(loaded.predict_proba(X_new), model.predict_proba(X_new))
    assert loaded.describe() == model.describe()
    assert np.array_equal(loaded.feature_importances_, model.feature_importances_)


@pytest.mark.parametrize("name", ["demographic_parity", "equal_opportunity"])
def test_a_bound_is_met_on_the_training_rows(name):
    X, y, g = _data(seed=10, groups=3)
    crit = make_criterion(name, 0.02)
    model = FairMPBoostClassifier(fairness=crit, bound_alphas=(0.0, 0.8), **SMALL).fit(X, y, sensitive_features=g)
    gap = crit.gap(y, model.predict(X), g)
    assert crit.meets(gap) and model.fit_log_["bound_met_on_train"] is True
    assert model.fit_log_["train_gap"] == pytest.approx(gap)
    search = model.fit_log_["bound_search"]
    # the two α at λ = 0, then the multipliers at the smallest α, each a share of λ₀
    shares = model.multiplier_shares
    assert [s["alpha"] for s in search] == [0.0, 0.8] + [0.0] * len(shares)
    lam0 = search[2]["multiplier"] / shares[0]
    assert [s["multiplier"] for s in search] == pytest.approx([0.0, 0.0] + [f * lam0 for f in shares])
    assert model.alpha_ in (0.0, 0.8) and model.multiplier_ in [s["multiplier"] for s in search]
    assert all(s["train_gap"] <= 0.02 + 1e-9 for s in search)
    assert max(s["train_accuracy"] for s in search) == pytest.approx((model.predict(X) == y).mean())
    doc = json.loads(json.dumps(model.to_json()))
    loaded = estimator_from_json(doc)
    assert loaded.multiplier_ == model.multiplier_ and np.array_equal(loaded.predict(X), model.predict(X))
    del doc["multiplier"]  # a file written before the multiplier: fitted without one
    assert estimator_from_json(doc).multiplier_ == 0.0


# ------------------------------------------------------------------ the Lagrangian's rows
# (the rows themselves: tests/models/test_lagrangian.py)


def test_multiplier_zero_rows_are_plain_boosting():
    """ŷ = y and w = 1 (λ = 0) give the model of no cost-sensitive rows, bit for bit."""
    X, y, g = _data(n=200, seed=7)
    cat = np.array([False, False, True, False])
    settings = BoostingSettings(rounds=10, patch_rows=40, patch_features=2, learning_rate=0.2, alpha=0.5,
                                positives_only=False, adversary="logistic", patience=0, burn_in=2, max_depth=2,
                                min_samples_leaf=1, criterion="gini", missing="mia", middle_growth="observed")
    plain = boosting.boost(X, y, cat, g, 2, settings, np.random.default_rng(3))
    labels, weights = cost_sensitive_rows(y, multiplier_slopes(y, g, 2, [("selection_rate", 1, 0)]), 0.0)
    same = boosting.boost(X, y, cat, g, 2, settings, np.random.default_rng(3), fit_labels=labels,
                          row_weights=weights)
    assert np.array_equal(plain.score, same.score)
    assert np.array_equal(plain.feature_probabilities, same.feature_probabilities)


def test_a_multiplier_narrows_the_training_gap_at_threshold_zero():
    """The cost-sensitive targets move the model itself, before any threshold: its training
    demographic-parity gap at τ = 0 falls as λ grows towards λ₀."""
    X, y, g = _data(n=600, seed=8)
    cat = np.array([False, False, True, False])
    settings = BoostingSettings(rounds=30, patch_rows=150, patch_features=3, learning_rate=0.2, alpha=0.0,
                                positives_only=False, adversary="logistic", patience=0, burn_in=2, max_depth=2,
                                min_samples_leaf=1, criterion="gini", missing="mia", middle_growth="observed")
    plain = boosting.boost(X, y, cat, g, 2, settings, np.random.default_rng(1))
    high, low = extreme_groups(plain.score > 0, y, g, 2, "selection_rate")
    slopes = multiplier_slopes(y, g, 2, [("selection_rate", high, low)])
    labels, weights = cost_sensitive_rows(y, slopes, 0.875 * flip_multiplier(y, slopes))
    fair = boosting.boost(X, y, cat, g, 2, settings, np.random.default_rng(1), fit_labels=labels,
                          row_weights=weights)
    gap = boosting.group_gap
    assert gap(fair.score > 0, g, 2) < gap(plain.score > 0, g, 2) - 0.05  # measured: 0.121 against 0.197


def test_predict_proba_agrees_with_predict_and_ranks_by_the_score():
    X, y, g = _data(seed=12)
    model = FairMPBoostClassifier(**SMALL).fit(X, y)
    # the fit's own training score (summed as the rounds ran) is what prediction computes again
    assert model.fit_log_["train_accuracy"] == (model.predict(X) == y).mean()
    proba = model.predict_proba(X)[:, 1]
    assert np.array_equal(model.predict(X), (proba > 0.5).astype(int))
    d = model.decision_function(X)
    assert np.all(np.diff(proba[np.argsort(d)]) >= 0)


def test_a_penalty_maps_to_alpha_and_the_averages_are_distributions():
    X, y, g = _data(seed=13)
    model = FairMPBoostClassifier(fairness=make_criterion("demographic_parity", penalty=9.0), **SMALL)
    model.fit(X, y, sensitive_features=g)
    assert model.alpha_ == pytest.approx(0.9) == mp_boost_alpha(9.0)
    assert model.fit_log_["alpha_from"] == "penalty"
    assert model.feature_probabilities_.sum() == pytest.approx(1.0)
    assert model.row_probabilities_.sum() == pytest.approx(1.0) and len(model.row_probabilities_) == len(y)
    summary = model.fit_log_["row_probability_summary"]
    assert sum(s["share_of_draws"] for s in summary) == pytest.approx(1.0)
    assert sum(s["rows"] for s in summary) == len(y)


def test_early_stopping_keeps_the_latest_round_within_one_standard_error_of_the_best():
    X, y, g = _data(n=600, seed=14)
    model = FairMPBoostClassifier(n_rounds=120, patience=15, categorical_features=[2], max_depth=2).fit(X, y)
    log = model.fit_log_
    acc = model.out_of_patch_accuracy_
    assert log["rounds_run"] == len(acc) <= 120
    best = int(np.argmax(acc))  # the first best, as the fit counts improvements
    assert log["best_round"] == best + 1
    if log["stopped_by"] == "patience":
        assert log["rounds_run"] == best + 1 + 15
    band = acc[best] - np.sqrt(acc[best] * (1 - acc[best]) / len(y))
    assert log["rounds_kept"] == max(i for i in range(len(acc)) if acc[i] >= band) + 1 == len(model.trees_)


def test_refused_settings():
    X, y, g = _data(seed=15)
    with pytest.raises(ValueError, match="enforces demographic_parity and equal_opportunity"):
        FairMPBoostClassifier(fairness=make_criterion("accuracy_parity", 0.1)).fit(X, y, sensitive_features=g)
    with pytest.raises(ValueError, match="alpha or a penalty, not both"):
        FairMPBoostClassifier(alpha=0.5, fairness=make_criterion("demographic_parity", penalty=1.0)).fit(
            X, y, sensitive_features=g)
    with pytest.raises(DataError, match="needs sensitive_features"):
        FairMPBoostClassifier(alpha=0.5).fit(X, y)
    with pytest.raises(ValueError, match="patch_rows"):
        FairMPBoostClassifier(patch_rows=0).fit(X, y)
    with pytest.raises(ValueError, match="adversary"):
        FairMPBoostClassifier(adversary="tree").fit(X, y)


def test_a_damaged_model_file_is_refused_with_a_reason():
    X, y, g = _data(seed=16)
    doc = FairMPBoostClassifier(**SMALL).fit(X, y).to_json()
    for damage, message in [(lambda d: d.update(threshold="x"), "threshold"),
                            (lambda d: d.update(rounds=[]), "rounds"),
                            (lambda d: d["rounds"][0]["nodes"][0].update(feature=99), "tree 0"),
                            (lambda d: d.update(learning_rate=0.5), "learning_rate"),
                            (lambda d: d.update(feature_probabilities=[0.5]), "feature_probabilities"),
                            (lambda d: d.pop("alpha"), "alpha")]:
        broken = json.loads(json.dumps(doc))
        damage(broken)
        with pytest.raises(ModelFileError, match=message):
            estimator_from_json(broken)


def test_build_estimator_reads_the_recipe():
    from fairspec.plan.plan import ModelRecipe, SolverSettings

    recipe = ModelRecipe("mp_boost", {"rounds": 30, "depth": 2, "patch_rows": 0, "patch_features": 5,
                                      "learning_rate": 0.1, "patience": 0, "burn_in": 3, "adversary": "group_rates",
                                      "criterion": "entropy", "min_samples_leaf": 2, "missing": "impute"})
    est = build_estimator(recipe, make_criterion("demographic_parity", 0.1), SolverSettings(),
                          categorical_features=[1], seed=4)
    assert (est.n_rounds, est.max_depth, est.patch_rows, est.patch_features, est.learning_rate) == (30, 2, None, 5, 0.1)
    assert (est.missing, est.adversary, est.criterion, est.random_state) == ("none", "group_rates", "entropy", 4)
    assert est.fairness.bound == 0.1 and est.categorical_features == (1,)


def test_describe_names_features_categories_and_the_rule():
    X, y, g = _data(seed=17)
    model = FairMPBoostClassifier(**SMALL).fit(X, y)
    text = model.describe(["age", "score", "colour", "noise"], {2: ["red", "green", "blue", "grey"]},
                          class_names=["no", "yes"])
    assert text[0].startswith("Fair MP-Boost: 25 trees, learning rate 0.2, alpha 0")
    assert any(line.startswith("predicts yes when score(x) > 0 ") for line in text)
    assert sum(1 for line in text if line.startswith("tree ")) == 3
    assert any("colour in {" in line for line in text) or all("colour" not in line for line in text[8:])
    importance = [line for line in text if line.startswith("  ") and ": 0." in line][:4]
    assert len(importance) == 4
