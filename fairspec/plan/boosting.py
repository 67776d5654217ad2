"""The boosting plan ``fairspec compile`` prints for a boosting family, as it prints a solver's
settings for the others: rounds and stopping rule, minipatch sizes, the weak trees, the
learning rate, the trade-off α per fairness point, the adversary and the decision threshold.

It reads the plan's numbers only (the data's row count is not known before the split), so a
size the spec leaves automatic is printed as the rule that sets it.
"""
from __future__ import annotations

from fairspec.errors import written_number
from fairspec.registry.families import FAMILIES, MP_BOOST_BOUND_ALPHAS, mp_boost_alpha
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
            f"training rows")


def boosting_plan_lines(plan, mark) -> list[str]:
    """The ``boosting`` block of :meth:`~fairspec.plan.plan.Plan.describe` (empty for a family
    that does not boost); ``mark(key)`` returns ``*`` for a setting the spec does not write."""
    if plan.model.family != "mp_boost":
        return []
    p = plan.model.params
    n_features = len(plan.data.features)
    rows = (f"sqrt(N) rows, N the training rows" if not p["patch_rows"] else f"{p['patch_rows']} rows") \
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


def uses_boosting_plan(family: str) -> bool:
    return family in FAMILIES and family == "mp_boost"
