"""Vectorised split search for the missing-aware greedy tree.

Every feature is encoded once, at the root, as integer *bin codes*: the rank of the value
among the column's distinct training values (``np.unique``), with one extra code ``U_j`` for
a missing value.  A node then needs, per feature, one ``np.bincount`` over its rows to get
the statistics of every distinct value, a ``cumsum`` to get the statistics left of every
candidate threshold, and array arithmetic to score all thresholds of all missing-value
strategies at once.  Nothing loops over rows in Python; the only Python loops are over
features and over the handful of routing options.

Statistics ("stats") are arrays whose last axis holds additive sums over the rows of a set,
each row entering with its weight ``w`` (fractional cases and bootstrap counts are weights):

* classification: ``2G`` columns, column ``2g + y`` = weight of rows of group ``g`` with
  label ``y`` (``G = 1`` when no fairness criterion is enforced);
* regression: 3 columns, ``(Σw, Σw·y, Σw·y²)``.

The loss of a set is its weighted loss when it predicts its own estimate
(``W · impurity``); a split's score is the children's summed loss divided by the node's
weight, so it is comparable with the node's own impurity.

Missing-value strategies (``M`` = the node's rows missing the feature, ``L``/``R`` the
observed rows left/right of the threshold):

``mia``
    Twice per threshold: ``L+M | R`` and ``L | R+M``; plus the split "present vs missing"
    (threshold at minus infinity: all observed rows on one side, ``M`` on the other).
    (Twala et al. 2008, as used by Jeong, Wang & Calmon, "Fairness without Imputation".)
``majority``
    ``M`` joins the side with more observed training weight (ties: left).
``fractional``
    C4.5's fractional cases: ``M`` joins both sides with weights
    ``f_L = W_L / (W_L + W_R)`` and ``f_R = 1 - f_L`` (Quinlan 1993); stats are additive
    in the weights, so the children are ``L + f_L·M`` and ``R + f_R·M``.
``trinary``
    A third child receives ``M``; while choosing the split ``M`` is scored with the
    *parent's* estimate (Zakrisson, "Trinary Decision Trees for handling missing data",
    Algorithm 1): cross-entropy/Gini of ``M``'s label mix against the parent's class
    probabilities, or squared error of ``M`` around the parent's mean.
``trinary_mia``
    Per threshold, the best of MIA-left, Trinary and MIA-right (in that order on ties),
    plus MIA's present-vs-missing split.

Criterion ``entropy_sum`` reproduces the split loss of the reference package
``trinary-tree`` 0.1.22 (its "quirk 1", see ``benchmarks/trinary_reference.py``): a child's
loss is its row count times its *summed* cross-entropy, ``n_c · S_c = n_c² · H_c``, instead of
CART's ``n_c · H_c``; the middle rows are ``n_M`` times their summed cross-entropy against the
parent's shares.  It exists for the conformance test; ``gini``/``entropy`` are the real
criteria.  With it (and with a fairness penalty, or where ``majority`` routing sends a node's
missing rows to the heavier side), Breiman's category ordering is no longer
exact, so categorical features with at most :data:`MAX_EXHAUSTIVE_CATEGORIES` categories at
the node are searched over all partitions.

The cross-impurity used for ``trinary``: for Gini it is the expected misclassification of
a label drawn from ``M``'s mix when predicting at random from the parent's mix,
``Σ_y p_M(y) (1 - p_t(y))``, which equals the Gini impurity of ``M`` when ``p_t = p_M``; for
entropy it is the cross-entropy ``-Σ_y p_M(y) log p_t(y)``.

Fairness penalty (Fair Forests, Raff, Sylvester & Mills 2018, in spirit: the split score
carries a group term).  Our criteria are gaps of conditional rates, so the term is the gap
itself, and to make "λ" mean the same thing at every node it is the gap of the *whole tree*:
the greedy step minimises the tree's training objective

    J = (Σ_leaves loss_l) / N  +  λ · gap(ŷ)

where every current leaf predicts its majority label (a Trinary middle child: its parent's,
as it is scored with the parent's estimate).  Splitting node ``t`` into children ``c``
changes only ``t``'s rows, so with ``S_c(g, y)`` the weight of child ``c``'s rows of group
``g`` and label ``y`` that actually reach it, group ``g``'s rate after the split is

    rate_g = (num_g - a_g(t, ŷ_t) + Σ_c a_g(c, ŷ_c)) / den_g

with ``a_g(c, ŷ) = ŷ·(S_c(g,0)+S_c(g,1))`` (selection), ``ŷ·S_c(g,1)`` (TPR), ``ŷ·S_c(g,0)``
(FPR), ``ŷ·S_c(g,1) + (1-ŷ)·S_c(g,0)`` (accuracy), ``num_g`` the current tree's numerator and
``den_g`` the denominator over all training rows; ``gap = max_g rate_g - min_g rate_g`` over
groups with ``den_g > 0`` (equalized odds: the larger of the TPR and FPR gaps).  Divided by
``W_t/N`` so that it compares with the unpenalised score (mean loss of the node), a
candidate's score is ``loss_children/W_t + λ·(N/W_t)·gap_after``; the node itself scores
``loss_t/W_t + λ·(N/W_t)·gap_now``, and a split is made only if it lowers ``J``.
See :class:`FairState`.

Under ``fractional`` a row that a split sends both ways by weight counts in ``a_g`` as the
weighted mix of its leaves' labels: ``ŷ`` in ``J`` is then this *soft* vote, while the
classifier predicts ``[Σ w·p_leaf > 1/2]``, which the growing step cannot know before every
branch the row reaches is grown.  The penalty can drive the soft gap to 0 while the predicted
one stays, or grows: a review measured a larger training gap at λ = 10 than at λ = 0 in 13
of 100 random problems under ``fractional`` (0–1 under the other strategies).  The fit log's
``train_gap`` is always the predictions' gap; a bound (leaf relabelling) acts on it directly.

Without a penalty a split is made only if it lowers the impurity strictly; scikit-learn's
CART also makes splits that leave it unchanged, so on XOR-like data, where no single split
helps, a depth-2 tree of ours stays one leaf where CART's fits the data.  Elsewhere the two
agree (``tests/models/test_tree.py`` checks the same partition as scikit-learn's).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairspec.models.exact_sums import fixed_order_product

# where the missing rows of a split go
LEFT, RIGHT, MIDDLE, FRACTIONAL = 0, 1, 2, 3
ROUTE_NAMES = {LEFT: "left", RIGHT: "right", MIDDLE: "middle", FRACTIONAL: "fractional"}
ROUTE_CODES = {v: k for k, v in ROUTE_NAMES.items()}

STRATEGIES = ("mia", "trinary", "trinary_mia", "majority", "fractional", "none")

#: relative tolerance under which two scores count as tied (the first candidate wins)
TIE_TOL = 1e-12
#: margin of a weighted vote or probability: ŷ = 1 iff P(1) > 1/2 + VOTE_TOL (ties go to 0)
VOTE_TOL = 1e-7
#: categorical features with at most this many categories at a node are searched exhaustively
#: when Breiman's ordering is not exact (2^(k-1) - 1 partitions)
MAX_EXHAUSTIVE_CATEGORIES = 10
_EPS = 1e-300


@dataclass
class EncodedFeatures:
    """Bin codes of every feature, computed once at the root.

    ``codes[j, i]`` is the rank of ``X[i, j]`` among ``values[j]`` (the column's sorted
    distinct training values), or ``len(values[j])`` if ``X[i, j]`` is missing.
    """

    codes: np.ndarray  # (p, n) int32, feature-major so one feature's column is contiguous
    values: list[np.ndarray]
    categorical: np.ndarray  # (p,) bool

    @classmethod
    def encode(cls, X: np.ndarray, categorical: np.ndarray) -> "EncodedFeatures":
        n, p = X.shape
        codes = np.empty((p, n), dtype=np.int32)
        values = []
        for j in range(p):
            col = X[:, j]
            missing = np.isnan(col)
            uniq, inverse = np.unique(col[~missing], return_inverse=True)
            codes[j, ~missing] = inverse
            codes[j, missing] = len(uniq)
            values.append(uniq)
        return cls(codes=codes, values=values, categorical=np.asarray(categorical, bool))


@dataclass
class SplitCandidate:
    """The best split found at a node for one feature."""

    feature: int
    score: float  # penalised, normalised by the node's weight
    route: int  # LEFT / RIGHT / MIDDLE / FRACTIONAL
    present_vs_missing: bool
    threshold: float | None  # numeric split: left iff x < threshold
    left_codes: np.ndarray | None  # categorical split: bin codes going left
    right_codes: np.ndarray | None
    left_bins: np.ndarray  # bin codes (ranks) that go left, for routing training rows
    missing_fraction_left: float  # fractional: weight share of the left child


class Task:
    """Loss functions on stats arrays; one instance per fit."""

    def __init__(self, kind: str, criterion: str = "gini", n_groups: int = 0):
        self.kind = kind
        self.criterion = criterion
        #: groups tracked for a fairness penalty (0 = none)
        self.n_groups = n_groups
        self.width = (2 + 2 * n_groups) if kind == "classification" else 3

    # -- per-row stats -------------------------------------------------------------------
    def row_data(self, y: np.ndarray, groups: np.ndarray | None) -> dict:
        """What the bincounts need per row: label column, group-label column, or y powers."""
        if self.kind == "classification":
            out = {"ycol": y.astype(np.int64)}
            if self.n_groups:
                out["gcol"] = 2 * groups.astype(np.int64) + out["ycol"]
            return out
        return {"mult": np.stack([np.ones_like(y), y, y * y], axis=0)}

    @staticmethod
    def subset(rd: dict, idx: np.ndarray) -> dict:
        return {k: (v[:, idx] if v.ndim == 2 else v[idx]) for k, v in rd.items()}

    def bin_stats(self, codes: np.ndarray, n_bins: int, w: np.ndarray, reach: np.ndarray | None, rd: dict) -> np.ndarray:
        """Stats of every bin (``n_bins`` rows) from the node's rows' codes and weights.

        Classification: columns ``0, 1`` = weight of labels 0/1 (grows the tree); with a
        fairness penalty, columns ``2 + 2g + y`` = *reach* weight of group ``g``, label ``y``
        (rows that really arrive at the node when predicting the training data -- a Trinary
        middle subtree is grown on all its parent's rows but reached only by the missing ones).
        """
        if self.kind == "classification":
            codes = codes.astype(np.int64, copy=False)
            a = np.bincount(codes * 2 + rd["ycol"], weights=w, minlength=n_bins * 2).reshape(n_bins, 2)
            if not self.n_groups:
                return a
            G2 = 2 * self.n_groups
            b = np.bincount(codes * G2 + rd["gcol"], weights=reach, minlength=n_bins * G2).reshape(n_bins, G2)
            return np.concatenate([a, b], axis=1)
        out = np.empty((n_bins, 3))
        for k in range(3):
            out[:, k] = np.bincount(codes, weights=w * rd["mult"][k], minlength=n_bins)
        return out

    def node_stats(self, w: np.ndarray, reach: np.ndarray | None, rd: dict) -> np.ndarray:
        return self.bin_stats(np.zeros(len(w), dtype=np.int64), 1, w, reach, rd)[0]

    # -- estimates and losses ------------------------------------------------------------
    def class_weights(self, S: np.ndarray):
        return S[..., 0], S[..., 1]

    def weight(self, S: np.ndarray) -> np.ndarray:
        if self.kind == "classification":
            return S[..., 0] + S[..., 1]
        return S[..., 0]

    def estimate(self, S: np.ndarray):
        """P(y=1) (classification) or the weighted mean (regression); 0 for an empty set."""
        W = self.weight(S)
        num = self.class_weights(S)[1] if self.kind == "classification" else S[..., 1]
        return np.where(W > 0, num / np.maximum(W, _EPS), 0.0)

    def loss(self, S: np.ndarray) -> np.ndarray:
        """Weighted loss of each set when it predicts its own estimate (``W·impurity``)."""
        if self.kind == "regression":
            W, s1, s2 = S[..., 0], S[..., 1], S[..., 2]
            return np.maximum(s2 - np.where(W > 0, s1 * s1 / np.maximum(W, _EPS), 0.0), 0.0)
        w0, w1 = self.class_weights(S)
        W = w0 + w1
        safe = np.maximum(W, _EPS)
        p0, p1 = w0 / safe, w1 / safe
        if self.criterion == "gini":
            return W * (1.0 - p0 * p0 - p1 * p1)
        # the C library's log (scipy's xlogy), not numpy's: numpy's AVX-512 log can differ from
        # it in the last bit, and a near-tie between two splits then goes the other way (imported
        # here: scoring with a saved tree reads this module and needs no SciPy)
        from scipy.special import xlogy

        xe = -(xlogy(w0, np.maximum(p0, _EPS)) + xlogy(w1, np.maximum(p1, _EPS)))
        return W * xe if self.criterion == "entropy_sum" else xe

    def cross_loss(self, S: np.ndarray, parent_estimate: float) -> np.ndarray:
        """Weighted loss of each set when it predicts the parent's estimate (Trinary)."""
        if self.kind == "regression":
            W, s1, s2 = S[..., 0], S[..., 1], S[..., 2]
            m = parent_estimate
            return np.maximum(s2 - 2.0 * m * s1 + m * m * W, 0.0)
        w0, w1 = self.class_weights(S)
        q1 = float(parent_estimate)
        q0 = 1.0 - q1
        if self.criterion == "gini":
            return w0 * (1.0 - q0) + w1 * (1.0 - q1)
        # rows of M are rows of the parent, so q_y > 0 wherever w_y > 0
        xe = -(w0 * math.log(max(q0, _EPS)) + w1 * math.log(max(q1, _EPS)))
        return (w0 + w1) * xe if self.criterion == "entropy_sum" else xe

    def majority(self, S: np.ndarray) -> np.ndarray:
        w0, w1 = self.class_weights(S)
        return (w1 > w0).astype(float)


class FairState:
    """The group rates of the tree grown so far, for the fairness penalty.

    Every current leaf predicts its majority label; ``num[rate][g]`` is the summed numerator
    of group ``g``'s rate over the current leaves, ``den[rate][g]`` its (fixed) denominator
    over all training rows.  A candidate split of node ``t`` replaces ``t``'s term by its
    children's, so the gap "after" is the gap of the whole tree if the split were made and
    its children were leaves.  (Growth is depth-first, so nodes still waiting on the stack
    count with their majority label: the greedy step sees the tree as it stands.)
    """

    def __init__(self, rates: tuple[str, ...], n_groups: int):
        self.rates = rates
        self.n_groups = n_groups
        self.num: dict[str, np.ndarray] = {}
        self.den: dict[str, np.ndarray] = {}

    @staticmethod
    def contribution(rate: str, S: np.ndarray, label: np.ndarray):
        """(numerator, denominator) of each group's rate over the rows of ``S``; shape (..., G)."""
        s0, s1 = S[..., 2::2], S[..., 3::2]
        lab = np.asarray(label, float)[..., None]
        if rate == "selection_rate":
            return lab * (s0 + s1), s0 + s1
        if rate == "tpr":
            return lab * s1, s1
        if rate == "fpr":
            return lab * s0, s0
        return lab * s1 + (1.0 - lab) * s0, s0 + s1  # accuracy

    def start(self, S_root: np.ndarray, label: float) -> None:
        for rate in self.rates:
            self.num[rate], self.den[rate] = self.contribution(rate, S_root, np.float64(label))

    def _num_after(self, rate, parent, children):
        num = self.num[rate] - self.contribution(rate, parent[0], parent[1])[0]
        for S, lab in children:
            num = num + self.contribution(rate, S, lab)[0]
        return num

    def gap(self, nums: dict[str, np.ndarray]) -> np.ndarray:
        out = 0.0
        for rate in self.rates:
            den = self.den[rate]
            valid = den > 1e-12
            if valid.sum() < 2:
                continue
            r = nums[rate][..., valid] / den[valid]
            out = np.maximum(out, r.max(axis=-1) - r.min(axis=-1))
        return np.asarray(out, dtype=float)

    def gap_now(self) -> float:
        return float(self.gap(self.num))

    def gap_after(self, parent, children) -> np.ndarray:
        return self.gap({rate: self._num_after(rate, parent, children) for rate in self.rates})

    def apply(self, parent, children) -> None:
        for rate in self.rates:
            self.num[rate] = self._num_after(rate, parent, children)


class _heavier_side:
    """The route of a missing value met only at prediction, per cut: the side with more
    training weight (ties: left).  Indexed like an array of routes, it weighs the two sides of
    the one cut that is read, not of every cut."""

    def __init__(self, task: Task, L: np.ndarray, R: np.ndarray):
        self.task, self.L, self.R = task, L, R

    def __getitem__(self, cut: int) -> int:
        return LEFT if self.task.weight(self.L[cut]) >= self.task.weight(self.R[cut]) else RIGHT


class SplitScorer:
    """Scores every candidate split of a node for one strategy."""

    def __init__(self, task: Task, strategy: str, min_samples_leaf: int, *,
                 penalty: float = 0.0, rates: tuple[str, ...] = (), mia_missing_split: bool = True,
                 unit_weights: bool = False):
        #: Breiman's ordering is exact only for an impurity summed over children with weights
        #: n_c and no penalty; otherwise small category sets are searched exhaustively (so
        #: too where majority routing sends missing rows to the heavier side: see
        #: :meth:`best_for_feature`)
        self.exhaustive_categories = bool(penalty) or task.criterion == "entropy_sum"
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown missing-value strategy {strategy!r}")
        self.task = task
        self.strategy = strategy
        self.msl = min_samples_leaf
        self.penalty = penalty
        self.rates = rates
        self.mia_missing_split = mia_missing_split
        self.fair = FairState(rates, task.n_groups) if penalty else None
        #: every row weight is 1 (the caller's promise), so every statistic is a whole number and
        #: any order of summing it gives the same float: the compiled search
        #: (:mod:`fairspec.models.tree.compiled_split`) then finds the split this class finds
        self.compiled_search = (unit_weights and task.kind == "classification" and task.criterion == "gini"
                                and strategy == "mia" and not penalty)
        if self.compiled_search:  # imported here: scoring a saved tree reads this module and needs no numba
            from fairspec.models.tree import compiled, compiled_split

            self._compiled, self._compiled_split = compiled, compiled_split
        self.total_weight = 1.0
        self._parent = None

    def start(self, S_root: np.ndarray) -> None:
        """Called once at the root, before any split."""
        self.total_weight = float(self.task.weight(S_root))
        if self.fair is not None:
            self.fair.start(S_root, float(self.task.majority(S_root)))

    def node_score(self, S_node: np.ndarray, loss: float | None = None) -> float:
        """The node's score as a leaf; also fixes the node the candidates are scored against.
        ``loss``: ``task.loss(S_node)`` when the caller has it already.

        With a penalty λ, scores are in units of the node's mean loss:
        ``loss/W_t + λ·(N/W_t)·gap(tree)``, i.e. the tree's objective ``loss/N + λ·gap``
        (mean impurity over all ``N`` training rows plus λ times the gap) scaled by ``N/W_t``.
        """
        W = float(self.task.weight(S_node))
        score = float(self.task.loss(S_node) if loss is None else loss) / W
        if self.fair is not None:
            self._parent = (S_node, self.task.majority(S_node))
            score += self.penalty * self.total_weight / W * self.fair.gap_now()
        return score

    def _penalise(self, score, W, children):
        if self.fair is None:
            return score / W
        return score / W + self.penalty * self.total_weight / W * self.fair.gap_after(self._parent, children)

    def best_for_feature(self, j: int, stats: np.ndarray, counts: np.ndarray, values: np.ndarray,
                         categorical: bool, S_node: np.ndarray, parent_estimate: float) -> SplitCandidate | None:
        """Best split on feature ``j`` from its per-bin stats (last row = missing)."""
        if self.compiled_search and self._compiled.active():
            compiled_split = self._compiled_split
            kind, score, cut, route, obs = compiled_split.best_mia_gini(
                stats, counts.astype(np.int64, copy=False), bool(categorical), float(self.task.weight(S_node)),
                int(self.msl), bool(self.mia_missing_split))
            if kind == compiled_split.NO_SPLIT:
                return None
            return self._candidate(j, score, "pvm" if kind == compiled_split.PRESENT_VS_MISSING else "threshold",
                                   cut, route, obs, stats[obs], values, categorical, None)
        task = self.task
        U = len(values)
        M, nM = stats[U], int(counts[U])
        obs = (counts[:U] > 0).nonzero()[0]
        if len(obs) < 2:
            if not (self.strategy in ("mia", "trinary_mia") and self.mia_missing_split and len(obs) >= 1 and nM > 0):
                return None
        S_obs, n_obs = stats[obs], counts[obs]
        subsets = None  # categorical, exhaustive: (C, k) 0/1 matrix of the left sets
        if categorical and len(obs) >= 2:
            # majority (and none) send the missing rows to the heavier side, which depends on
            # the partition: the ordering's contiguous cuts can then miss the best one (a
            # review found a better split in 12 of 300 random cases)
            joins_heavier = self.strategy in ("majority", "none") and nM > 0
            if (self.exhaustive_categories or joins_heavier) and len(obs) <= MAX_EXHAUSTIVE_CATEGORIES:
                # every partition once: the first observed category always goes right
                k = len(obs)
                masks = np.arange(1, 2 ** (k - 1))
                subsets = ((masks[:, None] >> np.arange(k - 1)[None, :]) & 1).astype(float)
                subsets = np.concatenate([np.zeros((len(masks), 1)), subsets], axis=1)
            else:
                # Breiman's shortcut: order categories by P(y=1) (classification) or mean y
                # (regression) and scan them as if ordered; exact for binary gini/entropy/SSE.
                order = np.argsort(task.estimate(S_obs), kind="stable")
                obs, S_obs, n_obs = obs[order], S_obs[order], n_obs[order]
        W = float(task.weight(S_node))

        cand_scores = []  # list of (scores (C,), route, present_vs_missing)
        if len(obs) >= 2:
            if subsets is None:
                L = S_obs.cumsum(axis=0)[:-1]
                nL = n_obs.cumsum()[:-1]
            else:
                # summed in a fixed order: a BLAS product's order depends on the processor
                L = fixed_order_product(subsets, S_obs)
                nL = (subsets @ n_obs).round().astype(np.int64)
            R = S_obs.sum(axis=0) - L
            nR = n_obs.sum() - nL
            C = len(nL)
            # one pass over both sides (elementwise, so each value is what task.loss(L) and
            # task.loss(R) give)
            lossLR = task.loss(np.concatenate((L, R)))
            lossL, lossR = lossLR[:C], lossLR[C:]
            s = self.strategy
            inf = np.inf
            if s in ("mia", "trinary_mia"):
                if nM == 0:
                    # no training row is missing here: one candidate; missing values met at
                    # prediction go to the side with more training weight.  (With M all zeros,
                    # L + M is L bit for bit, so its loss is lossL: not computed twice.)
                    ok_left = (nL >= self.msl) & (nR >= self.msl)
                    sc = np.where(ok_left, self._penalise(lossL + lossR, W, self._kids(L, R)), inf)
                    if s == "mia":  # the heavier side, read for the chosen cut only
                        cand_scores.append((sc, _heavier_side(task, L, R), False))
                    else:
                        cand_scores.append((sc, np.full(C, MIDDLE), False))
                else:
                    sc_left = task.loss(L + M) + lossR
                    sc_right = lossL + task.loss(R + M)
                    ok_left = (nL + nM >= self.msl) & (nR >= self.msl)
                    ok_right = (nL >= self.msl) & (nR + nM >= self.msl)
                    sl = np.where(ok_left, self._penalise(sc_left, W, self._kids(L + M, R)), inf)
                    sr = np.where(ok_right, self._penalise(sc_right, W, self._kids(L, R + M)), inf)
                    if s == "trinary_mia":
                        sm = self._trinary_scores(L, R, M, lossL, lossR, nL, nR, W, parent_estimate, S_node)
                        cand_scores.append((np.stack([sl, sm, sr], 1), np.array([LEFT, MIDDLE, RIGHT]), False))
                    else:
                        cand_scores.append((np.stack([sl, sr], 1), np.array([LEFT, RIGHT]), False))
            elif s in ("majority", "none", "fractional") and nM == 0:
                # no missing row: every rule is the plain split (L + 0·M is L bit for bit); where
                # a missing value met at prediction goes is the rule's, as below
                ok = (nL >= self.msl) & (nR >= self.msl)
                sc = self._penalise(lossL + lossR, W, self._kids(L, R))
                routes = np.full(C, FRACTIONAL) if s == "fractional" else _heavier_side(task, L, R)
                cand_scores.append((np.where(ok, sc, inf), routes, False))
            elif s in ("majority", "none"):
                left_bigger = task.weight(L) >= task.weight(R)
                Lm = np.where(left_bigger[:, None], L + M, L)
                Rm = np.where(left_bigger[:, None], R, R + M)
                nLm = nL + np.where(left_bigger, nM, 0)
                nRm = nR + np.where(left_bigger, 0, nM)
                ok = (nLm >= self.msl) & (nRm >= self.msl)
                sc = self._penalise(task.loss(Lm) + task.loss(Rm), W, self._kids(Lm, Rm))
                cand_scores.append((np.where(ok, sc, inf), np.where(left_bigger, LEFT, RIGHT), False))
            elif s == "fractional":
                wl, wr = task.weight(L), task.weight(R)
                fl = (wl / np.maximum(wl + wr, _EPS))[:, None]
                Lf, Rf = L + fl * M, R + (1.0 - fl) * M
                ok = (nL >= self.msl) & (nR >= self.msl)
                sc = self._penalise(task.loss(Lf) + task.loss(Rf), W, self._kids(Lf, Rf))
                cand_scores.append((np.where(ok, sc, inf), np.full(C, FRACTIONAL), False))
            elif s == "trinary":
                sm = self._trinary_scores(L, R, M, lossL, lossR, nL, nR, W, parent_estimate, S_node)
                cand_scores.append((sm, np.full(C, MIDDLE), False))
        pvm = None
        if self.strategy in ("mia", "trinary_mia") and self.mia_missing_split and nM > 0 and len(obs) >= 1:
            P = S_obs.sum(axis=0)
            if n_obs.sum() >= self.msl and nM >= self.msl:
                pvm = float(self._penalise(task.loss(P[None]) + task.loss(M[None]), W,
                                           self._kids(P[None], M[None]))[0])

        best = None  # (score, kind, cut index, route)
        for scores, routes, _ in cand_scores:
            flat = scores.ravel()
            m = flat.min()
            if not np.isfinite(m):  # every candidate refused (scores are never NaN)
                continue
            k = int((flat <= m + TIE_TOL * max(1.0, abs(m))).nonzero()[0][0])
            if scores.ndim == 2:
                cut, opt = divmod(k, scores.shape[1])
                route = int(routes[opt])
            else:
                cut, route = k, int(routes[k])
            if best is None or m < best[0] - TIE_TOL * max(1.0, abs(m)):
                best = (float(m), "threshold", cut, route)
        if pvm is not None and (best is None or pvm < best[0] - TIE_TOL * max(1.0, abs(pvm))):
            best = (pvm, "pvm", -1, RIGHT)
        if best is None:
            return None
        score, kind, cut, route = best
        return self._candidate(j, score, kind, cut, route, obs, S_obs, values, categorical, subsets)

    def _candidate(self, j, score, kind, cut, route, obs, S_obs, values, categorical, subsets) -> SplitCandidate:
        """The split ``best_for_feature`` chose: ``kind`` "pvm" (present vs missing) or
        "threshold" (the bins ``obs``, in scan order, cut after position ``cut``, or the
        ``subsets`` row ``cut``)."""
        task = self.task
        if kind == "pvm":
            # "present" is every category of the training rows, not only this node's: a row
            # holding one the node did not see is present, as the read-out says it is (it had
            # been routed as a missing value, down the branch printed "is missing")
            return SplitCandidate(feature=j, score=score, route=RIGHT, present_vs_missing=True,
                                  threshold=float("inf") if not categorical else None,
                                  left_codes=values.copy() if categorical else None,
                                  right_codes=np.empty(0) if categorical else None,
                                  left_bins=obs.copy(), missing_fraction_left=0.0)
        if subsets is None:  # the scan's cuts are prefixes of the ordered bins
            in_left, in_right = slice(None, cut + 1), slice(cut + 1, None)
        else:
            in_left = subsets[cut] > 0
            in_right = ~in_left
        left_bins, right_bins = obs[in_left], obs[in_right]
        frac = 0.0
        if route == FRACTIONAL:
            wl = float(task.weight(S_obs[in_left].sum(axis=0)))
            wr = float(task.weight(S_obs[in_right].sum(axis=0)))
            frac = wl / (wl + wr)
        if categorical:
            return SplitCandidate(feature=j, score=score, route=route, present_vs_missing=False, threshold=None,
                                  left_codes=np.sort(values[left_bins]), right_codes=np.sort(values[right_bins]),
                                  left_bins=left_bins, missing_fraction_left=frac)
        lo, hi = values[obs[cut]], values[obs[cut + 1]]
        thr = lo + (hi - lo) / 2.0
        if not lo < thr <= hi:  # adjacent floats: the midpoint rounds down to ``lo``
            thr = hi
        return SplitCandidate(feature=j, score=score, route=route, present_vs_missing=False, threshold=float(thr),
                              left_codes=None, right_codes=None, left_bins=left_bins, missing_fraction_left=frac)

    def _kids(self, A, B):
        if not self.penalty:
            return None
        return [(A, self.task.majority(A)), (B, self.task.majority(B))]

    def _trinary_scores(self, L, R, M, lossL, lossR, nL, nR, W, parent_estimate, S_node):
        task = self.task
        ok = (nL >= self.msl) & (nR >= self.msl)
        sc = lossL + lossR + float(task.cross_loss(M, parent_estimate))
        if self.penalty:
            parent_label = np.full(len(nL), float(parent_estimate > 0.5))
            kids = [(L, task.majority(L)), (R, task.majority(R)),
                    (np.broadcast_to(M, L.shape), parent_label)]
            sc = self._penalise(sc, W, kids)
        else:
            sc = sc / W
        return np.where(ok, sc, np.inf)
