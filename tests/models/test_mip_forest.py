"""The mip_forest family (fairspec.models.mip_forest): its MIP against brute force over every
tree on tiny data, its warm start, its bounds, the emitted LP/MPS, determinism and batches."""
from __future__ import annotations

import itertools
import json
import math

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest

from fairspec.errors import DataError
from fairspec.metrics import evaluate_predictions
from fairspec.models import mip_forest
from fairspec.models.mip_forest.candidates import candidate_splits, split_matrix
from fairspec.models.mip_forest.dynamic_programme import HeuristicResult, integer_costs, lagrangian_trees, optimal_tree
from fairspec.models.mip_forest.estimator import FairMIPForestClassifier, stratified_batch
from fairspec.models.mip_forest.formulation import build_tree_mip, set_start, tree_of
from fairspec.models.mip_forest.local_search import improve
from fairspec.models.mip_forest.structure import HeapTree
from fairspec.models.mip_forest.tree_fit import TreeTask, fit_tree, heuristics, tree_problem
from fairspec.registry.criteria import CRITERIA, make_criterion
from fairspec.solvers import highs

#: (form, rates, λ, ε) of the tiny problems: none, penalties on one and two rates, bounds
FORMS = [("none", (), 0.0, 0.0), ("penalty", ("tpr",), 0.7, 0.0), ("penalty", ("selection_rate",), 2.0, 0.0),
         ("penalty", ("tpr", "fpr"), 1.0, 0.0), ("bound", ("tpr",), 0.0, 0.1), ("bound", ("accuracy",), 0.0, 0.15),
         ("bound", ("tpr", "fpr"), 0.0, 0.2)]


def tiny(seed: int, n: int = 16, n_groups: int = 2):
    """Two features, one numeric with missing values, one categorical; labels tied to both."""
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 6, n).astype(float)
    x0[rng.random(n) < 0.25] = np.nan
    x1 = rng.integers(0, 3, n).astype(float)
    X = np.column_stack([x0, x1])
    y = ((np.nan_to_num(x0, nan=5) > 2) ^ (x1 == 1) ^ (rng.random(n) < 0.2)).astype(int)
    g = rng.integers(0, n_groups, n)
    y[:2], g[:2] = (0, 1), (0, 0)  # every group gets both labels: every rate is defined
    y[2:4], g[2:4] = (0, 1), (n_groups - 1, n_groups - 1)
    return X, y, g


def tiny_problem(seed: int, form, rates, lam, eps, n_groups=2, depth=2):
    X, y, g = tiny(seed, n_groups=n_groups)
    matrix = split_matrix(candidate_splits(X, [1], 3, "mia"), X)
    task = TreeTask(0, np.arange(len(y)), matrix, y, g, n_groups, rates, form, lam, eps, depth, 0.0, 0, 10 ** 6,
                    math.inf)
    return task, tree_problem(task)


#: the criterion whose rates a tiny problem compares
CRITERION_OF_RATES = {c.rates: c for c in CRITERIA.values()}


def brute_force(task, problem, depth: int) -> float:
    """The least objective over every tree of ``depth`` (every candidate at every node, every
    labelling) that meets the bound, each tree scored on the raw rows with the criteria's own
    ``gap`` (not the route classes the MIP works on)."""
    matrix = task.matrix[:, problem.keep]
    criterion = CRITERION_OF_RATES[task.rates]() if task.rates else None
    n_branch = 2 ** depth - 1
    best = math.inf
    for splits in itertools.product(range(matrix.shape[1]), repeat=n_branch):
        leaf = HeapTree(np.array(splits), np.zeros(n_branch + 1, dtype=int)).leaf_of(matrix)
        for labels in itertools.product((0, 1), repeat=n_branch + 1):
            yhat = np.asarray(labels)[leaf]
            gap = 0.0 if criterion is None else criterion.gap(task.y, yhat, task.groups)
            if task.form == "bound" and gap > task.eps + 1e-12:
                continue
            best = min(best, float((yhat != task.y).mean()) + (task.lam * gap if task.form == "penalty" else 0.0))
    return best


