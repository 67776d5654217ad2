"""privileged_boost (KbPIB / JPIB): the derivations against finite differences, plain boosting at
alpha 0, the privileged columns unused at prediction, the fairness threshold against a brute
force, and the model file."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fairspec.errors import DataError, ModelFileError, NoUsableModelError
from fairspec.models.privileged_boost import PrivilegedBoostClassifier, estimator_from_json
from fairspec.models.privileged_boost.boosting import validation_rows
from fairspec.models.privileged_boost.objective import (SoftGap, distillation_gradient, distillation_loss,
                                                        kl_bernoulli, log_loss, sigmoid)
from fairspec.models.privileged_boost.threshold import choose_threshold
from fairspec.registry.criteria import CRITERIA, make_criterion

EPS = 1e-6


def _data(n=1200, seed=0):
    """Usable features that see the label through noise, and a privileged column (the group,
    which shifts the label) that the usable features see only through a proxy."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n) + 0.8 * group, rng.integers(0, 4, n)])
    X[rng.random(n) < 0.1, 0] = np.nan
    score = 1.2 * np.nan_to_num(X[:, 0]) + 0.8 * group - 0.4 * (X[:, 2] == 1) - 0.3
    y = (rng.random(n) < sigmoid(score)).astype(int)
    return X, y, group


# ---------------------------------------------------------------- derivations

@pytest.mark.parametrize("alpha", [0.0, 0.5, 3.0])
def test_the_distillation_gradient_and_hessian_are_the_derivatives_of_the_loss(alpha):
    rng = np.random.default_rng(1)
    z, q, y = rng.normal(size=50) * 3, rng.uniform(0.01, 0.99, 50), rng.integers(0, 2, 50).astype(float)
    g, h = distillation_gradient(y, z, q, alpha)
    numeric_g = (distillation_loss(y, z + EPS, q, alpha) - distillation_loss(y, z - EPS, q, alpha)) / (2 * EPS)
    numeric_h = (distillation_gradient(y, z + EPS, q, alpha)[0]
                 - distillation_gradient(y, z - EPS, q, alpha)[0]) / (2 * EPS)
    assert np.allclose(g, numeric_g, atol=1e-6)
    assert np.allclose(h, numeric_h, atol=1e-6)
    p = sigmoid(z)
    assert np.allclose(-g, (y - p) + alpha * (q - p))  # the paper's functional gradient step
    # the KL term is a divergence: 0 where the two models agree, positive elsewhere
    assert np.allclose(kl_bernoulli(p, z), 0.0, atol=1e-12) and (kl_bernoulli(q, z) >= -1e-15).all()


def test_jpib_updates_the_privileged_model_by_the_same_loss_with_the_roles_swapped():
    rng = np.random.default_rng(2)
    zq, p, y, alpha = rng.normal(size=40), rng.uniform(0.05, 0.95, 40), rng.integers(0, 2, 40).astype(float), 0.7

    def loss(zq):  # NLL(y, q) + alpha * KL(P_p || P_q), p fixed
        return log_loss(y, zq) + alpha * kl_bernoulli(p, zq)

    g, _ = distillation_gradient(y, zq, p, alpha)
    assert np.allclose(g, (loss(zq + EPS) - loss(zq - EPS)) / (2 * EPS), atol=1e-6)


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_the_soft_gap_gradient_is_its_derivative(name):
    rng = np.random.default_rng(3)
    n = 60
    y = rng.integers(0, 2, n).astype(float)
    groups = rng.choice(["a", "b", "c"], n)
    z = rng.normal(size=n)
    gap = SoftGap(make_criterion(name, penalty=1.0), y, groups)
    grad = gap.gradient(z)
    numeric = np.array([(gap.value(z + EPS * e) - gap.value(z - EPS * e)) / (2 * EPS) for e in np.eye(n)])
    assert np.allclose(grad, numeric, atol=1e-6)
    if name == "equal_opportunity":  # positives only
        assert (grad[y == 0] == 0).all() and (grad[y == 1] != 0).any()
    if name == "fpr_parity":
        assert (grad[y == 1] == 0).all()


