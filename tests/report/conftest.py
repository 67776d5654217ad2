"""model.json / metrics.json documents (docs/ARTIFACTS.md) for the report tests: a real baseline
model written as a run writes it, beside metrics of synthetic predictions, with hostile strings
wherever the data, the spec or a fit log can put them."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairspec.data.prepare import FeatureEncoder, Imputer
from fairspec.metrics import evaluate_predictions, fairness_summary, group_counts
from fairspec.metrics.audit import audit_measures
from fairspec.metrics.intervals import gap_intervals
from fairspec.pipeline.artifact import family_module, model_document
from fairspec.registry.criteria import make_criterion
from fairspec.plan.plan import (DataPlan, EvaluationPlan, FeaturePlan, MissingPlan, ModelRecipe, Plan,
                                SolverSettings)

HOSTILE_COLUMN = "<script>alert(1)</script>"
HOSTILE_GROUP = 'Caucasian"><img src=x onerror=alert(2)>'
SPEC_TEXT = """spec compas_rules
# a comment with <b>bold</b> & an ampersand
data "data/compas.csv.gz" where race in ["African-American", "Caucasian"]
target two_year_recid positive 1
protected race
features { age numeric  priors_count numeric  c_charge_degree categorical }
privileged { sex }
fairness equal_opportunity <= 0.05
model baseline { learner tree depth 3 }
"""
GROUPS = ("African-American", HOSTILE_GROUP, "Other")
FEATURES = (FeaturePlan("age", "numeric"), FeaturePlan(HOSTILE_COLUMN, "numeric"),
            FeaturePlan("c_charge_degree", "categorical"))


def _split(seed: int, n: int):
    rng = np.random.default_rng(seed)
    groups = rng.choice(np.asarray(GROUPS, dtype=object), n, p=[0.5, 0.35, 0.15])
    y = (rng.random(n) < np.where(groups == GROUPS[0], 0.5, 0.4)).astype(int)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    pred = (score > 0.5).astype(int)
    return y, pred, score, groups


def _feature_table(y: np.ndarray, seed: int) -> pd.DataFrame:
    """Feature columns for the training rows labelled ``y``: the positives mostly younger and
    higher in the hostile column, so that the tree splits on both.  Each column is a fixed set of
    values dealt out by the labels (700 rows: the median age 31, the hostile column's median 0.5,
    the category "<M>" the most frequent), so the imputer learns the same values whatever the seed."""
    rng = np.random.default_rng(seed + 1000)
    n = len(y)
    ages, hostile = np.empty(n), np.empty(n)
    ages[np.argsort(-(y + 3 * rng.random(n)), kind="stable")] = np.sort(np.resize(np.arange(18, 45), n))
    hostile[np.argsort(y + 3 * rng.random(n), kind="stable")] = np.sort(np.resize([0, 1, 0, 3, 0, 5, 0, 7], n))
    charge = np.empty(n, dtype=object)
    charge[np.argsort(-(y + 2 * rng.random(n)), kind="stable")] = np.resize(["F", "<M>", "<M>"], n)
    return pd.DataFrame({"age": ages, HOSTILE_COLUMN: hostile, "c_charge_degree": charge})


def _plan(criterion, outcome: str | None = None) -> Plan:
    """The plan of SPEC_TEXT as the report tests need it: the hostile column among the features,
    and paths that need escaping; ``outcome`` the target line's favourable or adverse."""
    return Plan(
        name="compas_rules", spec_path=Path("specs/<compas>.fair"), spec_text=SPEC_TEXT,
        data=DataPlan(path=Path("data/compas&co.csv.gz"),
                      filters=(("race", "in", ("African-American", "Caucasian")),),
                      target="two_year_recid", positive=1, protected=("race",), features=FEATURES,
                      privileged=(FeaturePlan("sex", "categorical"),), outcome=outcome),
        missing=MissingPlan("impute", "median"),
        fairness=() if criterion is None else (criterion,),
        model=ModelRecipe("baseline", {"learner": "tree", "depth": 3, "min_samples_leaf": 1}),
        solver=SolverSettings(seed=7), evaluation=EvaluationPlan(kind="holdout", test_size=0.3, seed=7),
        output_dir=Path("reports/compas_rules"))


