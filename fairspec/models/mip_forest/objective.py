"""The training objective of one MIP tree, and its value for any tree of fixed depth.

With ``ŷ_r ∈ {0, 1}`` the prediction of route class ``r`` (:mod:`.candidates`) and
``n_{r,y,g}`` its rows of label ``y`` in group ``g`` (``N = Σ n``), the 0-1 loss is

    err(ŷ) = Σ_r n_{r,0,·} ŷ_r + n_{r,1,·} (1 - ŷ_r),

and every rate a criterion compares (:mod:`fairspec.registry.criteria`) is linear in ``ŷ``:
``rate_{k,g}(ŷ) = (Σ_r a_{k,g,r} ŷ_r + b_{k,g}) / den_{k,g}`` with

=============  ==============================  =================  ============================
rate k         a_{k,g,r}                       b_{k,g}            den_{k,g}
=============  ==============================  =================  ============================
selection      n_{r,0,g} + n_{r,1,g}           0                  Σ_r n_{r,0,g} + n_{r,1,g}
tpr            n_{r,1,g}                       0                  Σ_r n_{r,1,g}
fpr            n_{r,0,g}                       0                  Σ_r n_{r,0,g}
accuracy       n_{r,1,g} - n_{r,0,g}           Σ_r n_{r,0,g}      Σ_r n_{r,0,g} + n_{r,1,g}
=============  ==============================  =================  ============================

(a group with ``den = 0`` has no such rate and is left out, as the criteria leave it out).
The gap is ``max_k (max_g rate_{k,g} - min_g rate_{k,g})``: the largest pairwise difference,
for any number of groups, the larger of the TPR and FPR gaps for equalized odds.

Objective (the paper's eq. 8, with its fairness regulariser of Appendix B replaced by the
criterion's gap): ``J = err/N + λ·gap`` under ``penalty λ``; ``err/N`` subject to
``gap <= ε`` under a bound; ``err/N`` alone without a criterion.  The paper's FNR, FPR and
accuracy differences are fairspec's ``equal_opportunity``, ``fpr_parity`` and
``accuracy_parity``; its equalized-odds term is the *mean* of the two absolute differences,
ours the larger, so that a bound on it is the bound the metrics module checks.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: what a tree's objective and bound are compared with: a tree within this of another (in units
#: of J, a share of the rows) is no better, and a gap within it of ε meets ε
OBJECTIVE_TOL = 1e-9


@dataclass
class RateTerm:
    """One group's rate: ``(a @ ŷ + b) / den`` (module docstring)."""

    rate: str
    group: int
    a: np.ndarray
    b: float
    den: float
    #: ``a`` as a combination of the group's counts: ``a = coef[0]·n_{·,0,g} + coef[1]·n_{·,1,g}``
    coef: tuple = (0.0, 0.0)


def rate_terms(count: np.ndarray, rates: tuple[str, ...]) -> dict[str, list[RateTerm]]:
    """Per rate, the term of every group that has rows in the rate's condition."""
    out: dict[str, list[RateTerm]] = {}
    for rate in rates:
        terms = []
        for g in range(count.shape[2]):
            neg, pos = count[:, 0, g], count[:, 1, g]
            if rate == "selection_rate":
                coef, b, den = (1.0, 1.0), 0.0, float((neg + pos).sum())
            elif rate == "tpr":
                coef, b, den = (0.0, 1.0), 0.0, float(pos.sum())
            elif rate == "fpr":
                coef, b, den = (1.0, 0.0), 0.0, float(neg.sum())
            elif rate == "accuracy":
                coef, b, den = (-1.0, 1.0), float(neg.sum()), float((neg + pos).sum())
            else:  # pragma: no cover - the criteria name these four
                raise ValueError(f"unknown rate {rate!r}")
            if den > 0:
                terms.append(RateTerm(rate, g, coef[0] * neg + coef[1] * pos, b, den, coef))
        out[rate] = terms
    return out


@dataclass
class TreeValue:
    """What one tree's predictions score: rows wrong, each rate's gap, the gap, objective ``J``."""

    errors: float
    #: per compared rate, each group's value (in the order of ``Objective.compared``)
    rates: dict
    gaps: dict
    gap: float | None
    objective: float
    meets_bound: bool


class Objective:
    """The objective of one tree's problem: route-class counts and the criterion's form.

    ``form`` is ``"none"``, ``"penalty"`` (weight ``lam``) or ``"bound"`` (``eps``).
    """

    def __init__(self, count: np.ndarray, rates: tuple[str, ...] = (), form: str = "none", lam: float = 0.0,
                 eps: float = 0.0):
        self.count = count
        self.n = float(count.sum())
        self.form = form
        self.lam = float(lam)
        self.eps = float(eps)
        self.terms = rate_terms(count, tuple(rates)) if form != "none" else {}
        #: the rates whose gap exists (at least two groups have the rate)
        self.compared = {rate: terms for rate, terms in self.terms.items() if len(terms) >= 2}

    @property
    def negatives(self) -> np.ndarray:
        return self.count[:, 0, :].sum(axis=1)

    @property
    def positives(self) -> np.ndarray:
        return self.count[:, 1, :].sum(axis=1)

    def rate_values(self, yhat: np.ndarray) -> dict[str, list[float]]:
        return {rate: [float((t.a @ yhat + t.b) / t.den) for t in terms] for rate, terms in self.compared.items()}

    def value(self, yhat: np.ndarray) -> TreeValue:
        """The objective of class predictions ``yhat`` (0/1 per route class)."""
        yhat = np.asarray(yhat, float)
        errors = float(self.negatives @ yhat + self.positives @ (1.0 - yhat))
        values = self.rate_values(yhat)
        gaps = {rate: max(v) - min(v) for rate, v in values.items()}
        gap = max(gaps.values()) if gaps else None
        loss = errors / self.n if self.n else 0.0
        if self.form == "penalty":
            objective = loss + self.lam * (gap or 0.0)
        else:
            objective = loss
        meets = self.form != "bound" or gap is None or gap <= self.eps + OBJECTIVE_TOL
        return TreeValue(errors, values, gaps, gap, objective, meets)

    def better(self, a: TreeValue, b: TreeValue | None) -> bool:
        """Whether ``a`` is a strictly better tree than ``b``: feasible, and a lower objective."""
        if not a.meets_bound:
            return False
        return b is None or not b.meets_bound or a.objective < b.objective - OBJECTIVE_TOL
