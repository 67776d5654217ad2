"""The ``mp_boost`` family: Fair MP-Boost, boosting on adaptive minipatches (Little, Halder Lina
& Allen, arXiv 2404.01521, on MP-Boost by Toghani & Allen).

* :mod:`~fairspec.models.mp_boost.boosting` — the rounds: minipatches, trees, probabilities,
  out-of-patch early stopping;
* :mod:`~fairspec.models.mp_boost.importance` — impurity importance and FairTreeFIS of a tree;
* :mod:`~fairspec.models.mp_boost.adversary` — the adversary's row weights ``L_F``;
* :mod:`~fairspec.models.mp_boost.routing` — every training row through a round's tree, fast;
* :mod:`~fairspec.models.mp_boost.threshold` — the decision threshold that meets a bound;
* :mod:`~fairspec.models.mp_boost.estimator` — the scikit-learn estimator, JSON, read-out.

The weak learners are the missing-aware trees of :mod:`fairspec.models.tree`:
``recipe.params["missing"]`` is the plan's strategy (``mia``, ``trinary``, ``trinary_mia``,
``majority``, ``fractional``, or ``none`` when the data was imputed or its incomplete rows
dropped).  The spec's fairness line sets the trade-off α: ``penalty λ`` is ``α = λ / (1 + λ)``;
a bound ``<= ε`` is met on the training rows by the decision threshold, on the most accurate of
the models fitted at the estimator's ``bound_alphas`` and at Lagrange multipliers of the bound
(see :mod:`~fairspec.models.mp_boost.estimator`).
"""
from __future__ import annotations

from fairspec.models.mp_boost.estimator import FairMPBoostClassifier, alpha_of_penalty, estimator_from_json

__all__ = ["build_estimator", "estimator_from_json", "FairMPBoostClassifier", "alpha_of_penalty"]

_NOT_NATIVE = {"none", "impute", "drop", None}


def build_estimator(recipe, criterion, solver, *, categorical_features, seed):
    """The estimator a plan's ``model mp_boost { ... }`` recipe describes (see the package contract)."""
    params = dict(recipe.params)
    missing = params.get("missing", "mia")
    share = {0: None}  # 0 in a spec: the square root of the count
    return FairMPBoostClassifier(
        n_rounds=int(params.get("rounds", 200)),
        max_depth=int(params.get("depth", 2)),
        patch_rows=share.get(params.get("patch_rows", 0), params.get("patch_rows")),
        patch_features=share.get(params.get("patch_features", 0), params.get("patch_features")),
        learning_rate=float(params.get("learning_rate", 0.2)),
        adversary=params.get("adversary", "logistic"),
        patience=int(params.get("patience", 0)),
        burn_in=int(params.get("burn_in", 20)),
        min_samples_leaf=int(params.get("min_samples_leaf", 1)),
        criterion=params.get("criterion", "gini"),
        missing="none" if missing in _NOT_NATIVE else missing,
        middle_growth=params.get("middle_growth", "observed"),
        fairness=criterion,
        categorical_features=tuple(int(j) for j in (categorical_features or ())),
        random_state=int(seed),
    )
