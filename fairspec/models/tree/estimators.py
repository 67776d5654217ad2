"""scikit-learn estimators for the missing-aware tree family (single trees and forests).

Missing values met only at prediction time (the training rows of the node had none):

* ``trinary`` — natively: the row takes the middle child (grown on the node's rows without
  the feature in ``middle_growth="full"``; a leaf with the node's estimate otherwise);
* ``trinary_mia`` — a Trinary split as above; a MIA split without missing training rows
  sends it to the child with more training weight;
* ``mia`` — to the child with more training weight (training gave no other information);
* ``majority`` — to the child with more training weight (its rule, nothing new);
* ``fractional`` — to both children, weighted by their observed training weight (its rule);
* ``none`` (the data was imputed or dropped before the tree saw it) — as ``majority``.

A categorical value a node never saw in training is routed as a missing value.

Prediction.  A row reaches one or more leaves with weights summing to 1 (several only with
fractional routing).  Without fairness relabelling, ``predict_proba`` is the weighted mix of
the leaves' training frequencies; after relabelling (``fairness`` with a bound the tree as
grown does not meet, or meets less accurately) it is the weighted vote of the leaves' labels,
so that ``predict`` always equals
``predict_proba[:, 1] > 1/2`` (with the margin of :data:`relabel.VOTE_TOL`).
"""
from __future__ import annotations

import copy
import math
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from fairspec.errors import DataError
from fairspec.models.inputs import (binary_labels, categorical_indices, feature_matrix, fit_or_keep, group_labels,
                                   numeric_target, require_finite, require_flag, require_whole, seed_of)
from fairspec.models.lagrangian import lagrangian_rows
from fairspec.models.model_file import feature_names_to_json, json_values, params_at_fit, record_params
from fairspec.models.readout import column_names, shown_classes
from fairspec.models.tree.describe import describe_tree
from fairspec.models.tree.grow import GrowSettings, TreeStructure, grow_tree
from fairspec.models.tree.scorer import FORMAT_VERSION, forest_vote_share, read_tree_document
from fairspec.models.tree.split_search import STRATEGIES, VOTE_TOL, EncodedFeatures, SplitScorer, Task
from fairspec.parallel import run_tasks
from fairspec.registry.criteria import Criterion

# The relabelling MIPs (forest_relabel, relabel) and the solver module import Pyomo and HiGHS
# where they are used: scoring a file with a saved tree (fairspec predict) needs neither.

#: the relabelling MIP's work limit (:mod:`fairspec.solvers.highs`, "Work limits"): HiGHS
#: checkpoints per second of ``time_limit``, and the fewest (the rates they rest on:
#: ``benchmarks/README.md``).  The fewest was 3 until a review found a
#: depth-2 tree's MIP, four binaries, stopped there with a 14 % gap, every leaf labelled 0, at
#: a looser bound than a sweep's point that was solved: checkpoints count HiGHS's callbacks,
#: not its work, and a small MIP makes several before its root is solved
RELABEL_CHECKPOINTS_PER_SECOND = 0.5
MIN_RELABEL_CHECKPOINTS = 100


def _criterion_to_json(c: Criterion | None):
    return None if c is None else {"name": c.name, "bound": c.bound, "penalty": c.penalty}


def _group_codes(sensitive_features, n):
    if sensitive_features is None:
        raise DataError("this model enforces a fairness criterion: fit(...) needs sensitive_features")
    names, codes = np.unique(group_labels(sensitive_features, n), return_inverse=True)
    return names, codes


