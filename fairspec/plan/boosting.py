"""The boosting plan ``fairspec compile`` prints for ``model privileged_boost``: which model is
grown on which columns, by which loss, in which order, how it stops, and what is kept
(:mod:`fairspec.models.privileged_boost.boosting` does it).

Read from the plan alone (no data): the numbers are the recipe's, the columns the spec's.
"""
from __future__ import annotations

from fairspec.errors import written_number


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
