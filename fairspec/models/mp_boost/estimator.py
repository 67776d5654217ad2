"""The scikit-learn estimator of Fair MP-Boost: fitting, the fairness trade-off, JSON, read-out.

:class:`FairMPBoostClassifier` runs the rounds of :mod:`.boosting` and adds what a user of a
fairness criterion asks for:

* ``alpha`` (α, the paper's trade-off in [0, 1]) given: used as it is;
* ``fairness`` with a penalty λ: ``α = λ / (1 + λ)``, so that the rows' and features' mixtures
  weigh accuracy and fairness as ``1 : λ`` (``loss + λ·fairness``, as a penalty means in every
  family; λ = 9 is the paper's α = 0.9, λ = 1/9 its α = 0.1);
* ``fairness`` with a bound ε: each α of ``bound_alphas`` is fitted (same seed); then, at the
  smallest of them, the bound's Lagrangian is fitted at the multipliers ``λ = s·λ₀`` for each
  share ``s`` of ``multiplier_shares`` (:mod:`fairspec.models.lagrangian`: the rounds learn the cost-sensitive
  targets and weights of the constraint between the groups whose rates the unconstrained model
  sets furthest apart; ``λ₀`` is where a whole group-and-label cell's targets would flip).  Each
  model's decision threshold is chosen on the training rows as the most accurate one whose
  training gap is within ε (:mod:`.threshold`), and the most accurate of those models is kept.
  The bound is met on the training rows by the threshold; α and λ are chosen for accuracy under
  it, and the fit log's ``bound_search`` lists every candidate.  (A multiplier picked on the
  training rows, with no held-out split: the candidates differ in their targets, not in their
  capacity, so their training accuracies at the bound compare like with like.)  The
  Lagrangian's rows are :mod:`fairspec.models.lagrangian`'s, shared with the tree family;
* no criterion (or an audited one) and no ``alpha``: α = 0, plain MP-Boost.

With α > 0 the rounds need each row's group (``sensitive_features``); the adversary and
FairTreeFIS compare the groups by the criterion's rate (selection rate for demographic parity,
true-positive rate for equal opportunity; demographic parity when ``alpha`` is given without a
criterion, as in the paper).  Prediction never reads the group.

Score and prediction: ``F(x) = Σ_t μ·(2·p_t(x) - 1)`` over the kept trees (``p_t(x)`` the
share of positive minipatch rows of the leaf ``x`` reaches, weighted over leaves under
fractional routing); the positive class where ``F(x) > τ``; ``predict_proba[:, 1] =
1 / (1 + exp(-2·(F(x) - τ)))``, the exponential loss's link (Friedman, Hastie & Tibshirani
2000: its minimiser is half the log-odds), a ranking score rather than a calibrated probability.
"""
from __future__ import annotations

import math
import time

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from fairspec.errors import DataError, ModelFileError
from fairspec.models.inputs import (binary_labels, categorical_indices, feature_matrix, fit_or_keep, group_labels,
                                   require_finite, require_whole, seed_of)
from fairspec.models.model_file import (check_header, class_labels, criterion_from_json, feature_indices, feature_names_to_json, integer,
                                        json_values, number, params_at_fit, record_params, restore_feature_names,
                                        show)
from fairspec.models.mp_boost.adversary import ADVERSARIES
from fairspec.models.mp_boost.boosting import BoostingSettings, boost, leaf_output
from fairspec.models.lagrangian import cost_sensitive_rows, extreme_groups, flip_multiplier, multiplier_slopes
from fairspec.models.mp_boost.threshold import choose_threshold
from fairspec.models.readout import column_names, feature_text, number_text, shown_classes
from fairspec.models.tree.estimators import describe_tree
from fairspec.models.tree.grow import TreeStructure
from fairspec.models.tree.split_search import STRATEGIES
from fairspec.registry.criteria import Criterion, make_criterion
from fairspec.registry.families import MP_BOOST_BOUND_ALPHAS
from fairspec.registry.families import mp_boost_alpha as alpha_of_penalty

