"""``FairMIPForestClassifier``: fair trees trained by mixed-integer programming, missing values
routed inside the optimisation (Fair MIP Forest; Jeong, Wang & Calmon, AAAI 2022).

Fit, end to end:

1. candidate splits on the training rows (:mod:`.candidates`): quantile cuts and category
   tests, each with both missing directions for a feature that has missing values (MIA);
2. ``n_trees`` batches of ``batch_size`` rows, each stratified by label and group
   (:func:`stratified_batch`): every (label, group) cell of the training rows keeps at least one
   row, so no batch lacks a group's rate (the authors' batches are plain random draws, and a
   batch without one group divides by zero there);
3. one tree per batch (:mod:`.tree_fit`): heuristic starts and a dual bound, then the MIP
   (:mod:`.formulation`) from the best start, within its work limit; the trees are
   independent, fitted side by side by :func:`fairspec.parallel.run_tasks` (``threads``
   workers), each with its own seed, so the forest does not depend on ``threads``;
4. where a node's batch rows had no missing value of its feature, the MIP's choice of
   missing direction decided nothing: a missing value there goes to the side more of the node's
   batch rows took (the ``tree`` family's MIA rule for a value unseen in training);
5. majority vote (ties: the negative class);
6. under a bound ``ε``, the forest's vote must meet it on the training rows, which trees that
   each meet it on their own batch do not ensure: when the vote does not, the leaf labels are
   re-chosen as the ``tree`` family's forest re-chooses them (:mod:`fairspec.models.tree.
   forest_relabel`: exact MIPs one tree at a time, then one MIP over every leaf if needed; the
   two constant labellings meet any bound on selection rates, TPRs and FPRs).

Time and work.  ``time_limit`` is the budget of the whole fit, dealt evenly to the trees: each
tree's MIP gets ``tree_checkpoints`` HiGHS checkpoints of work (by default
:data:`CHECKPOINTS_PER_SECOND` per second of ``time_limit / n_trees``, at least
:data:`MIN_TREE_CHECKPOINTS`) and, under ``clock_cap``, ``time_limit · threads / n_trees`` seconds
of HiGHS's clock (its share of the wall clock, ``threads`` trees running at once).  The
heuristics run to their fixed work, and building the MIP and loading it into HiGHS are not
capped (as the rule sets' set-up is not), so a fit can overrun ``time_limit`` by them.  With
``clock_cap=False`` only the work limits stop anything, so the same data, parameters and seed
give the same forest on any machine and with any ``threads``.  The paper gives each tree 60 s
(``time_limit`` 1800 for 30 trees).  The batches are drawn by row position, as the evaluation's
split is: the same rows in another order give other batches, and so another forest.
"""
from __future__ import annotations

import math
import time
from collections import Counter

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from fairspec.errors import DataError, NoUsableModelError
from fairspec.models.inputs import (binary_labels, categorical_indices, feature_matrix, fit_or_keep, group_labels,
                                   require_finite, require_flag, require_whole, seed_of)
from fairspec.models.mip_forest.candidates import candidate_splits, split_matrix
from fairspec.models.mip_forest.tree_fit import TreeTask, fit_tree
from fairspec.models.model_file import (check_header, class_labels, feature_indices, feature_names_to_json, integer, is_integer,
                                        json_values, labels_to_json, params_at_fit, record_params,
                                        restore_feature_names, show)
from fairspec.models.readout import column_names, shown_classes
from fairspec.models.rule_set.binarize import Literal
from fairspec.models.tree.forest_relabel import TreeRoutes, tree_by_tree_labels
from fairspec.models.tree.relabel import VOTE_TOL, relabel_leaves
from fairspec.parallel import run_tasks
from fairspec.registry.criteria import CRITERIA, Criterion, make_criterion
from fairspec.solvers import highs

