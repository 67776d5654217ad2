"""The ``tree`` family: missing-aware greedy trees and forests (MIA, Trinary, TrinaryMIA,
majority, fractional cases), with fairness as a split penalty or an exact leaf relabelling.

Implementation in :mod:`fairspec.models.tree`:

* :mod:`~fairspec.models.tree.split_search` — vectorised split search, the five missing-value
  rules and the fairness penalty (with its derivation);
* :mod:`~fairspec.models.tree.grow` — growth (Trinary's middle child) and routing;
* :mod:`~fairspec.models.tree.relabel` — the leaf-relabelling MIP (Pyomo + HiGHS);
* :mod:`~fairspec.models.tree.estimators` — the scikit-learn estimators, JSON, ``describe``.

``recipe.params["missing"]`` carries the plan's strategy: ``mia``, ``trinary``,
``trinary_mia``, ``majority``, ``fractional``, or ``none``/``impute``/``drop`` when the data
was imputed or its incomplete rows dropped before the tree saw it; in that case a value that
is still missing at prediction goes to the child with more training rows (``majority``).
"""
from __future__ import annotations

from fairspec.models.tree.estimators import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                             MissingAwareTreeRegressor, describe_tree, estimator_from_json)

__all__ = ["build_estimator", "estimator_from_json", "MissingAwareTreeClassifier", "MissingAwareTreeRegressor",
           "MissingAwareForestClassifier", "describe_tree"]

_NOT_NATIVE = {"none", "impute", "drop", None}


def build_estimator(recipe, criterion, solver, *, categorical_features, seed):
    """The estimator a plan's ``model tree { ... }`` recipe describes (see the package contract)."""
    params = dict(recipe.params)
    missing = params.get("missing", "mia")
    missing = "none" if missing in _NOT_NATIVE else missing
    common = dict(
        max_depth=int(params.get("depth", 5)),
        min_samples_leaf=int(params.get("min_samples_leaf", 1)),
        min_samples_split=int(params.get("min_samples_split", 2)),
        criterion=params.get("criterion", "gini"),
        missing=missing,
        categorical_features=tuple(int(j) for j in (categorical_features or ())),
        fairness=criterion,
        time_limit=float(solver.time_limit),
        mip_gap=float(solver.mip_gap),
        threads=int(solver.threads),
        random_state=int(seed),
        clock_cap=bool(solver.clock_cap),
        lagrange_share=float(params.get("multiplier") or 0.0),
    )
    if "middle_growth" in params:
        common["middle_growth"] = params["middle_growth"]
    forest = params.get("forest")
    if forest:
        return MissingAwareForestClassifier(
            n_estimators=int(forest.get("trees", 50)),
            max_features=forest.get("max_features", "sqrt"),
            bootstrap=bool(forest.get("bootstrap", True)),
            n_jobs=int(solver.threads),
            **common,
        )
    return MissingAwareTreeClassifier(**common)