FORMAT_VERSION = 1
KIND = "fair_mp_boost_classifier"
#: the criteria whose adversary and FairTreeFIS the rounds know: name -> positives only
ENFORCEABLE = {"demographic_parity": False, "equal_opportunity": True}
#: the trees the read-out prints in full (the model file holds them all)
TREES_SHOWN = 3
#: the most influential rows the fit log names
INFLUENTIAL_ROWS = 10
#: the Lagrange multipliers a bound is searched over besides λ = 0 (:mod:`fairspec.models.lagrangian`), at the
#: smallest α of ``bound_alphas``, as shares of ``λ₀`` (:func:`fairspec.models.lagrangian.flip_multiplier`: the
#: multiplier at which the targets of the smaller constrained group-and-label cell flip)
MP_BOOST_MULTIPLIER_SHARES = (0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875)


def _criterion_to_json(c: Criterion | None):
    return None if c is None else {"name": c.name, "bound": c.bound, "penalty": c.penalty}



def _share(estimator, name: str, total: int) -> int:
    """``patch_rows`` / ``patch_features``: None is ``√total`` (rounded, at least 1); a whole
    number is a count; a number in (0, 1) a share of ``total``; never more than ``total``."""
    value = getattr(estimator, name)
    if value is None:
        k = int(round(math.sqrt(total)))
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1:
        k = int(value)
    elif isinstance(value, (float, np.floating)) and 0 < value < 1:
        k = int(round(value * total))
    else:
        raise ValueError(f"{name} must be None (the square root of the count), a whole number of at least 1 or a "
                         f"share in (0, 1); got {value!r}")
    return max(1, min(k, total))