FORMAT_VERSION = 1
#: the deepest tree (the issue's range; the DP is exact to depth 3, :mod:`.dynamic_programme`)
MAX_DEPTH = 4
#: a tree MIP's work limit: HiGHS checkpoints per second of its share of ``time_limit``, and the
#: fewest (chosen in development; what a checkpoint costs on these MIPs is not yet recorded)
CHECKPOINTS_PER_SECOND = 0.5
MIN_TREE_CHECKPOINTS = 1
#: the leaf relabelling under a bound: its work limit per second of ``time_limit`` and the
#: fewest (as the tree family's), and the share of ``time_limit`` its clock gets
RELABEL_CHECKPOINTS_PER_SECOND = 0.5
MIN_RELABEL_CHECKPOINTS = 100
RELABEL_CLOCK_SHARE = 0.25
#: trees ``describe`` prints in full
TREES_SHOWN = 3
#: the test of a node when no candidate splits the batch's rows (its two sides then predict alike)
NO_SPLIT = Literal(0, "is_present")


class MipTree:
    """A fitted tree: one literal per branching node (heap order; true = left, its
    ``missing_true`` the missing direction), one class per leaf."""

    def __init__(self, splits: list[Literal], labels: list[int]):
        self.splits = list(splits)
        self.labels = np.asarray(labels, dtype=np.int64)

    @property
    def depth(self) -> int:
        return int(np.log2(len(self.labels)))

    def node_of_rows(self, X: np.ndarray) -> list[np.ndarray]:
        """For each heap node (branching nodes, then leaves), which rows of ``X`` reach it."""
        n_branch = len(self.splits)
        reach = [None] * (2 * n_branch + 1)
        reach[0] = np.ones(X.shape[0], dtype=bool)
        for v, lit in enumerate(self.splits):
            goes_left = lit.evaluate(X)
            reach[2 * v + 1] = reach[v] & goes_left
            reach[2 * v + 2] = reach[v] & ~goes_left
        return reach

    def leaf_of(self, X: np.ndarray) -> np.ndarray:
        node = np.zeros(X.shape[0], dtype=np.int64)
        n_branch = len(self.splits)
        goes_left = np.column_stack([lit.evaluate(X) for lit in self.splits]) if self.splits else None
        rows = np.arange(X.shape[0])
        for _ in range(self.depth):
            node = np.where(goes_left[rows, node], 2 * node + 1, 2 * node + 2)
        return node - n_branch

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.labels[self.leaf_of(X)]

    def to_json(self) -> dict:
        return {"splits": [lit.to_json() for lit in self.splits], "labels": [int(c) for c in self.labels]}

    @classmethod
    def from_json(cls, doc, n_features: int, categorical: tuple) -> "MipTree":
        if not (isinstance(doc, dict) and isinstance(doc.get("splits"), list) and isinstance(doc.get("labels"), list)):
            raise ValueError("a tree must be an object with a list of 'splits' and a list of 'labels'")
        labels = doc["labels"]
        depth = int(np.log2(len(labels))) if labels else -1
        if not 1 <= depth <= MAX_DEPTH or len(labels) != 2 ** depth:
            raise ValueError(f"a tree has 2, 4, 8 or 16 leaf labels (depth 1 to {MAX_DEPTH}), got {len(labels)}")
        if len(doc["splits"]) != len(labels) - 1:
            raise ValueError(f"a tree with {len(labels)} leaves has {len(labels) - 1} splits, got {len(doc['splits'])}")
        if not all(is_integer(c) and c in (0, 1) for c in labels):
            raise ValueError(f"leaf labels are 0 or 1, got {show(labels)}")
        splits = []
        for s in doc["splits"]:
            if not isinstance(s, dict):
                raise ValueError("a split must be an object")
            lit = Literal.from_json(s)
            if lit.op not in ("<=", "==", "is_present"):
                raise ValueError(f"a split tests '<=', '==' or 'is_present', got {lit.op!r}")
            if not 0 <= lit.feature < n_features:
                raise ValueError(f"a split reads feature {lit.feature}, but the model has {n_features}")
            if lit.op != "is_present" and lit.value is None:
                raise ValueError(f"a split on feature {lit.feature} has no value")
            if (lit.op == "<=") == (lit.feature in categorical) and lit.op != "is_present":
                kind = "categorical" if lit.feature in categorical else "numeric"
                raise ValueError(f"a split compares {kind} feature {lit.feature} by {lit.op!r}, which training "
                                 f"never does")
            splits.append(lit)
        return cls(splits, labels)


