"""The boosting plan ``fairspec compile`` prints for a boosting family, as it prints a solver's
settings for the others: which models are grown on which rows and columns, by which loss or
draw, how they stop and what is kept.

* ``model privileged_boost`` (:mod:`fairspec.models.privileged_boost.boosting` does it): which
  model is grown on which columns, by which loss, in which order, how it stops, what is kept;
* ``model mp_boost`` (:mod:`fairspec.models.mp_boost.boosting`): rounds and stopping rule,
  minipatch sizes, the weak trees, the learning rate, the trade-off α per fairness point, the
  adversary, the decision threshold and what is averaged.

Read from the plan alone (no data): the numbers are the recipe's, the columns the spec's, and a
size the spec leaves automatic (a minipatch's √N rows) is printed as the rule that sets it.
"""
from __future__ import annotations

from fairspec.errors import written_number
from fairspec.registry.families import MP_BOOST_BOUND_ALPHAS, mp_boost_alpha


def boosting_plan_lines(plan, mark) -> list[str]:
    """The ``boosting`` section of :meth:`fairspec.plan.plan.Plan.describe` (empty for a family
    that does not boost)."""
    if plan.model.family == "privileged_boost":
        return privileged_boost_lines(plan)
    if plan.model.family == "mp_boost":
        return mp_boost_lines(plan, mark)
    return []


def _columns(names: list[str], most: int = 4) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def privileged_boost_lines(plan) -> list[str]:
    """The ``boosting`` section of :meth:`fairspec.plan.plan.Plan.describe`."""
    p = plan.model.params
    features = [f.name for f in plan.data.features]
    privileged = [f.name for f in plan.data.privileged]
    alpha = float(p.get("alpha", 1.0))
    share = float(p.get("validation_share", 0.2))
    variant = p.get("variant", "kbpib")
    reads_features = bool(p.get("teacher_reads_features", True))
    usable = f"the {len(features)} features ({_columns(features)})"
    guided = bool(privileged) and alpha > 0
    if not guided:
        why = "no privileged block" if not privileged else "alpha 0: the privileged model would not change ψ"
        lines = [f"  boosting      plain gradient boosting ({why})", f"    ψ           {usable}, by the log loss"]
    else:
        teacher = _columns(privileged) + (f" and the {len(features)} features" if reads_features else " alone")
        distil = f"log loss + {written_number(alpha)}·KL(P_ψ' ‖ P_ψ): tree targets (y - p) + α(p' - p)"
        if variant == "jpib":
            lines = ["  boosting      JPIB (Yan et al. 2023): each round one tree on ψ', then one on ψ",
                     f"    ψ'          {teacher}, by log loss + {written_number(alpha)}·KL(P_ψ ‖ P_ψ'): "
                     f"pulled towards ψ",
                     f"    ψ           {usable}, by {distil}"]
        else:
            lines = ["  boosting      KbPIB (Yan et al. 2023): ψ' first, then ψ guided by it",
                     f"    1. ψ'       {teacher}, by the log loss",
                     f"    2. ψ        {usable}, by {distil}"]
    lines.append(f"    trees       up to {p.get('rounds', 200)} per model, histogram trees of depth "
                 f"{p.get('depth', 4)}, learning rate {written_number(p.get('learning_rate', 0.1))}, at least "
                 f"{p.get('min_samples_leaf', 20)} rows a leaf, Newton leaf values")
    if share > 0:
        watched = " of ψ" if guided and variant == "jpib" else " of each model"
        lines.append(f"    stopping    after {p.get('patience', 20)} trees without a better held-out loss{watched}; "
                     f"{written_number(share)} of the training rows held out (by label, seed {plan.solver.seed}), "
                     f"which train nothing")
    else:
        lines.append("    stopping    none (validation_share 0): every round is kept")
    for c in plan.fairness[:1]:
        if c.penalty is not None:
            lines.append(f"    fairness    λ·(the gap with predictions replaced by probabilities) joins ψ's loss, "
                         f"λ = {written_number(c.penalty)}")
        elif c.bound is not None:
            lines.append(f"    fairness    one decision threshold for every row, chosen on the training rows to meet "
                         f"{c.label()} (the model reads no group)")
    never_read = f": {_columns(privileged)} never read at prediction" if privileged else ""
    lines.append("    kept        ψ only" + never_read)
    return lines


