"""Reference side of the Trinary conformance check: runs the paper's own package.

Runs ONLY under the reference virtual environment (see ``benchmarks/README.md``)::

    /opt/trinary-venv/bin/python benchmarks/trinary_reference.py fixture
    /opt/trinary-venv/bin/python benchmarks/trinary_reference.py time --csv data/law.csv.gz \
        --target pass_bar --positive 1 --features LSAT,UGPA,ZFYA,race,sex --depth 5

``trinary-tree`` 0.1.22 (Zakrisson, "Trinary Decision Trees for handling missing data",
arXiv:2309.03561) pins numpy 1.24.3, pandas 2.0.2 and scikit-learn 1.2.2 and crashes under
pandas 3, so fairspec never imports it: ``fixture`` writes its answers on small seeded data to
``tests/fixtures/trinary_reference.json`` (committed data, read by the tests), and ``time``
prints one JSON line that ``benchmarks/trees.py`` reads through a subprocess.  This module
imports ``trinary_tree`` lazily so that importing it elsewhere does not fail.

What the reference does (read from the installed 0.1.22 sources)
================================================================

Files: ``trinary_tree/trinary_tree.py`` (class ``TrinaryTree``),
``trinary_tree/trinary_mia_tree.py`` (class ``TrinaryMiaTree``),
``trinary_tree/binary_tree.py`` (``BinaryTree``, ``missing_rule`` ``"majority"`` or ``"mia"``),
``trinary_tree/weighted_tree.py`` (``WeightedTree``, C4.5 fractional cases) and the shared
helpers in ``trinary_tree/common/functions.py``.

API.  ``TrinaryTree(min_samples_leaf=20, max_depth=2)`` and
``TrinaryMiaTree(min_samples_leaf=20, max_depth=2)``; ``fit(X, y)`` with a DataFrame (or
array) ``X`` and a Series ``y``; ``predict(X)`` returns labels, ``predict(X, prob=True)`` a
DataFrame of class probabilities with one column per label.  The *dtype of y selects the
task* (``fit_response``/``calculate_loss`` in ``common/functions.py``): float/int ``y`` is
regression (mean, squared error), anything else (we pass the strings ``"0"``/``"1"``) is
classification.  Integer columns of ``X`` are cast to float (``fix_datatypes``); a float column
is numeric, an ``object`` column is categorical.

Nodes and stopping (``check_terminal_node``).  The root has ``depth`` 0.  A node is a leaf if
``depth >= max_depth`` or ``n <= min_samples_leaf`` (note ``<=``: a node holding exactly
``min_samples_leaf`` rows is not split), or if no candidate split beats the node's own loss.
``min_samples_leaf`` is the package's name and our fixture's key; its meaning is: a candidate
split is illegal if its left or its right child gets fewer than ``min_samples_leaf`` of the
node's rows (``_calculate_split_loss`` returns the node's own loss for it, which can never win).
The middle (missing) child is never counted.  In the MIA variant with missing sent left or
right, the missing rows count towards that side.

Candidate splits (``get_splitter_candidates``).  Numeric: the midpoints of consecutive
distinct non-missing values of the node's rows, computed as
``x.drop_duplicates().sort_values().rolling(2).mean().dropna()`` (pandas' running-sum
mean: in the fixture 2 of 387 thresholds are one ulp below ``(a + b) / 2``, e.g.
``1.1349999999999998`` for 1.09 and 1.18, so compare thresholds with a tolerance); left is
``x < t``, right is ``x >= t``, NaN is neither (``get_indices``).  Categorical: every
non-empty proper subset of the node's observed categories as the left set
(``itertools.combinations`` over sizes ``1..k-1``, categories in order of first appearance
among the node's rows), the rest right, so each partition is tried twice, mirrored (equal
loss; the smaller left set is met first and wins).  The search is exhaustive (``2^k - 2``
candidates), and because the criterion below is not CART's, the usual shortcut of ordering
categories by their positive rate is not guaranteed to find the same optimum.  A category
outside both sets (unseen in training, or NaN) is "missing": it goes to the middle child
(Trinary) or the default side (MIA).  A feature that is all NaN at the node is skipped.
There is no "missing vs present" candidate (no threshold below the minimum), in any
variant: MIA here means thresholds at observed midpoints with the missing rows sent left or
right.

Leaf estimate (``fit_response``).  ``categories`` is fixed at the root as
``list(y.unique())``, i.e. the labels in order of FIRST APPEARANCE in ``y_train``, and passed
down; each node stores ``y_prob[label] = share of its training rows`` (unweighted, except
``WeightedTree``) and ``y_hat = max(y_prob, key=y_prob.get)`` (tie: first label in that order).
``predict`` returns ``y_prob.idxmax(axis=1)``: a probability of exactly 0.5 gives the label that
appears first in ``y_train`` (recorded as ``label_order`` in the fixture).

QUIRK 1 — classification loss is a SUM.  ``calculate_xe`` returns
``sum(-w * log(p + 1e-30))`` over the rows, not the mean (the regression loss
``calculate_mse`` *is* a mean).  ``_calculate_split_loss`` then multiplies each child's loss
by its row count and divides by the node's count ``n``::

    split_loss = (n_L * S_L + n_R * S_R + n_M * S_M) / n

where ``S_c = sum_{i in c} -log(p_c(y_i) + 1e-30)`` with ``p_c`` the child's own class shares
for left/right, and the NODE's (parent's) shares ``self.y_prob`` for the middle rows
(Algorithm 1: missing rows scored with the parent's estimate).  So the split that is chosen
minimises ``sum_c n_c * S_c = sum_c n_c^2 * H_c`` (``H_c`` the mean cross-entropy), not
CART's ``sum_c n_c * H_c``; with regression it is the usual ``sum_c n_c * MSE_c / n``.
``_find_split`` starts from ``loss_best = self.loss = S_node`` (the node's SUM) and keeps a
candidate only if ``split_loss < loss_best`` (strict).  Because each child's own shares
minimise its sum cross-entropy, ``S_L + S_R + S_M <= S_node``, and every child has fewer rows
than the node (``min_samples_leaf >= 1``), so ``sum_c n_c S_c / n < S_node`` for EVERY legal
candidate of an impure node: the "no improvement" stop never fires on an impure node, and a
node is split iff it is impure (``S_node > 0``), ``depth < max_depth``,
``n > min_samples_leaf`` and some candidate is legal.  The ``1e-30`` never matters in
training (every row's label has positive share in the set it is scored against).

Tie-breaking.  Strict ``<`` keeps the FIRST best candidate in scan order: features in column
order, then thresholds ascending (categorical subsets in the combinations order above), then
(MIA) default sides in the order ``left, middle, right``.

QUIRK 2 — the middle child (``TrinaryTree.fit``).  Left/right children get the rows with
``x < t`` / ``x >= t`` at ``depth + 1``.  The middle child is fitted on ALL the node's rows
(``X_middle = X.copy(); X_middle[feature] = np.nan``; same ``y``) at the SAME depth as the
node (``_initiate_daughter_nodes`` passes ``depth=self.depth``).  Its estimate therefore
equals the node's own, and below it the blanked feature is all NaN and is never split again;
since each middle level removes one feature, the recursion ends.  Only the rows really missing
the feature are passed along as ``X_true``/``y_true``, which the package uses for
``n_true``/``loss_true``/feature importance only, never to choose a split or an estimate.
The middle child is grown even when NO training row misses the feature at that node, so a
value missing only at prediction time still follows a subtree learned without that feature.
Left and right get only the rows where the feature is present; the rows missing it reach
only the middle child (where they are a subset of its rows).

``TrinaryMiaTree`` (``trinary_mia_tree.py``).  For each feature and threshold it tries
default sides ``["left", "middle", "right"]`` if the feature has a missing value among the
node's rows, else only ``["middle"]`` (``_get_default_split_candidates``).  ``left``/``right``
add the missing rows to that child (which is then scored with its own estimate and counts
for ``min_samples_leaf``); ``middle`` is exactly the Trinary split above, with a middle child
grown the same way (all rows, feature blanked, same depth).  With ``left``/``right`` there is
no middle child and missing values at prediction follow the default side.  Same sum loss,
same strict-``<`` scan.  So "the better of MIA and Trinary" is decided per candidate threshold
by the quirky split loss above, which strongly favours ``middle``: sending the ``n_M`` missing
rows left costs ``(n_L + n_M) S_{L+M} >= (n_L + n_M)(S_L + S_M')`` (``S_M'`` = the missing
rows scored with their own shares), against ``n_L S_L + n_M S_M`` for ``middle``, so ``left``
can win only if ``n_M S_L + n_L S_M' + n_M S_M' < n_M S_M``, i.e. when the left child and the
missing rows are both almost pure.  In the fixture ``TrinaryMiaTree`` chose ``middle`` in 182
of 185 splits (``left`` 3 times, all in ``highmiss_d3``), even under strongly informative
missingness (``informative_strong_d2``, where ``BinaryTree(missing_rule="mia")`` reaches a much
lower training loss).  A "better of MIA and Trinary by mean training loss" implementation will
therefore NOT match the package's trees; match its criterion to reproduce them.

Prediction (``predict``).  Routes rows by ``get_indices`` (with ``default_split`` for MIA);
rows that are neither left nor right go to the middle child; a leaf returns its ``y_prob``.
Probabilities are class shares of the leaf's training rows (for a middle leaf: all rows of the
node chain above it), never smoothed.

Extras in the fixture (for the ``majority``, ``mia`` and ``fractional`` strategies; not
required by issue 3's conformance test).  ``BinaryTree(missing_rule="majority")``: missing goes
to the child with more non-missing rows (strict ``>`` for left, so a tie goes right).
``BinaryTree(missing_rule="mia")``: default side ``left`` or ``right`` (in that order) if the
node has missing values of the feature, else the majority rule; no middle child.  Both use the
same sum loss with the missing rows counted in their side.  ``WeightedTree`` (C4.5): a missing
row goes to both children with weights ``p_L, p_R`` = shares of the NON-MISSING row COUNTS
(not weights); estimates and the sum loss are weighted; ``n`` is the weight sum; the
``min_samples_leaf`` check uses the rows' incoming weights (not multiplied by ``p``); prediction
of a missing value mixes the two subtrees with ``p_L, p_R``.

Fixture format (``tests/fixtures/trinary_reference.json``)
===========================================================

Top level: ``{"generator", "versions": {package: version}, "notes", "cases": [...]}``.
Each case::

    name, description, seed
    feature_names          ["x0", ...]
    categorical_features   column indices holding integer category codes 0..k-1 (passed to
                           the package as strings, i.e. as its categorical features)
    depth                  the package's max_depth (root is depth 0; middle children do not
                           add depth)
    min_samples_leaf       the package's min_samples_leaf (meaning above)
    X_train, X_test        row-major lists, null for NaN; X_test has missing values in
                           features that had none in training and a row missing everything;
                           its numeric values are a quarter grid step off the training
                           values (+0.0025, +0.025, +0.25), so none lies on a threshold
    y_train                0/1 ints
    label_order            labels in order of first appearance in y_train (the tie rule)
    models: {trinary, trinary_mia, binary_majority, binary_mia, weighted} each with
        class, params        the package class and constructor arguments used
        train / test         {"label": [0/1], "proba": [P(y=1)], "ties": [row indices with
                              P(y=1) == 0.5, where "label" follows label_order]}
        loss                 {"package_sum_log_loss": sum over leaves of the package's
                              loss_true, i.e. its own SUM cross-entropy of the training rows
                              where they are routed (trinary/trinary_mia; for the binary and
                              weighted trees the sum over leaves of the leaf's loss),
                              "root_loss": the root node's SUM cross-entropy (its loss_best
                              start), "mean_log_loss": our mean of -log(p(y_i)+1e-30) from
                              predict(prob=True) on X_train, "zero_one": our training 0-1 loss}
        n_nodes, n_leaves
        tree                 nodes depth-first (node, then left, middle, right) as dicts:
            path             "" for the root, then "L"/"M"/"R" per step
            depth            the package's depth attribute
            n                rows (weight sum for weighted) the node was fitted on; for a
                             middle node this includes the rows that are not missing
            n_true           (trinary variants only) training rows that really reach it
            p1               its P(y=1) estimate
            loss             its SUM cross-entropy on its n rows
            leaf             true/false; for a split also:
            feature          column index
            threshold        numeric: left if x < threshold (exact float from the package)
            left, right      categorical: the category codes sent left / right
            missing          "middle", "left" or "right" (weighted: "both")
            split_loss       the package's _calculate_split_loss of the chosen split,
                             recomputed on the node's rows (the quantity it minimised)
            p_left           (weighted only) the share p_L a missing row sends left

The file holds no timings, so regenerating it with the same package versions gives the same
bytes.  Probabilities are rounded to 9 decimals and losses to 10 significant digits to keep
the file small; leaf shares are ratios of small integers, so the rounding is far below any
tolerance.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PATH = REPO_ROOT / "tests" / "fixtures" / "trinary_reference.json"
LOG_EPS = 1e-30  # the package's eps in calculate_xe

# Each case: feature kinds, missingness in training, test missingness, tree size.
#   kind "normal2": N(0,1) rounded to 2 decimals; "normal1": to 1 decimal;
#   "int10": integers 0..9; "cat3"/"cat4": category codes 0..k-1.
#   train_missing: list of (feature, mechanism, rate or (rate_if_y0, rate_if_y1))
#     "mcar": missing completely at random; "label": probability depends on y (informative);
#     "value": the rows with the largest values are likelier to be missing (MNAR).
CASES = [
    dict(name="stump_mcar", seed=101, n_train=60, n_test=40,
         kinds=["normal2", "int10"],
         train_missing=[(0, "mcar", 0.3), (1, "mcar", 0.3)],
         test_missing=0.25, depth=1, min_samples_leaf=1,
         description="depth-1 stump, 30% MCAR in both features"),
    dict(name="mcar_d2", seed=202, n_train=120, n_test=60,
         kinds=["normal2", "normal2", "int10"],
         train_missing=[(0, "mcar", 0.2), (1, "mcar", 0.2)],
         test_missing=0.2, depth=2, min_samples_leaf=5,
         description="20% MCAR in x0, x1; x2 complete in training, missing in test"),
    dict(name="informative_d3", seed=303, n_train=200, n_test=80,
         kinds=["normal2", "int10", "normal2"],
         train_missing=[(0, "label", (0.1, 0.4)), (1, "mcar", 0.1)],
         test_missing=0.2, depth=3, min_samples_leaf=10,
         description="x0 missing with p=0.1 if y=0 and 0.4 if y=1 (informative); "
                     "10% MCAR in x1; x2 complete in training"),
    dict(name="categorical_d2", seed=404, n_train=150, n_test=60,
         kinds=["normal2", "cat4", "int10"],
         train_missing=[(0, "mcar", 0.15), (1, "mcar", 0.15), (2, "mcar", 0.15)],
         test_missing=0.2, depth=2, min_samples_leaf=5,
         description="4-level categorical x1; 15% MCAR in every feature"),
    dict(name="mnar_d4", seed=505, n_train=240, n_test=60,
         kinds=["int10", "int10", "normal1", "cat3"],
         train_missing=[(0, "value", 0.3), (2, "mcar", 0.1)],
         test_missing=0.15, depth=4, min_samples_leaf=20,
         description="x0 missing more often when large (30% overall, MNAR); 10% MCAR in x2; "
                     "x1, x3 complete in training"),
    dict(name="highmiss_d3", seed=606, n_train=250, n_test=80,
         kinds=["normal2", "cat3", "int10"],
         train_missing=[(0, "mcar", 0.4), (1, "mcar", 0.4), (2, "mcar", 0.4)],
         test_missing=0.4, depth=3, min_samples_leaf=15,
         description="40% MCAR in every feature, 3-level categorical x1"),
    dict(name="informative_strong_d2", seed=707, n_train=160, n_test=60,
         kinds=["normal2", "normal2", "int10"],
         train_missing=[(0, "label", (0.05, 0.6)), (1, "label", (0.5, 0.05)),
                        (2, "mcar", 0.1)],
         test_missing=0.3, depth=2, min_samples_leaf=5,
         description="strongly informative: x0 missing mostly when y=1, x1 mostly when y=0; "
                     "10% MCAR in x2"),
]


TEST_OFFSET = {"normal2": 0.0025, "normal1": 0.025, "int10": 0.25}


def _draw_features(rng: np.random.Generator, kinds: list[str], n: int) -> np.ndarray:
    columns = []
    for kind in kinds:
        if kind == "normal2":
            columns.append(rng.normal(size=n).round(2))
        elif kind == "normal1":
            columns.append(rng.normal(size=n).round(1))
        elif kind == "int10":
            columns.append(rng.integers(0, 10, size=n).astype(float))
        elif kind.startswith("cat"):
            columns.append(rng.integers(0, int(kind[3:]), size=n).astype(float))
        else:
            raise ValueError(f"unknown feature kind {kind!r}")
    return np.column_stack(columns)


def _draw_labels(rng: np.random.Generator, X: np.ndarray, kinds: list[str],
                 weights: np.ndarray, category_effects: list[np.ndarray]) -> np.ndarray:
    logit = np.full(len(X), -0.2)
    for j, kind in enumerate(kinds):
        if kind.startswith("cat"):
            logit += category_effects[j][X[:, j].astype(int)]
        elif kind == "int10":
            logit += weights[j] * (X[:, j] - 4.5) / 2.9
        else:
            logit += weights[j] * X[:, j]
    return (rng.random(len(X)) < 1.0 / (1.0 + np.exp(-logit))).astype(int)


def make_case(spec: dict) -> dict:
    """Seeded data of one case: X_train (NaN for missing), y_train, X_test."""
    rng = np.random.default_rng(spec["seed"])
    kinds = spec["kinds"]
    p = len(kinds)
    weights = rng.choice([-1.0, 1.0], size=p) * rng.uniform(0.6, 1.6, size=p)
    category_effects = [rng.normal(scale=1.2, size=int(k[3:])) if k.startswith("cat") else None
                        for k in kinds]
    X_train = _draw_features(rng, kinds, spec["n_train"])
    y_train = _draw_labels(rng, X_train, kinds, weights, category_effects)
    X_test = _draw_features(rng, kinds, spec["n_test"])
    # A quarter grid step off the training grid: no test value can then sit on (or one ulp
    # from) a split threshold, a midpoint of training values that pandas' rolling mean may
    # round differently from (a + b) / 2.
    X_test += np.array([TEST_OFFSET.get(kind, 0.0) for kind in kinds])

    for feature, mechanism, rate in spec["train_missing"]:
        if mechanism == "mcar":
            prob = np.full(len(X_train), rate)
        elif mechanism == "label":
            prob = np.where(y_train == 1, rate[1], rate[0])
        elif mechanism == "value":
            ranks = X_train[:, feature].argsort().argsort() / (len(X_train) - 1)
            prob = 2 * rate * ranks  # mean rate, rising with the value
        else:
            raise ValueError(f"unknown mechanism {mechanism!r}")
        X_train[rng.random(len(X_train)) < prob, feature] = np.nan

    X_test[rng.random(X_test.shape) < spec["test_missing"]] = np.nan
    X_test[0, :] = np.nan  # a row missing everything
    complete_in_train = [j for j in range(p) if not np.isnan(X_train[:, j]).any()]
    for row, j in enumerate(complete_in_train, start=1):
        X_test[row, j] = np.nan  # missing only at prediction time
    return dict(X_train=X_train, y_train=y_train, X_test=X_test)


def _to_frame(X: np.ndarray, categorical: list[int]) -> pd.DataFrame:
    """The package's view: floats for numeric columns, strings (object) for categories."""
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], dtype=float)
    for j in categorical:
        codes = X[:, j]
        frame[f"x{j}"] = pd.Series(
            [None if np.isnan(c) else str(int(c)) for c in codes], dtype=object)
    return frame