def test_a_penalty_narrows_the_gap_it_descends():
    X, y, group = _data(seed=4)
    crit = make_criterion("demographic_parity", penalty=0.5)
    plain = PrivilegedBoostClassifier(n_rounds=60, validation_share=0.0).fit(X, y)
    fair = PrivilegedBoostClassifier(n_rounds=60, validation_share=0.0, fairness=crit).fit(X, y, group)
    soft = SoftGap(crit, y, group)
    assert soft.value(fair.decision_function(X)) < 0.1 * soft.value(plain.decision_function(X))
    assert fair.fit_log_["train_gap"] < crit.gap(y, plain.predict(X), group)


def test_a_large_penalty_does_not_make_the_steps_overshoot():
    # with the loss's Hessian alone a Newton step of lambda * n / n_g per round swapped the
    # groups' order each round and the soft gap grew; the line search keeps J going down
    X, y, group = _data(seed=4)
    crit = make_criterion("demographic_parity", penalty=5.0)
    soft = SoftGap(crit, y, group)
    history = []
    for rounds in (10, 20, 40):
        model = PrivilegedBoostClassifier(n_rounds=rounds, validation_share=0.0, fairness=crit).fit(X, y, group)
        z = model.decision_function(X)
        history.append(log_loss(y, z).mean() + 5.0 * soft.value(z))
    assert history[0] > history[1] > history[2]


# ---------------------------------------------------------------- plain boosting and the privileged columns

@pytest.mark.parametrize("variant", ["kbpib", "jpib"])
def test_alpha_zero_is_plain_boosting(variant):
    X, y, group = _data()
    plain = PrivilegedBoostClassifier(variant=variant, alpha=0.0, n_rounds=40, random_state=5).fit(X, y)
    guided_off = PrivilegedBoostClassifier(variant=variant, alpha=0.0, n_rounds=40, random_state=5).fit(
        X, y, privileged=group)
    assert np.array_equal(plain.predict_proba(X), guided_off.predict_proba(X))
    assert plain.to_json()["ensemble"] == guided_off.to_json()["ensemble"]
    assert guided_off.fit_log_["privileged_model_used"] is False
    guided = PrivilegedBoostClassifier(variant=variant, alpha=2.0, n_rounds=40, random_state=5).fit(
        X, y, privileged=group)
    assert guided.fit_log_["privileged_model_used"] is True
    assert not np.array_equal(plain.predict_proba(X), guided.predict_proba(X))  # the column is read in training


def test_the_privileged_model_pulls_the_usable_one_towards_it():
    # a privileged column of noise: the teacher's probabilities are about the base rate, so the
    # larger alpha, the more the student's are drawn towards it (a calibrated teacher of real
    # information would leave E[target | x] where it was, and the pull would not show)
    X, y, _ = _data(seed=6)
    noise = np.random.default_rng(0).normal(size=len(y))
    spread = []
    for alpha in (0.0, 1.0, 4.0):
        student = PrivilegedBoostClassifier(alpha=alpha, n_rounds=60, validation_share=0.0,
                                            teacher_reads_features=False).fit(X, y, privileged=noise)
        spread.append(student.decision_function(X).std())
    assert spread[0] > spread[1] > spread[2]


@pytest.mark.parametrize("variant", ["kbpib", "jpib"])
def test_the_privileged_columns_are_not_read_at_prediction(variant):
    X, y, group = _data(seed=7)
    model = PrivilegedBoostClassifier(variant=variant, alpha=1.0, n_rounds=30).fit(
        X, y, privileged=np.column_stack([group, group * 2.0]))
    assert model.n_features_in_ == X.shape[1]
    assert all(int(t.feature.max()) < X.shape[1] for t in model.trees_)  # no split on a privileged column
    with pytest.raises(DataError):  # a matrix with the privileged columns appended is refused, not read
        model.predict(np.column_stack([X, group]))
    doc = json.dumps(model.to_json())
    reloaded = estimator_from_json(json.loads(doc))
    assert np.array_equal(reloaded.predict_proba(X), model.predict_proba(X))


