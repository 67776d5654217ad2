"""The rounds of (Fair) MP-Boost: minipatches, weak trees, adaptive probabilities, early stopping.

MP-Boost (Toghani & Allen, "MP-Boost: Minipatch Boosting via Adaptive Feature and Observation
Sampling", Algorithm 1) and Fair MP-Boost (Little, Halder Lina & Allen, arXiv 2404.01521).  Round
``t``:

1. draw a minipatch: ``n`` rows ``R`` with probabilities ``p`` and ``m`` features ``C`` with
   probabilities ``q``, each without replacement;
2. grow a missing-aware tree (:func:`fairspec.models.tree.grow.grow_tree`) on ``X[R, C]``;
3. route *every* training row through it: ``h(x) = 2·p_leaf - 1``, the leaf's share of positive
   minipatch rows on a -1..1 scale (mixed over leaves under fractional routing), and
   ``F += μ·h`` (the ensemble), ``G += μ·h`` on the rows *not* in ``R`` (out of patch);
4. rows: ``p̃ = (1 - α)·L_A + α·L_F``, ``L_A ∝ exp(-ỹ·F)`` (``ỹ = ±1``, the exponential loss of
   AdaBoost that MP-Boost uses, step 4a) and ``L_F`` the adversary's weights
   (:mod:`.adversary`), each normalised to sum 1 so that α weighs shares of the draw;
5. features in the patch: ``q̃_j = (1 - μ)·q_j + μ·(α·max(0, F_j) + (1 - α)·I_j)`` with ``I`` the
   tree's impurity importance on the minipatch and ``F_j`` its FairTreeFIS
   (:mod:`.importance`), both scored on the training rows outside the minipatch; features
   outside the patch keep ``q_j``; then every ``q`` is floored at :data:`Q_FLOOR` and all are
   normalised;
6. out-of-patch accuracy: the share of rows with ``[G > 0] = y`` (and, for the kept rounds, the
   criterion's gap of ``[G > 0]`` when the groups are known).

What we decided where the papers are silent or differ:

* MP-Boost adds ``h ∈ {-1, 1}`` with weight 1; the issue's Fair MP-Boost has a learning rate
  ``μ``, which we apply to ``F`` and ``G`` as well as to ``q`` (one ``μ``, as the paper uses one)
  and a soft vote ``2·p_leaf - 1`` (real AdaBoost's leaf output up to scale), which keeps the
  exponential weights from jumping by ``e²`` whenever a tree flips one row's vote.
* MP-Boost's step 4b rescales the mixture by ``r = Σ_{j∈C} q_j`` so that the patch keeps its
  mass; Fair MP-Boost's update has no ``r`` and normalises afterwards, which is what we do: the
  patch's features gain mass in proportion to their scores, and a feature in the patch that no
  split used loses a share ``μ`` of its own.
* The floor keeps every feature drawable (``m`` features need ``m`` positive probabilities).
* Early stopping.  The papers stop on the out-of-patch accuracy, and so do we when asked
  (``patience`` > 0): the fit stops after ``patience`` rounds without a better one.  Which
  rounds are kept is ours: the trees up to the *latest* round whose out-of-patch accuracy is
  within one standard error (``√(a·(1 - a)/N)``) of the best ``a`` (Breiman's
  one-standard-error rule, leaning towards the rounds that adapted ``p`` and ``q`` longest).
  It is decided as the rounds run (a round is the latest within the band of the best so far
  when it ends; a later best only adds later rounds), so one snapshot of the running sums is
  kept, not one per round.  ``patience = 0`` runs and keeps every round, the estimator's
  default: on our own adult splits the fair rounds' gap kept falling for a hundred rounds and
  more while their accuracy stayed level or fell a little, the most accurate round was one of
  the first few dozen, fitted before ``q`` had moved, and a fit stopped on accuracy kept that
  unfair model (benchmarks/README.md, Fair MP-Boost).
* Minipatch draws are successive sampling without replacement, proportional to ``p``
  (:func:`draw_without_replacement`).

Everything per round is vectorised over the ``N`` rows; the only Python loops are the rounds,
and (inside the tree grower) the nodes and features of a tree of ``n`` rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fairspec.models.mp_boost.adversary import fairness_weights
from fairspec.models.mp_boost.importance import fair_tree_fis, impurity_importance, reach_stats
from fairspec.models.mp_boost.routing import TrainingRouter
from fairspec.models.tree.grow import GrowSettings, TreeStructure, grow_tree
from fairspec.models.tree.split_search import EncodedFeatures, SplitScorer, Task

#: the smallest feature probability before normalising (step 5)
Q_FLOOR = 1e-3
#: batches of draws with replacement before the rest of a minipatch is drawn by keys
DRAW_BATCHES = 8


@dataclass(frozen=True)
class BoostingSettings:
    rounds: int
    patch_rows: int
    patch_features: int
    learning_rate: float
    alpha: float
    #: the fairness variant: True = equal opportunity (adversary and FairTreeFIS on positives)
    positives_only: bool
    adversary: str
    patience: int
    burn_in: int
    max_depth: int
    min_samples_leaf: int
    criterion: str
    missing: str
    middle_growth: str


@dataclass
class BoostingResult:
    trees: list[TreeStructure]
    #: the kept ensemble's score of every training row, and its out-of-patch score
    score: np.ndarray
    oop_score: np.ndarray
    oop_accuracy: list[float]
    #: the kept rounds' out-of-patch gap (None without groups)
    oop_gap: float | None
    rounds_run: int
    best_round: int  # 1-based: the round of the best out-of-patch accuracy
    kept_round: int  # 1-based: the trees kept
    stopped_by: str  # "patience" or "rounds"
    row_probabilities: np.ndarray
    feature_probabilities: np.ndarray
    averaged_rounds: int
    #: per kept round, the rows of its minipatch (only when asked for: tests instrument it)
    patches: list[np.ndarray] = field(default_factory=list)


def draw_without_replacement(rng: np.random.Generator, probabilities: np.ndarray, k: int) -> np.ndarray:
    """``k`` distinct indices drawn successively with probabilities proportional to
    ``probabilities`` (each draw among the indices not drawn yet), sorted.

    Draws with replacement from the cumulative distribution, keeping each index the first time
    it comes: the first new index after some are taken is distributed as ``p`` restricted to the
    others, which is successive sampling exactly.  A batch costs a ``searchsorted`` of a few
    ``k`` numbers; only a distribution concentrated on about ``k`` indices needs many, and after
    :data:`DRAW_BATCHES` the rest is drawn by exponential keys among the indices left
    (Efraimidis & Spirakis: the smallest ``E_i / p_i``, the same successive sampling)."""
    size = len(probabilities)
    if k >= size:
        return np.arange(size)
    cdf = np.cumsum(probabilities)
    total = cdf[-1]
    picked = np.empty(0, dtype=np.int64)
    for _ in range(DRAW_BATCHES):
        need = k - len(picked)
        if need <= 0:
            break
        drawn = np.searchsorted(cdf, rng.random(2 * need + 8) * total, side="right")
        drawn = drawn[drawn < size]
        _, first = np.unique(drawn, return_index=True)
        fresh = drawn[np.sort(first)]  # each index once, in the order drawn
        fresh = fresh[~np.isin(fresh, picked)]
        picked = np.concatenate([picked, fresh[:need]])
    if len(picked) < k:
        rest = np.ones(size, dtype=bool)
        rest[picked] = False
        left = rest.nonzero()[0]
        with np.errstate(divide="ignore"):
            keys = rng.standard_exponential(len(left)) / probabilities[left]
        picked = np.concatenate([picked, left[np.argpartition(keys, k - len(picked) - 1)[:k - len(picked)]]])
    return np.sort(picked)


def grow_on_patch(X: np.ndarray, y: np.ndarray, rows: np.ndarray, features: np.ndarray, categorical: np.ndarray,
                  settings: BoostingSettings) -> TreeStructure:
    """The round's weak learner: a missing-aware tree grown on ``X[rows][:, features]``, its
    feature indices mapped back to columns of ``X``."""
    enc = EncodedFeatures.encode(X[np.ix_(rows, features)], categorical[features])
    task = Task("classification", settings.criterion, 0)
    # every minipatch row has weight 1 (the draw, not a weight, says how often a row counts):
    # the compiled split search applies where numba is installed (same trees)
    scorer = SplitScorer(task, settings.missing, settings.min_samples_leaf, unit_weights=True)
    grow = GrowSettings(max_depth=settings.max_depth, min_samples_split=2, min_samples_leaf=settings.min_samples_leaf,
                        middle_growth=settings.middle_growth)
    tree = grow_tree(enc, y[rows].astype(float), np.ones(len(rows)), task, scorer, grow)
    tree.feature = [int(features[f]) if f >= 0 else -1 for f in tree.feature]
    return tree


def leaf_output(tree: TreeStructure) -> np.ndarray:
    """``2·p - 1`` of every node: what a row ending in it adds to the score (before ``μ``)."""
    return 2.0 * np.asarray(tree.value, dtype=float) - 1.0


class RoundRouting:
    """Where the training rows end in one round's tree: one leaf per row (the fast path of
    :mod:`.routing`), or ``route_rows``'s ``(row, leaf, weight)`` triples under fractional
    routing.  It answers what the round needs: the output of every row, per-node counts of
    the rows outside the minipatch, and the cells (distinct outputs) the adversary reads."""

    def __init__(self, tree: TreeStructure, router: TrainingRouter | EncodedFeatures, X: np.ndarray):
        self.tree = tree
        self.n_rows = X.shape[0]
        self.value = leaf_output(tree)
        if isinstance(router, EncodedFeatures):
            router = TrainingRouter(router)
        self.leaf = router.leaves(tree)
        self.triples = tree.route_rows(X) if self.leaf is None else None

    def output(self) -> np.ndarray:
        if self.leaf is not None:
            return self.value[self.leaf]
        rows, leaves, w = self.triples
        return np.bincount(rows, weights=w * self.value[leaves], minlength=self.n_rows)

    def node_counts(self, column: np.ndarray, width: int, left_out: np.ndarray) -> np.ndarray:
        """``(n_nodes, width)`` weight of the rows reaching each node by ``column[row]``, the
        rows ``left_out`` (the minipatch) excepted."""
        n_nodes = self.tree.n_nodes
        size = n_nodes * width
        if self.leaf is not None:
            at = np.bincount(self.leaf * width + column, minlength=size)
            at = at - np.bincount(self.leaf[left_out] * width + column[left_out], minlength=size)
        else:
            rows, leaves, w = self.triples
            keep = np.ones(self.n_rows, dtype=bool)
            keep[left_out] = False
            k = keep[rows]
            at = np.bincount(leaves[k] * width + column[rows[k]], weights=w[k], minlength=size)
        return reach_stats(self.tree, at.reshape(n_nodes, width).astype(float))

    def cells(self, output: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cell of each row, output of each cell): the leaves, or the distinct outputs."""
        if self.leaf is not None:
            return self.leaf, self.value
        z, cell = np.unique(output, return_inverse=True)
        return cell, z


