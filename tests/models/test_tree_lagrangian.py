"""The tree family grown on a bound's Lagrangian (``lagrange_share``): what the growth changes
and what it keeps."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fairspec.models.missing_tree import MissingAwareForestClassifier, MissingAwareTreeClassifier
from fairspec.models.tree.estimators import estimator_from_json
from fairspec.registry.criteria import make_criterion


def _rows(n=3000, seed=0):
    """A label the groups' proxy (x0) predicts: grown plainly, the tree's TPRs differ widely."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + 1.2 * g, rng.normal(size=n), rng.normal(size=n)])
    X[rng.random(n) < 0.05, 1] = np.nan
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] + X[:, 1])))).astype(int)
    return X, y, np.where(g == 1, "a", "b")


def _loose(share, cls=MissingAwareTreeClassifier, **kw):
    # a bound the growth already meets: no relabelling, so the growth alone is measured
    return cls(max_depth=4, min_samples_leaf=20, fairness=make_criterion("equal_opportunity", bound=1.0),
               lagrange_share=share, random_state=1, **kw)


@pytest.mark.parametrize("cls", [MissingAwareTreeClassifier, MissingAwareForestClassifier])
def test_the_multiplier_narrows_the_gap_and_zero_is_the_plain_tree(cls):
    X, y, g = _rows()
    crit = make_criterion("equal_opportunity", bound=1.0)
    extra = {"n_estimators": 5} if cls is MissingAwareForestClassifier else {}
    plain = _loose(0.0, cls, **extra).fit(X, y, sensitive_features=g)
    grown = _loose(0.75, cls, **extra).fit(X, y, sensitive_features=g)
    gap_plain = crit.gap(y, plain.predict(X), g)
    gap_grown = crit.gap(y, grown.predict(X), g)
    assert gap_plain > 0.15 and gap_grown < gap_plain - 0.05, (gap_plain, gap_grown)  # 0.171 → 0.079 (tree)
    assert grown.fit_log_["lagrange_multiplier"] > 0 and "lagrange_multiplier" not in plain.fit_log_
    # share 0 is the estimator as it was before the parameter: same model file, bit for bit
    before = cls(**{k: v for k, v in plain.get_params().items() if k != "lagrange_share"}).fit(
        X, y, sensitive_features=g)
    assert json.dumps(before.to_json()["nodes" if cls is MissingAwareTreeClassifier else "trees"]) == \
        json.dumps(plain.to_json()["nodes" if cls is MissingAwareTreeClassifier else "trees"])
    assert "lagrange_share" not in plain.to_json()["params"]


def test_leaves_keep_the_lagrangian_label_and_the_true_frequency():
    X, y, g = _rows(seed=3)
    tree = _loose(1.0).fit(X, y, sensitive_features=g)
    t = tree.tree_
    rows, leaves, w = t.route_rows(X)
    for leaf in np.unique(leaves):
        at = leaves == leaf
        assert t.value[leaf] == pytest.approx(np.sum(w[at] * y[rows[at]]) / np.sum(w[at]))
    # some leaf predicts against its training majority: the Lagrangian's label, not the frequency's
    labels = t.leaf_labels()[t.leaves()]
    assert np.any(labels != (np.asarray(t.value)[t.leaves()] > 0.5))
    # predict_proba is the vote of those labels, and the model file gives back the same model
    assert np.array_equal(tree.predict(X), (tree.predict_proba(X)[:, 1] > 0.5).astype(int))
    back = estimator_from_json(json.loads(json.dumps(tree.to_json())))
    assert back.lagrange_share == 1.0
    assert np.array_equal(back.predict_proba(X), tree.predict_proba(X))


def test_no_growth_on_the_lagrangian_without_a_bound_and_a_negative_share_is_refused():
    X, y, g = _rows(800, 4)
    pen = MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity", penalty=0.5),
                                     lagrange_share=1.0).fit(X, y, sensitive_features=g)
    assert "lagrange_multiplier" not in pen.fit_log_
    with pytest.raises(ValueError, match="lagrange_share must be a finite number of at least 0"):
        MissingAwareTreeClassifier(fairness=make_criterion("equal_opportunity", bound=0.1),
                                   lagrange_share=-0.5).fit(X, y, sensitive_features=g)