ADVERSARY_TEXT = {
    "logistic": "logistic regression of the group on the new tree's output",
    "group_rates": "the group shares of each value of the new tree's output",
}


def _alpha_text(criterion) -> str:
    if criterion is None or not criterion.enforced:
        return "0 (no enforced fairness: plain MP-Boost)"
    if criterion.penalty is not None:
        return (f"{mp_boost_alpha(criterion.penalty):.6g} (penalty {written_number(criterion.penalty)}: "
                f"alpha = penalty / (1 + penalty))")
    alphas = ", ".join(f"{a:g}" for a in MP_BOOST_BOUND_ALPHAS)
    return (f"the most accurate of {alphas} once each model's threshold meets {criterion.label()} on the "
            f"training rows; at alpha {min(MP_BOOST_BOUND_ALPHAS):g} also Lagrange multipliers of the bound "
            f"(cost-sensitive targets, the reductions of Agarwal et al. 2018)")


def mp_boost_lines(plan, mark) -> list[str]:
    """The ``boosting`` section for ``model mp_boost``; ``mark(key)`` returns ``*`` for a
    setting the spec does not write."""
    p = plan.model.params
    n_features = len(plan.data.features)
    rows = ("sqrt(N) rows, N the training rows" if not p["patch_rows"] else f"{p['patch_rows']} rows") \
        + mark("model.patch_rows")
    m = p["patch_features"] or max(1, round(n_features ** 0.5))
    feats = (f"sqrt(M) = {min(m, n_features)} of the {n_features} features" if not p["patch_features"]
             else f"{min(m, n_features)} of the {n_features} features") + mark("model.patch_features")
    if p["patience"]:
        stop = (f"stop after {p['patience']}{mark('model.patience')} rounds without a better out-of-patch accuracy; "
                "keep the trees up to the latest round within one standard error of the best")
    else:
        stop = f"no early stopping (patience 0{mark('model.patience')}): every round is kept"
    criteria = list(plan.fairness) or [None]
    lines = ["  boosting",
             f"    rounds      up to {p['rounds']}{mark('model.rounds')}; {stop}",
             f"    minipatch   {rows} x {feats}, drawn without replacement with adaptive probabilities "
             "p (rows: exponential loss, and the adversary's) and q (features: impurity importance, and FairTreeFIS)",
             f"    tree        missing-aware, depth {p['depth']}{mark('model.depth')}, {p['criterion']}"
             f"{mark('model.criterion')}, min_samples_leaf {p['min_samples_leaf']}{mark('model.min_samples_leaf')}, "
             f"missing {plan.missing.label()}",
             f"    learning    rate {written_number(p['learning_rate'])}{mark('model.learning_rate')}: each tree adds "
             "rate x (2p - 1) of a row's leaf to its score; q moves by the same rate"]
    for i, c in enumerate(criteria):
        prefix = f"    alpha[{i}]    " if len(criteria) > 1 else "    alpha       "
        lines.append(prefix + _alpha_text(c))
    if any(c is not None and c.enforced for c in criteria):
        lines.append(f"    adversary   {ADVERSARY_TEXT.get(p['adversary'], p['adversary'])}{mark('model.adversary')}: "
                     "rows whose group it predicts well are drawn more often")
    if any(c is not None and c.bound is not None for c in criteria):
        lines.append("    threshold   the most accurate score threshold whose training gap meets the bound (one "
                     "threshold for all rows: prediction never reads the group)")
    else:
        lines.append("    threshold   0: predicts the positive class where the score is above 0")
    lines.append(f"    averages    p and q averaged over the kept rounds after the first {p['burn_in']}"
                 f"{mark('model.burn_in')}: the model's row influence and feature importance")
    return lines
