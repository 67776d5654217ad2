"""Fairness criteria: what is compared between groups, and how hard it is enforced.

A criterion compares one or two conditional rates of the prediction across the groups of
the protected attribute(s) and measures the *gap*: the largest difference between any two
groups, ``max_g r_g - min_g r_g`` (for equalized odds, the larger of the TPR and FPR gaps).

=====================  ================================  ==========================
criterion              rate compared                     rows the rate is taken over
=====================  ================================  ==========================
demographic_parity     P(ŷ=1)            (selection)     all rows of the group
equal_opportunity      P(ŷ=1 | y=1)      (TPR; = FNR gap) positives of the group
fpr_parity             P(ŷ=1 | y=0)      (FPR)           negatives of the group
equalized_odds         TPR and FPR                       both
accuracy_parity        P(ŷ=y)            (accuracy)      all rows of the group
=====================  ================================  ==========================

A group with no row in a rate's condition (say, no positives for TPR) has no such rate and
is left out of that comparison: a gap is never invented from an empty group.  With fewer
than two groups left there is nothing to compare, and the gap is ``None`` (not measurable),
as in :mod:`fairspec.metrics.groups`, not 0: a single group has no gap at all, and a 0 there
had read as a bound met with room to spare.

Form: ``bound`` (ε, a hard constraint ``gap <= ε``), ``penalty`` (λ, ``loss + λ·gap``), or
neither (the criterion is measured and reported, not enforced).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from fairspec.errors import GroupWithoutRateError, finite_at_least_zero, written_number

#: rate name -> (which rows it is taken over, what is averaged over them)
RATE_DEFINITIONS = {
    "selection_rate": "all rows; mean of ŷ",
    "tpr": "rows with y=1; mean of ŷ",
    "fpr": "rows with y=0; mean of ŷ",
    "accuracy": "all rows; mean of [ŷ = y]",
}


def group_rate(rate: str, y_true: np.ndarray, y_pred: np.ndarray, mask: np.ndarray,
               sample_weight: np.ndarray | None = None) -> float | None:
    """One conditional rate of one group; ``None`` when the group has no row in the condition."""
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, float)
    if rate == "selection_rate":
        rows, value = mask, y_pred
    elif rate == "tpr":
        rows, value = mask & (y_true == 1), y_pred
    elif rate == "fpr":
        rows, value = mask & (y_true == 0), y_pred
    elif rate == "accuracy":
        rows, value = mask, (y_pred == y_true)
    else:  # pragma: no cover - guarded by the criterion classes
        raise ValueError(f"unknown rate {rate!r}")
    total = w[rows].sum()
    if total <= 0:
        return None
    return float((w[rows] * value[rows]).sum() / total)


#: Where a bound holds.  ``fairness C <= ε`` aims at rows the model never saw: the fit chooses
#: an internal bound ε′ <= ε by inner cross-validation over this many folds of its training
#: rows (:mod:`fairspec.calibration`); ``fairness C <= ε on train`` holds ε on the training
#: rows only.  Three folds keep a calibrated fit within about five times the family's own fit
#: (benchmarks/README.md, "Fairness that holds").
CALIBRATION_FOLDS = 3

#: float noise allowed when a gap is compared with its bound.  Rates are shares of a group's
#: rows, so a gap exactly equal to ε (9/10 against 10/10 at ε = 0.1) is common with round
#: bounds, and its float difference may land a few ulps either side of ε; it meets the bound.
MET_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Criterion:
    """A fairness criterion with its form: ``bound`` (ε) or ``penalty`` (λ) or neither."""

    name: ClassVar[str] = ""
    rates: ClassVar[tuple[str, ...]] = ()
    bound: float | None = None
    penalty: float | None = None

    def __post_init__(self):
        # a negative bound no model meets (a tree said so only after growing, a rule set ended
        # in a TypeError after all its work) and a NaN one reached Pyomo's "invalid non-finite
        # upper bound" (found in review); the spec's checker refuses both, the Python API did not
        for form in ("bound", "penalty"):
            value = getattr(self, form)
            if value is not None and not finite_at_least_zero(value):
                raise ValueError(f"the {form} of {self.name} must be a finite number of at least 0; got {value!r}")
            if value is not None:
                # a numpy scalar (a grid from np.arange) fitted, and then the model file could not
                # be written: json cannot encode np.int64 or np.float32 (found in review)
                object.__setattr__(self, form, float(value))
        if self.bound is not None and self.penalty is not None:
            raise ValueError(f"{self.name} takes a bound or a penalty, not both")

    @property
    def enforced(self) -> bool:
        return self.bound is not None or self.penalty is not None

    @property
    def form(self) -> str:
        """``"bound"``, ``"penalty"`` or ``"audit"``."""
        if self.bound is not None:
            return "bound"
        if self.penalty is not None:
            return "penalty"
        return "audit"

    def meets(self, gap: float) -> bool:
        """Whether ``gap`` is within the bound (``gap <= ε``, up to :data:`MET_TOLERANCE`).

        ``gap`` must be a number: a gap of ``None`` (not measurable) is neither met nor missed,
        and each caller says what it means there (:meth:`allows`, for a fit)."""
        if self.bound is None:
            raise ValueError(f"{self.label()} has no bound to meet")
        if gap is None:
            raise ValueError(f"{self.label()}: a gap that cannot be measured (None) is neither met nor missed")
        return bool(gap <= self.bound + MET_TOLERANCE)

    def allows(self, gap: float | None) -> bool:
        """Whether a fit may keep predictions whose training gap is ``gap``: ``gap`` meets the
        bound, or is ``None``.

        A fit's training rows give every group each rate it compares
        (:meth:`require_every_rate`), so its gap is ``None`` only with a single group, where no
        two groups can differ by more than ε and every prediction is as fair as any other."""
        return gap is None or self.meets(gap)

    def label(self) -> str:
        """Short printable form, e.g. ``equal_opportunity <= 0.025``."""
        if self.bound is not None:
            return f"{self.name} <= {written_number(self.bound)}"
        if self.penalty is not None:
            return f"{self.name} penalty {written_number(self.penalty)}"
        return f"{self.name} (audited, not enforced)"

    def rate_gaps(self, y_true, y_pred, groups, sample_weight=None) -> dict[str, float | None]:
        """The gap of each rate this criterion compares (``None`` when fewer than two groups have it)."""
        y_true = np.asarray(y_true).astype(int)
        y_pred = np.asarray(y_pred).astype(int)
        groups = np.asarray(groups)
        out = {}
        for rate in self.rates:
            values = [group_rate(rate, y_true, y_pred, groups == g, sample_weight) for g in np.unique(groups)]
            values = [v for v in values if v is not None]
            out[rate] = float(max(values) - min(values)) if len(values) >= 2 else None
        return out

    def groups_without_rate(self, y_true, groups) -> dict[str, list]:
        """Per rate, the groups with no row of the label it conditions on (a TPR needs
        positives, an FPR negatives): :meth:`rate_gaps` leaves them out of the gap."""
        y_true = np.asarray(y_true).astype(int)
        groups = np.asarray(groups)
        needs = {"tpr": 1, "fpr": 0}
        return {rate: [g for g in np.unique(groups) if not (y_true[groups == g] == needs[rate]).any()]
                for rate in self.rates if rate in needs}

    def require_every_rate(self, y_true, groups) -> None:
        """Raise ``GroupWithoutRateError`` when some group's rate is undefined on the training rows
        (:meth:`groups_without_rate`): a bound that silently skips a group is not the bound the
        user asked for."""
        for rate, lacking in self.groups_without_rate(y_true, groups).items():
            if lacking:
                label = "positive" if rate == "tpr" else "negative"
                names = ", ".join(repr(str(g)) for g in lacking)
                raise GroupWithoutRateError(f"{self.name} compares {rate.upper()}s, but group(s) {names} have no "
                                            f"{label} training rows: the {rate.upper()} is undefined there")

    def gap(self, y_true, y_pred, groups, sample_weight=None) -> float | None:
        """The criterion's gap: the largest between-group difference over its rates, or ``None``
        (not measurable) when some rate has fewer than two groups to compare (a gap over
        several rates, equalized odds, is measurable only if each is, as in
        :mod:`fairspec.metrics.groups`)."""
        gaps = list(self.rate_gaps(y_true, y_pred, groups, sample_weight).values())
        return None if any(g is None for g in gaps) else max(gaps)


@dataclass(frozen=True)
class DemographicParity(Criterion):
    name: ClassVar[str] = "demographic_parity"
    rates: ClassVar[tuple[str, ...]] = ("selection_rate",)


@dataclass(frozen=True)
class EqualOpportunity(Criterion):
    name: ClassVar[str] = "equal_opportunity"
    rates: ClassVar[tuple[str, ...]] = ("tpr",)


@dataclass(frozen=True)
class FprParity(Criterion):
    name: ClassVar[str] = "fpr_parity"
    rates: ClassVar[tuple[str, ...]] = ("fpr",)


@dataclass(frozen=True)
class EqualizedOdds(Criterion):
    name: ClassVar[str] = "equalized_odds"
    rates: ClassVar[tuple[str, ...]] = ("tpr", "fpr")


@dataclass(frozen=True)
class AccuracyParity(Criterion):
    name: ClassVar[str] = "accuracy_parity"
    rates: ClassVar[tuple[str, ...]] = ("accuracy",)


def held_out_gap_noise(criterion: Criterion, y, groups, share: float = 1.0) -> float | None:
    """The largest standard error a gap of ``criterion`` measured on ``share`` of these rows can
    have: every rate at 1/2, ``max over rates of sqrt(1/(4n₁) + 1/(4n₂))`` for the two smallest
    groups among the rate's rows (two independent binomial shares; a rate away from 1/2 has a
    smaller one).  Group counts alone decide it, so it is known before any fit: a bound finer
    than it cannot be told apart from 0 on rows of that size.  ``None`` with fewer than two
    groups."""
    y = np.asarray(y).astype(int)
    groups = np.asarray(groups)
    worst = None
    for rate in criterion.rates:
        cond = {"tpr": y == 1, "fpr": y == 0}.get(rate, np.ones(len(y), dtype=bool))
        counts = sorted(float((cond & (groups == g)).sum()) * share for g in np.unique(groups))
        counts = [c for c in counts if c > 0]
        if len(counts) < 2:
            continue
        se = float(np.sqrt(0.25 / counts[0] + 0.25 / counts[1]))
        worst = se if worst is None else max(worst, se)
    return worst


CRITERIA: dict[str, type[Criterion]] = {
    c.name: c for c in (DemographicParity, EqualOpportunity, FprParity, EqualizedOdds, AccuracyParity)
}


def make_criterion(name: str, bound: float | None = None, penalty: float | None = None) -> Criterion:
    """The criterion called ``name`` in the language, with its form."""
    return CRITERIA[name](bound=bound, penalty=penalty)
