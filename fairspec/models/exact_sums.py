"""Sums that come out the same on every processor.

A model must not depend on the machine it was trained on.  Two kinds of floating-point work
do: a matrix product (``@``) is summed by the BLAS kernel chosen for the processor
(OpenBLAS picks one per core type, each with its own order of additions and its own use of
fused multiply-adds), and numpy's SIMD loops for partitions and some transcendental
functions differ between instruction sets (AVX-512, AVX2, SSE).  A sum whose terms are
rounded differently gives scores that differ in their last bits, and a search that breaks
ties or compares with a tolerance then takes another branch: the rule set's column
generation priced other rules on a processor without AVX2 (``docs/REPRODUCIBILITY.md``).

The cure used here: put the terms on a grid of a power of two fine enough to lose nothing
that matters and coarse enough that every partial sum is exact.  If every term is an
integer multiple of ``step = 2**e`` and the absolute values of all the terms together stay
below ``2**53 * step``, every partial sum is an integer multiple of ``step`` below that, and
so is represented exactly in float64: any order of addition, with or without fused
multiply-adds (a product by 0 or 1 is exact), gives the same bits.  :func:`grid_step`
chooses ``e`` from a bound on those absolute values, with three bits to spare; the rounding
moves each term by at most ``step / 2``, about ``2**-51`` of the bound.
"""
from __future__ import annotations

import math

import numpy as np

#: bits of float64's 53-bit significand kept for the grid (three spare for sums of terms
#: the caller did not count, such as a penalty times a rule's complexity)
GRID_BITS = 50


def grid_step(bound: float) -> float:
    """The power of two ``step`` such that sums of multiples of ``step`` whose absolute values
    add up to at most ``bound`` are exact in float64.  ``bound`` 0 (all terms zero) gives 1."""
    bound = float(bound)
    if not math.isfinite(bound):
        raise ValueError(f"grid_step: the bound must be finite, got {bound}")
    if bound <= 0.0:
        return 1.0
    exponent = math.frexp(bound)[1]  # bound < 2**exponent
    return math.ldexp(1.0, exponent - GRID_BITS)


def on_grid(values, step: float):
    """``values`` rounded to the nearest multiple of ``step`` (a power of two from
    :func:`grid_step`); a scalar stays a Python float.  Dividing and multiplying by a power of
    two are exact, so the result depends on ``values`` and ``step`` alone."""
    if np.ndim(values) == 0:
        return float(np.rint(float(values) / step) * step)
    return np.rint(np.asarray(values, dtype=np.float64) / step) * step


def fixed_order_product(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``weights @ values`` (shape ``(m, k) @ (k, c)``) summed over ``k`` in index order, one
    elementwise pass per term: the same bits on every processor, where a BLAS product's order
    of additions depends on its kernel.  For small ``k`` (a node's categories)."""
    weights = np.asarray(weights, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros((weights.shape[0],) + values.shape[1:])
    for j in range(weights.shape[1]):
        out += weights[:, j].reshape((-1,) + (1,) * (values.ndim - 1)) * values[j]
    return out