@pytest.mark.parametrize("form, rates, lam, eps", FORMS)
def test_the_mip_optimum_is_the_best_tree_by_brute_force(form, rates, lam, eps):
    for seed in (0, 1):
        task, problem = tiny_problem(seed, form, rates, lam, eps)
        assert problem.left.shape[1] >= 4  # candidates enough for the search to mean something
        expected = brute_force(task, problem, 2)
        model = build_tree_mip(problem.left, problem.objective, 2)
        result = highs.solve(model, time_limit=60.0, mip_gap=0.0)
        assert result.status == highs.OPTIMAL
        assert result.objective == pytest.approx(expected, abs=1e-7)
        # the solution loaded is a tree, and it scores what HiGHS says it scores
        value = problem.objective.value(tree_of(model).predict(problem.left))
        assert value.meets_bound and value.objective == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("form, rates, lam, eps", FORMS)
def test_a_fitted_tree_reaches_the_brute_force_optimum_and_its_bounds_hold(form, rates, lam, eps):
    for seed in (2,):
        task, problem = tiny_problem(seed, form, rates, lam, eps)
        expected = brute_force(task, problem, 2)
        fitted = fit_tree(task)
        log = fitted.tree_log
        assert log["status"] == highs.OPTIMAL and log["mip_gap"] <= 1e-5  # HiGHS: 1e-6 absolute gap
        assert log["objective"] == pytest.approx(expected, abs=1e-7)
        # the Lagrangian dual bound and HiGHS's bound are lower bounds, never above the optimum
        assert log["dual_bound"] <= expected + 1e-9 and log["bound"] <= expected + 1e-9
        if form == "none":  # the DP is exact for the loss alone: no MIP needed
            assert log["mip_status"] == "not_run" and log["dual_bound"] == pytest.approx(expected)


def test_three_groups_take_the_largest_pairwise_gap():
    task, problem = tiny_problem(4, "penalty", ("tpr",), 1.5, 0.0, n_groups=3)
    assert len(problem.objective.compared["tpr"]) == 3
    model = build_tree_mip(problem.left, problem.objective, 2)
    assert highs.solve(model, time_limit=60.0, mip_gap=0.0).objective == pytest.approx(
        brute_force(task, problem, 2), abs=1e-7)


def test_the_dynamic_programme_is_exact_for_any_linear_costs():
    rng = np.random.default_rng(5)
    for depth in (1, 2, 3):
        left = rng.random((9, 3)) < 0.5
        c0, c1 = rng.integers(0, 6, 9).astype(float), rng.integers(-4, 6, 9).astype(float)
        cost, tree = optimal_tree(left, c0, c1, depth)
        best = math.inf
        for splits in itertools.product(range(3), repeat=2 ** depth - 1):
            leaf = HeapTree(np.array(splits), np.zeros(2 ** depth, dtype=int)).leaf_of(left)
            best = min(best, sum(min(c0[leaf == l].sum(), c1[leaf == l].sum()) for l in range(2 ** depth)))
        leaf = tree.leaf_of(left)
        assert cost == best == sum((c1 if tree.labels[l] else c0)[leaf == l].sum() for l in range(2 ** depth))


def test_integer_costs_are_whole_numbers_and_the_rounding_is_bounded():
    _, problem = tiny_problem(0, "penalty", ("tpr",), 0.7, 0.0)
    term_a, term_b = problem.objective.compared["tpr"]
    mu = {("tpr", term_a.group): 0.3141, ("tpr", term_b.group): -0.3141}
    c0, c1, unit, slack = integer_costs(problem.objective, mu)
    assert np.array_equal(c0, np.round(c0)) and np.array_equal(c1, np.round(c1))
    exact = (problem.objective.negatives + 0.3141 * (term_a.a / term_a.den - term_b.a / term_b.den)
             * problem.objective.n) / problem.objective.n
    assert np.abs(c1 * unit - exact).max() <= slack


def test_the_warm_start_is_feasible_and_the_tree_is_never_worse():
    task, problem = tiny_problem(1, "bound", ("tpr",), 0.0, 0.1)
    found, _ = heuristics(problem, 2)
    name, tree, value = found.best(problem.objective)
    model = build_tree_mip(problem.left, problem.objective, 2, lower_bound=found.bound)
    set_start(model, problem.left, problem.objective, tree)
    for con in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(con.body)
        assert con.lower is None or body >= pyo.value(con.lower) - 1e-9, con.name
        assert con.upper is None or body <= pyo.value(con.upper) + 1e-9, con.name
    assert pyo.value(model.objective) == pytest.approx(value.objective)
    # one HiGHS checkpoint: the tree returned is the start or better
    fitted = fit_tree(TreeTask(**{**task.__dict__, "max_checkpoints": 1}))
    assert fitted.tree_log["objective"] <= value.objective + 1e-12
    assert fitted.tree_log["start_objective"] == pytest.approx(value.objective)


