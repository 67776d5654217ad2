"""The ``rule_set`` family: fair Boolean rule sets by column generation (FairCG).

A rule set is an OR of ANDs of literals (``age <= 25 AND priors_count > 3``): a row is
predicted positive when some rule covers it.  Learning follows Lawless and Günlük, "Fair
Decision Rules for Binary Classification" (2021), which extends the Boolean Decision Rules
via Column Generation of Dash, Günlük and Wei (NeurIPS 2018) with equal-opportunity and
equalized-odds rows; the final integer program is made *exact* so that the bound holds on
the returned classifier, not only in the relaxation (see :mod:`.master`).

Modules: :mod:`.binarize` (literals, missing values), :mod:`.master` (the Pyomo master),
:mod:`.pricing` (beam search and the pricing IP), :mod:`.column_generation` (the loop),
:mod:`.warm_start` (tree rules), :mod:`.estimator` (the scikit-learn estimator).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.base import clone

from fairspec.errors import DataError
from fairspec.models.rule_set.estimator import FairRuleSetClassifier, final_ip_exact_negatives

#: the emitted pricing problem is priced on a pattern subsample above this many rows of (21)
MAX_EMITTED_PRICING_ROWS = 200_000

__all__ = ["FairRuleSetClassifier", "build_estimator", "estimator_from_json", "emit_model"]


def build_estimator(recipe, criterion, solver, *, categorical_features, seed) -> FairRuleSetClassifier:
    """The family contract (:mod:`fairspec.models`): a configured, unfitted estimator."""
    params = dict(recipe.params)
    return FairRuleSetClassifier(
        max_complexity=int(params.get("max_complexity", 30)),
        max_conditions=int(params.get("max_conditions", 4)),
        thresholds=int(params.get("thresholds", 10)),
        complexity_cost=float(params.get("complexity_cost", 0.0)),
        missing="mia" if params.get("missing", "mia") == "mia" else "none",
        criterion=criterion,
        categorical_features=tuple(int(c) for c in categorical_features),
        time_limit=float(solver.time_limit),
        threads=int(solver.threads),
        mip_gap=float(solver.mip_gap),
        random_state=int(seed if seed is not None else solver.seed),
        clock_cap=bool(solver.clock_cap),
    )


def estimator_from_json(doc: dict) -> FairRuleSetClassifier:
    """Rebuild a fitted estimator from :meth:`FairRuleSetClassifier.to_json` (data only)."""
    return FairRuleSetClassifier.from_json(doc)


def pricing_path(path) -> Path:
    """``model.lp`` -> ``model.pricing.lp``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.pricing{path.suffix}")


def emit_model(estimator_or_params, X, y, sensitive_features, path) -> list[Path]:
    """Write the final master IP and one pricing problem as LP or MPS (by ``path``'s suffix).

    The master written is the exact restricted master IP (:func:`.master.build_master` with
    ``integer=True, exact=True``) over the warm-start rules on this data, with the fit's choice
    of exact negatives (:func:`.estimator.final_ip_exact_negatives`) — the final IP a fit whose
    pool held only those rules would solve, whose solution is the classifier; the pricing
    problem (:func:`.pricing.build_pricing_ip`) is priced with the duals of the paper's LP relaxation over the same rules.  The pricing
    problem goes to ``path`` with ``.pricing`` before the suffix; on large data (more than
    ``MAX_EMITTED_PRICING_ROWS`` rows of eq. 21) it is priced on a seeded subsample of the
    patterns, its weights scaled up by the share kept, as the fit does.  Returns both paths.
    """
    from fairspec.models.rule_set.master import build_master
    from fairspec.models.rule_set.column_generation import MasterLP
    from fairspec.models.rule_set.pricing import build_pricing_ip
    from fairspec.solvers.highs import HighsSession, write_model

    est = estimator_or_params
    # a copy: preparing the data sets the fitted column layout and classes, which on a fitted
    # estimator passed in had left its rules reading another layout (found in review)
    est = FairRuleSetClassifier(**est) if isinstance(est, dict) else clone(est)
    _, _, _, _, _, patterns, problem = est._prepare(X, y, sensitive_features)
    if patterns.literals.shape[1] == 0:
        raise DataError("the features give no condition on the training rows (each is constant there), so no "
                        "rule exists and there is no master or pricing problem to write")
    pool = est._warm_start_pool(patterns)
    merged = patterns.merged_by(pool.matrix()) if pool.rules else patterns
    master = build_master(problem, pool.matrix(), pool.complexities(), integer=True, exact=True,
                          exact_negatives=final_ip_exact_negatives(merged, problem.fairness))
    path = Path(path)
    write_model(master, str(path))
    lp = MasterLP(problem, pool, HighsSession(time_limit=30.0, threads=est.threads, seed=est.seed_))
    _, _, _, weights, penalty = lp.solve(30.0)
    if weights is None:  # pragma: no cover - the LP with ζ is always feasible
        weights, penalty = np.where(patterns.y == 1, -patterns.count, patterns.count), 0.0
    literals = patterns.literals
    rows = int((~literals[weights < 0]).sum())
    if rows > MAX_EMITTED_PRICING_ROWS:
        # as the fit prices large data on a row subsample, so does the emitted problem
        keep = np.random.default_rng(est.seed_).random(len(weights)) < MAX_EMITTED_PRICING_ROWS / rows
        # scaled up to the whole, as ColumnGenerator scales its subsample (``_sub_scale``), so
        # the objective is on the scale of the complexity price λ; unscaled, λ outweighed every
        # pattern and a rule with reduced cost −503 read +20.7 in the file (found in review)
        scale = patterns.count.sum() / patterns.count[keep].sum()
        literals, weights = literals[keep], weights[keep] * scale
    pricing = build_pricing_ip(literals, weights, penalty, max_conditions=est.max_conditions)
    out = pricing_path(path)
    write_model(pricing, str(out))
    return [path, out]
