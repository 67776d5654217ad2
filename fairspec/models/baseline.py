"""Impute-then-learn baselines: a scikit-learn decision tree or logistic regression.

Every paper this project implements compares against "impute the missing values, then fit a
standard learner"; this family is that comparison.  It enforces no fairness criterion (the
criterion, if any, is audited by the metrics stage).

Categorical columns arrive as integer codes and are one-hot encoded inside the estimator.
After fitting, the scikit-learn model is converted to plain numbers (tree arrays, or the
coefficients of the linear score) and *prediction always runs on those numbers*, so a model
rebuilt from ``model.json`` predicts exactly as the one that was trained.
"""
from __future__ import annotations

import time

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from fairspec.errors import DataError
from fairspec.models.inputs import (binary_labels, categorical_indices, feature_matrix, fit_or_keep, refuse_missing,
                                   seed_of)
from fairspec.models.model_file import (check_tree_links, class_labels, feature_indices, feature_names_to_json,
                                        is_integer, json_values, labels_to_json, number, params_at_fit, record_params,
                                        restore_feature_names, show)
from fairspec.models.readout import (category_text, column_names, feature_text, number_text, shown_classes,
                                     signed_number_text)

#: the model file's layout; a loader refuses any other (files without the entry are version 1)
FORMAT_VERSION = 1


