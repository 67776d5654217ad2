"""Metrics merged chunk by chunk are the metrics of all the rows at once."""
from __future__ import annotations

import numpy as np
import pytest

from fairspec.metrics.groups import evaluate_predictions
from fairspec.metrics.intervals import gap_intervals
from fairspec.metrics.streaming import StreamedMetrics, merge_all


def _rows(rng, n: int, levels: int | None):
    groups = np.array(["a", "b & c", "nan", "d", "é"], dtype=object)[rng.choice(5, n, p=[0.4, 0.3, 0.1, 0.15, 0.05])]
    y = rng.integers(0, 2, n)
    pred = (rng.random(n) < 0.3 + 0.4 * y).astype(int)
    score = rng.random(n) if levels is None else rng.integers(0, levels, n) / levels
    return y, pred, score, groups


def _in_memory(y, pred, score, groups):
    block = evaluate_predictions(y, pred, score, groups)
    block["gap_intervals"] = gap_intervals(y, pred, groups, seed=3)
    return block


@pytest.mark.parametrize("levels", [None, 2, 7])
@pytest.mark.parametrize("chunk", [7, 97, 1000, 5000])
def test_chunks_give_the_in_memory_block_exactly(levels, chunk):
    rng = np.random.default_rng(chunk + (levels or 0))
    y, pred, score, groups = _rows(rng, 3000, levels)
    streamed = StreamedMetrics()
    for start in range(0, len(y), chunk):
        part = slice(start, start + chunk)
        streamed.add(y[part], pred[part], score[part], groups[part])
    assert streamed.block(seed=3) == _in_memory(y, pred, score, groups)


def test_partitions_merged_in_any_grouping_give_the_same_block():
    rng = np.random.default_rng(8)
    y, pred, score, groups = _rows(rng, 2000, 5)
    parts = [StreamedMetrics().add(y[i:i + 300], pred[i:i + 300], score[i:i + 300], groups[i:i + 300])
             for i in range(0, 2000, 300)]
    halves = merge_all([merge_all(parts[:3]), merge_all(parts[3:])])
    assert halves.block(seed=3) == merge_all(parts).block(seed=3) == _in_memory(y, pred, score, groups)


def test_a_group_in_one_chunk_only_and_one_class_chunks_still_merge():
    y = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    pred = np.array([1, 0, 0, 1, 1, 1, 0, 0])
    score = np.array([0.9, 0.2, 0.1, 0.8, 0.7, 0.6, 0.3, 0.4])
    groups = np.array(["x", "x", "x", "y", "y", "z", "z", "z"], dtype=object)
    streamed = StreamedMetrics().add(y[:2], pred[:2], score[:2], groups[:2])  # one class, one group
    streamed.add(y[2:], pred[2:], score[2:], groups[2:])
    assert streamed.block(seed=3) == _in_memory(y, pred, score, groups)


def test_past_the_cap_the_scores_are_dropped_and_the_counts_kept():
    rng = np.random.default_rng(2)
    y, pred, score, groups = _rows(rng, 500, None)
    streamed = StreamedMetrics(score_cap=100).add(y, pred, score, groups)
    block, expected = streamed.block(seed=3), _in_memory(y, pred, score, groups)
    assert streamed.scores_dropped and block["auc"] is None and block["gaps"]["abroca"] is None
    assert block["groups"] == expected["groups"] and block["gap_intervals"] == expected["gap_intervals"]
