"""A relabelling MIP built once and re-solved at each bound (relabel.RelabellingMIP) returns
what a fresh build at that bound returns, so ``fit_bound_path``'s candidates stay exactly the
fits at their bounds (the calibration reads them as such)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairspec.calibration.estimator import inner_splits
from fairspec.models.tree import relabel
from fairspec.models.tree.estimators import MissingAwareForestClassifier, MissingAwareTreeClassifier
from fairspec.models.tree.relabel import relabel_leaves
from fairspec.registry.criteria import make_criterion
from tests.helpers_outputs import without_seconds

ROOT = Path(__file__).resolve().parents[2]



@pytest.fixture(scope="module")
def compas():
    """compas rows (African-American and Caucasian), numeric columns only, as a user fits them
    (the group is not a feature)."""
    frame = pd.read_csv(ROOT / "data" / "compas.csv.gz")
    frame = frame[frame["race"].isin(["African-American", "Caucasian"])].reset_index(drop=True)
    y = frame["two_year_recid"].to_numpy().astype(int)
    groups = frame["race"].astype(str).to_numpy()
    X = frame.drop(columns=["two_year_recid", "race"]).select_dtypes("number").to_numpy(float)
    return X, y, groups


def _small_problem(seed, n=60, n_leaves=6):
    """A tiny routing with many tied labellings (few rows per leaf)."""
    rng = np.random.default_rng(seed)
    leaves = rng.integers(0, n_leaves, n)
    return np.arange(n), leaves, np.ones(n), rng.integers(0, 2, n), rng.integers(0, 2, n)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", ["equal_opportunity", "demographic_parity", "equalized_odds"])
def test_a_re_solve_at_each_bound_returns_what_a_fresh_build_returns(seed, criterion):
    rows, leaves, weights, y, g = _small_problem(seed)
    rates = make_criterion(criterion, bound=0.1).rates
    reuse: dict = {}
    for bound in (0.3, 0.1, 0.05, 0.0, 0.2):  # not monotone: a re-solve may follow a tighter one
        try:
            fresh = relabel_leaves(rows, leaves, weights, 6, y, g, rates, bound)
        except Exception as error:  # an infeasible bound must be infeasible in both
            with pytest.raises(type(error)):
                relabel_leaves(rows, leaves, weights, 6, y, g, rates, bound, reuse=reuse)
            continue
        again = relabel_leaves(rows, leaves, weights, 6, y, g, rates, bound, reuse=reuse)
        assert np.array_equal(fresh[0], again[0])
        assert fresh[1]["relabel_objective"] == again[1]["relabel_objective"]
        assert fresh[1]["relabel_status"] == again[1]["relabel_status"]
    assert reuse["mip"].solves >= 1


def test_the_re_solved_mip_is_built_once_and_its_bound_is_what_changes():
    rows, leaves, weights, y, g = _small_problem(3)
    reuse: dict = {}
    labels = [relabel_leaves(rows, leaves, weights, 6, y, g, ("tpr",), b, reuse=reuse)[0] for b in (1.0, 0.0)]
    mip = reuse["mip"]
    assert mip.solves == 2 and mip.m.bound.value == 0.0
    # at bound 1 nothing binds (the accuracy optimum: each leaf its majority); at 0 it does
    majority = np.array([float(y[leaves == l].mean() > 0.5) for l in range(6)])
    assert np.array_equal(labels[0], majority)
    assert not np.array_equal(labels[1], majority)


def _count_builds(monkeypatch):
    built = []
    real = relabel.RelabellingMIP.__init__

    def counting(self, *a, **k):
        built.append(1)
        real(self, *a, **k)
    monkeypatch.setattr(relabel.RelabellingMIP, "__init__", counting)
    return built


@pytest.mark.parametrize("criterion,eps", [("equal_opportunity", 0.05), ("equalized_odds", 0.05)])
def test_the_bound_path_on_compas_is_the_fit_at_each_candidate(compas, criterion, eps, monkeypatch):
    # the calibration's own candidates on two of its inner training sides
    X, y, groups = compas
    bounds = [round(f * eps, 12) for f in (1.0, 0.75, 0.5, 0.25, 0.0)]
    make = lambda b: MissingAwareTreeClassifier(max_depth=4, clock_cap=False,  # noqa: E731
                                                fairness=make_criterion(criterion, bound=b))
    splits, _ = inner_splits(y, groups, 3, seed=7)
    built = _count_builds(monkeypatch)
    for tr, _ in splits[:2]:
        built.clear()
        path = make(eps).fit_bound_path(X[tr], y[tr], bounds, sensitive_features=groups[tr])
        assert len(built) == 1  # one MIP for the whole path, re-solved at each bound
        for bound, est in zip(bounds, path):
            fresh = make(bound).fit(X[tr], y[tr], sensitive_features=groups[tr])
            assert without_seconds(est.to_json()) == without_seconds(fresh.to_json()), bound


def test_a_forests_bound_path_is_the_fit_at_each_bound(compas):
    X, y, groups = compas
    rows = np.random.default_rng(5).choice(len(y), 1000, replace=False)
    X, y, groups = X[rows], y[rows], groups[rows]
    bounds = [0.06, 0.0]
    make = lambda b: MissingAwareForestClassifier(n_estimators=3, max_depth=3, clock_cap=False,  # noqa: E731
                                                  random_state=2, fairness=make_criterion("equal_opportunity", b))
    path = make(bounds[0]).fit_bound_path(X, y, bounds, sensitive_features=groups)
    for bound, est in zip(bounds, path):
        fresh = make(bound).fit(X, y, sensitive_features=groups)
        assert without_seconds(est.to_json()) == without_seconds(fresh.to_json()), bound
