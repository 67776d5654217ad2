"""The ``mip_forest`` family: fair trees of fixed depth, each a MIP over candidate splits with
the missing direction chosen inside it, on stratified batches, by majority vote (Fair MIP
Forest: Jeong, Wang & Calmon, "Fairness without Imputation: A Decision Tree Approach for Fair
Prediction with Missing Values", AAAI 2022).

Modules: :mod:`.candidates` (splits, merged rows), :mod:`.objective` (the loss, the rates, the
gap), :mod:`.formulation` (the Pyomo MIP), :mod:`.dynamic_programme` (exact trees for linear
costs, the Lagrangian bound, greedy), :mod:`.local_search` (moves with exact relabelling),
:mod:`.tree_fit` (one tree: starts, bound, MIP), :mod:`.estimator` (the forest, JSON,
``describe``).  ``docs/families/mip_forest.md`` is the reference.
"""
from __future__ import annotations

from pathlib import Path

from sklearn.base import clone

from fairspec.errors import DataError
from fairspec.models.mip_forest.estimator import FairMIPForestClassifier

__all__ = ["FairMIPForestClassifier", "build_estimator", "estimator_from_json", "emit_model"]


def build_estimator(recipe, criterion, solver, *, categorical_features, seed) -> FairMIPForestClassifier:
    """The family contract (:mod:`fairspec.models`): a configured, unfitted estimator."""
    params = dict(recipe.params)
    return FairMIPForestClassifier(
        n_trees=int(params.get("trees", 30)),
        max_depth=int(params.get("depth", 3)),
        batch_size=int(params.get("batch_size", 1000)),
        thresholds=int(params.get("thresholds", 10)),
        missing="mia" if params.get("missing", "mia") == "mia" else "none",
        criterion=criterion,
        categorical_features=tuple(int(c) for c in categorical_features),
        time_limit=float(solver.time_limit),
        mip_gap=float(solver.mip_gap),
        threads=int(solver.threads),
        random_state=int(seed if seed is not None else solver.seed),
        clock_cap=bool(solver.clock_cap),
    )


def estimator_from_json(doc: dict) -> FairMIPForestClassifier:
    """Rebuild a fitted estimator from :meth:`FairMIPForestClassifier.to_json` (data only)."""
    return FairMIPForestClassifier.from_json(doc)


def emit_model(estimator_or_params, X, y, sensitive_features, path) -> list[Path]:
    """Write the first tree's MIP (:func:`.formulation.build_tree_mip`) as LP or MPS, by
    ``path``'s suffix: the problem the fit hands HiGHS for that tree, on that tree's batch, with
    the dual bound of its heuristics as the cut (8).  (When the heuristics' start reaches that
    bound the fit proves it optimal without HiGHS; the file is still the MIP it would solve.)"""
    from fairspec.models.mip_forest.formulation import build_tree_mip
    from fairspec.models.mip_forest.tree_fit import heuristics, tree_problem
    from fairspec.solvers.highs import write_model

    est = estimator_or_params
    est = FairMIPForestClassifier(**est) if isinstance(est, dict) else clone(est)
    _, _, _, _, _, tasks = est._tasks(X, y, sensitive_features)
    task = tasks[0]
    problem = tree_problem(task)
    if problem.left.shape[1] == 0:
        raise DataError("no candidate split divides the first tree's batch (every feature is constant on its rows), "
                        "so there is no tree to choose and no MIP to write")
    found, _ = heuristics(problem, task.depth)
    model = build_tree_mip(problem.left, problem.objective, task.depth, lower_bound=found.bound)
    path = Path(path)
    write_model(model, str(path))
    return [path]