class _TreeParams:
    """Shared hyper-parameters, validation and fitting machinery."""

    _task_kind = "classification"

    def _validate(self):
        for name, least in (("max_depth", 0), ("min_samples_leaf", 1), ("min_samples_split", 2)):
            require_whole(self, name, least)
        for name in ("time_limit", "mip_gap", "lagrange_share"):
            if hasattr(self, name):
                require_finite(self, name)
        if hasattr(self, "threads"):
            require_whole(self, "threads", 1)
            require_whole(self, "relabel_checkpoints", 1, optional=True)
        for name in ("clock_cap", "mia_missing_split", "bootstrap"):
            if hasattr(self, name):
                require_flag(self, name)
        fairness = getattr(self, "fairness", None)
        if fairness is not None and not isinstance(fairness, Criterion):
            raise TypeError(f"fairness must be a fairspec Criterion (fairspec.registry.criteria.make_criterion) or "
                            f"None; got {fairness!r}")
        if self.missing not in STRATEGIES:
            raise ValueError(f"missing must be one of {', '.join(STRATEGIES)}; got {self.missing!r}")
        if self.middle_growth not in ("full", "observed"):
            raise ValueError("middle_growth must be 'full' or 'observed'")
        if self._task_kind == "classification" and self.criterion not in ("gini", "entropy", "entropy_sum"):
            raise ValueError("criterion must be 'gini' or 'entropy' ('entropy_sum': the trinary-tree "
                             "package's split loss, for conformance checks)")
        if self._task_kind == "regression" and getattr(self, "fairness", None) is not None \
                and self.fairness.enforced:
            raise ValueError("fairness criteria compare binary predictions: use the classifier")

    def _categorical_mask(self, p):
        mask = np.zeros(p, dtype=bool)
        mask[list(categorical_indices(self.categorical_features, self, p))] = True
        return mask

    def _prepare(self, X, y, sensitive_features):
        self._validate()
        X = feature_matrix(X, self, reset=True)
        if self._task_kind == "classification":
            self.classes_, y_num = binary_labels(y, X.shape[0], self)
            y_num = y_num.astype(float)
        else:
            y_num = numeric_target(y, X.shape[0], self)
        self.seed_ = seed_of(self.random_state)
        cat = self._categorical_mask(X.shape[1])
        for j in np.flatnonzero(cat):
            col = X[:, j]
            ok = np.isnan(col) | ((col >= 0) & (col == np.round(col)))
            if not ok.all():
                raise DataError(f"categorical feature {j} must hold integer codes 0..k-1 (or NaN)")
        fairness = getattr(self, "fairness", None)
        group_names, groups = None, None
        if fairness is not None and fairness.enforced:
            group_names, groups = _group_codes(sensitive_features, X.shape[0])
            fairness.require_every_rate(y_num, group_names[groups])
        return X, y_num, cat, group_names, groups

    def _task_and_scorer(self, group_names):
        fairness = getattr(self, "fairness", None)
        penalty = fairness.penalty if (fairness is not None and fairness.penalty is not None) else 0.0
        n_groups = len(group_names) if (group_names is not None and penalty) else 0
        if self._task_kind == "classification":
            task = Task("classification", self.criterion, n_groups)
        else:
            task = Task("regression")
        scorer = SplitScorer(task, self.missing, int(self.min_samples_leaf), penalty=float(penalty),
                             rates=fairness.rates if penalty else (), mia_missing_split=bool(self.mia_missing_split))
        return task, scorer

    def _settings(self, max_features=None):
        return GrowSettings(max_depth=int(self.max_depth), min_samples_split=int(self.min_samples_split),
                            min_samples_leaf=int(self.min_samples_leaf), middle_growth=self.middle_growth,
                            max_features=max_features)

    def _lagrangian_rows(self, X, y_num, groups, group_names):
        """The cost-sensitive rows ``(targets, weights, λ)`` a fit under a bound grows on when
        ``lagrange_share`` > 0 (:mod:`fairspec.models.lagrangian`: ``λ`` is that share of the
        multiplier at which a group-and-label cell's targets flip, for the groups the model just
        grown plainly sets furthest apart), else None."""
        share = float(getattr(self, "lagrange_share", 0.0))
        if not share > 0 or self.fairness is None or self.fairness.bound is None:
            return None
        return lagrangian_rows(self._predicts_positive(X), y_num, groups, len(group_names), self.fairness.rates,
                               share)

    def _deadline(self) -> float:
        """When the clock stops the relabelling: ``time_limit`` from now, as it starts, or never
        without ``clock_cap`` (then only the work limits stop it).  Growing the trees has no
        clock (its work is fixed by the data and settings), so it does not count: a forest
        grown by worker processes, whose start-up took 8 s in a fresh process, had left its
        relabelling 0.01 s of a 6 s limit, and the fit failed where one worker took 1 s."""
        return time.perf_counter() + float(self.time_limit) if self.clock_cap else math.inf

    def _relabel_checkpoints(self) -> int:
        if self.relabel_checkpoints is not None:
            return int(self.relabel_checkpoints)
        return max(MIN_RELABEL_CHECKPOINTS, int(RELABEL_CHECKPOINTS_PER_SECOND * float(self.time_limit)))

    def _relabel(self, trees: list[TreeStructure], X, y_num, groups, log, deadline: float):
        """Relabelling of the leaves of ``trees`` (one tree, or a forest's trees) under the bound,
        within what is left of ``time_limit`` at ``deadline`` (a ``time.perf_counter()`` value,
        or infinity) and ``relabel_checkpoints`` of HiGHS's work per MIP.

        One tree: the exact MIP (:func:`.relabel.relabel_leaves`).  A forest: the tree-by-tree
        descent (:mod:`.forest_relabel`), whose labels are kept when they meet the bound; the
        joint MIP over every tree's leaves runs only when they do not (forest_relabel's module
        docstring says why it is not run after a descent that met the bound)."""
        from fairspec.models.tree.forest_relabel import TreeRoutes, tree_by_tree_labels
        from fairspec.models.tree.relabel import relabel_leaves

        fairness = self.fairness
        # copies of one growth relabelled at several bounds (fit_bound_path) share how the rows
        # reach the leaves and what the trees predicted as grown (both read the splits alone),
        # and the MIPs whose model does not depend on the bound (the joint relabelling, a
        # forest's trees each alone), re-solved at each bound (relabel.RelabellingMIP)
        shared = getattr(self, "_grown_routes", None)
        if shared:
            routes, offsets, before = shared["routes"]
        else:
            routes, offsets = TreeRoutes.of(trees, X)
            # what the model predicts as grown: the label vote below is not it for a single tree
            # whose rows are split over leaves (fractional), which mixes the leaves' frequencies
            before = self._predicts_positive(X)
            if shared is not None:
                shared["routes"] = (routes, offsets, before)
        n_leaf_ids = offsets[-1] + trees[-1].n_nodes
        rows, leaves, w = routes.concatenated()
        own_labels = [t.leaf_label for t in trees]
        solver = dict(mip_gap=float(self.mip_gap), threads=int(self.threads), seed=self.seed_,
                      max_checkpoints=self._relabel_checkpoints())
        descent_met_bound = False
        if len(trees) > 1:
            current = np.concatenate([t.leaf_labels() for t in trees])
            labels, dlog = tree_by_tree_labels(routes, current, y_num, groups, fairness.rates, fairness.bound,
                                               deadline=deadline, reuse=None if shared is None else
                                               shared.setdefault("trees_alone", {}), **solver)
            log.update(dlog)
            descent_met_bound = dlog["relabel_descent_meets_bound"]
        if not descent_met_bound:  # otherwise the fit's own status stands: heuristic, no MIP gap
            # one class for every row meets any bound on selection rates, TPRs and FPRs: kept
            # when the MIP finds no labelling (or a worse one) before its limits
            constant = (np.zeros(n_leaf_ids), np.ones(n_leaf_ids))
            labels, mlog = relabel_leaves(rows, leaves, w, n_leaf_ids, y_num, groups, fairness.rates, fairness.bound,
                                          time_limit=deadline - time.perf_counter(), fallback_labels=constant,
                                          reuse=None if shared is None else shared.setdefault("joint", {}), **solver)
            if mlog["relabel_labels_from"] == "fallback":
                predicted = "positive" if labels[np.unique(leaves)].all() else "negative"
                found = ("only a less accurate labelling" if mlog["relabel_objective_of_mip"] is not None
                         else "no labelling that meets the bound")
                how = ("was not run: the time limit had passed before it was built" if "relabel_not_run_because"
                       in mlog else f"found {found} in its limits (status {mlog['relabel_status']})")
                log.update(mlog, status="heuristic", mip_gap=None,
                           note=(f"the leaf-relabelling MIP {how}; every leaf a training row reaches predicts "
                                 f"{predicted}, which meets the bound on the training rows (a leaf no training row "
                                 f"reaches, as every relabelled tree's, keeps its own label)"))
            else:
                log.update(mlog, status=mlog["relabel_status"], mip_gap=mlog["relabel_mip_gap"],
                           mip_gap_of="the integer program that re-chose the leaf labels (the splits were grown "
                                      "greedily)")
        # only the leaves training rows reach were relabelled; the rest (a Trinary middle child
        # where no training value was missing, an unseen category's branch) keep their own
        # estimate, else a bound, even a vacuous one, would set them all to 0 for new rows
        reached = np.zeros(n_leaf_ids, dtype=bool)
        reached[np.unique(leaves)] = True
        for t, off in zip(trees, offsets):
            lab = t.leaf_labels().copy()
            leaf_ids = np.asarray(t.leaves())
            leaf_ids = leaf_ids[reached[off + leaf_ids]]
            lab[leaf_ids] = labels[off + leaf_ids]
            t.leaf_label = lab.tolist()
        after = self._vote(rows, leaves, w, trees, len(y_num))
        gap_before, gap_after = fairness.gap(y_num, before, groups), fairness.gap(y_num, after, groups)
        accuracy_before, accuracy_after = float((before == y_num).mean()), float((after == y_num).mean())
        if fairness.allows(gap_before):
            # The model as grown already meets the bound, so the bound does not bind and changes
            # nothing: the leaves keep their own labels (and a tree its frequency scores).  The
            # relabelling maximises accuracy over leaf-label votes, which can beat the grown
            # labels on the training rows (a Trinary middle child is grown on its parent's rows,
            # a forest's leaves take their bootstrap sample's majority), and a review found a
            # vacuous bound <= 1 changing 73 of 120 random fits that way; under fractional
            # routing it is the other way round (a vote of labels is less accurate than the mix
            # of frequencies the tree predicts by)
            for t, own in zip(trees, own_labels):
                t.leaf_label = own
            if accuracy_before != accuracy_after:  # not the MIP's optimum then
                log.update(status="heuristic", mip_gap=None)
                log.pop("mip_gap_of", None)
            why = ("the training rows hold a single group, which has no gap" if gap_before is None else
                   f"the model as grown meets the bound on the training rows (gap {gap_before:.4g})")
            log["note"] = (f"{why}, so the bound does not bind and its leaves keep their own labels (training "
                           f"accuracy {accuracy_before:.4g}; relabelled, {accuracy_after:.4g})")
            after, gap_after, accuracy_after = before, gap_before, accuracy_before
        log["train_gap_before_relabel"] = gap_before
        log["train_gap_after_relabel"] = gap_after
        log["train_accuracy_before_relabel"] = accuracy_before
        log["train_accuracy_after_relabel"] = accuracy_after
        log["leaves_relabelled"] = int(sum(
            int((t.leaf_labels()[t.leaves()] != (np.asarray(t.value)[t.leaves()] > 0.5 + VOTE_TOL)).sum())
            for t in trees))

    def fit_bound_path(self, X, y, bounds, sensitive_features=None) -> list:
        """One fitted copy of this classifier per bound of ``bounds``, from one growth.

        Under a bound the splits do not depend on ε (it acts only through the leaf relabelling,
        and a bound has no split penalty), so a fit at ε′ is the tree(s) grown once with their
        leaves relabelled at ε′: each copy is exactly what ``fit`` with ``fairness`` at that
        bound returns, at the cost of one growth and ``len(bounds)`` relabelling MIPs.  This is
        the path :mod:`fairspec.calibration` reads its candidates from.

        The candidates share what does not depend on the bound: the routing of the rows, and the
        relabelling MIPs whose model is the same at every bound, built once and re-solved at
        each (:class:`.relabel.RelabellingMIP` says why a re-solve returns what a fresh fit
        does).  Each candidate gets its own shallow copies of the grown trees (a relabelling
        only assigns a tree's ``leaf_label``), and all share one copy of the trees as grown for
        :meth:`fitted_without_fairness`."""
        if self.fairness is None or self.fairness.bound is None:
            raise ValueError("fit_bound_path needs a fairness criterion with a bound")
        start = time.perf_counter()
        grown_from = copy.deepcopy(self)
        X, y_num, groups, log = grown_from._grow(X, y, sensitive_features)
        grown_seconds = time.perf_counter() - start
        as_grown = [copy.copy(t) for t in grown_from._trees()]
        fitted, shared = [], {}
        for bound in bounds:
            est = copy.copy(grown_from)
            est._set_trees([copy.copy(t) for t in as_grown])
            est.fairness = type(self.fairness)(bound=float(bound))
            est._grown_routes = shared  # filled by the first relabelling, read by the others
            est._finish_fit(est._trees(), X, y_num, groups, dict(log), time.perf_counter() - grown_seconds,
                            grown_trees=as_grown)
            del est._grown_routes
            fitted.append(est)
        return fitted

    def _finish_fit(self, trees: list[TreeStructure], X, y_num, groups, log: dict, start: float,
                    grown_trees: list[TreeStructure] | None = None) -> None:
        """The end of a classifier's fit once ``trees`` are grown: relabel their leaves under a
        bound (a penalty already acted in the split score; its train gap is logged), then the
        reproducibility keys and the time, into ``fit_log_``.  ``grown_trees``: a copy of
        ``trees`` as grown that nothing will change (fit_bound_path's, shared), else one is made."""
        # what fitting without the criterion grows (a bound acts only on the leaves), kept for
        # :meth:`fitted_without_fairness`; a refit without a bound forgets an earlier fit's
        self._grown_before_relabel = None
        if self.fairness is not None and self.fairness.bound is not None:
            self._grown_before_relabel = (copy.deepcopy(trees) if grown_trees is None else grown_trees, dict(log),
                                          time.perf_counter() - start)
            self._relabel(trees, X, y_num, groups, log, self._deadline())
        elif self.fairness is not None and self.fairness.enforced:
            # on 0/1 (1 = classes_[1]), as y_num is: the labels may be strings
            log["train_gap"] = self.fairness.gap(y_num, self._predicts_positive(X), groups)
        _log_reproducibility(log, self.clock_cap)
        log["seconds"] = round(time.perf_counter() - start, 3)
        self.fit_log_ = log
        record_params(self)

    def fitted_without_fairness(self):
        """This classifier as ``fit`` with ``fairness=None`` on the same rows returns it, without
        growing again, or None when this fit cannot tell (no bound, or not fitted here).

        Under a bound the splits do not depend on the criterion (:meth:`fit_bound_path`), so the
        trees as grown, before their leaves were relabelled, are the unconstrained fit's trees;
        its fit log is the growth's, and its ``seconds`` the growth's time.  The pipeline's
        comparison model (:func:`fairspec.pipeline.train.train`, ``unconstrained``) reads it."""
        grown = getattr(self, "_grown_before_relabel", None)
        if grown is None or grown[1].get("lagrange_multiplier") is not None:
            return None  # grown on the bound's Lagrangian: the unconstrained fit grows other splits
        trees, log, seconds = grown
        est = copy.copy(self)
        est.__dict__ = {k: v for k, v in self.__dict__.items() if k not in ("_grown_before_relabel", "fit_log_")}
        est.fairness = None
        est._set_trees(copy.deepcopy(trees))
        est._finish_fit(est._trees(), None, None, None, dict(log), time.perf_counter() - seconds)
        return est

    def _predicts_positive(self, X) -> np.ndarray:
        """1.0 where the fitted model predicts the positive class (``classes_[1]``), on the 0/1
        scale of ``y_num``: the labels may be strings."""
        return (self.predict(X) == self.classes_[1]).astype(float)

    @staticmethod
    def _vote(rows, leaves, w, trees, n):
        labels = np.concatenate([t.leaf_labels() for t in trees])
        s = np.bincount(rows, weights=w * labels[leaves], minlength=n)
        return (s > 0.5 + VOTE_TOL).astype(float)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # every missing-value rule routes a NaN, even "none" (as "majority": the module docstring)
        tags.input_tags.allow_nan = True
        if tags.classifier_tags is not None:
            tags.classifier_tags.multi_class = False  # the positive class is classes_[1]
        return tags


