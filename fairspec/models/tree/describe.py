"""The text of a missing-aware tree (``describe``): one line per branch condition, leaves with
label, p and n.  Apart from the estimators, so that a saved tree's text is checked at loading
(:mod:`fairspec.models.tree.scorer`) without importing scikit-learn."""
from __future__ import annotations

import numpy as np

from fairspec.models.readout import category_text, feature_text, number_text
from fairspec.models.tree.grow import TreeStructure
from fairspec.models.tree.split_search import ROUTE_NAMES, VOTE_TOL


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def describe_tree(tree: TreeStructure, feature_names=None, categories=None, *, classification=True,
                  classes=None, imputed=False) -> list[str]:
    """Indented rendering: one line per branch condition, leaves with label, p and n.

    ``classes``: a classifier's two labels (its ``classes_``); a leaf shows the one it predicts,
    as ``predict`` returns it.  None shows the leaves' 0/1 votes (1 the positive class).  A
    leaf whose label the fairness relabelling changed from its training majority says so:
    read by hand, ``leaf: 1 (p=0.32)`` is otherwise a mistake.  A Trinary third child says
    that it was grown on all of its node's rows (so its leaves' ``n`` count rows the other
    children count too).  ``imputed``: every missing value (and every category training
    never saw, read as one) is filled in before the tree sees it, so nothing is said of where
    a missing value goes.  A category training saw but a node's rows did not still takes that
    node's route for a missing value: where one can arrive, the text says where it goes."""
    categories = categories or {}
    labels = tree.leaf_labels()
    relabelled = (np.zeros(len(labels), dtype=bool) if tree.leaf_label is None
                  else labels != (np.asarray(tree.value) > 0.5 + VOTE_TOL))
    classes = [0, 1] if classes is None else list(classes)
    lines: list[str] = []

    def raw_name(j):
        return feature_names[j] if feature_names is not None else f"x{j}"

    def name(j):  # as the text shows it; categories are keyed by the name itself
        return feature_text(raw_name(j))

    def names_of(j):
        return categories.get(j) or categories.get(raw_name(j)) if isinstance(categories, dict) else None

    def cat_names(j, codes):
        return "{" + ", ".join(category_text(c, names_of(j)) for c in codes) + "}"

    def others_unlisted(j, *listed) -> bool:
        """Whether a category outside ``listed`` can reach this split: one the node's training
        rows did not hold (routed as a missing value), or, without the category names, any
        code the caller may pass."""
        names = names_of(j)
        shown = {float(c) for codes in listed for c in codes}
        return names is None or any(float(c) not in shown for c in range(len(names)))

    def walk(i, indent):
        pad = "  " * indent
        if tree.feature[i] < 0:
            if classification:
                why = "; relabelled for the fairness bound" if relabelled[i] else ""
                lines.append(f"{pad}leaf: {classes[int(labels[i])]}  (p={tree.value[i]:.2f}, n={tree.n[i]}{why})")
            else:
                lines.append(f"{pad}leaf: {_fmt(tree.value[i])}  (n={tree.n[i]})")
            return
        j = tree.feature[i]
        route = tree.route[i]
        categorical = tree.left_codes[i] is not None
        # a category the split does not list goes where a missing value goes
        other = categorical and others_unlisted(j, tree.left_codes[i], tree.right_codes[i])
        if imputed:  # no missing value arrives; an unlisted category still can
            missing = "another category" if other else None
        else:
            missing = "missing, or another category" if other else "missing"
        if tree.present_vs_missing[i]:
            present = f"{name(j)} in {cat_names(j, tree.left_codes[i])}" if other else f"{name(j)} is present"
            conds = (present, f"{name(j)} is {missing or 'missing'}")
            notes = ("", "")
        else:
            if categorical:
                conds = (f"{name(j)} in {cat_names(j, tree.left_codes[i])}",
                         f"{name(j)} in {cat_names(j, tree.right_codes[i])}")
            else:
                # the cut the tree applies, not a rounding of it (:.6g printed 1234567.5 as 1.23457e+06)
                cut = number_text(tree.threshold[i])
                conds = (f"{name(j)} < {cut}", f"{name(j)} >= {cut}")
            if ROUTE_NAMES[route] == "left":
                notes = (f"   (or {missing})", "")
            elif ROUTE_NAMES[route] == "right":
                notes = ("", f"   (or {missing})")
            elif ROUTE_NAMES[route] == "fractional":
                # exact weights: rounded to 0.50 / 0.50, a row with p 0.99 / 0.01 read as a tie
                # the model (weight 0.502) does not have
                fl = tree.frac_left[i]
                notes = (f"   ({missing}: weight {number_text(fl)})", f"   ({missing}: weight {number_text(1 - fl)})")
            else:
                notes = ("", "")
            if missing is None:
                notes = ("", "")
        lines.append(pad + conds[0] + notes[0])
        walk(tree.left[i], indent + 1)
        lines.append(pad + conds[1] + notes[1])
        walk(tree.right[i], indent + 1)
        if tree.middle[i] >= 0:
            m = tree.middle[i]
            how = (f"grown on all {tree.n[i]} rows of this node" if tree.n[m] > 0 or tree.feature[m] >= 0 else
                   f"no training row here was missing {name(j)}: the node's own p")
            lines.append(f"{pad}{name(j)} is {missing}   (third child, {how})")
            walk(tree.middle[i], indent + 1)

    walk(0, 0)
    return lines