def _model_document(plan: Plan, y: np.ndarray, seed: int, fit_log: dict) -> dict:
    """model.json of a baseline tree fitted on ``y``'s rows, written by the code a run writes it
    with (fairspec.pipeline.artifact.model_document); its fit log is ``fit_log``, the log
    metrics.json holds, so that the report's reading of a solver's log is exercised."""
    frame = _feature_table(y, seed)
    encoder = FeatureEncoder.fit(frame, [f.name for f in plan.data.features], [f.kind for f in plan.data.features])
    X = encoder.transform(frame)
    imputer = Imputer.fit(X, encoder.categorical_indices, plan.missing.impute_method, plan.missing.k)
    estimator = family_module(plan.model.family).build_estimator(
        plan.model, None, plan.solver, categorical_features=encoder.categorical_indices, seed=plan.solver.seed)
    estimator.fit(imputer.transform(X), y)
    estimator.fit_log_ = copy.deepcopy(fit_log)
    doc = model_document(plan, data_sha256="cd" * 32, rows_used=len(y), encoder=encoder, imputer=imputer,
                         estimator=estimator, criterion=plan.fairness[0] if plan.fairness else None)
    doc["created"] = "2026-11-22T21:00:00Z"  # the one field that differs between identical runs
    return doc


def make_docs(bound=0.05, penalty=None, criterion="equal_opportunity", with_test=True, seed=0, intervals=True,
              audit=True, outcome=None):
    """A consistent (model_doc, metrics_doc) pair, one `fairspec report` reads: the model is a real
    one, fitted on the training rows' labels, and the metrics are real numbers of synthetic
    predictions (``intervals=False``: a metrics.json written before fairspec measured the test
    gaps' intervals; ``audit=False``: one written before the report's measures, the reference
    group's comparisons and the curves, fairspec.metrics.audit); ``outcome``: the spec's word
    for the positive class, favourable or adverse, which model.json records and the four-fifths
    rule reads)."""
    y_tr, p_tr, s_tr, g_tr = _split(seed, 700)
    y_te, p_te, s_te, g_te = _split(seed + 100, 300)
    train = evaluate_predictions(y_tr, p_tr, s_tr, g_tr)
    test = evaluate_predictions(y_te, p_te, s_te, g_te) if with_test else None
    if test is not None and intervals:
        test["gap_intervals"] = gap_intervals(y_te, p_te, g_te, seed=7)
    if audit:
        kept = {"reference": GROUPS[0], "reference_from": "largest group", "score_kind": "probability",
                "outcome": outcome}
        train.update(audit_measures(y_tr, p_tr, s_tr, g_tr, curves=test is None, **kept))
        if test is not None:
            test.update(audit_measures(y_te, p_te, s_te, g_te, curves=True, **kept))
    crit = None if criterion is None else make_criterion(criterion, bound=bound, penalty=penalty)
    all_y = np.concatenate([y_tr, y_te])
    all_g = np.concatenate([g_tr, g_te])
    fit_log = {"status": "optimal", "mip_gap": 0.0, "seconds": 1.234, "nodes": 17,
               "columns_generated": [3, 5, 8], HOSTILE_COLUMN: "<i>log</i>"}
    model_doc = _model_document(_plan(crit, outcome), y_tr, seed, fit_log)
    metrics_doc = {
        "train": train, "test": test,
        "fairness": fairness_summary(crit, train, test),
        "timing": {"load_seconds": 0.1, "fit_seconds": 1.2, "evaluate_seconds": 0.05, "total_seconds": 1.4},
        "evaluation": {"kind": "holdout", "test_size": 0.3, "folds": None, "stratify": True, "seed": 7},
        "data_summary": {
            "rows": 1000, "rows_train": 700, "rows_test": 300 if with_test else 0,
            "target": "two_year_recid", "positive": 1, "protected": ["race"],
            "groups": group_counts(all_y, all_g),
            "missing": {"age": {g: 0.0 for g in GROUPS}, HOSTILE_COLUMN: {g: 0.125 for g in GROUPS}},
            "features": ["age", HOSTILE_COLUMN, "c_charge_degree"], "privileged": ["sex"],
        },
        "training_log": copy.deepcopy(fit_log),
    }
    return model_doc, metrics_doc


@pytest.fixture
def docs():
    return make_docs()
