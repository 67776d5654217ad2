"""The calibrated bound: it holds on rows the fit never saw, and the inner folds never see the
rows they are measured on."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from fairspec.calibration import CalibratedFairClassifier
from fairspec.calibration.estimator import choose_bound, rows_of
from fairspec.models.missing_tree import MissingAwareTreeClassifier
from fairspec.registry.criteria import EqualOpportunity, held_out_gap_noise, make_criterion


def population(n, seed):
    """Two groups whose TPRs differ under any threshold of x0, and eight noise features: a deep
    tree can relabel its leaves to a training gap of ε through the noise, which new rows do not
    share."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    x0 = rng.normal(size=n) + 0.8 * g
    y = (x0 + 0.8 * rng.normal(size=n) > 0.4).astype(int)
    return np.column_stack([x0, rng.normal(size=(n, 8))]), y, g


def test_calibrated_gap_holds_on_new_rows_where_the_training_only_gap_does_not():
    X, y, g = population(1500, 1)
    Xp, yp, gp = population(60_000, 2)
    crit = make_criterion("equal_opportunity", bound=0.02)

    def tree():
        return MissingAwareTreeClassifier(max_depth=6, min_samples_leaf=5, fairness=crit)

    on_train = tree().fit(X, y, sensitive_features=g)
    calibrated = CalibratedFairClassifier(tree(), candidates=(1.0, 0.5, 0.0)).fit(X, y, sensitive_features=g)
    # both meet ε on their training rows; only the calibrated one near it on the population
    assert crit.gap(y, on_train.predict(X), g) <= 0.02 + 1e-9
    assert crit.gap(y, calibrated.predict(X), g) <= 0.02 + 1e-9
    margin = 0.02
    assert crit.gap(yp, on_train.predict(Xp), gp) > 0.02 + margin
    assert crit.gap(yp, calibrated.predict(Xp), gp) <= 0.02 + margin
    assert calibrated.bound_ < 0.02
    record = calibrated.calibration_
    assert record["internal_bound"] == calibrated.bound_
    assert [c["bound"] for c in record["candidates"]] == [0.02, 0.01, 0.0]


class RowSpy(ClassifierMixin, BaseEstimator):
    """A family stand-in that records the row ids (column 0) it is fitted on and predicts on, and
    the per-row extra fit argument it receives."""

    log: list = []

    def __init__(self, criterion=None):
        self.criterion = criterion

    def fit(self, X, y, sensitive_features=None, privileged=None):
        self.classes_ = np.unique(y)
        RowSpy.log.append(("fit", set(np.asarray(X)[:, 0].astype(int)), None if privileged is None
                           else set(np.asarray(privileged).astype(int))))
        return self

    def predict(self, X):
        RowSpy.log.append(("predict", set(np.asarray(X)[:, 0].astype(int)), None))
        return np.zeros(len(X), dtype=int)


def test_inner_folds_never_see_their_held_out_rows_and_per_row_arguments_follow_the_fold():
    n = 300
    rng = np.random.default_rng(0)
    X = np.column_stack([np.arange(n), rng.normal(size=n)])
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 2, n)
    RowSpy.log = []
    CalibratedFairClassifier(RowSpy(EqualOpportunity(bound=0.05)), folds=3, candidates=(1.0, 0.5)).fit(
        X, y, sensitive_features=g, privileged=np.arange(n))
    fits = [(rows, priv) for kind, rows, priv in RowSpy.log if kind == "fit"]
    predicts = [rows for kind, rows, _ in RowSpy.log if kind == "predict"]
    # 3 folds x 2 candidates, then the refit on every row
    assert len(fits) == 7 and fits[-1][0] == set(range(n))
    held_out = []
    for i, (rows, privileged) in enumerate(fits[:-1]):
        test = predicts[i]
        assert rows.isdisjoint(test), "an inner fit saw a row it was measured on"
        assert rows | test == set(range(n))
        assert privileged == rows  # the per-row argument was cut by the same fold
        held_out.append(frozenset(test))
    # every training row is held out exactly once (each fold's two candidates share it)
    folds = sorted(set(held_out), key=min)
    assert len(folds) == 3 and sum(len(f) for f in folds) == n


def test_rows_of_cuts_only_per_row_arguments():
    idx = np.array([0, 2])
    out = rows_of({"w": np.array([1.0, 2.0, 3.0]), "k": 3, "names": ["a", "b"], "none": None}, 3, idx)
    assert out["w"].tolist() == [1.0, 3.0] and out["k"] == 3 and out["names"] == ["a", "b"] and out["none"] is None


