"""Issue 48: on many rows the rule set's set-up (literals, warm start) learns from a seeded sample
of ``SETUP_ROWS`` rows, every later stage counts all rows, and the stages' clock starts after
the set-up.  ``SETUP_ROWS`` is made small here so that a few hundred rows exercise the sample."""
from __future__ import annotations

import time

import numpy as np
import pytest

from fairspec.models.rule_set import FairRuleSetClassifier, estimator as rule_estimator
from fairspec.models.rule_set.binarize import Binarizer
from fairspec.models.rule_set.estimator import setup_sample
from fairspec.registry.criteria import make_criterion


def problem(n=600, seed=5):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 4, n), rng.normal(size=n) + 0.4 * g])
    X[rng.random(n) < 0.1, 0] = np.nan
    logit = np.nan_to_num(X[:, 0], nan=1.0) + 0.5 * X[:, 1] - X[:, 2] - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    kw = dict(criterion=make_criterion("equal_opportunity", 0.05), categorical_features=(1,), time_limit=20.0,
              max_complexity=10, random_state=3, max_rounds=3, max_ip_columns=15, clock_cap=False)
    return X, y, g, kw


def test_the_sample_is_the_bound_seeded_and_absent_below_it():
    assert setup_sample(200, 200, 1) is None  # not more rows than the bound: every row
    a, b, c = setup_sample(1000, 300, 1), setup_sample(1000, 300, 1), setup_sample(1000, 300, 2)
    assert len(a) == 300 and len(np.unique(a)) == 300 and (np.diff(a) > 0).all() and a.max() < 1000
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_the_literals_come_from_the_sample_and_every_later_stage_counts_all_rows(monkeypatch):
    X, y, g, kw = problem()
    monkeypatch.setattr(rule_estimator, "SETUP_ROWS", 250)
    est = FairRuleSetClassifier(**kw).fit(X, y, g)
    sample = est.setup_sample_
    assert len(sample) == 250 and est.fit_log_["setup_sample_rows"] == 250
    # the cut points and literals are those of a binarizer fitted on the sampled rows alone ...
    alone = Binarizer(est.thresholds, est.missing, (1,)).fit(X[sample])
    assert est.binarizer_.literals_ == alone.literals_
    assert est.binarizer_.literals_ != Binarizer(est.thresholds, est.missing, (1,)).fit(X).literals_
    # ... while the fit and its log count every row
    assert est.fit_log_["n_rows"] == len(y)
    assert est.fit_log_["train_accuracy"] == pytest.approx(float((est.predict(X) == y).mean()))
    assert est.fit_log_["train_gap"] == pytest.approx(kw["criterion"].gap(y, est.predict(X), g))
    # same seed, same model; another seed draws another sample
    again = FairRuleSetClassifier(**kw).fit(X, y, g)
    assert again.to_json()["rules"] == est.to_json()["rules"]
    np.testing.assert_array_equal(again.setup_sample_, sample)
    other = FairRuleSetClassifier(**{**kw, "random_state": 4}).fit(X, y, g)
    assert not np.array_equal(other.setup_sample_, sample)


def test_below_the_bound_nothing_is_sampled_and_the_log_has_no_sample_entry():
    X, y, g, kw = problem(n=300)
    est = FairRuleSetClassifier(**kw).fit(X, y, g)
    assert est.setup_sample_ is None and "setup_sample_rows" not in est.fit_log_
    assert est.binarizer_.literals_ == Binarizer(est.thresholds, est.missing, (1,)).fit(X).literals_


def test_the_set_up_does_not_eat_the_stages_time_limit(monkeypatch):
    """A set-up longer than the time limit (here a binarizer made to take 2.5 s, against 2 s)
    had left every stage cut by the clock before it began; the stages' clock now starts after it."""
    X, y, g, kw = problem(n=300)
    fit = Binarizer.fit

    def slow_fit(self, X):
        time.sleep(2.5)
        return fit(self, X)

    monkeypatch.setattr(Binarizer, "fit", slow_fit)
    est = FairRuleSetClassifier(**{**kw, "time_limit": 2.0, "clock_cap": True}).fit(X, y, g)
    log = est.fit_log_
    assert log["setup_seconds"] >= 2.5
    # column generation solved its LP at least once: before, its deadline (start + 1 s) had passed
    # when it began, so it ran no round at all (a 300-row LP solves in milliseconds, so this does
    # not depend on the machine's speed)
    assert log["rounds"] >= 1 and log["lp_bound"] is not None