def _log_reproducibility(log: dict, clock_cap: bool) -> None:
    """``reproducible`` / ``cut_by_clock`` / ``clock_cap`` in a fit log, as the rule sets report them.

    Growing is seeded and never looks at the clock; only the leaf relabelling (a tree's MIP, a
    forest's tree-by-tree descent, ``relabel_descent``, and the joint MIP when that fell short
    of the bound) has a time limit.  A stage the clock stopped may return another labelling on
    a faster or idler machine; one that finished (optimal within its MIP gap, or infeasible) or
    stopped by its work limit (``relabel_checkpoints``) returns the same one again.
    """
    cut = ["relabel_descent"] if log.get("relabel_descent_cut_by_clock") else []
    from fairspec.solvers.highs import stopped_by_clock

    if stopped_by_clock(str(log.get("relabel_status", ""))):
        cut.append("relabel_mip")
    log.update(reproducible=not cut, cut_by_clock=cut, clock_cap=bool(clock_cap))


class MissingAwareTreeClassifier(_TreeParams, ClassifierMixin, BaseEstimator):
    """Greedy binary classification tree with native missing-value handling.

    ``missing``: ``mia`` | ``trinary`` | ``trinary_mia`` | ``majority`` | ``fractional`` |
    ``none`` (see :mod:`fairspec.models.tree.split_search` for each rule).
    ``fairness``: a :class:`~fairspec.registry.criteria.Criterion`; its ``penalty`` λ enters the
    split score, its ``bound`` ε is met by relabelling the leaves (exact MIP, HiGHS).
    ``time_limit`` caps the relabelling on the wall clock (growing has no clock) and sizes the
    relabelling MIP's work limit,
    ``relabel_checkpoints`` HiGHS checkpoints (None: :data:`RELABEL_CHECKPOINTS_PER_SECOND` per
    second of it, at least :data:`MIN_RELABEL_CHECKPOINTS`); ``clock_cap=False`` lets only that
    work limit stop the MIP, so the same data and seed give the same tree on any machine.
    ``random_state``: an int, None (the seed 0) or a numpy ``RandomState`` (one draw per fit);
    ``seed_`` is the integer a fit used, and the model file records it.
    ``lagrange_share`` > 0: under a bound, the tree is grown on the bound's Lagrangian at that
    share of the multiplier at which a group's targets flip (:func:`grow_on_targets`), then
    relabelled as any tree; 0 grows on the labels as they are.
    """

    _task_kind = "classification"

    def __init__(self, max_depth=5, min_samples_leaf=1, min_samples_split=2, criterion="gini", missing="mia",
                 categorical_features=None, fairness=None, middle_growth="observed", mia_missing_split=True,
                 time_limit=60.0, mip_gap=1e-4, threads=1, random_state=0, clock_cap=True, relabel_checkpoints=None,
                 lagrange_share=0.0):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.criterion = criterion
        self.missing = missing
        self.categorical_features = categorical_features
        self.fairness = fairness
        self.middle_growth = middle_growth
        self.mia_missing_split = mia_missing_split
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.clock_cap = clock_cap
        self.relabel_checkpoints = relabel_checkpoints
        self.lagrange_share = lagrange_share

    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        grown = self._grow(X, y, sensitive_features)
        self._finish_fit(self._trees(), *grown, start)
        return self

    def _grow(self, X, y, sensitive_features):
        """Grow ``tree_`` (no relabelling yet); returns what :meth:`_finish_fit` reads next."""
        X, y_num, cat, group_names, groups = self._prepare(X, y, sensitive_features)
        task, scorer = self._task_and_scorer(group_names)
        enc = EncodedFeatures.encode(X, cat)
        self.tree_ = grow_tree(enc, y_num, np.ones(len(y_num)), task, scorer, self._settings(),
                               groups=groups if task.n_groups else None)
        log = {"status": "heuristic", "mip_gap": None, "algorithm": "greedy tree", "missing": self.missing}
        rows = self._lagrangian_rows(X, y_num, groups, group_names)
        if rows is not None:
            self.tree_ = grow_on_targets(enc, X, y_num, rows[0], rows[1], task, scorer, self._settings())
            log.update(algorithm="greedy tree on the bound's Lagrangian", lagrange_multiplier=rows[2])
        log.update(nodes=self.tree_.n_nodes, leaves=int(len(self.tree_.leaves())))
        return X, y_num, groups, log

    def _trees(self) -> list[TreeStructure]:
        return [self.tree_]

    def _set_trees(self, trees: list[TreeStructure]) -> None:
        (self.tree_,) = trees

    def predict_proba(self, X):
        check_is_fitted(self, "tree_")
        X = feature_matrix(X, self, reset=False)
        rows, leaves, w = self.tree_.route_rows(X)
        if self.tree_.leaf_label is not None:
            vals = np.asarray(self.tree_.leaf_label, float)
        else:
            vals = np.asarray(self.tree_.value, float)
        p1 = np.clip(np.bincount(rows, weights=w * vals[leaves], minlength=X.shape[0]), 0.0, 1.0)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        return self.labels_from_scores(self.predict_proba(X)[:, 1])

    def labels_from_scores(self, p1):
        """The labels :meth:`predict` gives rows whose ``predict_proba(X)[:, 1]`` is ``p1``: a
        caller that needs both (the pipeline's evaluation) routes the rows once."""
        return self.classes_[(np.asarray(p1) > 0.5 + VOTE_TOL).astype(int)]

    def to_json(self) -> dict:
        check_is_fitted(self, "tree_")
        return _tree_doc(self, "missing_aware_tree_classifier")

    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        check_is_fitted(self, "tree_")
        return describe_tree(self.tree_, column_names(self, feature_names), categories,
                             classes=shown_classes(self, class_names), imputed=imputed)


