"""A saved missing-aware tree or forest read for scoring, without scikit-learn.

The estimators (:mod:`.estimators`) are scikit-learn classes: importing one imports
``sklearn.base``, which imports SciPy's statistics, a second and a half of a
``fairspec predict`` that has five.  Scoring a file needs none of it: a row's score is its
route through the saved nodes (:meth:`TreeStructure.route_rows`) and the leaves' values.
:func:`scorer_from_json` reads a model file's estimator document, with every check
:func:`.estimators.estimator_from_json` makes (it reads the document through
:func:`read_tree_document` too), into a :class:`TreeScorer` whose ``predict_proba``,
``predict``, ``labels_from_scores`` and ``describe`` are the estimator's, number for number
(the same routing and arithmetic, in the same order; ``tests/models/test_scorers.py``).

Training and the Python API (:func:`fairspec.load_model`) keep the estimators.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairspec.errors import DataError, ModelFileError
from fairspec.models.model_file import check_header, class_labels, criterion_from_json, feature_indices, restore_feature_names
from fairspec.models.readout import column_names, shown_classes
from fairspec.models.tree.describe import describe_tree
from fairspec.models.tree.grow import TreeStructure
from fairspec.models.tree.split_search import VOTE_TOL

FORMAT_VERSION = 1

#: each kind's ``__init__`` parameters (a test holds them to the estimators'): a model file
#: naming another is refused here as the estimator's constructor refuses it
PARAMS = {
    "missing_aware_tree_classifier": (
        "max_depth", "min_samples_leaf", "min_samples_split", "criterion", "missing", "categorical_features",
        "fairness", "middle_growth", "mia_missing_split", "time_limit", "mip_gap", "threads", "random_state",
        "clock_cap", "relabel_checkpoints", "lagrange_share"),
    "missing_aware_tree_regressor": (
        "max_depth", "min_samples_leaf", "min_samples_split", "missing", "categorical_features", "middle_growth",
        "mia_missing_split", "random_state"),
    "missing_aware_forest_classifier": (
        "n_estimators", "max_features", "bootstrap", "max_depth", "min_samples_leaf", "min_samples_split",
        "criterion", "missing", "categorical_features", "fairness", "middle_growth", "mia_missing_split", "n_jobs",
        "time_limit", "mip_gap", "threads", "random_state", "clock_cap", "relabel_checkpoints", "lagrange_share"),
}
#: the estimator class of each kind, by name (for the messages the constructor gives)
CLASS_NAMES = {"missing_aware_tree_classifier": "MissingAwareTreeClassifier",
               "missing_aware_tree_regressor": "MissingAwareTreeRegressor",
               "missing_aware_forest_classifier": "MissingAwareForestClassifier"}



@dataclass
class TreeDocument:
    """What a tree family's estimator document holds, checked."""

    kind: str
    params: dict
    n_features: int
    feature_names: np.ndarray | None
    categorical: tuple | None
    classes: np.ndarray | None
    fit_log: dict
    #: the single tree's (one) or the forest's trees
    trees: list

    @property
    def classification(self) -> bool:
        return self.kind != "missing_aware_tree_regressor"


def forest_vote_share(trees, X: np.ndarray) -> np.ndarray:
    """The share of ``trees`` voting 1 on each row of ``X`` (a row's missing-value routes
    weighted), clipped to [0, 1]: the forest's probability of class 1."""
    n = X.shape[0]
    share = np.zeros(n)
    for t in trees:
        rows, leaves, w = t.route_rows(X)
        share += np.bincount(rows, weights=w * t.leaf_labels()[leaves], minlength=n)
    return np.clip(share / len(trees), 0.0, 1.0)


