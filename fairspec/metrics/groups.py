"""Per-group rates of a binary classifier, the gaps between groups, and the data summary.

Definitions (they match :mod:`fairspec.registry.criteria`, which computes the same gaps at
training time, and fairlearn's ``MetricFrame`` / ``*_difference`` functions):

* ``base_rate``      = P(y=1 | g)
* ``selection_rate`` = P(ŷ=1 | g)
* ``tpr``            = P(ŷ=1 | y=1, g),  ``fnr`` = 1 - tpr
* ``fpr``            = P(ŷ=1 | y=0, g)
* ``accuracy``       = P(ŷ=y | g)

A group with no row in a rate's condition (no positives for TPR/FNR, no negatives for FPR)
has no such rate: it is ``None`` and is left out of that gap.  A gap is ``max - min`` over the
groups that have the rate, ``None`` (not measurable) when fewer than two do.
``equalized_odds`` is the larger of the TPR and FPR gaps (fairlearn's
``equalized_odds_difference`` with ``agg="worst_case"``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairspec.metrics.auc import roc_auc
from fairspec.metrics.roc import abroca
from fairspec.registry.criteria import MET_TOLERANCE

#: the rates of :data:`GROUP_RATES` each gap compares (equalized_odds: the larger of two)
GAP_RATES: dict[str, tuple[str, ...]] = {
    "demographic_parity": ("selection_rate",),
    "equal_opportunity": ("tpr",),
    "fpr_parity": ("fpr",),
    "equalized_odds": ("tpr", "fpr"),
    "accuracy_parity": ("accuracy",),
}
GROUP_RATES = ("base_rate", "selection_rate", "tpr", "fpr", "fnr", "accuracy")


def zero_one_labels(values, name: str) -> np.ndarray:
    """``values`` as a 0/1 int array; a ValueError naming ``name`` and the first other value.
    Cast blindly, labels {1, 2} gave a TPR of 2.0 and scores of 0.7 were cut to 0."""
    array = np.asarray(values).ravel()
    try:
        ok = np.isin(array, (0, 1))
    except TypeError:
        ok = np.zeros(len(array), dtype=bool)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{name} must hold 0 and 1 only (1 = the positive class); "
                         f"row {row} holds {array[row].tolist()!r}")
    return array.astype(int)


def group_labels(groups) -> np.ndarray:
    """Group labels as strings, the keys metrics.json uses (``str(label)``).

    ``groups`` holds one label per row: an array, a list or a Series; a label may be a
    tuple (an intersectional group), keyed as the ``str`` of the tuple of its parts' ``str``.
    A DataFrame gives one label per row too: its one column's value, or the tuple of its
    columns' values.
    """
    if isinstance(groups, np.ndarray) and groups.ndim != 1:
        raise ValueError("groups must hold one label per row (a 1-D array)")
    if isinstance(groups, pd.DataFrame):
        # fairlearn's way to pass intersectional groups: one column per attribute.  Iterated,
        # a frame gives its column names, which had been read as two rows' labels
        groups = (groups.iloc[:, 0] if groups.shape[1] == 1
                  else pd.Series(list(groups.itertuples(index=False, name=None)), dtype=object))
    if isinstance(groups, pd.Series):
        groups = groups.to_numpy(dtype=object)
    if isinstance(groups, np.ndarray) and groups.dtype.kind in "USiub":
        return groups.astype(str).astype(object)
    if isinstance(groups, np.ndarray) and groups.dtype == object and pd.api.types.infer_dtype(groups) == "string" \
            and not any(type(g) is not str for g in pd.unique(groups)):
        # labels that are text already (the pipeline's): kept as they are, without a Python
        # str() per row; a str subclass (numpy's str_) is spelt as plain str below
        return groups
    # tuple parts as plain str, so numpy scalars do not print as "np.str_('A')"
    return np.array([str(tuple(str(p) for p in g)) if isinstance(g, tuple) else str(g) for g in groups],
                    dtype=object)


def distinct_labels(labels) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(labels, return_inverse=True)``: the distinct labels, sorted, and each row's
    index among them.

    numpy sorts an object array by comparing its Python strings one pair at a time: 0.5 s on a
    million rows, and a block of metrics sorted its labels three times over.  Labels that are
    all text are hashed instead, and only the distinct ones sorted; any other array goes to
    ``np.unique`` (equal values there need not be equal texts: 1 and True)."""
    labels = np.asarray(labels)
    if not all_text(labels):
        return np.unique(labels, return_inverse=True)
    codes, firsts = pd.factorize(labels)
    order = np.argsort(firsts)
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return firsts[order], rank[codes]


