"""The losses the boosters descend, their per-row gradients and the Hessians of the Newton step.

Notation: ``z = ψ(x)`` the score of the model on the usable features, ``p = σ(z)``;
``z' = ψ'(x*)`` the score of the privileged model, ``q = σ(z')``; ``y`` in {0, 1}.

Distillation loss (Yan et al. 2023, KbPIB; the paper's eq. 2 gives its gradient).  Per row,

    ℓ(z) = NLL(y, p) + α·KL(P_q ‖ P_p)
         = -[y log p + (1-y) log(1-p)] + α·[q log(q/p) + (1-q) log((1-q)/(1-p))],

with ``q`` held fixed.  Since ``dp/dz = p(1-p)``, ``d(-log p)/dz = -(1-p)`` and
``d(-log(1-p))/dz = p``:

    dNLL/dz = -y(1-p) + (1-y)p = p - y,
    dKL/dz  = -q(1-p) + (1-q)p = p - q,
    dℓ/dz   = (p - y) + α(p - q),

so the functional gradient step (the negative gradient, which the paper writes as
``I(y=1) - P(y=1; ψ) + α(P(y=1; ψ') - P(y=1; ψ))``) is ``(y - p) + α(q - p)``.  Its
second derivative is

    d²ℓ/dz² = (1 + α)·p(1-p) > 0,

and a tree's leaf takes the Newton step ``-Σg / Σh`` with ``g = dℓ/dz``, ``h = d²ℓ/dz²``
(:mod:`fairspec.models.tree.histogram`).  Equivalently ``ℓ = (1+α)·CE(t, p) + const`` with the
soft target ``t = (y + αq)/(1 + α)``: the privileged model's belief blended into the label.
At α = 0 it is plain logistic boosting.

JPIB updates the privileged model by the same loss with the roles swapped,
``ℓ'(z') = NLL(y, q) + α·KL(P_p ‖ P_q)``: gradient ``(q - y) + α(q - p)``, Hessian
``(1+α)·q(1-q)``, ``p`` held fixed.

Fairness penalty.  The spec's ``penalty λ`` is ``loss + λ·gap`` (:mod:`fairspec.registry.criteria`);
the gap of hard predictions has no gradient, so the booster descends a differentiable
surrogate of it, the same gap with each prediction ŷ replaced by its probability:

    gap~(z) = max_g m_g - min_g m_g,   m_g = mean over group g's rows of the rate's condition of s_i,

with ``s_i = p_i`` for a selection rate (all rows), the TPR (positives only, so equal
opportunity reads positives only) and the FPR (negatives only), and the soft accuracy
``s_i = y_i p_i + (1-y_i)(1-p_i)`` for accuracy parity; equalized odds takes the larger of
the TPR and FPR surrogates.  With two groups, ``m_1 - m_0`` is the covariance of the score
with the group indicator divided by ``π(1-π)`` over the compared rows (Zafar et al. 2017
constrain that covariance), and with more it is still a gap between groups, in the gap's own
units, so λ weighs it as the other families weigh the gap.  The booster minimises
``J(z) = (1/n) Σ ℓ_i + λ·gap~``; a tree is fitted to ``n·∂J/∂z_i``, i.e. ``dℓ_i/dz_i`` plus

    λ·n·∂gap~/∂z_i = λ·n·(ds_i/dz_i)·([i ∈ g_max]/n_max - [i ∈ g_min]/n_min)

(``ds/dz = p(1-p)``, or ``(2y-1)p(1-p)`` for the soft accuracy; the arg-max and arg-min
groups, and for equalized odds the larger rate, taken at the current ``z``: a subgradient
where two tie).  The penalty's own curvature ``λ·n·(d²s_i/dz_i²)·(...)`` changes sign with
``1 - 2p`` and would let a leaf's ``Σh`` reach 0 or below, so the Newton step keeps the
Hessian of the loss alone (a Gauss-Newton step).  A ``bound`` is not a loss term: it is met
afterwards by the decision threshold (:mod:`.threshold`).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from fairspec.registry.criteria import Criterion


def sigmoid(z: np.ndarray) -> np.ndarray:
    return expit(np.asarray(z, dtype=float))


def logit(p: float) -> float:
    return float(np.log(p) - np.log1p(-p))


def log_loss(y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Per-row ``NLL(y, σ(z)) = log(1 + e^z) - y z``, computed without overflow."""
    return np.logaddexp(0.0, z) - y * z


