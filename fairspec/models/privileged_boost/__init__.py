"""The ``privileged_boost`` family: gradient boosting with privileged information, KbPIB and
JPIB (Yan, Odom, Pasunuri, Kersting & Natarajan, Frontiers in AI 2023).

Privileged features (the spec's ``privileged { ... }`` block) are read while training only:
a model ``ψ'`` on them guides the model ``ψ`` on the usable features through
``α·KL(P_ψ' ‖ P_ψ)``, and only ``ψ`` is kept, so the model file and every prediction read the
usable features alone.

* :mod:`.objective` — the losses, their gradients and Newton Hessians (derivations), and the
  differentiable fairness surrogate;
* :mod:`.boosting` — the KbPIB and JPIB loops and early stopping;
* :mod:`.threshold` — a fairness bound met by the decision threshold;
* :mod:`.estimator` — the scikit-learn estimator, its model file and read-out;
* :mod:`fairspec.models.tree.histogram` — the weak learner.

``recipe.params["missing"]`` is the plan's strategy: ``mia``, or ``none`` when the pipeline
imputed or dropped missing values before the model saw them.  The pipeline passes the
privileged columns' categorical indices as ``recipe.params["privileged_categorical"]``.
"""
from __future__ import annotations

from fairspec.models.privileged_boost.estimator import PrivilegedBoostClassifier, estimator_from_json

__all__ = ["build_estimator", "estimator_from_json", "PrivilegedBoostClassifier"]


def build_estimator(recipe, criterion, solver, *, categorical_features, seed):
    """The estimator a plan's ``model privileged_boost { ... }`` recipe describes."""
    params = dict(recipe.params)
    missing = params.get("missing", "mia")
    return PrivilegedBoostClassifier(
        variant=params.get("variant", "kbpib"),
        alpha=float(params.get("alpha", 1.0)),
        n_rounds=int(params.get("rounds", 200)),
        max_depth=int(params.get("depth", 4)),
        learning_rate=float(params.get("learning_rate", 0.1)),
        patience=int(params.get("patience", 20)),
        validation_share=float(params.get("validation_share", 0.2)),
        teacher_reads_features=bool(params.get("teacher_reads_features", True)),
        min_samples_leaf=int(params.get("min_samples_leaf", 20)),
        missing="mia" if missing == "mia" else "none",
        categorical_features=tuple(int(j) for j in (categorical_features or ())),
        privileged_categorical_features=tuple(int(j) for j in params.get("privileged_categorical", ())),
        fairness=criterion,
        random_state=int(seed),
    )