def all_text(labels: np.ndarray) -> bool:
    """Whether ``labels`` is a 1-D object array of Python strings only."""
    return labels.ndim == 1 and labels.dtype == object and pd.api.types.infer_dtype(labels, skipna=False) == "string"


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> list[float | None]:
    return [float(n / d) if d > 0 else None for n, d in zip(numerator, denominator)]


def _gap(values: Sequence[float | None]) -> float | None:
    """Largest minus smallest rate over the groups that have it; ``None`` (not measurable)
    when fewer than two do — a gap of 0 there would certify a bound nobody could check."""
    present = [v for v in values if v is not None]
    return float(max(present) - min(present)) if len(present) >= 2 else None


def _worst_gap(gaps: Sequence[float | None]) -> float | None:
    """A gap over several rates (equalized odds: TPR and FPR) is measurable only if each is."""
    return None if any(g is None for g in gaps) else max(gaps)


def measurable_part(block: dict | None, rates: Sequence[str]) -> tuple[float | None, list[str]]:
    """The largest gap over those of ``rates`` that at least two of ``block``'s groups have,
    and which rates those are (``(None, [])`` when none is): where a gap over several rates
    (equalized odds) cannot be measured in full, its measurable part is a lower bound on it."""
    if block is None:
        return None, []
    groups = list((block.get("groups") or {}).values())
    parts = {r: _gap([g.get(r) for g in groups]) for r in rates}
    measured = [r for r in rates if parts[r] is not None]
    return (max(parts[r] for r in measured) if measured else None), measured


def gaps_from_rates(rates) -> dict[str, float | None]:
    """Every gap of :data:`GAP_RATES` whose rates ``rates`` holds (rate name -> one value per
    group, ``None`` where a group has no such row): the rule ``evaluate_predictions`` writes
    the gaps by, and ``fairspec report`` checks a file's gaps by."""
    return {gap: _worst_gap([_gap(rates[r]) for r in rs]) for gap, rs in GAP_RATES.items()
            if all(r in rates for r in rs)}


