"""The speed work on the boosting families changed no model: the same data and seed give the
model files that the code before it wrote.

``tests/fixtures/boosting_reference.json`` holds, per case of :func:`all_cases`, the SHA-256 of
the model file (sorted keys, the fit log without its timings; a tree's nodes for the grower),
written by this module (``python tests/models/test_boosting_same_models.py
--write``) from main at commit 2a516b9, before the speed work (issues 45 and 46).  The
``mp_boost`` entries were written again when its model file gained the Lagrange multiplier
(``multiplier``, the parameter ``multiplier_shares``, a multiplier per bound-search record),
after checking that every ``mp_boost`` file of the new code with those keys left out (and the
bound case fitted with ``multiplier_shares=()``, no multiplier searched) hashed to the entry
written at 2a516b9.  The cases are
random data with numeric columns of many and of few distinct values, categorical codes (more
codes than bins, too), missing values, every missing-value rule each learner supports, row
weights (the forest's bootstrap counts and random fractional weights given to the grower), the
fairness penalty and bound, early stopping, and both boosting variants.  Each case is fitted
again here, on the numpy path and, where numba is installed, on the compiled one
(:mod:`fairspec.models.tree.compiled`), and must give the stored file exactly: every float
equal, not close (a hash of the file's text says that and keeps the fixture small).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "boosting_reference.json"
STRATEGIES = ("mia", "trinary", "trinary_mia", "majority", "fractional", "none")


def table(seed: int, n: int = 360, missing: bool = True, n_codes: int = 40):
    """Columns: 0 many distinct values, 1 few (with ties), 2 categorical of 5 codes, 3 numeric,
    4 categorical of ``n_codes`` codes (some rare), 5 integers; a label that depends on them;
    two privileged columns (a group 0/1/2 and a noisy copy of the label's score); groups."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n).astype(float), rng.integers(0, 5, n),
                         rng.exponential(size=n), np.minimum(rng.geometric(0.12, n) - 1, n_codes - 1),
                         rng.integers(0, 30, n)]).astype(float)
    group = rng.integers(0, 3, n)
    score = X[:, 0] + 0.6 * (X[:, 2] == 1) - 0.3 * X[:, 1] + 0.5 * group + 0.2 * (X[:, 4] % 3) + rng.normal(size=n)
    y = (score > np.median(score)).astype(int)
    P = np.column_stack([group, score + rng.normal(scale=0.5, size=n)]).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.12] = np.nan
        P[rng.random(n) < 0.1, 1] = np.nan
    return X, y, group, P


def _strip(doc):
    """The model file without what depends on the clock."""
    if isinstance(doc, dict):
        return {k: _strip(v) for k, v in doc.items() if k not in ("seconds",)}
    if isinstance(doc, list):
        return [_strip(v) for v in doc]
    return doc


def _privileged_cases():
    from fairspec.registry.criteria import make_criterion

    cases = {}
    base = dict(n_rounds=12, max_depth=3, min_samples_leaf=8, categorical_features=[2, 4],
                privileged_categorical_features=[0])
    for name, extra, data in [
        ("plain", dict(alpha=0.0), {}),
        ("kbpib", {}, {}),
        ("jpib", dict(variant="jpib"), {}),
        ("jpib_every_round", dict(variant="jpib", validation_share=0.0, max_depth=4), {}),
        ("kbpib_teacher_privileged_only", dict(teacher_reads_features=False, alpha=0.5), {}),
        ("kbpib_few_bins_l2", dict(max_bins=8, l2=1.0, max_depth=4, validation_share=0.0), {}),
        ("kbpib_missing_none", dict(missing="none", max_depth=4), dict(missing=False)),
        ("jpib_penalty", dict(variant="jpib", validation_share=0.0,
                              fairness=make_criterion("equal_opportunity", penalty=2.0)), {}),
        ("kbpib_penalty_dp", dict(fairness=make_criterion("demographic_parity", penalty=5.0), learning_rate=0.5), {}),
        ("kbpib_bound", dict(fairness=make_criterion("equal_opportunity", 0.05)), {}),
        ("kbpib_early_stop", dict(n_rounds=80, learning_rate=0.3, patience=5, min_samples_leaf=2, max_depth=5), {}),
        ("plain_depth1_many_codes", dict(alpha=0.0, max_depth=1, max_bins=12), dict(n_codes=200, n=500)),
    ]:
        cases[f"privileged_boost/{name}"] = ("privileged", {**base, **extra}, data)
    return cases