def test_the_local_search_never_leaves_a_worse_tree():
    for seed in range(4):
        _, problem = tiny_problem(seed, "penalty", ("tpr",), 0.7, 0.0)
        found = HeuristicResult()
        lagrangian_trees(problem.left, problem.objective, 2, found)
        for _, tree, value in found.trees:
            better, _ = improve(problem.left, problem.objective, tree)
            assert problem.objective.value(better.predict(problem.left)).objective <= value.objective + 1e-12


def _compas_like(n=240, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.choice(["A", "B"], n, p=[0.6, 0.4])
    age = rng.integers(18, 70, n).astype(float)
    priors = rng.poisson(np.where(g == "A", 3.0, 1.5)).astype(float)
    sex = rng.integers(0, 2, n).astype(float)
    priors[rng.random(n) < np.where(g == "A", 0.4, 0.1)] = np.nan  # group-dependent missingness
    sex[rng.random(n) < np.where(g == "A", 0.6, 0.2)] = np.nan
    score = 0.08 * np.nan_to_num(priors, nan=2.0) - 0.03 * (age - 40) + 0.3 * np.nan_to_num(sex, nan=0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-score))).astype(int)
    return np.column_stack([age, priors, sex]), y, g


#: small work: these tests are about the forest's contract, not its quality
FAST = dict(n_trees=3, batch_size=80, max_depth=2, time_limit=3.0, clock_cap=False, tree_checkpoints=1,
            categorical_features=[2])


@pytest.mark.parametrize("criterion", [make_criterion("equal_opportunity", 0.02), make_criterion("fpr_parity", 0.0),
                                       make_criterion("demographic_parity", 0.03)])
def test_a_bound_holds_on_the_training_rows_as_the_metrics_module_measures_it(criterion):
    X, y, g = _compas_like()
    est = FairMIPForestClassifier(criterion=criterion, **FAST).fit(X, y, sensitive_features=g)
    block = evaluate_predictions(y, est.predict(X), est.predict_proba(X)[:, 1], g)
    assert block["gaps"][criterion.name] <= criterion.bound + 1e-9
    assert est.fit_log_["bound_met_on_train"] is True
    assert est.fit_log_["train_gap"] == pytest.approx(block["gaps"][criterion.name])


def test_a_single_tree_on_every_row_meets_the_bound_by_its_own_mip():
    X, y, g = _compas_like(150)
    criterion = make_criterion("equal_opportunity", 0.05)
    est = FairMIPForestClassifier(n_trees=1, batch_size=10 ** 6, max_depth=2, criterion=criterion, clock_cap=False,
                                  tree_checkpoints=1, categorical_features=[2]).fit(X, y, sensitive_features=g)
    assert est.fit_log_["batch_rows"] == 150 and "leaves_relabelled" not in est.fit_log_
    assert criterion.gap(y, est.predict(X), g) <= 0.05 + 1e-9


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_the_same_seed_gives_the_same_forest_and_another_seed_another():
    X, y, g = _compas_like()
    criterion = make_criterion("equal_opportunity", penalty=0.5)
    docs = [_without_timings(FairMIPForestClassifier(criterion=criterion, random_state=seed, **FAST)
                             .fit(X, y, sensitive_features=g).to_json()) for seed in (3, 3, 4)]
    assert json.dumps(docs[0], sort_keys=True) == json.dumps(docs[1], sort_keys=True)
    assert docs[0]["trees"] != docs[2]["trees"]
    assert docs[0]["fit_log"]["reproducible"] is True


@pytest.mark.slow
def test_the_forest_does_not_depend_on_the_number_of_threads():
    X, y, g = _compas_like()
    criterion = make_criterion("equal_opportunity", 0.05)
    docs = [_without_timings(FairMIPForestClassifier(criterion=criterion, threads=threads, **FAST)
                             .fit(X, y, sensitive_features=g).to_json()) for threads in (1, 2)]
    docs[1]["params"]["threads"] = 1
    assert json.dumps(docs[0], sort_keys=True) == json.dumps(docs[1], sort_keys=True)


def test_every_batch_holds_every_label_of_every_group_even_a_small_one():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    g = np.zeros(500, dtype=int)
    g[[3, 40, 77]] = 1  # three rows of group 1: one positive and two negatives below
    y[[3, 40, 77]] = (1, 0, 0)
    for seed in range(20):
        rows = stratified_batch(y, g, 50, np.random.default_rng(seed))
        assert len(rows) == 50 and len(set(rows)) == 50
        cells = {(int(a), int(b)) for a, b in zip(y[rows], g[rows])}
        assert cells == {(0, 0), (1, 0), (0, 1), (1, 1)}
    # fewer rows than cells: said plainly, not a division by zero later
    with pytest.raises(DataError, match="batch_size 3 is smaller than the 4 .label, group. cells"):
        stratified_batch(y, g, 3, np.random.default_rng(0))
    assert np.array_equal(stratified_batch(y, g, 10 ** 6, np.random.default_rng(0)), np.arange(500))


