"""KbPIB and JPIB (Yan, Odom, Pasunuri, Kersting & Natarajan, "Learning with privileged and
sensitive information: a gradient-boosting approach", Frontiers in AI 2023): the loops.

Both grow two additive models of histogram trees (:mod:`fairspec.models.tree.histogram`):
``ψ`` on the usable features, the one that is kept, and ``ψ'`` on the privileged features
(and the usable ones when ``teacher_reads_features``), used in training only.

KbPIB (the paper's Algorithm 1)
    1. boost ``ψ'`` on its own, by the plain log loss, with early stopping;
    2. boost ``ψ`` by the distillation loss ``NLL + α·KL(P_ψ' ‖ P_ψ)``
       (:mod:`.objective`), ``ψ'``'s probabilities ``q`` fixed, with early stopping.

JPIB
    each round first fits one tree to ``ψ'`` by ``NLL(y, q) + α·KL(P_ψ ‖ P_ψ')`` (gradient
    ``(q - y) + α(q - p)``, ``p`` fixed), then one to ``ψ`` by the distillation loss with the
    updated ``q``; each pulls the other, so the privileged model is drawn towards what the
    usable features can express.  Early stopping watches ``ψ``.

Early stopping (the paper's Supplementary Algorithm 2): a share of the training rows,
stratified by label, is held out; after each tree the held-out loss of the model being grown
is measured (for ``ψ``: the log loss, plus ``λ·gap~`` under a fairness penalty, the quantity
the fit minimises without its training-only KL term; for KbPIB's ``ψ'``: its log loss), and
growing stops once ``patience`` trees in a row have not improved on the best; the trees after
the best are dropped.  Held-out rows train nothing.  With no held-out rows every round is
kept.

Under a fairness penalty the tree's Newton values use the loss's Hessian alone (the gap
term's curvature has no sign, :mod:`.objective`), and a large λ then overshoots: the gap's
subgradient flips the two groups' order from one round to the next and the gap grows.  So each
tree's step is scaled by a backtracking line search on the objective it descends, the largest
of 1, 1/2, ..., 1/64 that lowers ``J = mean ℓ + λ·gap~`` on the fit rows (Friedman 2001
chooses each tree's step by a line search on the loss too).  Without a penalty the Newton
step with the exact Hessian is taken as it is, as in XGBoost and LightGBM.

Both models start from the log-odds of the training rows' positive share (LightGBM's
``boost_from_average``).  No random draw is made after the hold-out split, so the same rows
and seed give the same trees, and ``α = 0`` gives the trees of plain boosting exactly (the
privileged model then has no effect and is not grown).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fairspec.models.privileged_boost.objective import (SoftGap, distillation_gradient, distillation_loss, log_loss,
                                                        logit, sigmoid)
from fairspec.models.tree.histogram import (FeatureBins, HistogramTree, Layout, TreeSettings, count_histogram,
                                            grow_histogram_tree)


#: a step of a tree under a fairness penalty is halved at most this many times (module docstring)
LINE_SEARCH_HALVINGS = 6


def validation_rows(y: np.ndarray, share: float, seed: int) -> np.ndarray:
    """A boolean mask of the held-out rows: ``round(share · n_c)`` rows of each class ``c``,
    drawn with ``seed``; none when that leaves a class without a training row."""
    rng = np.random.default_rng(seed)
    held = np.zeros(len(y), dtype=bool)
    if share <= 0:
        return held
    for c in (0, 1):
        rows = np.flatnonzero(y == c)
        k = int(round(share * len(rows)))
        if k >= len(rows):  # a class needs training rows
            return np.zeros(len(y), dtype=bool)
        held[rng.permutation(rows)[:k]] = True
    return held


def base_score(y: np.ndarray) -> float:
    """Log-odds of the positive share, kept finite for a single-class ``y``."""
    share = float(np.clip(np.mean(y), 1e-6, 1 - 1e-6))
    return logit(share)


@dataclass
class Growing:
    """One additive model being grown: its trees and its scores on the fit and held-out rows
    (bin codes ``(p, rows)``, :meth:`FeatureBins.transform`)."""

    codes_fit: np.ndarray
    codes_val: np.ndarray
    base: float
    settings: TreeSettings
    bins: FeatureBins
    trees: list[HistogramTree] = field(default_factory=list)

    def __post_init__(self):
        self.codes_fit = np.ascontiguousarray(self.codes_fit)
        self.codes_val = np.ascontiguousarray(self.codes_val)
        self.z_fit = np.full(self.codes_fit.shape[1], self.base)
        self.z_val = np.full(self.codes_val.shape[1], self.base)
        self.layout = Layout(self.bins)
        self.root_counts = count_histogram(self.codes_fit, self.layout)

    def add_tree(self, g: np.ndarray, h: np.ndarray, step=None) -> None:
        """Grow a tree on ``(g, h)`` and add it; ``step(z, delta)``, when given, says by what
        factor to scale the tree's values (a line search)."""
        tree, leaf = grow_histogram_tree(self.codes_fit, self.bins, g, h, self.settings, self.layout,
                                         self.root_counts)
        if step is not None:
            tree.value = tree.value * step(self.z_fit, tree.value[leaf])
        self.z_fit += tree.value[leaf]
        if self.codes_val.shape[1]:
            self.z_val += tree.value[tree.apply_bins(self.codes_val)]
        self.trees.append(tree)


