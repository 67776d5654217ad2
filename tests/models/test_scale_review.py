"""The baseline's one-hot matrix is built once, in place: the same matrix the columns stack into."""
from __future__ import annotations

import tracemalloc

import numpy as np

from fairspec.models.baseline import BaselineClassifier


def _fitted(rng, levels: int = 30) -> tuple[BaselineClassifier, np.ndarray]:
    X = np.column_stack([rng.normal(size=300), rng.integers(0, levels, 300), rng.integers(0, 4, 300)]).astype(float)
    y = (X[:, 0] + (X[:, 1] < levels / 2) > 0.5).astype(int)
    return BaselineClassifier(learner="logistic", categorical_features=[1, 2]).fit(X, y), X


def test_the_expanded_matrix_is_each_numeric_column_and_each_category_indicator():
    rng = np.random.default_rng(8)
    est, X = _fitted(rng)
    expected = np.column_stack([X[:, e["column"]] if e["code"] is None else (X[:, e["column"]] == e["code"]).astype(float)
                                for e in est.layout_])
    Z = est._expand(X)
    assert Z.dtype == expected.dtype and Z.flags.c_contiguous
    np.testing.assert_array_equal(Z, expected)
    assert est._expand(X[:0]).shape == (0, len(est.layout_))


def test_expanding_rows_to_score_holds_the_matrix_once():
    rng = np.random.default_rng(9)
    est, _ = _fitted(rng)
    rows = np.column_stack([rng.normal(size=20000), rng.integers(0, 30, 20000), rng.integers(0, 4, 20000)]).astype(float)
    tracemalloc.start()
    try:
        Z = est._expand(rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * Z.nbytes