def test_privileged_is_a_per_row_argument_a_caller_slices():
    X, y, group = _data(seed=8)
    rows = np.arange(0, len(y), 2)
    a = PrivilegedBoostClassifier(n_rounds=20).fit(X[rows], y[rows], privileged=group[rows])
    b = PrivilegedBoostClassifier(n_rounds=20).fit(X[rows], y[rows], privileged=group[rows].reshape(-1, 1))
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(DataError, match="one row per row of X"):
        PrivilegedBoostClassifier(n_rounds=5).fit(X[rows], y[rows], privileged=group)
    with pytest.raises(DataError, match="infinite"):
        PrivilegedBoostClassifier(n_rounds=5).fit(X, y, privileged=np.where(group == 1, np.inf, 0.0))


def test_early_stopping_keeps_the_best_prefix_and_the_held_out_rows_train_nothing():
    X, y, _ = _data(n=800, seed=9)
    settings = dict(learning_rate=0.3, max_depth=4, min_samples_leaf=2, random_state=3)
    model = PrivilegedBoostClassifier(n_rounds=400, patience=5, **settings).fit(X, y)
    log = model.fit_log_
    assert log["stopped_early"] and log["trees"] > 2 and log["rounds_grown"] == log["trees"] + 5
    held = validation_rows(y, 0.2, 3)
    assert log["validation_rows"] == held.sum() and log["fit_rows"] == (~held).sum()
    # the held-out rows' features change nothing but where the boosting stops: the trees grown
    # are the same, one for one
    moved = X.copy()
    moved[held] = np.random.default_rng(0).normal(size=(held.sum(), 3)).round()
    again = PrivilegedBoostClassifier(n_rounds=400, patience=5, **settings).fit(moved, y)
    assert again.fit_log_["trees"] != log["trees"]
    kept = min(len(again.trees_), len(model.trees_))
    assert [t.to_json() for t in again.trees_[:kept]] == [t.to_json() for t in model.trees_[:kept]]


def test_validation_rows_keep_each_class_and_follow_the_seed():
    y = np.r_[np.zeros(90, int), np.ones(10, int)]
    held = validation_rows(y, 0.2, 0)
    assert held[y == 0].sum() == 18 and held[y == 1].sum() == 2
    assert np.array_equal(held, validation_rows(y, 0.2, 0)) and not np.array_equal(held, validation_rows(y, 0.2, 1))
    assert not validation_rows(np.r_[np.zeros(5, int), 1], 0.5, 0)[-1]  # a class of one row keeps it for training


# ---------------------------------------------------------------- the bound by a threshold

def _brute_force_threshold(p, y, groups, crit):
    best = None
    for t in np.r_[1.0, np.unique(p), 0.0]:
        pred = (p > t).astype(int)
        gap = crit.gap(y, pred, groups)
        if gap is None or gap <= crit.bound + 1e-9:
            acc = (pred == y).mean()
            if best is None or acc > best[0] + 1e-12:
                best = (acc, t)
    return best


@pytest.mark.parametrize("name", ["demographic_parity", "equal_opportunity", "fpr_parity", "equalized_odds"])
@pytest.mark.parametrize("seed", range(4))
def test_the_threshold_is_the_most_accurate_that_meets_the_bound(name, seed):
    rng = np.random.default_rng(seed)
    n = 80
    groups = rng.choice(["a", "b"], n)
    y = (rng.random(n) < np.where(groups == "a", 0.6, 0.3)).astype(int)
    p = np.clip(0.5 * y + 0.4 * (groups == "a") + 0.3 * rng.random(n), 0.01, 0.99).round(2)
    crit = make_criterion(name, 0.05)
    t, log = choose_threshold(p, y, groups, crit)
    pred = (p > t).astype(int)
    assert crit.allows(crit.gap(y, pred, groups))
    if log["threshold_chosen_for_bound"]:
        acc, _ = _brute_force_threshold(p, y, groups, crit)
        assert (pred == y).mean() == pytest.approx(acc)
    else:
        assert t == 0.5