def _json_float(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class GroupCounts:
    """Per-group counts of a binary classifier's predictions, in the order of ``names``.

    ``positives`` and ``negatives`` are the rows with y = 1 and y = 0; ``true_positives`` and
    ``false_positives`` the rows among them predicted 1; ``correct`` the rows predicted right.
    """

    names: np.ndarray
    rows: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    true_positives: np.ndarray
    false_positives: np.ndarray

    @property
    def selected(self) -> np.ndarray:
        return self.true_positives + self.false_positives

    @property
    def correct(self) -> np.ndarray:
        return self.true_positives + self.negatives - self.false_positives

    @classmethod
    def of(cls, y_true: np.ndarray, y_pred: np.ndarray, labels: np.ndarray) -> GroupCounts:
        """Counts of 0/1 arrays ``y_true`` and ``y_pred`` over the group ``labels`` (strings)."""
        names, index = distinct_labels(labels)
        k = len(names)
        positive = y_true == 1
        rows = np.bincount(index, minlength=k)
        positives = np.bincount(index, weights=positive, minlength=k)
        true_positives = np.bincount(index, weights=y_pred * positive, minlength=k)
        selected = np.bincount(index, weights=y_pred, minlength=k)
        return cls(names, rows, positives, rows - positives, true_positives, selected - true_positives)


def evaluate_predictions(y_true, y_pred, y_score, groups) -> dict:
    """The metrics.json ``<block>`` of one split (see docs/ARTIFACTS.md).

    ``y_true`` and ``y_pred`` in {0, 1}; ``y_score`` the score of class 1 (or ``None``: then
    ``auc`` and ``abroca`` are ``None``); ``groups`` one label per row (any type; the keys are
    ``str(label)``, so labels that print alike are one group).  JSON-safe: no NaN.
    """
    y_true, y_pred = zero_one_labels(y_true, "y_true"), zero_one_labels(y_pred, "y_pred")
    labels = group_labels(groups)
    n = len(y_true)
    if not (len(y_pred) == len(labels) == n) or (y_score is not None and len(np.ravel(y_score)) != n):
        raise ValueError("y_true, y_pred, y_score and groups must have one entry per row")
    if n == 0:
        raise ValueError("cannot evaluate predictions on zero rows")
    score = None if y_score is None else np.asarray(y_score, dtype=float).ravel()
    if score is not None and not np.isfinite(score).all():
        # scikit-learn's AUC had said "Input contains NaN" without saying which input or row
        row = int(np.flatnonzero(~np.isfinite(score))[0])
        raise ValueError(f"y_score must hold finite numbers (the score of class 1); row {row} holds {float(score[row])!r}")

    c = GroupCounts.of(y_true, y_pred, labels)
    positive = y_true == 1
    both_classes = 0 < int(positive.sum()) < n
    merged = None if score is None else merged_rows(y_true, score, labels)
    auc = None
    if score is not None and both_classes:
        auc = _json_float(roc_auc(merged[0], merged[1], sample_weight=merged[3]) if merged[3] is not None
                          else roc_auc(y_true, score))
    if both_classes:
        # scikit-learn's balanced_accuracy_score, from the confusion matrix's counts: the mean of
        # each class's recall (the same divisions, in the same order, without its label checks)
        hits = np.array([int((~positive & (y_pred == 0)).sum()), int((positive & (y_pred == 1)).sum())])
        sizes = np.array([n - int(positive.sum()), int(positive.sum())])
        balanced = float(np.mean(hits / sizes))
    else:
        # one class only: balanced accuracy is the recall of that class (sklearn warns here)
        balanced = float(np.mean(y_pred == y_true))
    return block_of_counts(
        c, accuracy=float(np.mean(y_pred == y_true)), balanced_accuracy=balanced, auc=auc,
        abroca=None if score is None else _json_float(abroca(*merged)),
        # a model whose scores are its own 0/1 labels (a tree whose leaves were relabelled for
        # a fairness bound) has a one-point ROC curve: its AUC is its balanced accuracy, and
        # ABROCA compares single points, so the report says so beside them
        scores_are_labels=None if score is None else bool(np.isin(score, (0.0, 1.0)).all()))


#: rows are merged by (class, score, group) when there are at most this share as many cells as rows
MERGE_SHARE = 0.25


def merged_rows(y_true: np.ndarray, score: np.ndarray, labels: np.ndarray):
    """``(y_true, score, labels, counts)`` with the rows of equal class, score and group merged
    into one row counted ``counts`` times, or the rows as they are and ``None`` when merging
    would not make them much fewer.

    A model with few distinct scores (a tree's leaves, a rule set's labels) gives a million
    rows a few dozen cells.  The AUC and every group's ROC curve read cumulative counts of rows
    in order of score, and counts of merged rows add up to the same whole numbers, so they
    are the same to the last bit (``tests/metrics/test_metrics_groups.py``), sorted over the
    cells instead of the rows."""
    codes, distinct = pd.factorize(score, sort=False)
    names, index = distinct_labels(labels)
    cells = len(distinct) * 2 * max(len(names), 1)
    if cells > MERGE_SHARE * len(score):
        return y_true, score, labels, None
    key = (codes.astype(np.int64) * 2 + y_true) * len(names) + index
    counts = np.bincount(key, minlength=cells)
    kept = np.flatnonzero(counts)
    group = kept % len(names)
    cls = (kept // len(names)) % 2
    value = np.asarray(distinct, dtype=float)[kept // (2 * len(names))]
    return cls, value, np.asarray(names, dtype=object)[group], counts[kept].astype(float)


def block_of_counts(c: GroupCounts, *, accuracy: float, balanced_accuracy: float, auc: float | None,
                    abroca: float | None, scores_are_labels: bool | None) -> dict:
    """:func:`evaluate_predictions`'s block from the per-group counts and the measures that are
    not sums of counts (the score-based ones, and the two accuracies, given so that they are
    computed as scikit-learn computes them): what :mod:`fairspec.metrics.streaming` merges
    chunk by chunk builds the same block."""
    tpr = _ratio(c.true_positives, c.positives)
    rates = {
        "base_rate": _ratio(c.positives, c.rows),
        "selection_rate": _ratio(c.selected, c.rows),
        "tpr": tpr,
        "fpr": _ratio(c.false_positives, c.negatives),
        "fnr": [None if t is None else 1.0 - t for t in tpr],
        "accuracy": _ratio(c.correct, c.rows),
    }
    group_table = {
        str(name): {"count": int(c.rows[i]), **{r: rates[r][i] for r in GROUP_RATES}}
        for i, name in enumerate(c.names)
    }
    gaps = gaps_from_rates(rates)
    gaps["abroca"] = abroca
    return {
        "n": int(c.rows.sum()),
        "accuracy": accuracy,
        "balanced_accuracy": balanced_accuracy,
        "auc": auc,
        "scores_are_labels": scores_are_labels,
        "groups": group_table,
        "gaps": gaps,
    }


def fairness_summary(criterion, train_block: dict, test_block: dict | None) -> dict:
    """The metrics.json ``fairness`` object.

    ``criterion`` is a :class:`fairspec.registry.criteria.Criterion` or ``None``.  The achieved
    gaps are read from the blocks' ``gaps`` under the criterion's name; ``met_*`` is
    ``achieved <= bound + 1e-9`` when there is a bound, else ``None`` (a penalty or an audited
    criterion has nothing to meet).  ``interval_test`` is the criterion's entry of the test
    block's ``gap_intervals`` (:mod:`fairspec.metrics.intervals`) when the block has them; with
    groups left out of the test gap (``unmeasured_test`` below) its high end is 1.

    ``unmeasured_test`` names the groups that have one of the criterion's rates on the training
    rows but not on the test rows (no test row at all, or none of the kind the rate counts):
    the test gap leaves them out.  A gap over some of the groups is at most the gap over all
    of them, so it can show a bound is missed but never that it is met: with such groups,
    ``met_test`` is ``False`` when the measured gap exceeds the bound and ``None`` (not
    measurable) otherwise.  A group with one row, which a hold-out puts on one side only,
    had a test verdict of "met" that said nothing about it.  Likewise a gap over several rates
    that is not measurable in full (``achieved`` null: fewer than two groups have one of its
    rates) is not met when its measurable part (:func:`measurable_part`) exceeds the bound.
    """
    if criterion is None:
        return {"criterion": None, "bound": None, "penalty": None,
                "achieved_train": None, "achieved_test": None, "met_train": None, "met_test": None,
                "interval_test": None, "unmeasured_test": []}

    def achieved(block):
        return None if block is None else block["gaps"][criterion.name]

    def met(value, block):
        if criterion.bound is None:
            return None
        if value is None:
            # a gap over several rates, one of which fewer than two groups have: its measurable
            # part can still show the bound missed (never met)
            part, _ = measurable_part(block, criterion.rates)
            return False if part is not None and not criterion.meets(part) else None
        return criterion.meets(value)

    train_gap, test_gap = achieved(train_block), achieved(test_block)
    unmeasured = []
    if train_block is not None and test_block is not None:
        for group, rates in train_block["groups"].items():
            on_test = test_block["groups"].get(group)
            if any(rates[r] is not None and (on_test is None or on_test[r] is None) for r in criterion.rates):
                unmeasured.append(group)
    met_test = met(test_gap, test_block)
    if unmeasured and met_test:
        met_test = None
    intervals = (test_block or {}).get("gap_intervals")
    interval = None if intervals is None else intervals["gaps"][criterion.name]
    if unmeasured and interval is not None and interval[0] is not None:
        # the interval is of the gap over the measured groups; the groups left out can only
        # widen the gap, so its low end still bounds the gap over every group, its high end
        # nothing (a one-row group on the training side had the report state 0.047 to 0.090
        # for a gap of 0.60 over all groups; found in review)
        interval = [interval[0], 1.0]
    return {
        "criterion": criterion.name,
        "bound": None if criterion.bound is None else float(criterion.bound),
        "penalty": None if criterion.penalty is None else float(criterion.penalty),
        "achieved_train": train_gap,
        "achieved_test": test_gap,
        "met_train": met(train_gap, train_block),
        "met_test": met_test,
        "interval_test": interval,
        "unmeasured_test": sorted(unmeasured),
    }


def missing_by_group(frame: pd.DataFrame, features: Sequence[str], groups) -> dict:
    """``{feature: {group: share of the group's rows where the feature is missing}}``.

    ``groups`` is one label per row of ``frame`` (keys ``str(label)``) or the name of a
    column of ``frame``.
    """
    if isinstance(groups, str):
        groups = frame[groups].to_numpy()
    labels = group_labels(groups)
    if len(labels) != len(frame):
        raise ValueError("groups must have one label per row of the frame")
    # each group's count of missing cells over its rows, by bincount over the group codes (a
    # copy of the columns as a frame of floats, grouped, took half a second on a million rows)
    names, index = distinct_labels(labels)
    rows = np.bincount(index, minlength=len(names))
    out = {}
    for f in features:
        hits = np.bincount(index, weights=frame[f].isna().to_numpy(), minlength=len(names))
        out[str(f)] = {str(g): float(h / r) for g, h, r in zip(names, hits, rows)}
    return out


def group_counts(y_true, groups) -> dict:
    """``{group: {"count": rows, "base_rate": P(y=1 | g)}}``, the data summary's ``groups``."""
    y_true = zero_one_labels(y_true, "y_true")
    names, index = distinct_labels(group_labels(groups))
    count = np.bincount(index, minlength=len(names))
    n_pos = np.bincount(index, weights=y_true == 1, minlength=len(names))
    return {str(g): {"count": int(c), "base_rate": float(p / c)} for g, c, p in zip(names, count, n_pos)}