def test_choice_interpolates_between_the_last_feasible_and_the_first_infeasible_candidate():
    # gap 0.02 at ε′ 0, 0.04 at 0.025, 0.08 at 0.05: the limit 0.05 is crossed a quarter of the
    # way from 0.025 to 0.05
    chosen, at, met = choose_bound([0.05, 0.025, 0.0], [0.08, 0.04, 0.02], [0.0, 0.0, 0.0], 0.05, 0.0)
    assert met and at == 1 and chosen == pytest.approx(0.03125)
    # a margin of one SE (0.01) moves the limit to 0.04: exactly the candidate 0.025
    chosen, _, _ = choose_bound([0.05, 0.025, 0.0], [0.08, 0.04, 0.02], [0.01, 0.01, 0.01], 0.05, 1.0)
    assert chosen == pytest.approx(0.025)
    # nothing feasible: the tightest candidate, and the record says the inner estimate misses
    chosen, at, met = choose_bound([0.05, 0.0], [0.2, 0.1], [0.0, 0.0], 0.05, 0.0)
    assert (chosen, at, met) == (0.0, 1, False)


class ProxyFamily(ClassifierMixin, BaseEstimator):
    """A family stand-in whose gap on any rows is known in advance.  Column 0 is the group's
    proxy, column 1 a uniform score independent of the label: rows predicted positive are those
    with score under 0.5, and, in the proxy's group 1, under ``0.5 + slope·ε′`` too.  ``step``:
    at any positive ε′ the shift is ``slope·ε_max`` at once (a jump at 0, as a forest's joint
    relabelling shows), otherwise it grows linearly in ε′."""

    def __init__(self, criterion=None, slope=4.0, step=False, eps_max=0.05):
        self.criterion, self.slope, self.step, self.eps_max = criterion, slope, step, eps_max

    def fit(self, X, y, sensitive_features=None):
        self.classes_ = np.unique(y)
        b = self.criterion.bound
        self.shift_ = self.slope * (self.eps_max if (self.step and b > 0) else b)
        return self

    def predict(self, X):
        X = np.asarray(X)
        return (X[:, 1] < 0.5 + self.shift_ * (X[:, 0] == 1)).astype(int)


def proxy_data(n, seed):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    return np.column_stack([g, rng.uniform(size=n)]), rng.integers(0, 2, n), g


def test_an_interpolation_from_zero_across_a_step_is_measured_and_refused():
    X, y, g = proxy_data(4000, 5)
    Xp, yp, gp = proxy_data(200_000, 6)
    crit = EqualOpportunity(bound=0.05)
    # any positive ε′ gives a gap of 0.2, ε′ = 0 none: the line from 0 to 0.025 reads 0.05 at
    # about 0.006, where the family's gap is 0.2
    model = CalibratedFairClassifier(ProxyFamily(crit, step=True), folds=3).fit(X, y, sensitive_features=g)
    assert crit.gap(yp, model.predict(Xp), gp) < 0.01
    assert model.bound_ == 0.0 and model.calibration_["met"]
    probe = model.calibration_["probe"]
    assert 0 < probe["proposed"] < 0.025 and probe["bounds"] == pytest.approx([probe["proposed"],
                                                                               probe["proposed"] / 2])
    # the probes are among the candidates now, in their order (largest first), each at about 0.2
    cands = model.calibration_["candidates"]
    assert [c["bound"] for c in cands] == [0.05, 0.025, *probe["bounds"], 0.0]
    assert all(c["inner_gap"] == pytest.approx(0.2, abs=0.05) for c in cands[2:4])
    # the interpolation alone would have fitted a positive ε′; without interpolating from 0, not
    assert choose_bound([0.05, 0.025, 0.0], [0.2, 0.2, 0.0], [0.0] * 3, 0.05, 0.0)[0] > 0
    assert choose_bound([0.05, 0.025, 0.0], [0.2, 0.2, 0.0], [0.0] * 3, 0.05, 0.0, from_zero=False)[0] == 0.0


def test_an_interpolation_from_zero_along_a_line_is_measured_and_kept():
    X, y, g = proxy_data(4000, 5)
    Xp, yp, gp = proxy_data(200_000, 6)
    crit = EqualOpportunity(bound=0.05)
    # the gap is 4ε′: 0, 0.1, 0.2 at the candidates; the limit 0.05 is reached at ε′ = 0.0125
    model = CalibratedFairClassifier(ProxyFamily(crit, step=False), folds=3).fit(X, y, sensitive_features=g)
    assert model.calibration_["probe"]["proposed"] == pytest.approx(0.0125, abs=0.004)
    assert model.bound_ == pytest.approx(0.0125, abs=0.004) and model.bound_ > 0
    assert crit.gap(yp, model.predict(Xp), gp) == pytest.approx(0.05, abs=0.02)


