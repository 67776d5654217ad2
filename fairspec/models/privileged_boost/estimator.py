"""``PrivilegedBoostClassifier``: the scikit-learn estimator of the privileged_boost family.

``fit(X, y, sensitive_features=None, privileged=None)``: ``privileged`` is an array with one
row per row of ``X`` (the privileged features, available while training only; categorical
columns as codes, named by ``privileged_categorical_features``).  Like ``sensitive_features``
it is a per-row argument, so a caller fitting on a subset of rows slices it with ``X``.
``predict(X)`` and ``predict_proba(X)`` read ``X`` alone: the fitted state holds the trees of
``ψ``, which split the usable features only, and nothing of ``ψ'``.

Without ``privileged`` (or with ``alpha=0``) the fit is plain histogram gradient boosting
with the same trees, hold-out and early stopping.

Fairness (``fairness``, a :class:`~fairspec.registry.criteria.Criterion`): a ``penalty`` λ adds
``λ·gap~`` to the boosted loss (:mod:`.objective`); a ``bound`` ε is met on the training rows
by the decision threshold (:mod:`.threshold`).  ``predict_proba`` gives the boosted
probability either way; ``predict`` is ``predict_proba[:, 1] > threshold_``.
"""
from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from fairspec.errors import DataError, ModelFileError
from fairspec.models.inputs import (binary_labels, categorical_indices, feature_matrix, fit_or_keep, group_labels,
                                   require_finite, require_flag, require_whole, seed_of)
from fairspec.models.model_file import (check_header, class_labels, criterion_from_json, feature_indices, feature_names_to_json, is_integer, json_values,
                                        number, params_at_fit, record_params, restore_feature_names)
from fairspec.models.privileged_boost.boosting import BoostData, boost, validation_rows
from fairspec.models.privileged_boost.objective import sigmoid
from fairspec.models.privileged_boost.threshold import DEFAULT_THRESHOLD, choose_threshold
from fairspec.models.readout import category_text, column_names, feature_text, number_text, shown_classes
from fairspec.models.tree.histogram import (HISTOGRAM_STRATEGIES, MAX_BINS, EnsembleRouter, FeatureBins, HistogramTree,
                                            TreeSettings, check_no_missing, refuse_strategy)
from fairspec.registry.criteria import Criterion

KIND = "privileged_boost_classifier"
FORMAT_VERSION = 1
VARIANTS = ("kbpib", "jpib")


def _criterion_to_json(c: Criterion | None):
    return None if c is None else {"name": c.name, "bound": c.bound, "penalty": c.penalty}



def _check_codes(X: np.ndarray, columns, what: str) -> None:
    for j in columns:
        col = X[:, j]
        ok = np.isnan(col) | ((col >= 0) & (col == np.round(col)))
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            raise DataError(f"categorical {what} {j} must hold integer codes 0..k-1 (or NaN); row {row} holds "
                            f"{col[row]!r}")