def test_a_bound_is_met_on_the_training_rows_and_logged():
    X, y, group = _data(seed=10)
    crit = make_criterion("equal_opportunity", 0.02)
    model = PrivilegedBoostClassifier(n_rounds=40, fairness=crit).fit(X, y, group, privileged=group)
    gap = crit.gap(y, model.predict(X), group)
    assert crit.meets(gap) and model.fit_log_["train_gap"] == pytest.approx(gap)
    assert model.fit_log_["threshold_chosen_for_bound"] and model.threshold_ != 0.5
    assert model.fit_log_["threshold_gap_at_half"] > 0.02
    with pytest.raises(DataError, match="sensitive_features"):
        PrivilegedBoostClassifier(n_rounds=5, fairness=crit).fit(X, y)


def test_an_accuracy_parity_bound_no_threshold_meets_is_refused():
    n = 200
    groups = np.repeat(["a", "b"], n // 2)
    y = np.r_[np.ones(90, int), np.zeros(10, int), np.ones(10, int), np.zeros(90, int)]
    X = np.zeros((n, 1))  # one score for every row: its only two predictions are all-0 and all-1
    crit = make_criterion("accuracy_parity", 0.1)
    with pytest.raises(NoUsableModelError, match="no decision threshold meets accuracy_parity <= 0.1"):
        PrivilegedBoostClassifier(n_rounds=3, validation_share=0.0, fairness=crit).fit(X, y, groups)


# ---------------------------------------------------------------- model file, determinism, text

def test_the_model_file_round_trips_and_a_damaged_one_is_refused():
    X, y, group = _data(seed=11)
    model = PrivilegedBoostClassifier(variant="jpib", n_rounds=25, categorical_features=[2],
                                      fairness=make_criterion("demographic_parity", 0.05)).fit(
        X, y, group, privileged=group)
    doc = json.loads(json.dumps(model.to_json()))
    again = estimator_from_json(doc)
    assert np.array_equal(again.predict(X), model.predict(X))
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))
    assert again.describe() == model.describe()
    assert "trees" not in doc  # the report reads a top-level "trees" as a forest's voting trees
    with pytest.raises(ModelFileError, match="threshold"):
        estimator_from_json(dict(doc, threshold=1.5))
    with pytest.raises(ModelFileError, match="tree 1"):
        estimator_from_json(dict(doc, ensemble=[dict(doc["ensemble"][0], feature=[9])] + doc["ensemble"][1:]))
    with pytest.raises(ModelFileError, match="kind"):
        estimator_from_json(dict(doc, kind="missing_aware_tree_classifier"))


def test_same_data_and_seed_give_the_same_model():
    X, y, group = _data(seed=12)
    a = PrivilegedBoostClassifier(n_rounds=30, random_state=4).fit(X, y, privileged=group).to_json()
    b = PrivilegedBoostClassifier(n_rounds=30, random_state=4).fit(X, y, privileged=group).to_json()
    for doc in (a, b):
        doc["fit_log"].pop("seconds")
    assert a == b


def test_the_text_names_categories_and_says_where_missing_values_go():
    X, y, _ = _data(seed=13)
    model = PrivilegedBoostClassifier(n_rounds=3, categorical_features=[2], validation_share=0.0).fit(X, y)
    lines = model.describe(["x", "z", "color"], {2: ["red", "green", "blue", "black"]}, class_names=["no", "yes"])
    assert lines[0].startswith(f"score = {model.base_score_!r}"[:12]) and "predicts yes when p > 0.5" in lines[0]
    assert sum(line.startswith("tree ") for line in lines) == 3
    assert any("(or missing" in line for line in lines)
    assert not any("leaf: " in line for line in lines)  # the report's reading notes are for class leaves