def test_a_tiny_group_is_in_every_tree_and_the_fit_names_a_batch_too_small():
    X, y, g = _compas_like()
    g = np.where(np.arange(len(y)) < 4, "C", g)  # a third group of four rows
    y[:4] = (0, 1, 0, 1)
    est = FairMIPForestClassifier(criterion=make_criterion("equal_opportunity", penalty=1.0), **FAST)
    est.fit(X, y, sensitive_features=g)
    assert all(r["rows"] == 80 for r in est.fit_log_["tree_fits"])
    with pytest.raises(DataError, match="raise batch_size to at least 6"):
        FairMIPForestClassifier(criterion=make_criterion("equal_opportunity", penalty=1.0),
                                **{**FAST, "batch_size": 5}).fit(X, y, sensitive_features=g)


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_the_emitted_model_round_trips_through_highs_to_the_same_objective(tmp_path, suffix):
    X, y, g = tiny(1)
    est = FairMIPForestClassifier(n_trees=1, max_depth=2, thresholds=3, categorical_features=[1],
                                  criterion=make_criterion("equal_opportunity", penalty=0.7), clock_cap=False)
    path = tmp_path / f"tree{suffix}"
    assert mip_forest.emit_model(est, X, y, g, path) == [path]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    task = est._tasks(X, y, g)[-1][0]
    expected = brute_force(task, tree_problem(task), 2)
    assert h.getInfo().objective_function_value == pytest.approx(expected, abs=1e-7)
    fitted = fit_tree(TreeTask(**{**task.__dict__, "mip_gap": 0.0}))
    assert fitted.tree_log["objective"] == pytest.approx(expected, abs=1e-7)


def test_a_model_file_round_trips_and_a_damaged_one_is_refused():
    X, y, g = _compas_like()
    est = FairMIPForestClassifier(criterion=make_criterion("equal_opportunity", penalty=0.5), **FAST)
    est.fit(X, y, sensitive_features=g)
    doc = json.loads(json.dumps(est.to_json()))
    loaded = mip_forest.estimator_from_json(doc)
    assert np.array_equal(loaded.predict_proba(X), est.predict_proba(X))
    assert loaded.describe(["age", "priors", "sex"]) == est.describe(["age", "priors", "sex"])
    for damage, message in [
        (lambda d: d["trees"][0]["labels"].append(1), "leaf labels"),
        (lambda d: d["trees"][0]["splits"][0].update(feature=7), "reads feature 7"),
        (lambda d: d["trees"][0]["splits"][0].update(op="<=", feature=2, value=0.5), "categorical feature 2"),
        (lambda d: d["trees"][0]["labels"].__setitem__(0, 2), "0 or 1"),
        (lambda d: d.update(trees=[]), "non-empty"),
    ]:
        bad = json.loads(json.dumps(doc))
        damage(bad)
        with pytest.raises(ValueError, match=message):
            mip_forest.estimator_from_json(bad)


def test_describe_says_where_missing_values_go_unless_they_were_imputed():
    X, y, g = _compas_like()
    est = FairMIPForestClassifier(**{**FAST, "n_trees": 4}).fit(X, y)
    text = "\n".join(est.describe(["age", "priors", "sex"], {2: ["F", "M"]}))
    assert text.startswith("forest of 4 depth-2 trees") and "tree 1" in text and "or missing" in text
    assert "more trees" in text and "a missing value goes" in text
    filled = np.where(np.isnan(X), 0.0, X)  # imputed upstream: no missing value reaches the model
    imputed = FairMIPForestClassifier(**FAST).fit(filled, y)
    text = "\n".join(imputed.describe(["age", "priors", "sex"], {2: ["F", "M"]}, imputed=True))
    assert "missing" not in text and "sex == M" in text or "sex == F" in text
    # a node's missing direction is the one the forest applies: a row missing its feature follows it
    tree = est.trees_[0]
    lit = next(l for l in tree.splits if l.op != "is_present")
    row = np.array([[40.0, 2.0, 1.0]])
    row[0, lit.feature] = np.nan
    assert bool(lit.evaluate(row)[0]) is lit.missing_true