def read_tree_document(doc: dict) -> TreeDocument:
    """The parts of ``to_json()`` output, each checked; ``ModelFileError`` saying what is wrong
    when ``doc`` is not something ``to_json`` writes (a model file comes from outside, and a
    damaged one must fail here with a reason rather than crash, loop or score garbage)."""
    kind = check_header(doc, PARAMS, FORMAT_VERSION, "missing-aware tree")
    try:
        params = doc["params"]
        if not isinstance(params, dict):
            raise ValueError("'params' must be an object")
        params = dict(params)
        if "fairness" in params:
            params["fairness"] = criterion_from_json(params["fairness"])
        unknown = next((k for k in params if k not in PARAMS[kind]), None)
        if unknown is not None:
            raise TypeError(f"{CLASS_NAMES[kind]}.__init__() got an unexpected keyword argument {unknown!r}")
        n_features = doc["n_features_in"]
        if isinstance(n_features, bool) or not isinstance(n_features, int) or n_features < 1:
            raise ValueError(f"n_features_in must be a positive integer, got {n_features!r}")
        holder = _Names()
        restore_feature_names(holder, doc, n_features)
        categorical = params.get("categorical_features")
        if categorical is not None:
            categorical = feature_indices(categorical, "categorical_features", n_features)
        classification = kind != "missing_aware_tree_regressor"
        classes = doc.get("classes")
        if classification:
            # class_labels reads an absent list as 0/1, for the other families' files written
            # before the labels were recorded; every tree file has recorded them, so here
            # absence is damage
            if classes is None:
                raise ValueError("a classifier needs two distinct classes, got none")
            classes = class_labels(classes)
        elif classes is not None:
            raise ValueError(f"a regressor has no classes, got {classes!r}")
        fit_log = doc.get("fit_log")
        if fit_log is not None and not isinstance(fit_log, dict):
            raise ValueError("'fit_log' must be an object")
        shape = dict(n_features=n_features, categorical=categorical or (), classification=classification)
        if kind == "missing_aware_forest_classifier":
            listed = doc["trees"]
            if not isinstance(listed, list) or not listed:
                raise ValueError("a forest needs a non-empty list of trees")
            trees = []
            for k, t in enumerate(listed):
                if not isinstance(t, dict) or "nodes" not in t or "relabelled" not in t:
                    raise ValueError(f"tree {k} must be an object with 'nodes' and 'relabelled'")
                try:
                    trees.append(TreeStructure.from_nodes(t["nodes"], t["relabelled"], **shape))
                except ValueError as exc:
                    raise ValueError(f"tree {k}: {exc}") from None
        else:
            trees = [TreeStructure.from_nodes(doc["nodes"], doc["relabelled"], **shape)]
    except KeyError as exc:
        raise ModelFileError(f"malformed tree model: no {exc.args[0]!r} entry") from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ModelFileError(f"malformed tree model: {exc}") from None
    return TreeDocument(kind, params, n_features, getattr(holder, "feature_names_in_", None), categorical, classes,
                        dict(fit_log or {}), trees)


class _Names:
    """What :func:`restore_feature_names` sets ``feature_names_in_`` on."""


class TreeScorer:
    """A saved tree classifier or forest, scoring rows as its estimator does (see the module
    docstring); the attributes the model file's checks read (``n_features_in_``, ``classes_``,
    ``categorical_features``, ``tree_`` or ``trees_``, ``fit_log_``) are the estimator's."""

    def __init__(self, parts: TreeDocument):
        if not parts.classification:
            raise ValueError("a regression tree gives no class probabilities")
        self.kind = parts.kind
        self.params = parts.params
        self.n_features_in_ = parts.n_features
        if parts.feature_names is not None:
            self.feature_names_in_ = parts.feature_names
        self.categorical_features = parts.categorical if parts.categorical is not None else \
            parts.params.get("categorical_features")
        self.classes_ = parts.classes
        self.fit_log_ = parts.fit_log
        self.fairness = parts.params.get("fairness")
        if self.kind == "missing_aware_forest_classifier":
            self.trees_ = parts.trees
        else:
            (self.tree_,) = parts.trees

    def _matrix(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise DataError(f"X must be a 2-D array (rows x features), got shape {X.shape}")
        if X.shape[1] != self.n_features_in_:
            raise DataError(f"X has {X.shape[1]} features, but this model reads {self.n_features_in_}")
        return X

    def predict_proba(self, X) -> np.ndarray:
        """As the estimator's: a tree's leaf values (or labels, relabelled) weighted by the
        rows' routes; a forest's share of trees voting 1."""
        X = self._matrix(X)
        if self.kind == "missing_aware_forest_classifier":
            p1 = forest_vote_share(self.trees_, X)
        else:
            rows, leaves, w = self.tree_.route_rows(X)
            vals = np.asarray(self.tree_.leaf_label if self.tree_.leaf_label is not None else self.tree_.value, float)
            p1 = np.clip(np.bincount(rows, weights=w * vals[leaves], minlength=X.shape[0]), 0.0, 1.0)
        return np.column_stack([1.0 - p1, p1])

    def labels_from_scores(self, p1) -> np.ndarray:
        return self.classes_[(np.asarray(p1) > 0.5 + VOTE_TOL).astype(int)]

    def predict(self, X) -> np.ndarray:
        return self.labels_from_scores(self.predict_proba(X)[:, 1])

    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        names, classes = column_names(self, feature_names), shown_classes(self, class_names)
        if self.kind == "missing_aware_forest_classifier":
            n = len(self.trees_)
            first = describe_tree(self.trees_[0], names, categories, classes=classes, imputed=imputed)
            return [f"forest of {n} tree{'' if n == 1 else 's'} (majority vote); first tree:"] + ["  " + s for s in first]
        return describe_tree(self.tree_, names, categories, classes=classes, imputed=imputed)


def scorer_from_json(doc: dict):
    """A :class:`TreeScorer` of a saved tree classifier or forest; a regression tree (which
    no pipeline writes, and the model file's checks refuse) is read as its estimator."""
    parts = read_tree_document(doc)
    if not parts.classification:
        from fairspec.models.tree.estimators import estimator_from_json

        return estimator_from_json(doc)
    return TreeScorer(parts)