class MissingAwareTreeRegressor(_TreeParams, RegressorMixin, BaseEstimator):
    """Greedy regression tree (squared error) with native missing-value handling."""

    _task_kind = "regression"

    def __init__(self, max_depth=5, min_samples_leaf=1, min_samples_split=2, missing="mia",
                 categorical_features=None, middle_growth="observed", mia_missing_split=True, random_state=0):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.missing = missing
        self.categorical_features = categorical_features
        self.middle_growth = middle_growth
        self.mia_missing_split = mia_missing_split
        self.random_state = random_state

    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        X, y_num, cat, _, _ = self._prepare(X, y, None)
        task, scorer = self._task_and_scorer(None)
        enc = EncodedFeatures.encode(X, cat)
        self.tree_ = grow_tree(enc, y_num, np.ones(len(y_num)), task, scorer, self._settings())
        self.fit_log_ = {"status": "heuristic", "mip_gap": None, "algorithm": "greedy regression tree",
                         "reproducible": True, "cut_by_clock": [],
                         "missing": self.missing, "nodes": self.tree_.n_nodes,
                         "leaves": int(len(self.tree_.leaves())), "seconds": round(time.perf_counter() - start, 3)}
        record_params(self)
        return self

    def predict(self, X):
        check_is_fitted(self, "tree_")
        X = feature_matrix(X, self, reset=False)
        rows, leaves, w = self.tree_.route_rows(X)
        vals = np.asarray(self.tree_.value, float)
        return np.bincount(rows, weights=w * vals[leaves], minlength=X.shape[0])

    def to_json(self) -> dict:
        check_is_fitted(self, "tree_")
        return _tree_doc(self, "missing_aware_tree_regressor")

    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        """The tree; ``class_names`` is accepted as every family's read-out takes it, and unused:
        a regressor's leaves are numbers."""
        check_is_fitted(self, "tree_")
        return describe_tree(self.tree_, column_names(self, feature_names), categories, classification=False,
                             imputed=imputed)