class BaselineClassifier(ClassifierMixin, BaseEstimator):
    """Decision tree or L2 logistic regression on imputed, one-hot encoded features.

    Parameters
    ----------
    learner : {"tree", "logistic"}
    depth : int
        Maximum depth of the tree learner.
    min_samples_leaf : int
    C : float
        Inverse regularisation strength of the logistic learner.
    categorical_features : sequence of int
        Columns of ``X`` that hold category codes (one-hot encoded before learning).
    random_state : int, None (the seed 0) or a numpy ``RandomState`` (one draw); the tree
        learner's tie-breaking
    """

    def __init__(self, learner="tree", depth=5, min_samples_leaf=1, C=1.0, categorical_features=(),
                 random_state=0):
        self.learner = learner
        self.depth = depth
        self.min_samples_leaf = min_samples_leaf
        self.C = C
        self.categorical_features = categorical_features
        self.random_state = random_state

    # -- encoding ---------------------------------------------------------------
    def _expand(self, X: np.ndarray) -> np.ndarray:
        """One-hot the categorical codes (per ``self.layout_``); numeric columns pass through.

        Filled in place, column by column: stacked from a list of columns, the matrix was held
        twice, 0.9 GB at once to score a million rows with a 50-level category."""
        Z = np.empty((len(X), len(self.layout_)))
        for k, entry in enumerate(self.layout_):
            j = entry["column"]
            Z[:, k] = X[:, j] if entry["code"] is None else X[:, j] == entry["code"]
        return Z

    @staticmethod
    def _complete(X: np.ndarray) -> np.ndarray:
        """``X`` when it has no missing value: neither learner has a rule for one, at fit or at
        predict (logistic regression would score NaN, the tree would send it right)."""
        return refuse_missing(X, "the baseline family needs complete data",
                              "declare `missing impute(...)` or `missing drop`")

    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        X = self._complete(feature_matrix(X, self, reset=True))
        self.classes_, y = binary_labels(y, X.shape[0], self)
        self.seed_ = seed_of(self.random_state)
        categorical = set(categorical_indices(self.categorical_features, self, X.shape[1]))
        self.layout_ = []
        for j in range(X.shape[1]):
            if j in categorical:
                self.layout_ += [{"column": j, "code": float(c)} for c in np.unique(X[:, j])]
            else:
                self.layout_.append({"column": j, "code": None})
        Z = self._expand(X)
        if self.learner == "tree":
            from sklearn.tree import DecisionTreeClassifier

            ranks, values = _dense_ranks(Z)
            model = DecisionTreeClassifier(max_depth=self.depth, min_samples_leaf=self.min_samples_leaf,
                                           random_state=self.seed_).fit(ranks, y)
            t = model.tree_
            thresholds = _cuts_in_values(t, model.decision_path(ranks).tocsc(), ranks, values)
            proba = t.value[:, 0, :] / t.value[:, 0, :].sum(axis=1, keepdims=True)
            positive = list(model.classes_).index(1) if 1 in model.classes_ else None
            self.tree_ = {
                "left": t.children_left.tolist(), "right": t.children_right.tolist(),
                "feature": t.feature.tolist(), "threshold": thresholds,
                "p_positive": (proba[:, positive] if positive is not None else np.zeros(t.node_count)).tolist(),
                "n": t.n_node_samples.tolist(),
            }
        elif self.learner == "logistic":
            from sklearn.linear_model import LogisticRegression
            if len(np.unique(y)) < 2:
                # binary_labels accepts all-0 or all-1 labels, and the tree learner fits a
                # constant to them; a logistic model of one class would need an infinite
                # intercept, which no model file holds (scikit-learn raised its own error here)
                raise DataError(f"the logistic learner needs both classes among the training rows, which hold "
                                f"one class only ({self.classes_.tolist()[int(y[0])]!r})")
            # Standardising numeric columns keeps lbfgs well conditioned; the scaling is folded
            # back into the coefficients so the stored model reads in the data's own units.
            # The moments are taken of each column divided by its largest magnitude: a column of
            # values near 1e308 (finite, so accepted) overflowed its variance to inf, zeroed its
            # coefficient and printed numpy's overflow warning even under -q.
            magnitude = np.abs(Z).max(axis=0)
            magnitude[magnitude == 0] = 1.0
            mean = (Z / magnitude).mean(axis=0) * magnitude
            scale = (Z / magnitude).std(axis=0) * magnitude
            numeric = np.array([e["code"] is None for e in self.layout_])
            mean[~numeric] = 0.0
            scale[~numeric | (scale == 0)] = 1.0
            model = LogisticRegression(C=self.C, max_iter=2000).fit(Z / scale - mean / scale, y)
            coef = model.coef_[0] / scale
            self.linear_ = {"coef": coef.tolist(), "intercept": float(model.intercept_[0] - (coef * mean).sum())}
        else:
            raise ValueError(f"unknown learner {self.learner!r}")
        # scikit-learn's tree (seeded) and lbfgs logistic regression never look at the clock
        self.fit_log_ = {"status": "fitted", "mip_gap": None, "seconds": round(time.perf_counter() - start, 3),
                         "learner": self.learner, "reproducible": True, "cut_by_clock": []}
        record_params(self)
        return self

    def predict_proba(self, X):
        check_is_fitted(self, "layout_")
        X = self._complete(feature_matrix(X, self, reset=False))
        Z = self._expand(X)
        if params_at_fit(self)["learner"] == "tree":
            t = self.tree_
            node = np.zeros(len(Z), dtype=int)
            left, right = np.array(t["left"]), np.array(t["right"])
            feature, threshold = np.array(t["feature"]), np.array(t["threshold"])
            active = left[node] >= 0
            while active.any():
                idx = np.flatnonzero(active)
                go_left = Z[idx, feature[node[idx]]] <= threshold[node[idx]]
                node[idx] = np.where(go_left, left[node[idx]], right[node[idx]])
                active = left[node] >= 0
            p = np.array(t["p_positive"])[node]
        else:
            p = expit(_linear_score(Z, np.array(self.linear_["coef"], dtype=float), self.linear_["intercept"]))
        return np.column_stack([1 - p, p])

    def predict(self, X):
        positive = self.predict_proba(X)[:, 1] > 0.5  # first: it says when the model is not fitted
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # the positive class is classes_[1]
        return tags

    # -- model file ---------------------------------------------------------------
    def to_json(self) -> dict:
        check_is_fitted(self, "layout_")
        params = json_values(params_at_fit(self))
        params["categorical_features"] = list(categorical_indices(params["categorical_features"], self,
                                                                  self.n_features_in_))
        params["random_state"] = getattr(self, "seed_", params["random_state"])  # a RandomState is no JSON
        doc = {"kind": "baseline", "format_version": FORMAT_VERSION, "params": params, "layout": self.layout_,
               "n_features_in": self.n_features_in_, **feature_names_to_json(self),
               "classes": labels_to_json(self.classes_)}
        if params["learner"] == "tree":
            doc["tree"] = self.tree_
        else:
            doc["linear"] = self.linear_
        return doc

    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        """The tree's branches or the logistic score's terms; columns named by ``feature_names``,
        else by the DataFrame ``fit`` saw, else ``x0``, ``x1``, ...; classes by ``class_names``
        (negative, positive), else ``classes_``.  ``imputed`` is accepted as every family's
        read-out takes it: this text says nothing of missing values either way.

        Coefficients print exactly: a term in the data's units can be small and still decide
        rows (``credit_amount``'s -3.35e-5 per unit, up to -0.62 on the score, had printed as
        -0.0000, and the printed scorecard gave another decision on 36 of 1,000 rows)."""
        check_is_fitted(self, "layout_")
        feature_names = column_names(self, feature_names)
        negative, positive = classes = shown_classes(self, class_names)

        def column_name(k, op="=="):
            e = self.layout_[k]
            name = feature_text(feature_names[e["column"]]) if feature_names is not None else f"x{e['column']}"
            if e["code"] is None:
                return name
            return f"{name} {op} {category_text(e['code'], (categories or {}).get(e['column']))}"

        if params_at_fit(self)["learner"] == "logistic":
            lines = [f"logistic score = {signed_number_text(self.linear_['intercept'])}"]
            order = np.argsort(-np.abs(self.linear_["coef"]), kind="stable")
            for k in order:
                lines.append(f"    {signed_number_text(self.linear_['coef'][k])} * [{column_name(k)}]")
            lines.append(f"predict {positive} when score > 0, else {negative}")
            return lines
        t = self.tree_
        lines: list[str] = []

        def walk(node, indent):
            pad = "  " * indent
            if t["left"][node] < 0:
                p = t["p_positive"][node]
                lines.append(f"{pad}leaf: {classes[int(p > 0.5)]}  (p={p:.2f}, n={t['n'][node]})")
                return
            k = t["feature"][node]
            e = self.layout_[k]
            if e["code"] is None:
                cut = number_text(t["threshold"][node])  # the cut applied, not a rounding of it
                below, above = f"{column_name(k)} <= {cut}", f"{column_name(k)} > {cut}"
            else:  # a one-hot column: left is "not this category"
                below, above = column_name(k, "!="), column_name(k)
            lines.append(pad + below)
            walk(t["left"][node], indent + 1)
            lines.append(pad + above)
            walk(t["right"][node], indent + 1)

        walk(0, 0)
        return lines