class FairMPBoostClassifier(ClassifierMixin, BaseEstimator):
    """Fair MP-Boost: boosting on adaptive minipatches, trading accuracy for fairness by α.

    ``n_rounds`` boosting rounds at most; each grows a missing-aware tree of ``max_depth`` on a
    minipatch of ``patch_rows`` rows and ``patch_features`` features (None: the square root of
    the count; a share in (0, 1); a count), ``learning_rate`` μ.  ``patience``: rounds without a
    better out-of-patch score before stopping (0: every round is run and kept); ``burn_in``:
    first rounds left out of the averaged probabilities.  Early stopping is off by default: with
    α > 0 the out-of-patch accuracy peaks in the first rounds, before ``q`` has moved towards the
    fair features (:mod:`.boosting`), and a fit stopped there is the unfair one.  ``alpha``,
    ``fairness``, ``bound_alphas`` and ``multiplier_shares``: the trade-off and the bound's search
    (module docstring).  ``adversary``: a name of
    :data:`~fairspec.models.mp_boost.adversary.ADVERSARIES`.  ``missing``, ``criterion``,
    ``min_samples_leaf``, ``middle_growth``, ``categorical_features``: the trees'
    (:class:`~fairspec.models.tree.estimators.MissingAwareTreeClassifier`).  ``random_state``:
    an int, None (0) or a ``RandomState`` (one draw per fit); ``seed_`` is the integer used.

    Learned: ``trees_``, ``threshold_``, ``alpha_``, ``multiplier_`` (the Lagrange multiplier λ, 0
    for none), ``feature_probabilities_`` (the averaged ``q``, also ``feature_importances_``),
    ``row_probabilities_`` (the averaged ``p`` of the training rows, in the order given: on the
    fitted estimator only, the model file keeps its summaries in the fit log, not one number per
    training row), ``out_of_patch_accuracy_`` (per round run), ``fit_log_``.
    """

    def __init__(self, n_rounds=200, max_depth=2, patch_rows=None, patch_features=None, learning_rate=0.2,
                 alpha=None, fairness=None, bound_alphas=MP_BOOST_BOUND_ALPHAS,
                 multiplier_shares=MP_BOOST_MULTIPLIER_SHARES, adversary="logistic", patience=0, burn_in=20,
                 min_samples_leaf=1, criterion="gini", missing="mia", middle_growth="observed",
                 categorical_features=None, random_state=0):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.patch_rows = patch_rows
        self.patch_features = patch_features
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.fairness = fairness
        self.bound_alphas = bound_alphas
        self.multiplier_shares = multiplier_shares
        self.adversary = adversary
        self.patience = patience
        self.burn_in = burn_in
        self.min_samples_leaf = min_samples_leaf
        self.criterion = criterion
        self.missing = missing
        self.middle_growth = middle_growth
        self.categorical_features = categorical_features
        self.random_state = random_state

    # -- parameters ---------------------------------------------------------------------------
    def _validate(self) -> None:
        require_whole(self, "n_rounds", 1)
        require_whole(self, "max_depth", 0)
        require_whole(self, "min_samples_leaf", 1)
        require_whole(self, "patience", 0)
        require_whole(self, "burn_in", 0)
        require_finite(self, "learning_rate", 1.0)
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be in (0, 1]; got {self.learning_rate!r}")
        if self.alpha is not None:
            require_finite(self, "alpha", 1.0)
        try:
            alphas = [float(a) for a in self.bound_alphas]
        except (TypeError, ValueError):
            alphas = None
        if not alphas or not all(0.0 <= a <= 1.0 for a in alphas):
            raise ValueError(f"bound_alphas must be a non-empty list of numbers in [0, 1]; got {self.bound_alphas!r}")
        try:
            shares = [float(v) for v in self.multiplier_shares]
        except (TypeError, ValueError):
            shares = None
        if shares is None or not all(0.0 <= v < 1.0 for v in shares):
            raise ValueError(f"multiplier_shares must be a list of numbers in [0, 1); got {self.multiplier_shares!r}")
        if self.adversary not in ADVERSARIES:
            raise ValueError(f"adversary must be one of {', '.join(ADVERSARIES)}; got {self.adversary!r}")
        if self.criterion not in ("gini", "entropy"):
            raise ValueError(f"criterion must be 'gini' or 'entropy'; got {self.criterion!r}")
        if self.missing not in STRATEGIES:
            raise ValueError(f"missing must be one of {', '.join(STRATEGIES)}; got {self.missing!r}")
        if self.middle_growth not in ("full", "observed"):
            raise ValueError("middle_growth must be 'full' or 'observed'")
        fairness = self.fairness
        if fairness is not None and not isinstance(fairness, Criterion):
            raise TypeError(f"fairness must be a fairspec Criterion (fairspec.registry.criteria.make_criterion) or "
                            f"None; got {fairness!r}")
        if fairness is not None and fairness.enforced and fairness.name not in ENFORCEABLE:
            raise ValueError(f"Fair MP-Boost enforces {' and '.join(ENFORCEABLE)}, not {fairness.name}: its "
                             f"adversary and FairTreeFIS compare selection rates or true-positive rates")
        if (self.alpha is not None and self.alpha > 0 and fairness is not None
                and fairness.name not in ENFORCEABLE):
            raise ValueError(f"alpha > 0 weighs {' or '.join(ENFORCEABLE)}; fairness names {fairness.name}")
        if fairness is not None and fairness.penalty is not None and self.alpha is not None:
            raise ValueError(f"give alpha or a penalty, not both: the penalty {fairness.penalty:g} sets "
                             f"alpha = {alpha_of_penalty(fairness.penalty):.6g}")

    def _trade_off(self) -> tuple[list[float], str]:
        """The α values to fit and where they come from."""
        f = self.fairness
        if self.alpha is not None:
            return [float(self.alpha)], "parameter"
        if f is not None and f.penalty is not None:
            return [alpha_of_penalty(f.penalty)], "penalty"
        if f is not None and f.bound is not None:
            return [float(a) for a in self.bound_alphas], "bound search"
        return [0.0], "none"

    def _settings(self, alpha: float, n_rows: int, n_features: int) -> BoostingSettings:
        positives_only = ENFORCEABLE.get(self.fairness.name, False) if self.fairness is not None else False
        return BoostingSettings(
            rounds=int(self.n_rounds), patch_rows=_share(self, "patch_rows", n_rows),
            patch_features=_share(self, "patch_features", n_features), learning_rate=float(self.learning_rate),
            alpha=float(alpha), positives_only=positives_only, adversary=self.adversary,
            patience=int(self.patience), burn_in=int(self.burn_in), max_depth=int(self.max_depth),
            min_samples_leaf=int(self.min_samples_leaf), criterion=self.criterion, missing=self.missing,
            middle_growth=self.middle_growth)

    # -- fit ------------------------------------------------------------------------------------
    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        self._validate()
        X = feature_matrix(X, self, reset=True)
        self.classes_, y01 = binary_labels(y, X.shape[0], self)
        self.seed_ = seed_of(self.random_state)
        n_rows, n_features = X.shape
        categorical = np.zeros(n_features, dtype=bool)
        categorical[list(categorical_indices(self.categorical_features, self, n_features))] = True
        for j in np.flatnonzero(categorical):
            col = X[:, j]
            if not (np.isnan(col) | ((col >= 0) & (col == np.round(col)))).all():
                raise DataError(f"categorical feature {j} must hold integer codes 0..k-1 (or NaN)")
        alphas, alpha_from = self._trade_off()
        needs_groups = any(a > 0 for a in alphas) or (self.fairness is not None and self.fairness.bound is not None)
        group_names, groups = None, None
        if sensitive_features is not None:
            group_names, groups = np.unique(group_labels(sensitive_features, n_rows), return_inverse=True)
        elif needs_groups:
            raise DataError("this model weighs fairness (alpha > 0 or a bound): fit(...) needs sensitive_features")
        fairness = self.fairness if self.fairness is not None else make_criterion("demographic_parity")
        if needs_groups:
            fairness.require_every_rate(y01, group_names[groups])
        n_groups = 0 if group_names is None else len(group_names)
        positives_only = ENFORCEABLE.get(fairness.name, False)
        bound = self.fairness.bound if self.fairness is not None else None

        tried = []

        def fit_one(alpha, multiplier=0.0, fit_labels=None, row_weights=None):
            settings = self._settings(alpha, n_rows, n_features)
            result = boost(X, y01, categorical, groups, n_groups, settings, np.random.default_rng(self.seed_),
                           fit_labels=fit_labels, row_weights=row_weights)
            if bound is not None:
                threshold, train_accuracy, train_gap = choose_threshold(result.score, y01, groups, n_groups,
                                                                        positives_only, bound)
            else:
                threshold = 0.0
                train_accuracy, train_gap = None, None
            tried.append((alpha, settings, result, threshold, train_accuracy, train_gap, multiplier))

        for alpha in alphas:
            fit_one(alpha)
        if bound is not None:
            # the Lagrangian's cost-sensitive rows (fairspec.models.lagrangian), at the smallest α, for the
            # pair of groups whose rates are furthest apart under that α's unconstrained model
            first = min(range(len(alphas)), key=lambda i: alphas[i])
            rate = "tpr" if positives_only else "selection_rate"
            pair = extreme_groups(tried[first][2].score > 0, y01, groups, n_groups, rate)
            slopes = None if pair is None else multiplier_slopes(y01, groups, n_groups, [(rate, *pair)])
            for share in self.multiplier_shares if pair is not None else ():
                if not share > 0:
                    continue
                multiplier = float(share) * flip_multiplier(y01, slopes)
                labels, weights = cost_sensitive_rows(y01, slopes, multiplier)
                fit_one(alphas[first], multiplier, labels, weights)
        # the most accurate under the bound; the first of equals (the smallest α of the list order)
        best = max(range(len(tried)), key=lambda i: (tried[i][4] if tried[i][4] is not None else 0.0, -i))
        alpha, settings, result, threshold, _, _, multiplier = tried[best]

        self.trees_ = result.trees
        self.threshold_ = float(threshold)
        self.alpha_ = float(alpha)
        self.multiplier_ = float(multiplier)
        self.feature_probabilities_ = result.feature_probabilities
        self.row_probabilities_ = result.row_probabilities
        self.out_of_patch_accuracy_ = np.asarray(result.oop_accuracy)
        # the training rows' score, as the rounds summed it: what decision_function gives them
        # (the same trees, leaves and sums in the same order; tests/models/test_mp_boost.py)
        predicted = (result.score - self.threshold_ > 0).astype(int)
        log = {
            "status": "heuristic", "mip_gap": None, "algorithm": "Fair MP-Boost (minipatch boosting)",
            "missing": self.missing, "criterion": None if self.fairness is None else self.fairness.label(),
            "alpha": self.alpha_, "alpha_from": alpha_from, "multiplier": self.multiplier_,
            "adversary": self.adversary if self.alpha_ > 0 else None,
            "patch_rows": settings.patch_rows, "patch_features": settings.patch_features,
            "rounds_run": result.rounds_run, "rounds_kept": result.kept_round, "stopped_by": result.stopped_by,
            "best_round": result.best_round,
            "out_of_patch_accuracy": result.oop_accuracy[result.kept_round - 1],
            "best_out_of_patch_accuracy": result.oop_accuracy[result.best_round - 1],
            "out_of_patch_gap": result.oop_gap,
            "threshold": self.threshold_, "threshold_from": "bound" if bound is not None else "default",
            "train_accuracy": float((predicted == y01).mean()),
            "nodes": int(sum(t.n_nodes for t in self.trees_)),
            "feature_probabilities": [round(float(v), 6) for v in self.feature_probabilities_],
            "averaged_rounds": result.averaged_rounds,
            "influential_rows": _influential_rows(self.row_probabilities_),
            "row_probability_concentration": _concentration(self.row_probabilities_),
            "row_probability_summary": _row_summary(self.row_probabilities_, y01, group_names, groups),
        }
        if groups is not None and (self.fairness is not None or self.alpha_ > 0):
            log["train_gap"] = fairness.gap(y01, predicted, groups)
        if bound is not None:
            log["bound_met_on_train"] = bool(fairness.allows(log["train_gap"]))
        if len(tried) > 1:
            log["bound_search"] = _bound_search_records(tried)
        log.update(reproducible=True, cut_by_clock=[], seconds=round(time.perf_counter() - start, 3))
        self.fit_log_ = log
        record_params(self)
        return self

    @property
    def feature_importances_(self) -> np.ndarray:
        """The averaged feature probabilities ``q`` (Fair MP-Boost's feature importance)."""
        check_is_fitted(self, "feature_probabilities_")
        return self.feature_probabilities_

    # -- prediction ------------------------------------------------------------------------------
    def _decision(self, X: np.ndarray) -> np.ndarray:
        n = X.shape[0]
        score = np.zeros(n)
        mu = float(params_at_fit(self)["learning_rate"])
        for tree in self.trees_:
            rows, leaves, w = tree.route_rows(X)
            score += mu * np.bincount(rows, weights=w * leaf_output(tree)[leaves], minlength=n)
        return score - self.threshold_

    def decision_function(self, X) -> np.ndarray:
        """``F(x) - τ``: positive where the model predicts the positive class."""
        check_is_fitted(self, "trees_")
        return self._decision(feature_matrix(X, self, reset=False))

    def predict_proba(self, X) -> np.ndarray:
        d = self.decision_function(X)
        p1 = expit(2.0 * d)
        # a margin so small that the link rounds it to 1/2 still predicts what predict says
        p1 = np.where((d > 0) & (p1 <= 0.5), np.nextafter(0.5, 1.0), p1)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X) -> np.ndarray:
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # every missing-value rule of the trees routes a NaN
        if tags.classifier_tags is not None:
            tags.classifier_tags.multi_class = False
        return tags

    # -- JSON -----------------------------------------------------------------------------------
    def to_json(self) -> dict:
        check_is_fitted(self, "trees_")
        params = json_values(params_at_fit(self))
        params["random_state"] = getattr(self, "seed_", params["random_state"])
        params["fairness"] = _criterion_to_json(params["fairness"])
        params["bound_alphas"] = [float(a) for a in params["bound_alphas"]]
        params["multiplier_shares"] = [float(v) for v in params["multiplier_shares"]]
        if params.get("categorical_features") is not None:
            params["categorical_features"] = list(categorical_indices(params["categorical_features"], self,
                                                                      self.n_features_in_))
        return {
            "kind": KIND, "format_version": FORMAT_VERSION, "params": params,
            "n_features_in": int(self.n_features_in_), **feature_names_to_json(self),
            "classes": [c.item() if hasattr(c, "item") else c for c in self.classes_],
            "fit_log": json_values(self.fit_log_),
            "learning_rate": float(params["learning_rate"]), "threshold": self.threshold_, "alpha": self.alpha_,
            "multiplier": self.multiplier_,
            "rounds": [{"nodes": t.to_nodes()} for t in self.trees_],
            "feature_probabilities": [float(v) for v in self.feature_probabilities_],
            "out_of_patch_accuracy": [float(v) for v in self.out_of_patch_accuracy_],
        }

    # -- read-out -------------------------------------------------------------------------------
    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        check_is_fitted(self, "trees_")
        names = column_names(self, feature_names)
        classes = shown_classes(self, class_names)
        mu = float(params_at_fit(self)["learning_rate"])
        log = getattr(self, "fit_log_", {}) or {}
        T = len(self.trees_)
        why = ("chosen on the training rows to meet " + str(log.get("criterion"))
               if log.get("threshold_from") == "bound" else "the default")
        lines = [f"Fair MP-Boost: {T} tree{'' if T == 1 else 's'}, learning rate {mu:g}, alpha {self.alpha_:.6g}",
                 "score(x) = the sum over the trees of the value of the leaf x reaches (under fractional routing, "
                 "the weighted mean of the leaves it reaches)",
                 f"predicts {classes[1]} when score(x) > {number_text(self.threshold_)} ({why}), else {classes[0]}",
                 "a leaf's value is learning rate x (2p - 1), p the share of the positive class among the minipatch "
                 "rows that reached it, n their number",
                 "feature importance (averaged feature probability q):"]
        order = np.argsort(-self.feature_probabilities_, kind="stable")
        for j in order:
            name = feature_text(names[j]) if names is not None else f"x{j}"
            lines.append(f"  {name}: {self.feature_probabilities_[j]:.4f}")
        for k, tree in enumerate(self.trees_[:TREES_SHOWN]):
            lines.append(f"tree {k + 1} of {T}:")
            shown = TreeStructure(**{f: list(getattr(tree, f)) for f in _TREE_FIELDS})
            shown.value = list(mu * leaf_output(tree))
            lines += ["  " + s for s in describe_tree(shown, names, categories, classification=False,
                                                       imputed=imputed)]
        if T > TREES_SHOWN:
            lines.append(f"trees {TREES_SHOWN + 1} to {T}: in the model file (model.estimator.rounds)")
        return lines