def test_no_probe_on_the_single_inner_split_of_large_data():
    X, y, g = proxy_data(6000, 5)
    # ε = 0.45: a held-out fold's worst-case gap noise (about 0.032) is under a tenth of it, so one
    # inner split is used; every positive ε′ gives a gap of 0.5, so ε′ is interpolated from 0
    model = CalibratedFairClassifier(ProxyFamily(EqualOpportunity(bound=0.45), slope=30, step=True), folds=3).fit(
        X, y, sensitive_features=g)
    assert model.calibration_["inner_folds_fitted"] == 1
    assert "probe" not in model.calibration_ and 0 < model.bound_ < 0.225


def test_no_probe_when_the_choice_does_not_stand_on_zero():
    X, y, g = proxy_data(4000, 5)
    # gap 0.4ε′: every candidate up to ε = 0.05 is feasible, nothing is interpolated from 0
    model = CalibratedFairClassifier(ProxyFamily(EqualOpportunity(bound=0.05), slope=0.4), folds=3).fit(
        X, y, sensitive_features=g)
    assert "probe" not in model.calibration_ and model.bound_ == 0.05


def test_a_penalty_or_an_audit_is_fitted_as_it_is():
    X, y, g = population(400, 3)
    est = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", penalty=0.5))
    wrapped = CalibratedFairClassifier(est).fit(X, y, sensitive_features=g)
    plain = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", penalty=0.5)).fit(
        X, y, sensitive_features=g)
    assert wrapped.bound_ is None and wrapped.calibration_ is None
    assert np.array_equal(wrapped.predict(X), plain.predict(X))


def test_held_out_gap_noise_is_the_worst_case_standard_error_of_the_two_smallest_groups():
    y = np.array([1] * 100 + [1] * 25 + [1] * 400 + [0] * 10)
    g = np.array(["a"] * 100 + ["b"] * 25 + ["c"] * 400 + ["a"] * 10)
    noise = held_out_gap_noise(EqualOpportunity(bound=0.05), y, g)
    assert noise == pytest.approx(np.sqrt(0.25 / 25 + 0.25 / 100))
    assert held_out_gap_noise(EqualOpportunity(bound=0.05), y, g, share=0.25) == pytest.approx(2 * noise)


class LimitSpy(ClassifierMixin, BaseEstimator):
    """A family stand-in with a ``time_limit``: records the limit and row count of every fit."""

    log: list = []

    def __init__(self, criterion=None, time_limit=60.0):
        self.criterion = criterion
        self.time_limit = time_limit

    def fit(self, X, y, sensitive_features=None):
        self.classes_ = np.unique(y)
        LimitSpy.log.append((self.time_limit, len(y)))
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


@pytest.mark.parametrize("large", [False, True])
def test_the_time_limit_is_shared_by_the_inner_fits_and_on_large_data_by_the_refit_too(large):
    rng = np.random.default_rng(1)
    n = 3000
    X, y, g = rng.normal(size=(n, 2)), rng.integers(0, 2, n), rng.integers(0, 2, n)
    LimitSpy.log = []
    # a held-out fold of 1,000 rows: its gap's worst-case standard error is about 0.045, under a
    # tenth of ε = 1 (the single inner split of "Large data"), far over a tenth of ε = 0.05
    eps = 1.0 if large else 0.05
    model = CalibratedFairClassifier(LimitSpy(EqualOpportunity(bound=eps), time_limit=60.0), folds=3,
                                     max_inner_rows=500).fit(X, y, sensitive_features=g)
    limits = [limit for limit, _ in LimitSpy.log]
    if large:
        # three candidates on one hold-out share half the limit, the refit gets the other half:
        # the stages of the whole calibrated fit are sized by one time_limit
        assert model.calibration_["inner_folds_fitted"] == 1
        assert limits == [10.0, 10.0, 10.0, 30.0] and sum(limits) == 60.0
        assert (model.calibration_["inner_time_share"], model.calibration_["refit_time_share"]) == (1 / 6, 0.5)
    else:
        # three folds x three candidates at a third each, the refit at the whole limit (as before)
        assert model.calibration_["inner_folds_fitted"] == 3
        assert limits == [20.0] * 9 + [60.0]
        assert "refit_time_share" not in model.calibration_
    assert LimitSpy.log[-1][1] == n