MODELS = {
    "trinary": ("TrinaryTree", {}),
    "trinary_mia": ("TrinaryMiaTree", {}),
    "binary_majority": ("BinaryTree", {"missing_rule": "majority"}),
    "binary_mia": ("BinaryTree", {"missing_rule": "mia"}),
    "weighted": ("WeightedTree", {}),
}


def _make_model(class_name: str, extra: dict, depth: int, min_samples_leaf: int):
    import trinary_tree

    cls = getattr(trinary_tree, class_name)
    return cls(max_depth=depth, min_samples_leaf=min_samples_leaf, **extra)


def _round_sig(value: float, digits: int = 10) -> float:
    return float(f"{value:.{digits}g}")


def _node_splitter(node, categorical_names: set[str]) -> dict:
    column = int(node.feature[1:])
    if node.feature in categorical_names:
        return {"feature": column,
                "left": sorted(int(c) for c in node.splitter["left"]),
                "right": sorted(int(c) for c in node.splitter["right"])}
    return {"feature": column, "threshold": float(node.splitter)}


def _dump_tree(model_key: str, root, X: pd.DataFrame, y: pd.Series,
               categorical_names: set[str]) -> list[dict]:
    """Walk the fitted tree depth-first, re-routing the training rows exactly as ``fit`` did,
    so that each split's criterion can be recomputed with the package's own method."""
    from trinary_tree.common.functions import get_indices

    nodes: list[dict] = []

    def visit(node, X_node: pd.DataFrame, y_node: pd.Series, w_node, path: str) -> None:
        n_node = float(w_node.sum()) if w_node is not None else len(y_node)
        if abs(n_node - node.n) > 1e-9:
            raise RuntimeError(f"re-routing disagrees with fit at node {path!r}")
        record = {
            "path": path,
            "depth": int(node.depth),
            "n": _round_sig(float(node.n)) if w_node is not None else int(node.n),
        }
        if w_node is None and model_key.startswith("trinary"):
            record["n_true"] = int(getattr(node, "n_true", node.n))
        record.update({
            "p1": round(float(node.y_prob.get("1", 0.0)), 9),
            "loss": _round_sig(float(node.loss)),
            "leaf": node.left is None,
        })
        nodes.append(record)
        if node.left is None:
            return
        record.update(_node_splitter(node, categorical_names))
        x = X_node[node.feature]
        if model_key == "weighted":
            record["missing"] = "both"
            record["split_loss"] = _round_sig(float(
                node._calculate_split_loss(X_node, y_node, w_node, node.feature, node.splitter)))
            left, right = get_indices(x, node.splitter)
            missing = ~left & ~right
            w_left, w_right = w_node.copy(), w_node.copy()
            w_left[missing] *= node.p_left
            w_right[missing] *= node.p_right
            record["p_left"] = round(float(node.p_left), 12)
            left, right = left | missing, right | missing
            visit(node.left, X_node[left], y_node[left], w_left[left], path + "L")
            visit(node.right, X_node[right], y_node[right], w_right[right], path + "R")
            return
        default = node.default_split if model_key != "trinary" else "middle"
        record["missing"] = default
        if model_key == "trinary":
            split_loss = node._calculate_split_loss(X_node, y_node, node.feature, node.splitter)
            left, right = get_indices(x, node.splitter)
        else:
            split_loss = node._calculate_split_loss(
                X_node, y_node, node.feature, node.splitter, default)
            left, right = get_indices(x, node.splitter, default_split=default)
        record["split_loss"] = _round_sig(float(split_loss))
        visit(node.left, X_node[left], y_node[left], None, path + "L")
        if default == "middle":
            X_middle = X_node.copy()
            X_middle[node.feature] = np.nan
            visit(node.middle, X_middle, y_node, None, path + "M")
        visit(node.right, X_node[right], y_node[right], None, path + "R")

    weights = pd.Series(1.0, index=y.index) if model_key == "weighted" else None
    visit(root, X, y, weights, "")
    return nodes


