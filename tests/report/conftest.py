"""Hand-built model.json / metrics.json documents (docs/ARTIFACTS.md) for the report tests."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from fairspec.metrics import evaluate_predictions, fairness_summary, group_counts
from fairspec.metrics.intervals import gap_intervals
from fairspec.plan.fairness import make_criterion

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


def _split(seed: int, n: int):
    rng = np.random.default_rng(seed)
    groups = rng.choice(np.asarray(GROUPS, dtype=object), n, p=[0.5, 0.35, 0.15])
    y = (rng.random(n) < np.where(groups == GROUPS[0], 0.5, 0.4)).astype(int)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    pred = (score > 0.5).astype(int)
    return y, pred, score, groups


def make_docs(bound=0.05, penalty=None, criterion="equal_opportunity", with_test=True, seed=0, intervals=True):
    """A consistent (model_doc, metrics_doc) pair; the metrics are real numbers of synthetic data
    (``intervals=False``: a metrics.json written before fairspec measured the test gaps' intervals)."""
    y_tr, p_tr, s_tr, g_tr = _split(seed, 700)
    y_te, p_te, s_te, g_te = _split(seed + 100, 300)
    train = evaluate_predictions(y_tr, p_tr, s_tr, g_tr)
    test = evaluate_predictions(y_te, p_te, s_te, g_te) if with_test else None
    if test is not None and intervals:
        test["gap_intervals"] = gap_intervals(y_te, p_te, g_te, seed=7)
    crit = None if criterion is None else make_criterion(criterion, bound=bound, penalty=penalty)
    all_y = np.concatenate([y_tr, y_te])
    all_g = np.concatenate([g_tr, g_te])
    fit_log = {"status": "optimal", "mip_gap": 0.0, "seconds": 1.234, "nodes": 17,
               "columns_generated": [3, 5, 8], HOSTILE_COLUMN: "<i>log</i>"}
    model_doc = {
        "format": "fairspec-model", "format_version": 1, "fairspec_version": "0.1.0",
        "created": "2026-11-22T21:00:00Z",
        "spec": {"name": "compas_rules", "path": "specs/<compas>.fair", "text": SPEC_TEXT, "sha256": "ab" * 32,
                 "normalised": False},
        "data": {"path": "data/compas&co.csv.gz", "sha256": "cd" * 32,
                 "filters": [["race", "in", ["African-American", "Caucasian"]]], "rows_used": 1000},
        "schema": {
            "target": {"name": "two_year_recid", "positive": 1},
            "protected": ["race"],
            "features": [{"name": "age", "kind": "numeric", "categories": None},
                         {"name": HOSTILE_COLUMN, "kind": "numeric", "categories": None},
                         {"name": "c_charge_degree", "kind": "categorical", "categories": ["F", "<M>"]}],
            "privileged": [{"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]}],
        },
        "preprocessing": {"missing": {"strategy": "impute", "impute_method": "median", "k": None},
                          "encoder": {"names": ["age", HOSTILE_COLUMN, "c_charge_degree"],
                                      "kinds": ["numeric", "numeric", "categorical"],
                                      "categories": [None, None, ["F", "<M>"]]},
                          "imputer": {"method": "median", "k": 5, "fill": [31.0, 0.5, 1.0], "categorical": [2],
                                      "reference": None}},
        "fairness": {"criterion": criterion, "bound": bound, "penalty": penalty},
        "model": {"family": "baseline", "params": {"learner": "tree", "depth": 3, "forest": {"trees": 5}},
                  "estimator": {"kind": "sklearn_tree"},
                  "text": ["IF age <= 25 AND <script>alert(3)</script> > 3 THEN 1", "ELSE 0"],
                  "class_names": ["0", "1"]},
        "training": {"seed": 7, "fit_log": fit_log},
    }
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