def boost(X: np.ndarray, y: np.ndarray, categorical: np.ndarray, groups: np.ndarray | None, n_groups: int,
          settings: BoostingSettings, rng: np.random.Generator, keep_patches: bool = False,
          fit_labels: np.ndarray | None = None, row_weights: np.ndarray | None = None) -> BoostingResult:
    """Run the rounds (module docstring) on ``X`` (NaN = missing), ``y`` in {0, 1}, ``groups``
    codes 0..n_groups-1 (needed only when ``settings.alpha > 0``).

    ``fit_labels`` and ``row_weights``: a cost-sensitive problem (:mod:`.lagrangian`): the trees
    learn ``fit_labels`` and the exponential loss of step 4 is weighted,
    ``L_A ∝ w_i·exp(-(2ŷ_i - 1)·F_i)`` (the first minipatch is drawn by ``w``); the out-of-patch
    accuracy, the importances and the adversary read ``y``.  None: ``ŷ = y``, ``w = 1``."""
    N, M = X.shape
    alpha, mu = float(settings.alpha), float(settings.learning_rate)
    if alpha > 0 and groups is None:
        raise ValueError("alpha > 0 needs the rows' groups")
    y = np.asarray(y, dtype=np.int64)
    target = y if fit_labels is None else np.asarray(fit_labels, dtype=np.int64)
    sign = 2.0 * target - 1.0
    log_weight = None
    if row_weights is not None:
        with np.errstate(divide="ignore"):
            log_weight = np.log(np.asarray(row_weights, dtype=float))
    positive = y == 1
    router = TrainingRouter(EncodedFeatures.encode(X, categorical))
    if alpha > 0:
        groups = np.asarray(groups, dtype=np.int64)
        column, width = 2 * groups + y, 2 * n_groups
    else:
        column, width = y, 2
    p = np.full(N, 1.0 / N) if row_weights is None else np.asarray(row_weights, dtype=float) / np.sum(row_weights)
    q = np.full(M, 1.0 / M)
    F = np.zeros(N)
    G = np.zeros(N)
    trees: list[TreeStructure] = []
    patches: list[np.ndarray] = []
    oop_accuracy: list[float] = []
    sums = {name: np.zeros(size) for name, size in (("p_burned", N), ("q_burned", M), ("p_early", N), ("q_early", M))}
    best_accuracy, best_round = -1.0, 0
    kept = {}
    stopped_by = "rounds"
    for t in range(settings.rounds):
        # 1-2: the minipatch and its tree
        rows = draw_without_replacement(rng, p, settings.patch_rows)
        feats = draw_without_replacement(rng, q, settings.patch_features)
        # the sums the averages read: rounds after the burn-in, and the burn-in's own (frozen after it)
        sums["p_burned" if t >= settings.burn_in else "p_early"] += p
        sums["q_burned" if t >= settings.burn_in else "q_early"] += q
        tree = grow_on_patch(X, target, rows, feats, categorical, settings)
        trees.append(tree)
        if keep_patches:
            patches.append(rows)
        # 3: every row's output; the ensemble and the out-of-patch score
        routing = RoundRouting(tree, router, X)
        h = routing.output()
        step = mu * h
        F += step
        G += step
        G[rows] -= step[rows]
        predicted = G > 0
        accuracy = float((predicted == positive).mean())
        oop_accuracy.append(accuracy)
        if accuracy > best_accuracy:
            best_accuracy, best_round = accuracy, t + 1
        if settings.patience:  # without early stopping every round is kept: no snapshot needed
            if accuracy >= best_accuracy - standard_error(best_accuracy, N):
                kept = {"round": t + 1, "F": F.copy(), "G": G.copy(), **{name: v.copy() for name, v in sums.items()}}
            if t + 1 - best_round >= settings.patience:
                stopped_by = "patience"
                break
        # 4: rows
        margin = -sign * F if log_weight is None else log_weight - sign * F
        loss = np.exp(margin - margin.max())
        p = loss / loss.sum()
        if alpha > 0:
            cell, z = routing.cells(h)
            L_F = fairness_weights(cell, z, groups, n_groups, y, settings.positives_only, settings.adversary)
            p = (1.0 - alpha) * p + alpha * L_F
            p /= p.sum()
        # 5: features of the patch, scored on the rows outside it
        stats = routing.node_counts(column, width, rows)
        labels = np.column_stack([stats[:, 0::2].sum(axis=1), stats[:, 1::2].sum(axis=1)])
        score = (1.0 - alpha) * impurity_importance(tree, labels, M, settings.criterion)
        if alpha > 0:
            fis = fair_tree_fis(tree, stats, M, n_groups, positives_only=settings.positives_only)
            score += alpha * np.maximum(fis, 0.0)
        q = q.copy()
        q[feats] = (1.0 - mu) * q[feats] + mu * score[feats]
        q = np.maximum(q, Q_FLOOR)
        q /= q.sum()
    if not settings.patience:
        kept = {"round": len(trees), "F": F, "G": G, **sums}
    n_kept = kept["round"]
    averaged = n_kept - settings.burn_in
    if averaged > 0:
        p_avg, q_avg = kept["p_burned"] / averaged, kept["q_burned"] / averaged
    else:
        averaged = n_kept
        p_avg = (kept["p_early"] + kept["p_burned"]) / n_kept
        q_avg = (kept["q_early"] + kept["q_burned"]) / n_kept
    oop_gap = None if groups is None else \
        group_gap(kept["G"] > 0, groups, n_groups, y if settings.positives_only else None)
    return BoostingResult(trees=trees[:n_kept], score=kept["F"], oop_score=kept["G"], oop_accuracy=oop_accuracy,
                          oop_gap=oop_gap, rounds_run=len(trees), best_round=best_round, kept_round=n_kept,
                          stopped_by=stopped_by, row_probabilities=p_avg, feature_probabilities=q_avg,
                          averaged_rounds=averaged, patches=patches[:n_kept])


def standard_error(accuracy: float, n: int) -> float:
    """The binomial standard error of an accuracy measured on ``n`` rows."""
    return float(np.sqrt(max(accuracy * (1.0 - accuracy), 0.0) / max(n, 1)))


def group_gap(predicted: np.ndarray, groups: np.ndarray, n_groups: int, y: np.ndarray | None = None) -> float:
    """Largest difference between two groups' rates of ``predicted``: selection rates, or true
    positive rates when ``y`` is given (groups without a row in the rate's condition left out,
    as :mod:`fairspec.registry.criteria` does); 0 with fewer than two groups to compare."""
    if y is not None:
        keep = y == 1
        predicted, groups = predicted[keep], groups[keep]
    counts = np.bincount(groups, minlength=n_groups)
    present = counts > 0
    if present.sum() < 2:
        return 0.0
    rates = np.bincount(groups, weights=predicted.astype(float), minlength=n_groups)[present] / counts[present]
    return float(rates.max() - rates.min())