def test_a_penalty_lowers_the_training_gap_of_a_single_tree():
    X, y, g = _compas_like(seed=2)
    gaps = []
    for lam in (0.0, 5.0):
        est = FairMIPForestClassifier(n_trees=1, batch_size=10 ** 6, max_depth=2, clock_cap=False,
                                      tree_checkpoints=1, categorical_features=[2],
                                      criterion=make_criterion("equal_opportunity", penalty=lam))
        est.fit(X, y, sensitive_features=g)
        gaps.append(est.fit_log_["train_gap"])
    assert gaps[1] < gaps[0]


SPEC = """spec compas_mip_small
data "{data}" where race in ["African-American", "Caucasian"]
target two_year_recid positive 1
protected race
features {{ age numeric  priors_count numeric  c_charge_degree categorical }}
fairness equal_opportunity penalty 1
model mip_forest {{ trees 3  depth 2  batch_size 100 }}
solver {{ time_limit 3s  threads 1  clock_cap false }}
"""


def test_the_cli_prints_each_trees_share_and_emits_the_first_trees_mip(tmp_path, capsys):
    from fairspec.cli import main
    from tests.conftest import sample_csv

    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=sample_csv("compas", 300, tmp_path / "compas.csv")))
    target = tmp_path / "tree.mps"
    assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 0
    out = capsys.readouterr().out
    assert "model       mip_forest(trees=3, depth=2, batch_size=100, thresholds=10*)" in out
    assert "time_limit is dealt to the 3 trees: 1s of MIP work each" in out and f"wrote {target}" in out
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(target)) == highspy.HighsStatus.kOk
    names = {h.getColName(j)[1].split("(")[0] for j in range(h.getNumCol())}
    assert {"choose", "label", "flow", "sent_left", "leaf_rows", "leaf_positive", "gap"} <= names
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal


@pytest.mark.slow  # ten forest fits: minutes on a busy machine
def test_the_calibration_layer_wraps_the_forest_and_its_refit_meets_the_internal_bound():
    # `<= ε` in a spec: fairspec.calibration picks ε′ on inner folds and refits the forest at ε′,
    # which the forest then meets on its training rows (its own guarantee); the forest's
    # time_limit is shared among the inner fits
    from fairspec.calibration import CalibratedFairClassifier

    X, y, g = _compas_like(300)
    forest = FairMIPForestClassifier(criterion=make_criterion("equal_opportunity", 0.05), **FAST)
    model = CalibratedFairClassifier(forest, candidates=(1.0, 0.0), folds=2, random_state=0)
    model.fit(X, y, sensitive_features=g)
    kept = model.estimator_
    assert isinstance(kept, FairMIPForestClassifier) and 0.0 <= model.bound_ <= 0.05
    assert kept.criterion.bound == pytest.approx(model.bound_)
    assert kept.time_limit == FAST["time_limit"]  # the refit has the whole budget
    assert make_criterion("equal_opportunity").gap(y, kept.predict(X), g) <= model.bound_ + 1e-9
    assert [c["bound"] for c in model.calibration_["candidates"]] == [0.05, 0.0]
    assert np.array_equal(model.predict(X), kept.predict(X))


@pytest.mark.slow  # a pipeline run; calibrated, seven forest fits
@pytest.mark.parametrize("on_train", [True, False])
def test_a_spec_bound_holds_on_unseen_rows_by_calibration_or_on_train_by_the_forest(tmp_path, on_train):
    from fairspec.dsl.load import parse_spec
    from fairspec.pipeline.train import train
    from fairspec.plan.compile import compile_spec
    from tests.conftest import sample_csv

    text = SPEC.format(data=sample_csv("compas", 300, tmp_path / "compas.csv")).replace(
        "fairness equal_opportunity penalty 1", "fairness equal_opportunity <= 0.05" + (" on train" if on_train else ""))
    plan = compile_spec(parse_spec(text, str(tmp_path / "s.fair")))
    assert plan.calibrates is not on_train
    point = train(plan).points[0]
    fairness, params = point.model_doc["fairness"], point.model_doc["model"]["estimator"]
    assert fairness["holds_on"] == ("train" if on_train else "unseen")
    fitted_at = 0.05 if on_train else fairness["calibration"]["internal_bound"]
    assert params["criterion"]["bound"] == pytest.approx(fitted_at) and fitted_at <= 0.05
    assert point.metrics_doc["fairness"]["achieved_train"] <= fitted_at + 1e-9
