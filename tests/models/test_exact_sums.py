"""fairspec.models.exact_sums: terms on the grid sum to the same bits in any order."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fairspec.models.exact_sums import fixed_order_product, grid_step, on_grid


def _values(seed: int, n: int = 5000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # duals and costs of very different sizes, both signs, as the pricing weights are
    return rng.normal(size=n) * 10.0 ** rng.integers(-6, 5, size=n)


@pytest.mark.parametrize("seed", range(5))
def test_sums_of_terms_on_the_grid_are_the_same_in_any_order(seed):
    v = _values(seed)
    step = grid_step(np.abs(v).sum())
    snapped = on_grid(v, step)
    rng = np.random.default_rng(seed + 100)
    sums = {math.fsum(snapped)}  # the exact sum, correctly rounded
    for _ in range(20):
        order = rng.permutation(len(v))
        running = 0.0
        for x in snapped[order]:  # strictly left to right, no pairwise tree
            running += x
        sums.add(running)
        sums.add(float(np.sum(snapped[order])))  # numpy's pairwise order
    cover = (rng.random((len(v), 30)) < 0.5).astype(float)
    assert len(sums) == 1
    # BLAS's products (any kernel, any order) against the exact sums column by column
    assert np.array_equal(snapped @ cover, np.array([math.fsum(snapped[c > 0]) for c in cover.T]))


def test_the_same_terms_off_the_grid_do_depend_on_the_order():
    # the property above is not free: without the grid, orders disagree
    v = _values(0)
    rng = np.random.default_rng(1)
    sums = {float(np.sum(v[rng.permutation(len(v))])) for _ in range(20)}
    assert len(sums) > 1


def test_the_grid_moves_a_term_by_at_most_half_a_step_and_keeps_whole_numbers():
    v = _values(3)
    step = grid_step(np.abs(v).sum())
    assert step == 2.0 ** (math.frexp(np.abs(v).sum())[1] - 50)
    assert np.max(np.abs(on_grid(v, step) - v)) <= step / 2
    counts = np.arange(0.0, 10000.0)
    assert np.array_equal(on_grid(counts, grid_step(counts.sum())), counts)
    assert grid_step(0.0) == 1.0 and on_grid(0.3, 0.25) == 0.25
    with pytest.raises(ValueError):
        grid_step(float("inf"))


def test_the_fixed_order_product_is_the_matrix_product():
    rng = np.random.default_rng(4)
    weights = (rng.random((64, 10)) < 0.5).astype(float)
    values = rng.random((10, 4)) * 3
    assert np.allclose(fixed_order_product(weights, values), weights @ values, rtol=1e-15, atol=0)
    # summed over k in index order, exactly as a loop would
    loop = np.zeros((64, 4))
    for j in range(10):
        loop = loop + weights[:, j:j + 1] * values[j]
    assert np.array_equal(fixed_order_product(weights, values), loop)