def grow_on_targets(enc, X, y_num, targets, row_weights, task, scorer, settings, counts=None, rng=None):
    """A tree grown on the cost-sensitive rows ``(targets, row_weights)`` of a bound's Lagrangian
    (:mod:`fairspec.models.lagrangian`), each row counted ``counts`` times (a bootstrap sample).
    Its splits separate what the Lagrangian's optimum separates; each leaf keeps the label the
    Lagrangian gives it (the weighted majority of its targets) in ``leaf_label``, and its
    ``value`` is again the (counted) training frequency of the true class, so that a leaf's
    printed frequency and the report's scores mean what they mean in any tree."""
    counts = np.ones(len(y_num)) if counts is None else counts
    tree = grow_tree(enc, np.asarray(targets, float), counts * row_weights, task, scorer, settings, rng=rng)
    tree.leaf_label = tree.leaf_labels().tolist()
    rows, leaves, w = tree.route_rows(X)
    w = w * counts[rows]
    reach = np.bincount(leaves, weights=w, minlength=tree.n_nodes)
    positive = np.bincount(leaves, weights=w * y_num[rows], minlength=tree.n_nodes)
    value = np.asarray(tree.value, float)
    value[reach > 0] = positive[reach > 0] / reach[reach > 0]
    tree.value = value.tolist()
    return tree