@dataclass
class EarlyStop:
    """Patience on a held-out loss: ``update`` says whether to stop; ``best_round`` is the
    number of trees to keep."""

    patience: int
    enabled: bool
    best: float = np.inf
    best_round: int = 0
    rounds: int = 0
    history: list = field(default_factory=list)

    def update(self, loss: float) -> bool:
        self.rounds += 1
        self.history.append(float(loss))
        if not self.enabled:
            self.best_round = self.rounds
            return False
        if not np.isfinite(self.best) or loss < self.best - 1e-12 * max(1.0, abs(self.best)):
            self.best, self.best_round = float(loss), self.rounds
        return self.rounds - self.best_round >= self.patience


@dataclass
class BoostResult:
    trees: list[HistogramTree]
    base: float
    rounds_grown: int
    best_validation_loss: float | None
    stopped_early: bool
    teacher_rounds: int | None = None
    teacher_validation_loss: float | None = None
    #: the teacher's probabilities on the fit rows at the end (KbPIB: the ones ψ was fitted to)
    teacher_fit_loss: float | None = None


@dataclass
class BoostData:
    """The binned rows a fit boosts on: the usable features, and the privileged model's inputs
    (None without a privileged model); ``held`` marks the held-out rows."""

    y: np.ndarray
    held: np.ndarray
    #: bin codes ``(p, n)`` of every row, held-out ones included
    codes: np.ndarray
    bins: FeatureBins
    teacher_codes: np.ndarray | None = None
    teacher_bins: FeatureBins | None = None


def _held_out_loss(y_val, z_val, gap_val: SoftGap | None, penalty: float) -> float:
    loss = float(np.mean(log_loss(y_val, z_val)))
    if gap_val is not None and penalty:
        loss += penalty * gap_val.value(z_val)
    return loss


def boost(data: BoostData, *, variant: str, alpha: float, rounds: int, patience: int, settings: TreeSettings,
          penalty: float = 0.0, criterion=None, groups: np.ndarray | None = None) -> BoostResult:
    """Grow ``ψ`` (and ``ψ'`` when ``data`` has its inputs and ``α > 0``) as the module says."""
    fit, val = ~data.held, data.held
    y_fit, y_val = data.y[fit], data.y[val]
    base = base_score(y_fit)
    early = EarlyStop(patience, enabled=bool(val.any()))
    use_gap = penalty > 0 and criterion is not None
    gap_fit = SoftGap(criterion, y_fit, groups[fit]) if use_gap else None
    gap_val = SoftGap(criterion, y_val, groups[val]) if use_gap and val.any() else None
    n_fit = int(fit.sum())

    def gradient(model: Growing, q, p=None):
        g, h = distillation_gradient(y_fit, model.z_fit, q, alpha, p)
        if gap_fit is not None:
            g = g + penalty * n_fit * gap_fit.gradient(model.z_fit)
        return g, h

    def line_search(q):
        """Under a penalty: the largest of 1, 1/2, ..., 1/64 that lowers J on the fit rows."""
        if gap_fit is None:
            return None

        def objective(z):
            return float(np.mean(distillation_loss(y_fit, z, q, alpha))) + penalty * gap_fit.value(z)

        def step(z, delta):
            before = objective(z)
            for k in range(LINE_SEARCH_HALVINGS + 1):
                if objective(z + delta / 2 ** k) < before:
                    return 1.0 / 2 ** k
            return 1.0 / 2 ** LINE_SEARCH_HALVINGS
        return step

    student = Growing(data.codes[:, fit], data.codes[:, val], base, settings, data.bins)
    teacher = None
    if data.teacher_codes is not None and alpha > 0:
        teacher = Growing(data.teacher_codes[:, fit], data.teacher_codes[:, val], base, settings, data.teacher_bins)
    result = dict(teacher_rounds=None, teacher_validation_loss=None)
    if teacher is not None and variant == "kbpib":
        t_early = EarlyStop(patience, enabled=bool(val.any()))
        for _ in range(rounds):
            g, h = distillation_gradient(y_fit, teacher.z_fit, None, 0.0)
            teacher.add_tree(g, h)
            if t_early.update(float(np.mean(log_loss(y_val, teacher.z_val))) if val.any() else 0.0):
                break
        teacher.trees = teacher.trees[:t_early.best_round]
        z = np.full(n_fit, base)
        for tree in teacher.trees:
            z += tree.value[tree.apply_bins(teacher.codes_fit)]
        teacher.z_fit = z
        result.update(teacher_rounds=len(teacher.trees),
                      teacher_validation_loss=t_early.best if t_early.enabled else None)
    q = None if teacher is None else sigmoid(teacher.z_fit)
    for _ in range(rounds):
        p = None
        if teacher is not None and variant == "jpib":
            # ψ' by NLL(y, q) + α·KL(P_p ‖ P_q): the distillation gradient with the roles swapped
            # (q is σ of the teacher's scores as they stand, p of the student's: each computed once)
            p = sigmoid(student.z_fit)
            gq, hq = distillation_gradient(y_fit, teacher.z_fit, p, alpha, q)
            teacher.add_tree(gq, hq)
            q = sigmoid(teacher.z_fit)
        g, h = gradient(student, q, p)
        student.add_tree(g, h, line_search(q))
        if early.update(_held_out_loss(y_val, student.z_val, gap_val, penalty) if val.any() else 0.0):
            break
    if teacher is not None and variant == "jpib":
        result.update(teacher_rounds=len(teacher.trees))
    grown = len(student.trees)
    keep = early.best_round
    teacher_fit_loss = None if teacher is None else float(np.mean(log_loss(y_fit, teacher.z_fit)))
    return BoostResult(student.trees[:keep], base, grown, early.best if early.enabled else None,
                       stopped_early=grown < rounds, teacher_fit_loss=teacher_fit_loss, **result)
