"""The comparison model without the criterion, taken from the tree's growth before relabelling,
is the model a fresh unconstrained fit gives."""
from __future__ import annotations


import numpy as np
import pytest

from fairspec.models.missing_tree import MissingAwareForestClassifier, MissingAwareTreeClassifier
from fairspec.pipeline import train as train_module
from fairspec.registry.criteria import make_criterion
from tests.helpers_outputs import without_seconds


def _data(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.choice(np.array(["a", "b"]), n, p=[0.6, 0.4])
    X = rng.normal(size=(n, 4))
    X[:, 0] += 0.8 * (groups == "a")
    X[rng.random(n) < 0.1, 2] = np.nan
    X[:, 3] = rng.integers(0, 3, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] + 0.5 * X[:, 1])))).astype(int)
    return X, y, groups



@pytest.mark.parametrize("make", [
    lambda fairness: MissingAwareTreeClassifier(max_depth=4, categorical_features=(3,), fairness=fairness,
                                                random_state=3),
    lambda fairness: MissingAwareForestClassifier(n_estimators=3, max_depth=3, categorical_features=(3,),
                                                  fairness=fairness, random_state=3),
])
def test_the_tree_as_grown_is_the_fresh_unconstrained_fit(make):
    X, y, groups = _data()
    bounded = make(make_criterion("equal_opportunity", bound=0.01)).fit(X, y, sensitive_features=groups)
    assert bounded.fit_log_["leaves_relabelled"] > 0  # the bound binds: the relabelled model differs
    reused = bounded.fitted_without_fairness()
    fresh = make(None).fit(X, y, sensitive_features=groups)
    assert reused.fairness is None
    assert without_seconds(reused.to_json()) == without_seconds(fresh.to_json())
    np.testing.assert_array_equal(reused.predict_proba(X), fresh.predict_proba(X))
    assert not np.array_equal(bounded.predict(X), fresh.predict(X))
    assert without_seconds(reused.fit_log_) == without_seconds(fresh.fit_log_)
    # the bounded model is left as it was
    assert bounded.fairness is not None and bounded.fit_log_["leaves_relabelled"] > 0


def test_no_reuse_without_a_bound_or_after_a_refit_without_one():
    X, y, groups = _data(600, 1)
    penalised = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", penalty=0.5))
    assert penalised.fit(X, y, sensitive_features=groups).fitted_without_fairness() is None
    tree = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", bound=0.05))
    tree.fit(X, y, sensitive_features=groups)
    assert tree.fitted_without_fairness() is not None
    tree.set_params(fairness=None).fit(X, y)
    assert tree.fitted_without_fairness() is None


SPEC = """spec reuse
data "{data}"
target y positive 1
protected g
features {{ x1 numeric  x2 numeric  c categorical }}
missing mia
fairness equal_opportunity <= {bounds}
model tree {{ depth 3  multiplier 0 }}
evaluate {{ holdout 0.3 stratify seed 2 }}
"""


def test_no_reuse_of_a_tree_grown_on_the_lagrangian():
    """Its splits are the Lagrangian's, not the unconstrained fit's: the pipeline fits anew."""
    X, y, groups = _data(800, 2)
    tree = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", bound=0.05),
                                      lagrange_share=0.5).fit(X, y, sensitive_features=groups)
    assert tree.fit_log_["lagrange_multiplier"] > 0
    assert tree.fitted_without_fairness() is None


# ``multiplier 0``: the tree grown on its labels, whose growth is the unconstrained fit's (a
# multiplier the calibration chooses above 0 grows other splits, and nothing is reused)
@pytest.mark.parametrize("bounds", ["0.02", "[0.02, 0.2]"])
def test_the_run_s_unconstrained_block_is_the_fresh_fit_s(tmp_path, monkeypatch, bounds):
    from fairspec import compile_spec, load_spec, train

    rng = np.random.default_rng(5)
    n = 1200
    g = rng.choice(["p", "q"], n)
    x1 = rng.normal(size=n) + (g == "p")
    x2 = rng.normal(size=n)
    c = rng.choice(["u", "v", "w"], n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(x1 - x2)))).astype(int)
    data = tmp_path / "d.csv"
    data.write_text("x1,x2,c,g,y\n" + "".join(f"{a:.3f},{b:.3f},{k},{h},{t}\n" for a, b, k, h, t in
                                             zip(x1, x2, c, g, y)))
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=data, bounds=bounds))
    plan = compile_spec(load_spec(spec))
    calls = []
    original = train_module.reused_unconstrained_fit
    monkeypatch.setattr(train_module, "reused_unconstrained_fit",
                        lambda *a: calls.append(original(*a)) or calls[-1])
    reused = train(plan)
    assert calls and calls[0] is not None  # the growth was reused
    monkeypatch.setattr(train_module, "reused_unconstrained_fit", lambda *a: None)
    fresh = train(plan)
    for a, b in zip(reused.points, fresh.points):
        assert a.metrics_doc["unconstrained"] == b.metrics_doc["unconstrained"]
        assert a.model_doc["model"] == b.model_doc["model"]
        timing = a.metrics_doc["timing"]
        assert list(timing)[-2:] == ["unconstrained_seconds", "total_seconds"]
        assert timing["total_seconds"] >= timing["unconstrained_seconds"]


@pytest.mark.parametrize("missing", ["mia", "fractional"])
def test_each_copy_of_the_bound_path_is_the_fit_at_its_bound(missing):
    # the copies share the routes of one growth; each must still be what fit at its bound gives
    X, y, groups = _data(1200, 2)
    bounds = [0.2, 0.05, 0.01, 0.0]
    make = lambda b: MissingAwareTreeClassifier(max_depth=3, categorical_features=(3,), missing=missing,  # noqa: E731
                                                fairness=make_criterion("equal_opportunity", bound=b))
    path = make(bounds[0]).fit_bound_path(X, y, bounds, sensitive_features=groups)
    assert not any(hasattr(est, "_grown_routes") for est in path)
    for bound, est in zip(bounds, path):
        fresh = make(bound).fit(X, y, sensitive_features=groups)
        assert without_seconds(est.to_json()) == without_seconds(fresh.to_json())