def _leaf_loss_sum(model_key: str, root) -> float:
    total = 0.0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.left is None:
            total += node.loss_true if model_key.startswith("trinary") else node.loss
            continue
        stack.extend([node.left, node.right])
        if getattr(node, "middle", None) is not None:
            stack.append(node.middle)
    return float(total)


def _predictions(model, frame: pd.DataFrame, label_order: list[int]) -> tuple[dict, np.ndarray]:
    proba = model.predict(frame, prob=True)["1"].to_numpy(dtype=float)
    labels = model.predict(frame).astype(int).to_numpy()
    ties = np.flatnonzero(proba == 0.5)
    # Sanity: the package's idxmax agrees with "p > 0.5, tie -> first label in y_train".
    expected = np.where(proba > 0.5, 1, np.where(proba < 0.5, 0, label_order[0]))
    if not np.array_equal(labels, expected):
        raise RuntimeError("package labels disagree with the documented rule")
    return {"label": labels.tolist(), "proba": [round(float(v), 9) for v in proba],
            "ties": ties.tolist()}, proba


def run_case(spec: dict) -> dict:
    import warnings

    data = make_case(spec)
    categorical = [j for j, kind in enumerate(spec["kinds"]) if kind.startswith("cat")]
    categorical_names = {f"x{j}" for j in categorical}
    frame_train = _to_frame(data["X_train"], categorical)
    frame_test = _to_frame(data["X_test"], categorical)
    y_train = data["y_train"]
    y_series = pd.Series(y_train.astype(str), dtype=object)
    label_order = [int(v) for v in pd.unique(y_series)]

    def nan_to_null(X: np.ndarray) -> list:
        return [[None if np.isnan(v) else float(v) for v in row] for row in X]

    case = {
        "name": spec["name"], "description": spec["description"], "seed": spec["seed"],
        "feature_names": [f"x{j}" for j in range(len(spec["kinds"]))],
        "categorical_features": categorical,
        "depth": spec["depth"], "min_samples_leaf": spec["min_samples_leaf"],
        "X_train": nan_to_null(data["X_train"]), "y_train": y_train.tolist(),
        "X_test": nan_to_null(data["X_test"]),
        "label_order": label_order, "models": {},
    }
    for key, (class_name, extra) in MODELS.items():
        model = _make_model(class_name, extra, spec["depth"], spec["min_samples_leaf"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas FutureWarnings from the package
            start = time.perf_counter()
            model.fit(frame_train, y_series)
            seconds = time.perf_counter() - start
            train, train_proba = _predictions(model, frame_train, label_order)
            test, _ = _predictions(model, frame_test, label_order)
            tree = _dump_tree(key, model, frame_train, y_series, categorical_names)
        p_true = np.where(y_train == 1, train_proba, 1.0 - train_proba)
        mean_log_loss = float(np.mean(-np.log(p_true + LOG_EPS)))
        package_sum = _leaf_loss_sum(key, model)
        if key != "weighted" and abs(package_sum - mean_log_loss * len(y_train)) > 1e-6:
            raise RuntimeError(f"{key}: leaf loss sum disagrees with predictions")
        case["models"][key] = {
            "class": class_name,
            "params": {"max_depth": spec["depth"],
                       "min_samples_leaf": spec["min_samples_leaf"], **extra},
            "train": train, "test": test,
            "loss": {"package_sum_log_loss": _round_sig(package_sum),
                     "root_loss": _round_sig(float(model.loss)),
                     "mean_log_loss": _round_sig(mean_log_loss),
                     "zero_one": _round_sig(float(np.mean(
                         np.asarray(train["label"]) != y_train)))},
            "n_nodes": len(tree), "n_leaves": sum(node["leaf"] for node in tree),
            "tree": tree,
        }
        print(f"{spec['name']:>16} {key:>16}: {seconds:6.2f} s, {len(tree)} nodes",
              file=sys.stderr)
    return case


def _versions() -> dict:
    from importlib.metadata import version

    return {name: version(name)
            for name in ("trinary-tree", "numpy", "pandas", "scikit-learn")}


def write_fixture(path: Path) -> None:
    document = {
        "generator": "/opt/trinary-venv/bin/python benchmarks/trinary_reference.py fixture",
        "versions": _versions(),
        "notes": "Answers of the trinary-tree package (the Trinary paper's code) on seeded "
                 "data; the format and the package's quirks are documented in "
                 "benchmarks/trinary_reference.py.",
        "cases": [run_case(spec) for spec in CASES],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)", file=sys.stderr)


def time_fit(args: argparse.Namespace) -> dict:
    """One fit of the package on a CSV, timed; string columns are its categorical features."""
    import warnings

    frame = pd.read_csv(args.csv)
    if args.rows is not None and args.rows < len(frame):
        frame = frame.sample(n=args.rows, random_state=args.seed).reset_index(drop=True)
    features = args.features.split(",")
    X = frame[features].copy()
    for column in features:
        if pd.api.types.is_numeric_dtype(X[column]):
            X[column] = X[column].astype(float)
        else:
            X[column] = X[column].astype(object)
    target = frame[args.target]
    if pd.api.types.is_numeric_dtype(target):
        positive = target.astype(float) == float(args.positive)
    else:
        positive = target.astype(str) == args.positive
    y = pd.Series(np.where(positive, "1", "0"), dtype=object)
    class_name, extra = MODELS[args.model]
    model = _make_model(class_name, extra, args.depth, args.min_samples_leaf)
    result = {"fit_seconds": None, "finished": False, "rows": len(X),
              "positives": int(positive.sum()), "depth": args.depth,
              "model": args.model, "min_samples_leaf": args.min_samples_leaf,
              "features": features, "trinary_tree": _versions()["trinary-tree"]}
    if args.time_limit is not None:
        signal.signal(signal.SIGALRM, _raise_time_limit)
        signal.setitimer(signal.ITIMER_REAL, args.time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        try:
            model.fit(X, y)
        except _TimeLimitReached:
            # A lower bound, not a fit time: the caller must say "> time_limit".
            result["time_limit"] = args.time_limit
            return result
        seconds = time.perf_counter() - start
    signal.setitimer(signal.ITIMER_REAL, 0)
    result.update(fit_seconds=round(seconds, 3), finished=True)
    return result


class _TimeLimitReached(Exception):
    pass


def _raise_time_limit(signum, frame):
    raise _TimeLimitReached


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fixture = commands.add_parser("fixture", help="write the conformance fixture")
    fixture.add_argument("--out", type=Path, default=FIXTURE_PATH)
    timing = commands.add_parser("time", help="time one fit, print one JSON line")
    timing.add_argument("--csv", required=True)
    timing.add_argument("--target", required=True)
    timing.add_argument("--positive", required=True,
                        help="value of the target column that is the positive class")
    timing.add_argument("--features", required=True, help="comma-separated column names")
    timing.add_argument("--depth", type=int, default=5)
    timing.add_argument("--min-samples-leaf", type=int, default=20,
                        help="the package's min_samples_leaf (its default is 20)")
    timing.add_argument("--model", choices=sorted(MODELS), default="trinary")
    timing.add_argument("--rows", type=int, default=None,
                        help="fit on a random sample of this many rows")
    timing.add_argument("--seed", type=int, default=0)
    timing.add_argument("--time-limit", type=float, default=None,
                        help="stop the fit after this many seconds and print "
                             '"fit_seconds": null, "finished": false, "time_limit": S')
    args = parser.parse_args(argv)
    if args.command == "fixture":
        write_fixture(args.out)
    else:
        print(json.dumps(time_fit(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
