"""Metrics of predictions made chunk by chunk: counts that merge exactly.

A block of metrics.json (:func:`fairspec.metrics.groups.evaluate_predictions`) and its gap
intervals (:func:`fairspec.metrics.intervals.gap_intervals`) read the rows through sums:

* every group rate and gap, the accuracy, the balanced accuracy and the intervals are
  functions of the per-group counts of rows, positives, true positives and selected rows
  (:class:`~fairspec.metrics.groups.GroupCounts`), and counts add;
* the AUC and ABROCA are functions of the ROC curves, whose points are cumulative counts of
  positives and negatives over the distinct scores, so the rows can be merged into one per
  (group, class, score) with their count as a weight, and the curves are the same numbers.

So a file too large for memory is scored in chunks, each chunk's counts added to a
:class:`StreamedMetrics`, and the block built at the end is the one the whole file in memory
gives; partitions of a ``dask.dataframe`` merge the same way (:func:`merge_all`).  The one
part whose size grows with the data is the table of distinct scores: past ``score_cap``
distinct (group, class, score) entries (a model of continuous scores on many rows) it is
dropped, and AUC and ABROCA are ``None``, said by ``scores_dropped``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairspec.metrics.groups import GroupCounts, _json_float, block_of_counts, group_labels, zero_one_labels
from fairspec.metrics.intervals import DRAWS, LEVEL, gap_intervals_of_counts

#: distinct (group, class, score) entries kept for the AUC and ABROCA (about 40 bytes each)
SCORE_CAP = 2_000_000

_COUNTS = ("rows", "positives", "true_positives", "selected")


@dataclass
class StreamedMetrics:
    """Counts of 0/1 predictions against 0/1 targets per group, added chunk by chunk."""

    #: group label -> [rows, positives, true positives, selected], whole numbers
    counts: dict[str, np.ndarray] = field(default_factory=dict)
    #: rows merged by (group, class, score) with their count, or None once dropped
    scores: pd.Series | None = field(default_factory=lambda: _empty_scores())
    score_cap: int = SCORE_CAP
    scored: bool = True
    #: chunks' merged scores not yet added to ``scores`` (added when they outgrow it: each
    #: chunk re-merged into the whole table had made the merging quadratic in the chunks)
    pending: list = field(default_factory=list)

    @property
    def scores_dropped(self) -> bool:
        """Whether the distinct scores outgrew ``score_cap`` (AUC and ABROCA are then None)."""
        self._consolidate()
        return self.scored and self.scores is None

    def add(self, y_true, y_pred, y_score, groups) -> "StreamedMetrics":
        """Add one chunk's rows (``y_score`` None: no scores, as in ``evaluate_predictions``)."""
        y_true, y_pred = zero_one_labels(y_true, "y_true"), zero_one_labels(y_pred, "y_pred")
        labels = group_labels(groups)
        if not len(y_pred) == len(labels) == len(y_true):
            raise ValueError("y_true, y_pred and groups must have one entry per row")
        chunk = GroupCounts.of(y_true, y_pred, labels)
        for i, name in enumerate(chunk.names):
            row = np.array([chunk.rows[i], chunk.positives[i], chunk.true_positives[i], chunk.selected[i]],
                           dtype=np.int64)
            key = str(name)
            self.counts[key] = self.counts[key] + row if key in self.counts else row
        if y_score is None:
            self.scored = False
        if self.scored and self.scores is not None:
            score = np.asarray(y_score, dtype=float).ravel()
            if not np.isfinite(score).all():
                row = int(np.flatnonzero(~np.isfinite(score))[0])
                raise ValueError(f"y_score must hold finite numbers (the score of class 1); row {row} holds "
                                 f"{float(score[row])!r}")
            merged = pd.DataFrame({"group": labels.astype(str), "y": y_true, "score": score})
            self._add_scores(merged.groupby(["group", "y", "score"], sort=False).size())
        return self

    def merge(self, other: "StreamedMetrics") -> "StreamedMetrics":
        """This and ``other`` added (in place); as if ``other``'s rows had come after these."""
        for key, row in other.counts.items():
            self.counts[key] = self.counts[key] + row if key in self.counts else row.copy()
        self.scored = self.scored and other.scored
        if not other.scored or other.scores is None:
            self.scores = None
        elif self.scores is not None:
            other._consolidate()
            if other.scores is None:
                self.scores, self.pending = None, []
            else:
                self._add_scores(other.scores)
        return self

    def _add_scores(self, entries: pd.Series) -> None:
        self.pending.append(entries)
        if sum(len(e) for e in self.pending) > max(len(self.scores), 50_000):
            self._consolidate()

    def _consolidate(self) -> None:
        if not self.pending or self.scores is None:
            self.pending = []
            return
        parts = ([] if self.scores.empty else [self.scores]) + self.pending
        self.pending = []
        merged = pd.concat(parts).groupby(level=[0, 1, 2], sort=False).sum()
        self.scores = None if len(merged) > self.score_cap else merged

    def group_counts(self) -> GroupCounts:
        """The merged counts, the groups in the order ``evaluate_predictions`` sorts them."""
        names = sorted(self.counts)
        table = np.array([self.counts[g] for g in names], dtype=np.int64).reshape(len(names), len(_COUNTS))
        rows, positives, true_positives, selected = (table[:, i] for i in range(len(_COUNTS)))
        return GroupCounts(np.array(names, dtype=object), rows, positives, rows - positives, true_positives,
                           selected - true_positives)

    def block(self, *, seed: int = 0, level: float = LEVEL, draws: int = DRAWS) -> dict:
        """The metrics.json block of every row added, with its ``gap_intervals``: what
        ``evaluate_predictions`` and ``gap_intervals`` give on the rows all at once."""
        from fairspec.metrics.auc import roc_auc
        from fairspec.metrics.roc import abroca

        c = self.group_counts()
        n = int(c.rows.sum())
        if n == 0:
            raise ValueError("cannot evaluate predictions on zero rows")
        correct, positives = int(c.correct.sum()), int(c.positives.sum())
        both_classes = 0 < positives < n
        if both_classes:
            # scikit-learn's balanced accuracy: the mean of the two classes' recalls
            recalls = np.array([(n - positives - int(c.false_positives.sum())) / (n - positives),
                                int(c.true_positives.sum()) / positives])
            balanced = float(np.mean(recalls))
        else:
            balanced = correct / n
        auc = abroca_value = scores_are_labels = None
        self._consolidate()
        if self.scored and self.scores is not None:
            index = self.scores.index
            groups = index.get_level_values(0).to_numpy(dtype=object)
            y = index.get_level_values(1).to_numpy(dtype=int)
            score = index.get_level_values(2).to_numpy(dtype=float)
            weight = self.scores.to_numpy(dtype=float)
            if both_classes:
                auc = _json_float(roc_auc(y, score, sample_weight=weight))
            abroca_value = _json_float(abroca(y, score, groups, sample_weight=weight))
            scores_are_labels = bool(np.isin(score, (0.0, 1.0)).all())
        block = block_of_counts(c, accuracy=correct / n, balanced_accuracy=balanced, auc=auc, abroca=abroca_value,
                                scores_are_labels=scores_are_labels)
        block["gap_intervals"] = gap_intervals_of_counts(c, seed=seed, level=level, draws=draws)
        return block


def _empty_scores() -> pd.Series:
    index = pd.MultiIndex.from_arrays([pd.Index([], dtype=object), pd.Index([], dtype=np.int64),
                                       pd.Index([], dtype=float)], names=["group", "y", "score"])
    return pd.Series([], index=index, dtype=np.int64)


def merge_all(parts) -> StreamedMetrics:
    """The parts' counts added, in order (each a :class:`StreamedMetrics`)."""
    total = StreamedMetrics()
    for part in parts:
        total.merge(part)
    return total