def _mp_cases():
    from fairspec.registry.criteria import make_criterion

    cases = {}
    base = dict(n_rounds=10, max_depth=3, patch_rows=90, patch_features=4, categorical_features=[2, 4])
    for missing in STRATEGIES:
        data = {} if missing != "none" else dict(missing=False)
        cases[f"mp_boost/{missing}"] = ("mp", {**base, "missing": missing, "alpha": 0.0}, data)
        cases[f"mp_boost/{missing}_alpha"] = ("mp", {**base, "missing": missing, "alpha": 0.9,
                                                     "criterion": "entropy"}, data)
    cases["mp_boost/trinary_full_eo"] = ("mp", {**base, "missing": "trinary", "middle_growth": "full",
                                                "fairness": make_criterion("equal_opportunity", penalty=1.0)}, {})
    cases["mp_boost/bound_patience"] = ("mp", {**base, "n_rounds": 25, "patience": 4, "burn_in": 3,
                                               "min_samples_leaf": 3, "bound_alphas": [0.0, 0.5],
                                               "fairness": make_criterion("demographic_parity", 0.1)}, {})
    cases["mp_boost/defaults_depth2"] = ("mp", {"n_rounds": 15, "categorical_features": [2, 4], "alpha": 0.3}, {})
    return cases


def _tree_cases():
    from fairspec.registry.criteria import make_criterion

    cases = {}
    for missing in STRATEGIES:
        data = {} if missing != "none" else dict(missing=False)
        cases[f"tree/{missing}"] = ("tree", dict(missing=missing, max_depth=4, min_samples_leaf=3,
                                                 categorical_features=[2, 4], criterion="entropy"), data)
        cases[f"tree/{missing}_penalty"] = ("tree", dict(missing=missing, max_depth=3, categorical_features=[2, 4],
                                                         fairness=make_criterion("equalized_odds", penalty=0.5)), data)
        cases[f"regressor/{missing}"] = ("regressor", dict(missing=missing, max_depth=4, min_samples_leaf=2,
                                                           categorical_features=[2, 4]), data)
        cases[f"forest/{missing}"] = ("forest", dict(missing=missing, n_estimators=3, max_depth=3,
                                                     categorical_features=[2, 4], random_state=3,
                                                     fairness=make_criterion("demographic_parity", penalty=0.3)), data)
        cases[f"grow_tree/{missing}_weights"] = ("grow", dict(missing=missing), data)
    return cases


def all_cases() -> dict:
    return {**_privileged_cases(), **_mp_cases(), **_tree_cases()}


def fit_case(kind: str, params: dict, data: dict, seed: int = 7):
    X, y, group, P = table(seed, **data)
    if kind == "privileged":
        from fairspec.models.privileged_boost import PrivilegedBoostClassifier

        model = PrivilegedBoostClassifier(random_state=seed, **params).fit(X, y, group, privileged=P)
        return _strip(model.to_json())
    if kind == "mp":
        from fairspec.models.mp_boost import FairMPBoostClassifier

        model = FairMPBoostClassifier(random_state=seed, **params).fit(X, y, sensitive_features=group)
        return _strip(model.to_json())
    if kind in ("tree", "regressor", "forest"):
        from fairspec.models.missing_tree import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                                  MissingAwareTreeRegressor)

        cls = {"tree": MissingAwareTreeClassifier, "regressor": MissingAwareTreeRegressor,
               "forest": MissingAwareForestClassifier}[kind]
        target = P[:, 1].copy() if kind == "regressor" else y
        if kind == "regressor":
            target[np.isnan(target)] = 0.0
            model = cls(**params).fit(X, target)
        else:
            model = cls(**params).fit(X, target, group)
        return _strip(model.to_json())
    # the grower itself, on random fractional row weights and a fairness penalty
    from fairspec.models.tree.grow import GrowSettings, grow_tree
    from fairspec.models.tree.split_search import EncodedFeatures, SplitScorer, Task
    from fairspec.registry.criteria import make_criterion

    weights = np.random.default_rng(seed + 1).random(len(y)) * 2
    weights[::17] = 0.0
    enc = EncodedFeatures.encode(X, np.array([False, False, True, False, True, False]))
    task = Task("classification", "gini", 3)
    scorer = SplitScorer(task, params["missing"], 2, penalty=0.2,
                         rates=make_criterion("demographic_parity").rates)
    tree = grow_tree(enc, y.astype(float), weights, task, scorer, GrowSettings(4, 2, 2), groups=group)
    return _strip(json.loads(json.dumps(tree.to_nodes())))


def digest(doc) -> str:
    """SHA-256 of the document's JSON text with sorted keys (floats as Python writes them,
    which reads back to the same float)."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@pytest.fixture(scope="module")
def reference():
    return json.loads(FIXTURE.read_text())


def _compiled_modes():
    from fairspec.models.tree import compiled

    return [False, True] if compiled.available() else [False]


@pytest.mark.parametrize("name", sorted(all_cases()))
def test_same_model_as_before_the_speed_work(name, reference):
    from fairspec.models.tree import compiled

    kind, params, data = all_cases()[name]
    for use in _compiled_modes():
        with compiled.enabled(use):
            got = digest(fit_case(kind, params, data))
        assert got == reference[name], f"{name} ({'compiled' if use else 'numpy'} path) differs from the reference"


def main(argv) -> int:
    if argv[1:] != ["--write"]:
        print(__doc__)
        return 2
    import fairspec

    print(f"writing {FIXTURE} from {fairspec.__file__}")
    out = {name: digest(fit_case(*case)) for name, case in sorted(all_cases().items())}
    FIXTURE.write_text(json.dumps(out, sort_keys=True, indent=0) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