def _dense_ranks(Z: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each column of ``Z`` as the rank of its value among the column's distinct values
    (0, 1, 2, ...), and those sorted distinct values.

    scikit-learn's tree casts ``X`` to float32.  A finite value past float32's largest (3.4e38,
    so 1e39) became infinity and the fit failed ("Input X contains infinity"), though the
    checker had accepted it; and a value with no exact float32 (16777219) was split in float32
    and then routed by :meth:`BaselineClassifier.predict_proba` in float64, on the other side
    of its own cut, so the tree misrouted its own training rows (both found in review).  On
    the ranks, exact in float32 up to 2**24 distinct values a column, the tree sees the order
    of the values and nothing else, which is all a split uses: the same splits and, where the
    float32 cast kept every value distinct, the same tree."""
    ranks = np.empty_like(Z, dtype=float)
    values = []
    for j in range(Z.shape[1]):
        distinct, rank = np.unique(Z[:, j], return_inverse=True)
        ranks[:, j] = rank
        values.append(distinct)
    return ranks, values


def _cuts_in_values(tree, paths, ranks: np.ndarray, values: list[np.ndarray]) -> list[float]:
    """The thresholds of ``tree`` (fitted on the :func:`_dense_ranks` ``ranks``) in the
    columns' own units; ``paths`` is its decision path of the training rows (CSC).

    scikit-learn cuts a node between the two nearest values its rows hold, at their midpoint.
    On ranks that midpoint (12 between ranks 10 and 14) does not say which values it lay
    between, so they are read from the node's rows, and the cut is the midpoint of those two
    values: scikit-learn's cut, computed in float64 instead of between float32 roundings.
    Halves first, so two values near 1.8e308 do not overflow their sum; when the two are
    adjacent floats the midpoint rounds to the upper one, and the lower value is the cut
    (``x <= cut`` must hold for the lower value and fail for the upper one).  Leaves keep
    scikit-learn's placeholder threshold."""
    cuts = tree.threshold.tolist()
    for node, (feature, threshold) in enumerate(zip(tree.feature, tree.threshold)):
        if tree.children_left[node] < 0:
            continue
        held = ranks[paths.indices[paths.indptr[node]:paths.indptr[node + 1]], feature]
        lower = values[feature][int(held[held <= threshold].max())]
        upper = values[feature][int(held[held > threshold].min())]
        middle = lower / 2 + upper / 2
        cuts[node] = float(middle if lower <= middle < upper else lower)
    return cuts


def _linear_score(Z: np.ndarray, coef: np.ndarray, intercept: float) -> np.ndarray:
    """``Z @ coef + intercept``, never NaN for finite inputs.

    Finite terms can still overflow: two columns near 1e308 with coefficients +10 and -10 sum
    to inf - inf, and the row's score was NaN, printed as an empty score under exit 0 (with
    numpy's overflow warning even under -q).  Only such rows are recomputed, with every term
    divided by the row's largest value and the largest weight, where no sum can overflow; the
    quotient is then scaled back, to an infinity at worst, which ``expit`` reads as 0 or 1.  The
    other rows keep the plain sum, so no score of an ordinary row moves by a rounding."""
    with np.errstate(over="ignore", invalid="ignore"):
        score = Z @ coef + intercept
        bad = np.isnan(score)
        if bad.any():
            weights = np.append(coef, intercept)
            terms = np.column_stack([Z[bad], np.ones(int(bad.sum()))])
            w_scale = max(float(np.abs(weights).max()), np.finfo(float).tiny)
            row_scale = np.maximum(np.abs(terms).max(axis=1), np.finfo(float).tiny)
            score[bad] = (terms / row_scale[:, None]) @ (weights / w_scale) * w_scale * row_scale
    return score


def build_estimator(recipe, criterion, solver, *, categorical_features, seed):
    p = recipe.params
    return BaselineClassifier(learner=p.get("learner", "tree"), depth=p.get("depth", 5),
                              min_samples_leaf=p.get("min_samples_leaf", 1), C=p.get("C", 1.0),
                              categorical_features=tuple(categorical_features), random_state=seed)


def estimator_from_json(doc: dict) -> BaselineClassifier:
    """The fitted estimator ``to_json`` wrote; ``ValueError`` saying what is wrong otherwise.

    A model file comes from outside: ``predict_proba`` walks the tree's child links until a
    leaf and indexes columns by the stored numbers, so links that loop would never end and
    indices out of range would crash at predict time.  Everything it reads is checked here.
    """
    if not isinstance(doc, dict) or doc.get("kind") != "baseline":
        raise ValueError(f"not a baseline model: kind {doc.get('kind') if isinstance(doc, dict) else None!r}")
    # files written before the baseline recorded its version have none: they are version 1
    version = doc.get("format_version", FORMAT_VERSION)
    if not is_integer(version) or version != FORMAT_VERSION:
        raise ValueError(f"baseline model format {show(version)} is not {FORMAT_VERSION}")
    if not isinstance(doc.get("params"), dict):
        raise ValueError("'params' must be an object")
    params = dict(doc["params"])
    if params.get("learner", "tree") not in ("tree", "logistic"):
        raise ValueError(f"learner must be 'tree' or 'logistic', got {show(params['learner'])}")
    n_features = doc.get("n_features_in")
    if not is_integer(n_features) or n_features < 1:
        raise ValueError(f"n_features_in must be a positive integer, got {show(n_features)}")
    categorical = feature_indices(params.get("categorical_features", []), "categorical_features", n_features)
    params["categorical_features"] = categorical
    try:
        est = BaselineClassifier(**params)
    except TypeError as exc:  # a parameter this version does not have
        raise ValueError(f"params: {exc}") from None
    est.layout_ = _layout_from_json(doc.get("layout"), n_features, set(categorical))
    est.n_features_in_ = n_features
    restore_feature_names(est, doc, n_features)
    est.classes_ = class_labels(doc.get("classes"))
    width = len(est.layout_)
    if est.learner == "tree":
        est.tree_ = _tree_from_json(doc.get("tree"), est.layout_)
    else:
        linear = doc.get("linear")
        if not isinstance(linear, dict):
            raise ValueError("a logistic baseline needs a 'linear' object")
        coef = linear.get("coef")
        if not isinstance(coef, list) or len(coef) != width:
            raise ValueError(f"linear.coef must be a list of {width} numbers (one per layout column)")
        # no bound on their size: a coefficient is in the data's units, and a column of values
        # near 1e-300 fits one near 3e300; _linear_score keeps even ±1e308 from scoring NaN
        est.linear_ = {"coef": [number(c, "linear.coef") for c in coef],
                       "intercept": number(linear.get("intercept"), "linear.intercept")}
    est.fit_log_ = {}
    record_params(est)
    return est


def _layout_from_json(layout, n_features: int, categorical: set) -> list[dict]:
    # fit writes one pass-through column per numeric feature and one indicator per category
    # code of a categorical feature; a column of another kind would read the wrong values
    if not isinstance(layout, list) or not layout:
        raise ValueError("layout must be a non-empty list of columns")
    out = []
    for k, e in enumerate(layout):
        if not isinstance(e, dict) or not is_integer(e.get("column")) or not 0 <= e["column"] < n_features:
            raise ValueError(f"layout[{k}] must name a feature column 0..{n_features - 1}")
        code = e.get("code")
        if (code is None) == (e["column"] in categorical):
            raise ValueError(f"layout[{k}]: feature {e['column']} is "
                             + ("categorical but has no category code" if code is None
                                else "numeric but has a category code"))
        if code is not None:
            code = number(code, f"layout[{k}].code", 0.0)
        out.append({"column": e["column"], "code": code})
    return out


def _tree_from_json(tree, layout: list[dict]) -> dict:
    width = len(layout)
    keys = ("left", "right", "feature", "threshold", "p_positive", "n")
    if not isinstance(tree, dict) or not all(isinstance(tree.get(k), list) for k in keys):
        raise ValueError(f"tree must be an object with lists {', '.join(keys)}")
    m = len(tree["left"])
    if m == 0 or any(len(tree[k]) != m for k in keys):
        raise ValueError("tree lists must be non-empty and of one length; got "
                         + ", ".join(f"{k} {len(tree[k])}" for k in keys))
    left, right, feature, n = (list(tree[k]) for k in ("left", "right", "feature", "n"))
    for k, values in (("left", left), ("right", right), ("feature", feature), ("n", n)):
        # the position, not the value, says whether one is bad: a bad value may itself be null
        bad = next((i for i, v in enumerate(values) if not is_integer(v)), None)
        if bad is not None:
            raise ValueError(f"tree.{k} must hold integers, got {show(values[bad])}")
    threshold = [number(t, "tree.threshold") for t in tree["threshold"]]
    p_positive = [number(p, "tree.p_positive", 0.0, 1.0) for p in tree["p_positive"]]
    for i in range(m):
        # scikit-learn counts the training rows that reached each node; a count below 0 is no count
        if n[i] < 0:
            raise ValueError(f"tree node {i}: n must be at least 0, got {n[i]}")
        if (left[i], right[i]) != (-1, -1) and not 0 <= feature[i] < width:
            raise ValueError(f"tree node {i}: feature {feature[i]} is out of range (the layout has {width} columns)")
        # a one-hot column holds 0 or 1, and fit cuts it at 0.5; describe prints the split as
        # "!= category" / "== category" whatever the threshold, so a cut at 1.5 (every row left)
        # had loaded under unchanged text and moved 122 of 300 scores (found in review)
        if (left[i], right[i]) != (-1, -1) and layout[feature[i]]["code"] is not None and not 0 < threshold[i] < 1:
            raise ValueError(f"tree node {i}: splits the indicator column {feature[i]} at "
                             f"{show(tree['threshold'][i])}, but an indicator holds 0 or 1 and training cuts it at 0.5")
        # a leaf's is never read, but one past int64 turns the whole column into Python objects,
        # which numpy then refuses as indices at predict time; scikit-learn writes -2 there
        if not -2 <= feature[i] < width:
            raise ValueError(f"tree node {i}: feature {feature[i]} is out of range (a leaf has -2)")
    check_tree_links([[] if (left[i], right[i]) == (-1, -1) else [("left", left[i]), ("right", right[i])]
                      for i in range(m)], label="tree node")
    return {"left": left, "right": right, "feature": feature, "threshold": threshold, "p_positive": p_positive,
            "n": n}