def _grow_one(enc, y_num, task, scorer, settings, groups, seed, bootstrap, lagrangian=None):
    """One tree of a forest on its bootstrap sample; ``lagrangian``: ``(X, targets, weights)``,
    the cost-sensitive rows it grows on instead (:func:`grow_on_targets`).  The sample is drawn
    first either way, so a forest grown on the Lagrangian draws the plain forest's samples."""
    scorer = copy.deepcopy(scorer)  # its fairness state belongs to one tree
    rng = np.random.default_rng(seed)
    n = len(y_num)
    if bootstrap:
        weights = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
    else:
        weights = np.ones(n)
    if lagrangian is not None:
        X, targets, row_weights = lagrangian
        return grow_on_targets(enc, X, y_num, targets, row_weights, task, scorer, settings, counts=weights, rng=rng)
    return grow_tree(enc, y_num, weights, task, scorer, settings, groups=groups, rng=rng)


class MissingAwareForestClassifier(_TreeParams, ClassifierMixin, BaseEstimator):
    """Bagged missing-aware trees: bootstrap rows, ``max_features`` per split, majority vote.

    Tree ``t`` draws its rows and feature subsets from its own generator, seeded by the
    ``t``-th child of ``numpy.random.SeedSequence(seed_)`` (``seed_`` as for the single tree): the forest is the same
    whatever ``n_jobs`` is.  ``predict_proba[:, 1]`` is the share of trees voting 1 (a tree's
    vote is the weighted vote of the leaves a row reaches); with a fairness bound the leaves
    are relabelled one tree at a time by :mod:`.forest_relabel`'s descent, and jointly (one
    MIP) only when that descent ends above the bound.  ``lagrange_share`` as for the single
    tree: every tree grows on the Lagrangian's rows of the plain forest's groups.
    """

    _task_kind = "classification"

    def __init__(self, n_estimators=50, max_features="sqrt", bootstrap=True, max_depth=5, min_samples_leaf=1,
                 min_samples_split=2, criterion="gini", missing="mia", categorical_features=None, fairness=None,
                 middle_growth="observed", mia_missing_split=True, n_jobs=1, time_limit=60.0, mip_gap=1e-4,
                 threads=1, random_state=0, clock_cap=True, relabel_checkpoints=None, lagrange_share=0.0):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.criterion = criterion
        self.missing = missing
        self.categorical_features = categorical_features
        self.fairness = fairness
        self.middle_growth = middle_growth
        self.mia_missing_split = mia_missing_split
        self.n_jobs = n_jobs
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.clock_cap = clock_cap
        self.relabel_checkpoints = relabel_checkpoints
        self.lagrange_share = lagrange_share

    def _n_features_per_split(self, p):
        mf = self.max_features
        if mf is None or (isinstance(mf, str) and mf == "all"):
            return None
        if isinstance(mf, str) and mf == "sqrt":
            return max(1, int(np.sqrt(p)))
        if isinstance(mf, str) and mf == "log2":
            return max(1, int(np.log2(p)))
        if isinstance(mf, float) and 0 < mf <= 1:
            return max(1, int(mf * p))
        if isinstance(mf, (int, np.integer)) and not isinstance(mf, bool) and mf >= 1:
            return min(int(mf), p)
        raise ValueError(f"max_features must be 'sqrt', 'log2', 'all', None, a whole number of at least 1 or a "
                         f"share in (0, 1]; got {mf!r}")

    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        grown = self._grow(X, y, sensitive_features)
        self._finish_fit(self._trees(), *grown, start)
        return self

    def _trees(self) -> list[TreeStructure]:
        return self.trees_

    def _set_trees(self, trees: list[TreeStructure]) -> None:
        self.trees_ = list(trees)

    def _grow(self, X, y, sensitive_features):
        """Grow ``trees_`` (no relabelling yet); returns what :meth:`_finish_fit` reads next."""
        X, y_num, cat, group_names, groups = self._prepare(X, y, sensitive_features)
        task, scorer = self._task_and_scorer(group_names)
        enc = EncodedFeatures.encode(X, cat)
        require_whole(self, "n_estimators", 1)  # a forest of no trees would predict NaN probabilities
        settings = self._settings(self._n_features_per_split(X.shape[1]))
        seeds = np.random.SeedSequence(self.seed_).spawn(int(self.n_estimators))
        g = groups if task.n_groups else None
        # the trees are the same whatever the number of jobs: each has its own seed
        self.trees_ = run_tasks(_grow_one, [(enc, y_num, task, scorer, settings, g, s, bool(self.bootstrap))
                                            for s in seeds], n_jobs=self.n_jobs)
        log = {"status": "heuristic", "mip_gap": None, "algorithm": "bagged greedy trees", "missing": self.missing}
        rows = self._lagrangian_rows(X, y_num, groups, group_names)
        if rows is not None:
            self.trees_ = run_tasks(_grow_one, [(enc, y_num, task, scorer, settings, g, s, bool(self.bootstrap),
                                                 (X, rows[0], rows[1])) for s in seeds], n_jobs=self.n_jobs)
            log.update(algorithm="bagged greedy trees on the bound's Lagrangian", lagrange_multiplier=rows[2])
        log.update(trees=len(self.trees_), nodes=int(sum(t.n_nodes for t in self.trees_)))
        return X, y_num, groups, log

    def predict_proba(self, X):
        check_is_fitted(self, "trees_")
        X = feature_matrix(X, self, reset=False)
        p1 = forest_vote_share(self.trees_, X)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        return self.labels_from_scores(self.predict_proba(X)[:, 1])

    def labels_from_scores(self, p1):
        """The labels :meth:`predict` gives rows whose ``predict_proba(X)[:, 1]`` is ``p1``: a
        caller that needs both (the pipeline's evaluation) routes the rows once."""
        return self.classes_[(np.asarray(p1) > 0.5 + VOTE_TOL).astype(int)]

    def to_json(self) -> dict:
        check_is_fitted(self, "trees_")
        doc = _base_doc(self, "missing_aware_forest_classifier")
        doc["trees"] = [{"relabelled": t.leaf_label is not None, "nodes": t.to_nodes()} for t in self.trees_]
        return doc

    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        check_is_fitted(self, "trees_")
        n = len(self.trees_)
        lines = [f"forest of {n} tree{'' if n == 1 else 's'} (majority vote); first tree:"]
        first = describe_tree(self.trees_[0], column_names(self, feature_names), categories,
                              classes=shown_classes(self, class_names), imputed=imputed)
        lines += ["  " + s for s in first]
        return lines