_TREE_FIELDS = ("feature", "threshold", "left_codes", "right_codes", "route", "frac_left", "present_vs_missing",
                "left", "right", "middle", "value", "n", "weight", "depth")


def _bound_search_records(tried) -> list[dict]:
    """One record per α a bound was searched over: its threshold, training accuracy and gap."""
    return [{"alpha": a, "multiplier": lam, "threshold": t, "train_accuracy": acc, "train_gap": gap,
             "rounds_kept": r.kept_round} for a, _, r, t, acc, gap, lam in tried]


def _influential_rows(p: np.ndarray) -> list[dict]:
    """The rows drawn most often on average: position among the training rows and averaged p."""
    top = np.argsort(-p, kind="stable")[:INFLUENTIAL_ROWS]
    return [{"row": int(i), "probability": float(p[i])} for i in top]


#: the shares of the training rows whose share of the draws the fit log gives
CONCENTRATION_SHARES = (0.01, 0.05, 0.1, 0.25, 0.5)


def _concentration(p: np.ndarray) -> list[dict]:
    """The Lorenz curve of the averaged row probabilities at :data:`CONCENTRATION_SHARES`: the
    share of the draws that the most-drawn rows hold (a uniform draw gives each share its own)."""
    ordered = np.sort(p)[::-1]
    total = ordered.sum()
    out = []
    for share in CONCENTRATION_SHARES:
        k = max(1, int(round(share * len(p))))
        out.append({"rows_share": share, "draws_share": float(ordered[:k].sum() / total) if total > 0 else 0.0})
    return out