def kl_bernoulli(q: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Per-row ``KL(Bernoulli(q) ‖ Bernoulli(σ(z)))`` (0·log 0 = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        own = np.where(q > 0, q * np.log(q), 0.0) + np.where(q < 1, (1 - q) * np.log1p(-q), 0.0)
    return log_loss(q, z) + own  # cross-entropy minus entropy


def distillation_loss(y: np.ndarray, z: np.ndarray, q: np.ndarray | None, alpha: float) -> np.ndarray:
    """Per-row ``ℓ(z) = NLL(y, σ(z)) + α·KL(P_q ‖ P_σ(z))`` (``q`` None: the NLL alone)."""
    loss = log_loss(y, z)
    return loss if q is None or alpha == 0 else loss + alpha * kl_bernoulli(q, z)


def distillation_gradient(y: np.ndarray, z: np.ndarray, q: np.ndarray | None, alpha: float,
                          p: np.ndarray | None = None):
    """``(g, h)``: per-row ``dℓ/dz = (p - y) + α(p - q)`` and ``d²ℓ/dz² = (1+α)·p(1-p)``
    (``p``: ``σ(z)``, when the caller has it already)."""
    p = sigmoid(z) if p is None else p
    if q is None or alpha == 0:
        return p - y, p * (1 - p)
    return (p - y) + alpha * (p - q), (1 + alpha) * p * (1 - p)


class SoftGap:
    """The criterion's gap with predictions replaced by probabilities (module docstring),
    its value and its gradient in ``z``, over fixed rows, labels and groups."""

    def __init__(self, criterion: Criterion, y: np.ndarray, groups: np.ndarray):
        self.y = np.asarray(y, dtype=float)
        self.rates = criterion.rates
        codes = np.unique(groups, return_inverse=True)[1]
        self.codes = codes
        self.n_groups = int(codes.max(initial=-1)) + 1
        self.masks = {}
        for rate in self.rates:
            rows = {"tpr": self.y == 1, "fpr": self.y == 0}.get(rate, np.ones(len(self.y), dtype=bool))
            counts = np.bincount(codes[rows], minlength=self.n_groups).astype(float)
            self.masks[rate] = (rows, counts)

    def _scores(self, rate: str, p: np.ndarray):
        if rate == "accuracy":
            return self.y * p + (1 - self.y) * (1 - p), (2 * self.y - 1) * p * (1 - p)
        return p, p * (1 - p)

    def _rate_gap(self, rate: str, p: np.ndarray):
        rows, counts = self.masks[rate]
        s, ds = self._scores(rate, p)
        sums = np.bincount(self.codes[rows], weights=s[rows], minlength=self.n_groups)
        present = counts > 0
        if present.sum() < 2:
            return 0.0, None
        means = np.where(present, sums / np.maximum(counts, 1), np.nan)
        hi = int(np.nanargmax(means))
        lo = int(np.nanargmin(means))
        return float(means[hi] - means[lo]), (rows, ds, hi, lo, counts)

    def value(self, z: np.ndarray) -> float:
        p = sigmoid(z)
        return max(self._rate_gap(rate, p)[0] for rate in self.rates)

    def gradient(self, z: np.ndarray) -> np.ndarray:
        """``∂gap~/∂z`` per row (a subgradient where the arg-max or arg-min group ties)."""
        p = sigmoid(z)
        gaps = [self._rate_gap(rate, p) for rate in self.rates]
        gap, parts = max(gaps, key=lambda t: t[0])
        grad = np.zeros(len(p))
        if parts is None or gap <= 0:
            return grad
        rows, ds, hi, lo, counts = parts
        sign = np.zeros(self.n_groups)
        sign[hi] += 1.0 / counts[hi]
        sign[lo] -= 1.0 / counts[lo]
        grad[rows] = ds[rows] * sign[self.codes[rows]]
        return grad