# -- JSON ------------------------------------------------------------------------------------
_KINDS = {"missing_aware_tree_classifier": MissingAwareTreeClassifier,
          "missing_aware_tree_regressor": MissingAwareTreeRegressor,
          "missing_aware_forest_classifier": MissingAwareForestClassifier}


def _base_doc(est, kind):
    params = json_values(params_at_fit(est))
    params["random_state"] = getattr(est, "seed_", params["random_state"])  # a RandomState is no JSON
    if "fairness" in params:
        params["fairness"] = _criterion_to_json(params["fairness"])
    if params.get("categorical_features") is not None:
        params["categorical_features"] = list(categorical_indices(params["categorical_features"], est,
                                                                  est.n_features_in_))
    if params.get("lagrange_share") == 0:
        # grown on the labels as they are: written as before the parameter existed (its default)
        del params["lagrange_share"]
    classes = getattr(est, "classes_", None)
    return {"kind": kind, "format_version": FORMAT_VERSION, "params": params,
            "n_features_in": int(est.n_features_in_),
            **feature_names_to_json(est),
            "classes": None if classes is None else [c.item() if hasattr(c, "item") else c for c in classes],
            "fit_log": est.fit_log_}


def _tree_doc(est, kind):
    doc = _base_doc(est, kind)
    doc["relabelled"] = est.tree_.leaf_label is not None
    doc["nodes"] = est.tree_.to_nodes()
    return doc


def estimator_from_json(doc: dict):
    """Rebuild a fitted estimator from ``to_json()`` output (data only).

    ``ModelFileError`` saying what is wrong when ``doc`` is not something ``to_json`` writes
    (:func:`.scorer.read_tree_document` makes the checks; :mod:`.scorer` scores the same
    document without scikit-learn).
    """
    parts = read_tree_document(doc)
    est = _KINDS[parts.kind](**parts.params)
    est.n_features_in_ = parts.n_features
    if parts.feature_names is not None:
        est.feature_names_in_ = parts.feature_names
    if parts.categorical is not None:
        est.categorical_features = parts.categorical
    if parts.classes is not None:
        est.classes_ = parts.classes
    est.fit_log_ = parts.fit_log
    if isinstance(est, MissingAwareForestClassifier):
        est.trees_ = parts.trees
    else:
        (est.tree_,) = parts.trees
    record_params(est)
    return est