def _row_summary(p: np.ndarray, y: np.ndarray, group_names, groups) -> list[dict]:
    """Per label (and group when known): rows, their share of the averaged draw probability,
    and that share over their share of the rows (1 = drawn as often as uniformly)."""
    n = len(p)
    cells = []
    keys = [(None, label) for label in (0, 1)] if groups is None else \
        [(g, label) for g in range(len(group_names)) for label in (0, 1)]
    for g, label in keys:
        mask = (y == label) if g is None else (y == label) & (groups == g)
        rows = int(mask.sum())
        if rows == 0:
            continue
        share = float(p[mask].sum())
        record = {"label": label, "rows": rows, "share_of_draws": share, "draws_per_uniform": share / (rows / n)}
        if g is not None:
            record["group"] = str(group_names[g])
        cells.append(record)
    return cells


def estimator_from_json(doc: dict) -> FairMPBoostClassifier:
    """Rebuild a fitted :class:`FairMPBoostClassifier` from ``to_json()`` output (data only);
    ``ModelFileError`` saying what is wrong otherwise."""
    check_header(doc, (KIND,), FORMAT_VERSION, "Fair MP-Boost")
    try:
        params = doc["params"]
        if not isinstance(params, dict):
            raise ValueError("'params' must be an object")
        params = dict(params)
        params["fairness"] = criterion_from_json(params.get("fairness"))
        if isinstance(params.get("bound_alphas"), list):
            params["bound_alphas"] = tuple(params["bound_alphas"])
        if isinstance(params.get("multiplier_shares"), list):
            params["multiplier_shares"] = tuple(params["multiplier_shares"])
        est = FairMPBoostClassifier(**params)
        est._validate()
        n_features = integer(doc["n_features_in"], "n_features_in", 1)
        est.n_features_in_ = n_features
        restore_feature_names(est, doc, n_features)
        categorical = params.get("categorical_features")
        if categorical is not None:
            categorical = feature_indices(categorical, "categorical_features", n_features)
            est.categorical_features = categorical
        est.classes_ = class_labels(doc.get("classes"))
        if number(doc["learning_rate"], "learning_rate", 0.0, 1.0) != float(params["learning_rate"]):
            raise ValueError(f"learning_rate {show(doc['learning_rate'])} is not the parameter's "
                             f"{show(params['learning_rate'])}")
        est.threshold_ = number(doc["threshold"], "threshold")
        est.alpha_ = number(doc["alpha"], "alpha", 0.0, 1.0)
        # written since the Lagrangian bound search; a file from before it fitted with λ = 0
        est.multiplier_ = number(doc.get("multiplier", 0.0), "multiplier", 0.0)
        rounds = doc["rounds"]
        if not isinstance(rounds, list) or not rounds:
            raise ValueError("'rounds' must be a non-empty list of trees")
        est.trees_ = []
        for k, entry in enumerate(rounds):
            if not isinstance(entry, dict) or "nodes" not in entry:
                raise ValueError(f"tree {k} must be an object with 'nodes'")
            try:
                est.trees_.append(TreeStructure.from_nodes(entry["nodes"], False, n_features=n_features,
                                                           categorical=categorical or (), classification=True))
            except ValueError as exc:
                raise ValueError(f"tree {k}: {exc}") from None
        est.feature_probabilities_ = _numbers(doc["feature_probabilities"], "feature_probabilities", n_features)
        est.out_of_patch_accuracy_ = _numbers(doc["out_of_patch_accuracy"], "out_of_patch_accuracy")
        fit_log = doc.get("fit_log")
        if fit_log is not None and not isinstance(fit_log, dict):
            raise ValueError("'fit_log' must be an object")
        est.fit_log_ = dict(fit_log or {})
        est.seed_ = params.get("random_state", 0)
    except KeyError as exc:
        raise ModelFileError(f"malformed Fair MP-Boost model: no {exc.args[0]!r} entry") from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ModelFileError(f"malformed Fair MP-Boost model: {exc}") from None
    record_params(est)
    return est


def _numbers(values, what: str, length: int | None = None) -> np.ndarray:
    if not isinstance(values, list) or (length is not None and len(values) != length):
        size = "" if length is None else f" of {length}"
        raise ValueError(f"{what} must be a list{size} numbers")
    return np.asarray([number(v, f"{what} entry", 0.0) for v in values], dtype=float)