class PrivilegedBoostClassifier(ClassifierMixin, BaseEstimator):
    """Gradient boosting guided by a model on privileged information (KbPIB / JPIB).

    ``variant``: ``kbpib`` (privileged model first, then the usable one) or ``jpib``
    (alternating); ``alpha``: weight of ``KL(P_ψ' ‖ P_ψ)``; ``n_rounds``: most trees of ``ψ``;
    ``max_depth``, ``min_samples_leaf``, ``learning_rate``, ``l2``, ``max_bins``: the trees;
    ``patience`` and ``validation_share``: early stopping (``validation_share=0``: none);
    ``teacher_reads_features``: ``ψ'`` reads the usable features beside the privileged ones;
    ``missing``: ``mia`` or ``none`` (:mod:`fairspec.models.tree.histogram`); the privileged
    columns are always read with ``mia`` (the spec's imputation acts on model inputs only).
    ``random_state`` draws the held-out rows; nothing else is random.
    """

    def __init__(self, variant="kbpib", alpha=1.0, n_rounds=200, max_depth=4, learning_rate=0.1, patience=20,
                 validation_share=0.2, teacher_reads_features=True, min_samples_leaf=20, l2=0.0, max_bins=MAX_BINS,
                 missing="mia", categorical_features=None, privileged_categorical_features=None, fairness=None,
                 random_state=0):
        self.variant = variant
        self.alpha = alpha
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.patience = patience
        self.validation_share = validation_share
        self.teacher_reads_features = teacher_reads_features
        self.min_samples_leaf = min_samples_leaf
        self.l2 = l2
        self.max_bins = max_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.privileged_categorical_features = privileged_categorical_features
        self.fairness = fairness
        self.random_state = random_state

    # -- checks ---------------------------------------------------------------------------
    def _validate(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {self.variant!r}")
        for name, least in (("n_rounds", 1), ("max_depth", 1), ("patience", 1), ("min_samples_leaf", 1),
                            ("max_bins", 2)):
            require_whole(self, name, least)
        if self.max_bins > MAX_BINS:
            raise ValueError(f"max_bins must be at most {MAX_BINS}; got {self.max_bins!r}")
        require_finite(self, "alpha")
        require_finite(self, "l2")
        require_finite(self, "learning_rate", most=1.0)
        if self.learning_rate <= 0:
            raise ValueError(f"learning_rate must be above 0; got {self.learning_rate!r}")
        require_finite(self, "validation_share", most=0.5)
        require_flag(self, "teacher_reads_features")
        refuse_strategy(self.missing)
        if self.fairness is not None and not isinstance(self.fairness, Criterion):
            raise TypeError(f"fairness must be a fairspec Criterion (fairspec.registry.criteria.make_criterion) or "
                            f"None; got {self.fairness!r}")

    def _privileged_matrix(self, privileged, n: int) -> np.ndarray | None:
        if privileged is None:
            return None
        P = np.asarray(privileged, dtype=object) if not hasattr(privileged, "to_numpy") else privileged
        try:
            P = (P.to_numpy(dtype=float, na_value=np.nan) if hasattr(P, "to_numpy")
                 else np.asarray(privileged, dtype=float))
        except (TypeError, ValueError) as exc:
            raise DataError(f"privileged must hold numbers (categories as integer codes): {exc}") from None
        if P.ndim == 1:
            P = P.reshape(-1, 1)
        if P.ndim != 2 or P.shape[0] != n:
            raise DataError(f"privileged must have one row per row of X ({n}); got shape {P.shape}")
        if P.shape[1] == 0:
            return None
        if np.isinf(P).any():
            row, col = np.argwhere(np.isinf(P))[0]
            raise DataError(f"privileged holds an infinite value (row {row}, column {col}); a missing value must "
                            f"be NaN")
        return P

    # -- fit ------------------------------------------------------------------------------
    @fit_or_keep
    def fit(self, X, y, sensitive_features=None, privileged=None):
        """Fit ``ψ`` on ``X`` guided by ``ψ'`` on ``privileged`` (module docstring)."""
        start = time.perf_counter()
        self._validate()
        X = feature_matrix(X, self, reset=True)
        n, p = X.shape
        self.classes_, y01 = binary_labels(y, n, self)
        self.seed_ = seed_of(self.random_state)
        cat = categorical_indices(self.categorical_features, self, p)
        _check_codes(X, cat, "feature")
        check_no_missing(X, self.missing)
        P = self._privileged_matrix(privileged, n)
        fairness = self.fairness
        groups = None
        if fairness is not None and fairness.enforced:
            if sensitive_features is None:
                raise DataError("this model enforces a fairness criterion: fit(...) needs sensitive_features")
            groups = group_labels(sensitive_features, n)
            fairness.require_every_rate(y01, groups)
        held = validation_rows(y01, float(self.validation_share), self.seed_)
        fit_rows = ~held
        bins = FeatureBins.fit(X[fit_rows], cat, int(self.max_bins))
        data = BoostData(y01.astype(float), held, bins.transform(X), bins)
        teacher_inputs = None
        alpha = float(self.alpha)
        if P is not None:
            pcat = categorical_indices(self.privileged_categorical_features, None, P.shape[1]) \
                if self.privileged_categorical_features is not None else ()
            _check_codes(P, pcat, "privileged column")
            if bool(self.teacher_reads_features):
                T, tcat = np.hstack([X, P]), (*cat, *(p + j for j in pcat))
            else:
                T, tcat = P, tuple(pcat)
            teacher_inputs = T.shape[1]
            if alpha > 0:
                data.teacher_bins = FeatureBins.fit(T[fit_rows], tcat, int(self.max_bins))
                data.teacher_codes = data.teacher_bins.transform(T)
        settings = TreeSettings(max_depth=int(self.max_depth), min_samples_leaf=int(self.min_samples_leaf),
                                l2=float(self.l2), learning_rate=float(self.learning_rate), missing=self.missing)
        penalty = float(fairness.penalty) if fairness is not None and fairness.penalty is not None else 0.0
        result = boost(data, variant=self.variant, alpha=alpha, rounds=int(self.n_rounds),
                       patience=int(self.patience), settings=settings, penalty=penalty,
                       criterion=fairness if penalty else None, groups=groups)
        self.base_score_ = float(result.base)
        self.trees_ = result.trees
        self.router_ = EnsembleRouter(self.trees_, cat)
        self.n_features_in_ = p
        self.categorical_features_ = list(cat)
        self.threshold_ = DEFAULT_THRESHOLD
        log = {"status": "heuristic", "mip_gap": None, "reproducible": True, "cut_by_clock": [],
               "algorithm": ("histogram gradient boosting guided by a privileged model (" + self.variant.upper() + ")"
                             if data.teacher_codes is not None else "histogram gradient boosting"),
               "variant": self.variant, "alpha": alpha, "missing": self.missing,
               "privileged_columns": 0 if P is None else int(P.shape[1]),
               "privileged_model_used": data.teacher_codes is not None,
               "privileged_model_inputs": teacher_inputs if data.teacher_codes is not None else None,
               "privileged_model_rounds": result.teacher_rounds,
               "privileged_model_validation_loss": result.teacher_validation_loss,
               "fit_rows": int(fit_rows.sum()), "validation_rows": int(held.sum()),
               "rounds_grown": result.rounds_grown, "trees": len(self.trees_),
               "stopped_early": result.stopped_early, "best_validation_loss": result.best_validation_loss}
        if fairness is not None and fairness.enforced:
            p1 = self.predict_proba(X)[:, 1]
            if fairness.bound is not None:
                self.threshold_, tlog = choose_threshold(p1, y01, groups, fairness)
                log.update(tlog)
            log["train_gap"] = fairness.gap(y01, (p1 > self.threshold_).astype(int), groups)
        log["threshold"] = self.threshold_
        log["seconds"] = round(time.perf_counter() - start, 3)
        self.fit_log_ = log
        record_params(self)
        return self

    # -- predict --------------------------------------------------------------------------
    def decision_function(self, X):
        """The boosted score ``ψ(x)`` (log-odds of the positive class), from ``X`` alone."""
        check_is_fitted(self, "trees_")
        X = feature_matrix(X, self, reset=False)
        check_no_missing(X, self.missing)
        return self.base_score_ + self.router_.predict(X)

    def predict_proba(self, X):
        p1 = sigmoid(self.decision_function(X))
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        positive = self.predict_proba(X)[:, 1] > self.threshold_
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "mia"
        if tags.classifier_tags is not None:
            tags.classifier_tags.multi_class = False
        return tags

    # -- model file -----------------------------------------------------------------------
    def to_json(self) -> dict:
        check_is_fitted(self, "trees_")
        params = json_values(params_at_fit(self))
        params["random_state"] = self.seed_
        params["fairness"] = _criterion_to_json(params.get("fairness"))
        params["categorical_features"] = list(self.categorical_features_)
        pcat = params.get("privileged_categorical_features")
        params["privileged_categorical_features"] = None if pcat is None else [int(j) for j in np.ravel(pcat)]
        return {"kind": KIND, "format_version": FORMAT_VERSION, "params": params,
                "n_features_in": int(self.n_features_in_), **feature_names_to_json(self),
                "classes": [c.item() if hasattr(c, "item") else c for c in self.classes_],
                "base_score": self.base_score_, "threshold": self.threshold_,
                "ensemble": [t.to_json() for t in self.trees_], "fit_log": self.fit_log_}

    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        """The score as a sum of trees, then each tree: one line per branch, a leaf by what it adds."""
        check_is_fitted(self, "trees_")
        names = column_names(self, feature_names)
        classes = shown_classes(self, class_names)
        n = len(self.trees_)
        lines = [f"score = {number_text(self.base_score_)} + the values of the leaves a row reaches in the {n} "
                 f"tree{'' if n == 1 else 's'} below; p = 1 / (1 + exp(-score)); predicts {classes[1]} when "
                 f"p > {number_text(self.threshold_)}, else {classes[0]}"]
        for k, tree in enumerate(self.trees_):
            lines.append(f"tree {k + 1}:")
            lines += ["  " + s for s in describe_histogram_tree(tree, names, categories, imputed)]
        return lines


def describe_histogram_tree(tree: HistogramTree, feature_names=None, categories=None, imputed=False) -> list[str]:
    """Indented lines: a branch's condition, with where a missing value goes, and a leaf's
    value (what it adds to the score) and training rows."""
    categories = categories or {}
    lines: list[str] = []

    def raw(j):
        return feature_names[j] if feature_names is not None else f"x{j}"

    def cats(j, codes):
        names = categories.get(j) or categories.get(raw(j)) if isinstance(categories, dict) else None
        return "{" + ", ".join(category_text(c, names) for c in codes) + "}"

    def walk(i, indent):
        pad = "  " * indent
        j = int(tree.feature[i])
        if j < 0:
            lines.append(f"{pad}add {number_text(tree.value[i])}  (n={int(tree.n[i])})")
            return
        name = feature_text(raw(j))
        if tree.left_codes[i] is not None:
            missing = "another category" if imputed else "missing, or another category"
            sides = [f"{name} in {cats(j, codes)}" if codes else f"{name} is {missing}"
                     for codes in (tree.left_codes[i], tree.right_codes[i])]
            conds = tuple(sides)
            if not (tree.left_codes[i] and tree.right_codes[i]):  # present vs missing: said in the condition
                missing = None
        elif not np.isfinite(tree.threshold[i]):
            conds = (f"{name} is present", f"{name} is missing")
            missing = None
        else:
            cut = number_text(tree.threshold[i])
            conds = (f"{name} <= {cut}", f"{name} > {cut}")
            missing = None if imputed else "missing"
        notes = [""] * 2
        if missing is not None:
            notes[0 if tree.missing_left[i] else 1] = f"   (or {missing})"
        lines.append(pad + conds[0] + notes[0])
        walk(int(tree.left[i]), indent + 1)
        lines.append(pad + conds[1] + notes[1])
        walk(int(tree.right[i]), indent + 1)

    walk(0, 0)
    return lines


def estimator_from_json(doc: dict) -> PrivilegedBoostClassifier:
    """The fitted estimator ``to_json`` wrote (data only); ``ModelFileError`` saying what is
    wrong otherwise."""
    check_header(doc, (KIND,), FORMAT_VERSION, "privileged_boost")
    try:
        params = doc["params"]
        if not isinstance(params, dict):
            raise ValueError("'params' must be an object")
        params = dict(params)
        params["fairness"] = criterion_from_json(params.get("fairness"))
        est = PrivilegedBoostClassifier(**params)
        est._validate()
        n_features = doc["n_features_in"]
        if not is_integer(n_features) or n_features < 1:
            raise ValueError(f"n_features_in must be a positive integer, got {n_features!r}")
        est.n_features_in_ = n_features
        restore_feature_names(est, doc, n_features)
        cat = feature_indices(params.get("categorical_features") or [], "categorical_features", n_features)
        est.categorical_features = list(cat)
        est.categorical_features_ = list(cat)
        est.classes_ = class_labels(doc["classes"])
        est.base_score_ = number(doc["base_score"], "base_score")
        est.threshold_ = number(doc["threshold"], "threshold", 0.0, 1.0)
        ensemble = doc["ensemble"]
        if not isinstance(ensemble, list):
            raise ValueError("'ensemble' must be a list of trees")
        est.trees_ = []
        for k, t in enumerate(ensemble):
            try:
                est.trees_.append(HistogramTree.from_json(t, n_features, cat))
            except KeyError as exc:
                raise ValueError(f"tree {k + 1}: no {exc.args[0]!r} entry") from None
            except ValueError as exc:
                raise ValueError(f"tree {k + 1}: {exc}") from None
        est.router_ = EnsembleRouter(est.trees_, cat)
        fit_log = doc.get("fit_log")
        if fit_log is not None and not isinstance(fit_log, dict):
            raise ValueError("'fit_log' must be an object")
        est.fit_log_ = dict(fit_log or {})
        est.seed_ = seed_of(params.get("random_state"))
    except KeyError as exc:
        raise ModelFileError(f"malformed privileged_boost model: no {exc.args[0]!r} entry") from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ModelFileError(f"malformed privileged_boost model: {exc}") from None
    record_params(est)
    return est


__all__ = ["PrivilegedBoostClassifier", "estimator_from_json", "describe_histogram_tree", "HISTOGRAM_STRATEGIES"]