def stratified_batch(y: np.ndarray, groups: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` training rows (sorted indices), drawn without replacement within each (label,
    group) cell: each non-empty cell gets at least one row, the rest are dealt in proportion to
    the cells' sizes (largest remainders first, ties to the earlier cell).  All rows when
    ``size`` is at least their number."""
    n = len(y)
    if size >= n:
        return np.arange(n)
    cell_of = np.asarray(y, dtype=np.int64) * (int(groups.max()) + 1) + np.asarray(groups, dtype=np.int64)
    cells, sizes = np.unique(cell_of, return_counts=True)
    if size < len(cells):
        raise DataError(f"batch_size {size} is smaller than the {len(cells)} (label, group) cells of the training "
                        f"rows: each batch needs a row of every cell, or some group's rate is undefined in it; "
                        f"raise batch_size to at least {len(cells)}")
    share = (size - len(cells)) * (sizes - 1) / max(n - len(cells), 1)
    take = 1 + np.floor(share).astype(np.int64)
    left = size - int(take.sum())
    order = sorted(range(len(cells)), key=lambda c: (-(share[c] - np.floor(share[c])), c))
    for c in order:
        if left <= 0:
            break
        if take[c] < sizes[c]:
            take[c] += 1
            left -= 1
    rows = [rng.choice(np.flatnonzero(cell_of == cell), size=int(k), replace=False)
            for cell, k in zip(cells, take)]
    return np.sort(np.concatenate(rows))


def _settle_missing(tree: MipTree, X: np.ndarray) -> MipTree:
    """Step 4 of the module docstring, on the tree's batch rows ``X``."""
    reach = tree.node_of_rows(X)
    splits = []
    for v, lit in enumerate(tree.splits):
        if lit.op == "is_present":
            splits.append(lit)
            continue
        rows = reach[v]
        missing = np.isnan(X[:, lit.feature])
        if (rows & missing).any():
            splits.append(lit)  # the MIP chose where the node's missing rows go
            continue
        went_left = int((rows & lit.evaluate(X)).sum())
        splits.append(Literal(lit.feature, lit.op, lit.value, went_left >= int(rows.sum()) - went_left))
    return MipTree(splits, tree.labels)


class FairMIPForestClassifier(ClassifierMixin, BaseEstimator):
    """A forest of fair depth-``max_depth`` trees, each a MIP on a stratified batch (module docstring).

    Parameters
    ----------
    n_trees : int, trees in the forest (the paper: 30)
    max_depth : int, 1 to 4, every tree's depth (the paper: 3)
    batch_size : int, rows per tree's batch (the paper: 200; the default is larger because a tree
        that equalises the group rates of 200 rows does not equalise them on the others, seen in
        development, not yet a recorded measurement); at least the training rows gives every tree
        every row
    thresholds : int, quantile bins per numeric feature (10 = deciles), as the rule sets'
    missing : "mia" (missing values routed by the MIP) or "none" (imputed or dropped upstream)
    criterion : fairspec Criterion or None; a ``penalty`` λ enters every tree's objective
        (``err/N + λ·gap``), a ``bound`` ε is every tree's constraint and the forest's vote meets
        it on the training rows (module docstring, step 6); without either, trees minimise the
        0-1 loss
    categorical_features : column indices holding integer category codes
    time_limit : float seconds, the whole fit's budget ("Time and work")
    mip_gap : HiGHS's relative gap tolerance for each tree's MIP
    threads : trees fitted side by side (each HiGHS run is single-threaded)
    random_state : int, None (the seed 0) or a numpy RandomState (one draw per fit); ``seed_``
    clock_cap : False: only work limits stop a stage ("Time and work")
    tree_checkpoints : work limit of each tree's MIP in HiGHS checkpoints (None: from
        ``time_limit``)

    After ``fit``: ``trees_`` (:class:`MipTree`), ``classes_``, ``seed_``, ``fit_log_`` (per-tree
    status, bound, gap and time in ``fit_log_["tree_fits"]``).
    """

    def __init__(self, n_trees=30, max_depth=3, batch_size=1000, thresholds=10, missing="mia", criterion=None,
                 categorical_features=(), time_limit=60.0, mip_gap=1e-4, threads=1, random_state=0, clock_cap=True,
                 tree_checkpoints=None):
        self.n_trees = n_trees
        self.max_depth = max_depth
        self.batch_size = batch_size
        self.thresholds = thresholds
        self.missing = missing
        self.criterion = criterion
        self.categorical_features = categorical_features
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.clock_cap = clock_cap
        self.tree_checkpoints = tree_checkpoints

    # ------------------------------------------------------------------ fit
    def _enforced_criterion(self) -> Criterion | None:
        c = self.criterion
        if c is not None and not isinstance(c, Criterion):
            raise TypeError(f"criterion must be a fairspec criterion such as EqualOpportunity(bound=0.05) "
                            f"(fairspec.registry.criteria), got {c!r}")
        return c if c is not None and c.enforced else None

    def _validate(self) -> None:
        require_whole(self, "n_trees", 1)
        require_whole(self, "max_depth", 1)
        if self.max_depth > MAX_DEPTH:
            raise ValueError(f"max_depth must be at most {MAX_DEPTH}; got {self.max_depth!r}")
        require_whole(self, "batch_size", 2)
        require_whole(self, "thresholds", 2)
        require_whole(self, "threads", 1)
        require_whole(self, "tree_checkpoints", 1, optional=True)
        for name in ("time_limit", "mip_gap"):
            require_finite(self, name)
        require_flag(self, "clock_cap")
        if self.missing not in ("mia", "none"):
            raise ValueError(f"missing must be 'mia' or 'none'; got {self.missing!r}")

    def _checkpoints(self) -> int:
        if self.tree_checkpoints is not None:
            return int(self.tree_checkpoints)
        per_tree = float(self.time_limit) / int(self.n_trees)
        return max(MIN_TREE_CHECKPOINTS, int(round(CHECKPOINTS_PER_SECOND * per_tree)))

    def _tasks(self, X, y, sensitive_features):
        """Validate the input and build every tree's task (shared by :meth:`fit` and ``emit_model``)."""
        self._validate()
        X = feature_matrix(X, self, reset=True)
        self.classes_, y = binary_labels(y, X.shape[0], self)
        self.seed_ = seed_of(self.random_state)
        criterion = self._enforced_criterion()
        categorical = categorical_indices(self.categorical_features, self, X.shape[1])
        if criterion is not None:
            if sensitive_features is None:
                raise DataError(f"{criterion.label()} is enforced but no sensitive_features were given to fit")
            groups = group_labels(sensitive_features, len(y))
            criterion.require_every_rate(y, groups)
        elif sensitive_features is not None:
            groups = group_labels(sensitive_features, len(y))
        else:
            groups = np.zeros(len(y), dtype=int).astype(str)
        names, codes = np.unique(groups, return_inverse=True)
        codes = codes.ravel()
        # unenforced, the groups only measure train_gap: one cell per label, as for the trees
        strata = codes if criterion is not None else np.zeros(len(y), dtype=np.int64)
        splits = candidate_splits(X, categorical, int(self.thresholds), self.missing)
        matrix = split_matrix(splits, X)
        form = "none" if criterion is None else criterion.form
        # the wall clock a tree's HiGHS run may take: its share of the time the fit may take, with
        # ``threads`` trees running at once
        per_tree_clock = (float(self.time_limit) * int(self.threads) / int(self.n_trees) if self.clock_cap
                          else math.inf)
        streams = np.random.SeedSequence(self.seed_).spawn(int(self.n_trees))
        tasks = []
        for t, stream in enumerate(streams):
            rng = np.random.default_rng(stream)
            rows = stratified_batch(y, strata, int(self.batch_size), rng)
            tasks.append(TreeTask(
                index=t, rows=rows, matrix=matrix[rows], y=y[rows], groups=strata[rows],
                n_groups=int(strata.max()) + 1, rates=() if criterion is None else tuple(criterion.rates), form=form,
                lam=0.0 if criterion is None or criterion.penalty is None else float(criterion.penalty),
                eps=0.0 if criterion is None or criterion.bound is None else float(criterion.bound),
                depth=int(self.max_depth), mip_gap=float(self.mip_gap), seed=int(rng.integers(0, 2 ** 31 - 1)),
                max_checkpoints=self._checkpoints(), time_limit=per_tree_clock))
        return X, y, groups, criterion, splits, tasks

    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        X, y, groups, criterion, splits, tasks = self._tasks(X, y, sensitive_features)
        fits = run_tasks(fit_tree, [(task,) for task in tasks], n_jobs=int(self.threads))
        trees = []
        for task, fitted in zip(tasks, fits):
            tree = MipTree([splits[s] if s >= 0 else NO_SPLIT for s in fitted.splits], fitted.labels)
            trees.append(_settle_missing(tree, X[task.rows]))
        self.trees_ = trees
        records = [f.tree_log for f in fits]
        log = {"criterion": None if self.criterion is None else self.criterion.label(),
               "enforced": criterion is not None, "n_rows": int(len(y)), "trees": len(trees),
               "depth": int(self.max_depth), "batch_rows": int(tasks[0].rows.size),
               "candidate_splits": len(splits), "tree_checkpoints": self._checkpoints(),
               "trees_optimal": sum(r["status"] == highs.OPTIMAL for r in records),
               "trees_improved_by_mip": sum(bool(r.get("mip_improved")) for r in records),
               "tree_fits": [_flat(r) for r in records]}
        log["status"] = forest_status([r["status"] for r in records])
        gaps = [r["mip_gap"] for r in records]
        log["mip_gap"] = None if any(g is None for g in gaps) else max(gaps)
        log["mip_gap_of"] = ("each tree's MIP on its own batch, the largest over the trees (the forest's vote is "
                             "no MIP's solution)" if len(records) > 1 else "the tree's MIP on its batch")
        cut = [f"tree_{r['tree']}" for r in records if highs.stopped_by_clock(str(r.get("mip_status")))]
        if criterion is not None and criterion.bound is not None:
            cut += self._meet_bound_on_training_rows(X, y, groups, criterion, log)
        yhat = self._votes_positive(X)
        log["train_accuracy"] = float((yhat == y).mean())
        if self.criterion is not None and sensitive_features is not None:
            log["train_gap"] = self.criterion.gap(y, yhat, groups)
            log["bound_met_on_train"] = (None if self.criterion.bound is None or log["train_gap"] is None
                                         else self.criterion.meets(log["train_gap"]))
        log.update(reproducible=not cut, cut_by_clock=cut, clock_cap=bool(self.clock_cap),
                   seconds=round(time.perf_counter() - start, 3))
        self.fit_log_ = log
        record_params(self)
        return self

    def _meet_bound_on_training_rows(self, X, y, groups, criterion, log) -> list[str]:
        """Step 6 of the module docstring; the stages the clock cut."""
        before = self._votes_positive(X)
        gap = criterion.gap(y, before, groups)
        log["train_gap_before_relabel"] = gap
        if criterion.allows(gap):
            return []
        n_leaves = 2 ** int(self.max_depth)
        rows = np.concatenate([np.arange(len(y))] * len(self.trees_))
        leaves = np.concatenate([t.leaf_of(X) + k * n_leaves for k, t in enumerate(self.trees_)])
        weights = np.full(len(rows), 1.0 / len(self.trees_))
        current = np.concatenate([t.labels for t in self.trees_]).astype(float)
        deadline = (time.perf_counter() + RELABEL_CLOCK_SHARE * float(self.time_limit)) if self.clock_cap else math.inf
        solver = dict(mip_gap=float(self.mip_gap), threads=1, seed=self.seed_,
                      max_checkpoints=max(MIN_RELABEL_CHECKPOINTS,
                                          int(RELABEL_CHECKPOINTS_PER_SECOND * float(self.time_limit))))
        met = False
        labels = current
        cut = []
        if len(self.trees_) > 1:
            per_tree = TreeRoutes([np.arange(len(y))] * len(self.trees_),
                                  [t.leaf_of(X) + k * n_leaves for k, t in enumerate(self.trees_)],
                                  [np.full(len(y), 1.0 / len(self.trees_))] * len(self.trees_))
            labels, dlog = tree_by_tree_labels(per_tree, current, y, groups, criterion.rates, criterion.bound,
                                               deadline=deadline, **solver)
            log.update(dlog)
            met = dlog["relabel_descent_meets_bound"]
            if dlog["relabel_descent_cut_by_clock"]:
                cut.append("relabel_descent")
        if not met:
            constant = (np.zeros(len(current)), np.ones(len(current)))
            labels, mlog = relabel_leaves(rows, leaves, weights, len(current), y, groups, criterion.rates,
                                          criterion.bound, time_limit=deadline - time.perf_counter(),
                                          fallback_labels=constant, **solver)
            log.update(mlog)
            if highs.stopped_by_clock(mlog["relabel_status"]):
                cut.append("relabel_mip")
        reached = np.zeros(len(current), dtype=bool)
        reached[np.unique(leaves)] = True
        new = np.where(reached, labels, current).astype(np.int64)
        for k, tree in enumerate(self.trees_):
            tree.labels = new[k * n_leaves:(k + 1) * n_leaves]
        log["leaves_relabelled"] = int((new != current).sum())
        after = self._votes_positive(X)
        log["train_gap_after_relabel"] = criterion.gap(y, after, groups)
        if not criterion.allows(log["train_gap_after_relabel"]):  # pragma: no cover - relabel_leaves raises first
            raise NoUsableModelError(f"no labelling of the forest's leaves meets {criterion.label()} on the training "
                                     f"rows")
        log["status"] = "heuristic"
        log["note"] = ("the forest's vote broke the bound on the training rows, so its leaf labels were re-chosen "
                       "(relabel_ entries); the per-tree MIP statuses and gaps describe the trees before that")
        return cut

    # -------------------------------------------------------------- predict
    def _check_fitted(self):
        if not hasattr(self, "trees_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError("this FairMIPForestClassifier is not fitted yet")

    def _share_positive(self, X: np.ndarray) -> np.ndarray:
        share = np.zeros(X.shape[0])
        for tree in self.trees_:
            share += tree.predict(X)
        return share / len(self.trees_)

    def _votes_positive(self, X: np.ndarray) -> np.ndarray:
        return (self._share_positive(X) > 0.5 + VOTE_TOL).astype(int)

    def predict_proba(self, X) -> np.ndarray:
        """The share of trees voting for the positive class (``classes_[1]``): a vote count,
        not a calibrated probability."""
        self._check_fitted()
        X = feature_matrix(X, self, reset=False)
        p1 = self._share_positive(X)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X) -> np.ndarray:
        self._check_fitted()
        X = feature_matrix(X, self, reset=False)
        return self.classes_[self._votes_positive(X)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = True  # every node sends a missing value one way (module docstring)
        return tags

    # ------------------------------------------------------------ read out
    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        """The first :data:`TREES_SHOWN` trees in full (where a missing value goes at every node,
        unless ``imputed``), then a summary of the forest: the splits it uses and where missing
        values go at them."""
        self._check_fitted()
        names = column_names(self, feature_names)
        negative, positive = shown_classes(self, class_names)
        classes = (negative, positive)
        n = len(self.trees_)
        lines = [f"forest of {n} depth-{self.trees_[0].depth} tree{'' if n == 1 else 's'}, majority vote "
                 f"(a tie predicts {negative})"]
        records = {r.get("tree"): r for r in (getattr(self, "fit_log_", {}) or {}).get("tree_fits", [])}
        for k, tree in enumerate(self.trees_[:TREES_SHOWN]):
            r = records.get(k) or {}
            how = "" if not r else f"  (status {r.get('status')}, MIP gap {_percent(r.get('mip_gap'))})"
            lines.append(f"tree {k + 1}{how}")
            lines += ["  " + s for s in describe_tree(tree, names, categories, classes, imputed)]
        if n > TREES_SHOWN:
            lines.append(f"... {n - TREES_SHOWN} more trees; over all {n}:")
        lines += ["  " + s for s in _summary(self.trees_, names, categories, imputed)]
        return lines

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        self._check_fitted()
        params = json_values(params_at_fit(self))
        params["random_state"] = getattr(self, "seed_", params["random_state"])  # a RandomState is no JSON
        crit = params.pop("criterion")
        params["categorical_features"] = list(categorical_indices(params["categorical_features"], self,
                                                                  self.n_features_in_))
        return {
            "kind": "mip_forest",
            "format_version": FORMAT_VERSION,
            "params": params,
            "criterion": None if crit is None else {"name": crit.name, "bound": crit.bound, "penalty": crit.penalty},
            "n_features_in": int(self.n_features_in_),
            **feature_names_to_json(self),
            "classes": labels_to_json(self.classes_),
            "trees": [t.to_json() for t in self.trees_],
            "fit_log": json_values(getattr(self, "fit_log_", {})),
        }

    @classmethod
    def from_json(cls, doc: dict) -> "FairMIPForestClassifier":
        """The fitted estimator :meth:`to_json` wrote; anything else is a ``ModelFileError`` (another
        kind or version) or a ``ValueError`` saying what is wrong, here at load."""
        check_header(doc, ("mip_forest",), FORMAT_VERSION, "mip_forest")
        try:
            return cls._from_document(doc)
        except KeyError as exc:
            raise ValueError(f"malformed mip_forest model: no {exc.args[0]!r} entry") from None
        except (TypeError, AttributeError, ArithmeticError) as exc:
            raise ValueError(f"malformed mip_forest model: {exc}") from None

    @classmethod
    def _from_document(cls, doc: dict) -> "FairMIPForestClassifier":
        n_features = integer(doc["n_features_in"], "n_features_in", 1)
        params = doc["params"]
        if not isinstance(params, dict):
            raise ValueError("'params' must be an object")
        params = dict(params)
        params["categorical_features"] = feature_indices(params.get("categorical_features", []),
                                                         "categorical_features", n_features)
        crit = doc.get("criterion")
        if crit is not None:
            if not isinstance(crit, dict) or not isinstance(crit.get("name"), str) or crit["name"] not in CRITERIA:
                raise ValueError(f"unknown criterion {show(crit)}")
            crit = make_criterion(crit["name"], *(None if crit.get(k) is None else
                                                  float(crit[k]) for k in ("bound", "penalty")))
        est = cls(**params, criterion=crit)
        trees = doc["trees"]
        if not isinstance(trees, list) or not trees:
            raise ValueError("'trees' must be a non-empty list")
        est.trees_ = []
        for k, t in enumerate(trees):
            try:
                est.trees_.append(MipTree.from_json(t, n_features, tuple(params["categorical_features"])))
            except ValueError as exc:
                raise ValueError(f"tree {k}: {exc}") from None
        if len({t.depth for t in est.trees_}) != 1:
            raise ValueError("the trees of a forest have one depth")
        est.n_features_in_ = n_features
        restore_feature_names(est, doc, n_features)
        est.classes_ = class_labels(doc.get("classes"))
        fit_log = doc.get("fit_log", {})
        if not isinstance(fit_log, dict):
            raise ValueError("'fit_log' must be an object")
        est.fit_log_ = dict(fit_log)
        record_params(est)
        return est


def forest_status(statuses: list[str]) -> str:
    """The forest's status from its trees': ``optimal`` when every tree is; else the first of
    ``time_limit`` (the clock cut a tree), ``heuristic`` (a tree is no MIP's answer) and
    ``work_limit`` that some tree has; else the first other status in sorted order."""
    if all(s == highs.OPTIMAL for s in statuses):
        return highs.OPTIMAL
    for status in (highs.TIME_LIMIT, "heuristic", highs.WORK_LIMIT):
        if status in statuses:
            return status
    return sorted(s for s in statuses if s != highs.OPTIMAL)[0]


def _flat(record: dict) -> dict:
    """A tree's record as the report's table shows it: scalars only, numbers rounded for reading."""
    out = {}
    for key, value in record.items():
        if isinstance(value, float):
            value = round(value, 6)
        out[key] = value
    return out


def _percent(gap) -> str:
    return "not known" if gap is None else f"{100 * float(gap):.2f} %"


# ------------------------------------------------------------------ describe
def _split_text(lit: Literal, names, categories, imputed: bool) -> tuple[str, str]:
    """(text of the left branch, text of the right branch) of a node's split, each saying
    where a missing value goes unless ``imputed``."""
    if lit.op == "is_present":
        name = lit.describe(names, categories).removesuffix(" is present")
        return f"{name} is present", f"{name} is missing"
    shown = Literal(lit.feature, lit.op, lit.value, False).describe(names, categories)
    other = Literal(lit.feature, {"<=": ">", "==": "!="}[lit.op], lit.value, False).describe(names, categories)
    if imputed:
        return shown, other
    if lit.missing_true:
        return f"{shown} or missing", other
    return shown, f"{other} or missing"


def describe_tree(tree: MipTree, names=None, categories=None, classes=("0", "1"), imputed=False) -> list[str]:
    """One line per branch, indented; a subtree whose leaves all predict one class is one leaf."""
    n_branch = len(tree.splits)
    lines: list[str] = []

    def uniform(node: int):
        if node >= n_branch:
            return int(tree.labels[node - n_branch])
        left, right = uniform(2 * node + 1), uniform(2 * node + 2)
        return left if left is not None and left == right else None

    def walk(node: int, indent: int):
        pad = "  " * indent
        label = uniform(node)
        if label is not None:
            lines.append(f"{pad}predict {classes[label]}")
            return
        left, right = _split_text(tree.splits[node], names, categories, imputed)
        lines.append(f"{pad}if {left}:")
        walk(2 * node + 1, indent + 1)
        lines.append(f"{pad}else ({right}):")
        walk(2 * node + 2, indent + 1)

    walk(0, 0)
    return lines


def _summary(trees: list[MipTree], names, categories, imputed: bool) -> list[str]:
    """The splits the forest's trees use, most used first, and where missing values go at them."""
    used = Counter()
    left_missing = Counter()
    for tree in trees:
        for lit in tree.splits:
            key = (lit.feature, lit.op, lit.value)
            used[key] += 1
            left_missing[key] += int(lit.missing_true)
    lines = []
    for (feature, op, value), count in sorted(used.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1],
                                                                            kv[0][2] if kv[0][2] is not None else 0)):
        lit = Literal(feature, op, value, False)
        text = _split_text(lit, names, categories, True)[0]
        where = ""
        if not imputed:
            lm = left_missing[(feature, op, value)]
            if op == "is_present":
                where = "; a missing value goes to the 'missing' side"
            else:
                where = f"; a missing value goes with the 'true' side at {lm} of them, the other side at {count - lm}"
        lines.append(f"split '{text}' at {count} node{'' if count == 1 else 's'}{where}")
    return lines
