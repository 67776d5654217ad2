"""Compiled loops for the histogram tree (:mod:`fairspec.models.tree.histogram`), used when
numba is installed (``pip install fairspec[fast]``); without it the numpy code runs.

Why.  A boosting round is a few hundred array operations over the rows and the histogram
slots; in numpy each one is a separate pass with its own temporaries, and the per-node
bookkeeping of a tree is Python.  Issue 46 asks for 200 rounds within 3× LightGBM's time on
one thread; KbPIB and JPIB grow 400 trees for it, which numpy does not reach
(``benchmarks/README.md``, boosting with privileged information).  Here one call grows a
level of a tree: its split search, the bookkeeping of the splits, the routing of the rows and
the next level's histograms (the smaller child's summed, the larger's by subtraction).  For
``mp_boost`` one loop routes all training rows through a round's tree
(:func:`route_by_tables`; its trees are the tree family's, grown on minipatches, not these).

Same trees.  The numpy code is the reference, and these loops compute the same floats from
it, so that a fit gives the same model file with or without numba
(``tests/models/test_boosting_same_models.py`` checks both paths against files written
before this module existed):

* ``np.bincount`` adds a row's weight to its bin in row order; the loops add in row order;
* ``np.cumsum`` adds left to right; so do the loops, over the whole histogram row as numpy
  does (the left sums of a feature are then a difference of two running sums, as there);
* ``ndarray.sum`` of a few dozen bins is numpy's pairwise sum (:func:`_pairwise`: eight
  running sums past 8 elements, halves past 128), reproduced step for step;
* the elementwise gains are the same operations in the same order (numba, as numpy, does not
  fuse a multiply and an add without ``fastmath``), and the arg-max takes the first maximum,
  or the first NaN, as ``np.argmax`` does;
* the categories' sort keys need ``arctan``, whose last bit numpy's SIMD loops and the C
  library may round differently, so they are computed by numpy between the levels and the
  loops only sort by them (a stable sort, as ``np.argsort(kind="stable")``).

:func:`enabled` switches the loops off and on (the tests run both paths).
"""
from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np

try:  # the optional extra "fast"
    import numba
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None

#: FAIRSPEC_COMPILED=0 in the environment runs the numpy code though numba is installed
_STATE = {"on": numba is not None and os.environ.get("FAIRSPEC_COMPILED", "1") != "0"}


def available() -> bool:
    """Whether numba is installed."""
    return numba is not None


def active() -> bool:
    """Whether fits use the compiled loops now."""
    return _STATE["on"] and numba is not None


@contextmanager
def enabled(flag: bool):
    """Use the compiled loops (``flag`` true, where numba is installed) or the numpy code
    inside the block."""
    before = _STATE["on"]
    _STATE["on"] = bool(flag)
    try:
        yield
    finally:
        _STATE["on"] = before


def _jit(fn):
    return numba.njit(cache=True, nogil=True)(fn) if numba is not None else fn


@_jit
def _block(a, lo, n):
    """numpy's pairwise sum of ``a[lo:lo + n]`` for ``n <= 128`` (below, the halving)."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    end = n - n % 8
    i = 8
    while i < end:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


# numpy halves a sum of more than 128 elements (rounding the first half down to a multiple of
# 8); numba caches no recursive function reliably, so four levels are spelled out


@_jit
def _halve1(a, lo, n):
    if n <= 128:
        return _block(a, lo, n)
    n2 = n // 2 - (n // 2) % 8
    return _block(a, lo, n2) + _block(a, lo + n2, n - n2)


@_jit
def _halve2(a, lo, n):
    if n <= 128:
        return _block(a, lo, n)
    n2 = n // 2 - (n // 2) % 8
    return _halve1(a, lo, n2) + _halve1(a, lo + n2, n - n2)


@_jit
def _halve3(a, lo, n):
    if n <= 128:
        return _block(a, lo, n)
    n2 = n // 2 - (n // 2) % 8
    return _halve2(a, lo, n2) + _halve2(a, lo + n2, n - n2)


@_jit
def _pairwise(a, lo, n):
    """numpy's pairwise sum (``pairwise_sum`` in numpy's ``loops_utils.h.src``): the float
    that ``a[lo:lo + n].sum()`` gives for a contiguous array, for ``n`` up to
    :data:`PAIRWISE_MOST` (a feature's histogram row holds at most 256 slots)."""
    if n <= 128:
        return _block(a, lo, n)
    n2 = n // 2 - (n // 2) % 8
    return _halve3(a, lo, n2) + _halve3(a, lo + n2, n - n2)


#: the most elements :data:`_pairwise` sums as numpy does
PAIRWISE_MOST = 1024  # each level at most halves it, plus 8


def numpy_sum(a: np.ndarray) -> float:
    """``a.sum()`` of a contiguous 1-d float array by :func:`_pairwise` (for the tests)."""
    a = np.ascontiguousarray(a, dtype=float)
    if len(a) > PAIRWISE_MOST:
        raise ValueError(f"at most {PAIRWISE_MOST} elements")
    return float(_pairwise(a, 0, len(a))) if len(a) else 0.0


@_jit
def root_histogram(codes_rows, g, h, counts, offsets, total):
    """``(1, total, 3)``: the root's sums of ``g`` and ``h`` per slot, each slot's in row order
    (as ``np.bincount``), and its row counts (``counts``, cached per fit).  The loop runs over
    rows, then features (``codes_rows`` is ``(n, p)``): consecutive updates go to different
    features' slots, so one slot's chain of additions does not stall the next."""
    S = np.zeros((1, total, 3))
    n, p = codes_rows.shape
    for i in range(n):
        gi, hi = g[i], h[i]
        for j in range(p):
            b = offsets[j] + codes_rows[i, j]
            S[0, b, 0] += gi
            S[0, b, 1] += hi
    for s in range(total):
        S[0, s, 2] = counts[s]
    return S


@_jit
def grow_level(S, sq, codes_rows, g, h, rows, begin, count, level, n_nodes, slot_int, feat_int, slot_flags, is_cat,
               lam, settings, any_cat, last_level, feature, tpos, missing_left, left, right, node_sums, bin_left,
               held, buf):
    """One level of :func:`fairspec.models.tree.histogram.grow_histogram_tree`: choose each
    node's split (``best_splits``), record it, route the node's rows (``rows[begin:begin +
    count]`` of each node, kept in row order), and build the next level's histograms.

    ``S`` is ``(k, slots, 3)`` (sums of ``g``, ``h``, rows); per slot, ``slot_int`` holds its
    feature and its column in ``sq`` (the categorical bins' sort keys, computed by numpy) and
    ``slot_flags`` whether it is a missing slot, a categorical bin, a feature's last bin; per
    feature, ``feat_int`` holds its offset, bin count and missing slot.  ``node_sums[node]``
    is ``(G, H, rows)``.  Returns ``(S of the next level, its nodes, the node count)``."""
    k = S.shape[0]
    total = S.shape[1]
    width = bin_left.shape[1]
    n_feat = feat_int.shape[1]
    seg, cat_col = slot_int[0], slot_int[1]
    offsets, n_bins, missing_slot = feat_int[0], feat_int[1], feat_int[2]
    is_missing, cat_obs, last_obs = slot_flags[0], slot_flags[1], slot_flags[2]
    msl, mch, min_gain, gain_tol, min_category_rows = settings[0], settings[1], settings[2], settings[3], settings[4]
    rare_rows = max(min_category_rows, 1.0)
    gain = np.empty(k)
    slot_of = np.empty(k, np.int64)
    left_of = np.empty(k, np.bool_)
    order = np.empty((k, total), np.int64)
    Ss = np.empty((total, 3))
    sums = np.empty((total, 3))
    cand = np.empty(total, np.bool_)
    keys = np.empty(width)
    for a in range(k):
        # the slots' order: categorical bins by their key (numpy's stable argsort), others as they are
        for s in range(total):
            order[a, s] = s
        if any_cat:
            for f in range(n_feat):
                if not is_cat[f] or n_bins[f] < 2:
                    continue
                o = offsets[f]
                nb = n_bins[f]
                for b in range(nb):
                    s = o + b
                    c = S[a, s, 2]
                    if c < rare_rows:
                        v = 0.99998 if c > 0 else 0.99999
                    else:
                        v = sq[a, cat_col[s]]
                    keys[b] = float(seg[s]) + v
                # a stable insertion sort: equal keys keep their bins' order
                for b in range(1, nb):
                    kb, sb = keys[b], order[a, o + b]
                    q = b - 1
                    while q >= 0 and keys[q] > kb:
                        keys[q + 1] = keys[q]
                        order[a, o + q + 1] = order[a, o + q]
                        q -= 1
                    keys[q + 1] = kb
                    order[a, o + q + 1] = sb
        for s in range(total):
            src = order[a, s]
            Ss[s, 0] = S[a, src, 0]
            Ss[s, 1] = S[a, src, 1]
            Ss[s, 2] = S[a, src, 2]
        for s in range(total):
            ok = not is_missing[s]
            if ok and any_cat and cat_obs[s]:
                ok = Ss[s, 2] >= min_category_rows or last_obs[s]
            cand[s] = ok
        # running sums over the whole row (np.cumsum), then per feature by difference
        r0, r1, r2 = Ss[0, 0], Ss[0, 1], Ss[0, 2]
        sums[0, 0], sums[0, 1], sums[0, 2] = r0, r1, r2
        for s in range(1, total):
            r0 = r0 + Ss[s, 0]
            r1 = r1 + Ss[s, 1]
            r2 = r2 + Ss[s, 2]
            sums[s, 0], sums[s, 1], sums[s, 2] = r0, r1, r2
        m0 = missing_slot[0]
        t0, t1, t2 = sums[m0, 0], sums[m0, 1], sums[m0, 2]
        best = 0.0
        best_at = -1  # np.argmax over (slot, missing left then right): the first maximum, or the first NaN
        for s in range(total):
            f = seg[s]
            lam_s = lam[s]
            parent = t0 * t0 / (t1 + lam_s)
            if f == 0:
                l0, l1, l2 = sums[s, 0] - 0.0, sums[s, 1] - 0.0, sums[s, 2] - 0.0
            else:
                e = offsets[f] - 1
                l0, l1, l2 = sums[s, 0] - sums[e, 0], sums[s, 1] - sums[e, 1], sums[s, 2] - sums[e, 2]
            ms = missing_slot[f]
            for d in range(2):
                if d == 0:
                    gl, hl, cl = l0 + Ss[ms, 0], l1 + Ss[ms, 1], l2 + Ss[ms, 2]
                else:
                    gl, hl, cl = l0, l1, l2
                gr, hr, cr = t0 - gl, t1 - hl, t2 - cl
                if cand[s] and min(cl, cr) >= msl and min(hl, hr) >= mch:
                    v = gl * gl / (hl + lam_s) + gr * gr / (hr + lam_s) - parent
                else:
                    v = -np.inf
                if best_at < 0 or (best == best and (v != v or v > best)):
                    best = v
                    best_at = 2 * s + d
        s_best = best_at // 2
        parent_best = t0 * t0 / (t1 + lam[s_best])
        scale = abs(parent_best) + 1.0
        gain[a] = best if best > min_gain + gain_tol * scale else -np.inf
        slot_of[a] = s_best
        left_of[a] = best_at % 2 == 0
    # the splits: bookkeeping (the Python loop of the numpy code), then the rows
    m = 0
    for a in range(k):
        if np.isfinite(gain[a]):
            m += 1
    new_level = np.empty(2 * m, np.int64)
    S_new = np.zeros((0 if last_level else 2 * m, total, 3))
    r = 0
    sel = np.empty(width)
    for a in range(k):
        if not np.isfinite(gain[a]):
            continue
        node = level[a]
        t = slot_of[a]
        f = seg[t]
        o = offsets[f]
        nb = n_bins[f]
        kid_l = n_nodes + 2 * r
        kid_r = kid_l + 1
        lb = bin_left[node]
        for b in range(width):
            lb[b] = False
        for s in range(o, t + 1):
            lb[order[a, s] - o] = True
        n_left = 0.0
        n_obs = 0.0
        for b in range(nb):
            n_obs += S[a, o + b, 2]
            if lb[b]:
                n_left += S[a, o + b, 2]
        if S[a, o + nb, 2] > 0:
            m_left = left_of[a]
        else:
            m_left = n_left >= n_obs - n_left
        if is_cat[f]:
            for b in range(nb):
                held[node, b] = S[a, o + b, 2] > 0
                if S[a, o + b, 2] == 0:
                    lb[b] = m_left
        lb[nb] = m_left
        feature[node] = f
        tpos[node] = t - o
        missing_left[node] = m_left
        left[node] = kid_l
        right[node] = kid_r
        # the left child's sums: numpy's pairwise sum of the selected bins, in bin order
        for c in range(3):
            q = 0
            for b in range(nb + 1):
                if lb[b]:
                    sel[q] = S[a, o + b, c]
                    q += 1
            v = _pairwise(sel, 0, q) if q > 0 else 0.0
            node_sums[kid_l, c] = v
            node_sums[kid_r, c] = node_sums[node, c] - v
        # route the node's rows, stably (left ones first, each side in row order), and sum the
        # smaller child's histogram on the way (its rows come in row order, as bincount adds them)
        small_is_left = node_sums[kid_l, 2] <= node_sums[kid_r, 2]
        build = not last_level
        small = 2 * r if small_is_left else 2 * r + 1
        b0 = begin[node]
        cnt = count[node]
        nl = 0
        for i in range(cnt):
            row = rows[b0 + i]
            goes_left = lb[codes_rows[row, f]]
            if goes_left:
                rows[b0 + nl] = row
                nl += 1
            else:
                buf[i - nl] = row
            if build and goes_left == small_is_left:
                gi, hi = g[row], h[row]
                for j in range(n_feat):
                    s = offsets[j] + codes_rows[row, j]
                    S_new[small, s, 0] += gi
                    S_new[small, s, 1] += hi
                    S_new[small, s, 2] += 1.0
        for i in range(cnt - nl):
            rows[b0 + nl + i] = buf[i]
        begin[kid_l] = b0
        count[kid_l] = nl
        begin[kid_r] = b0 + nl
        count[kid_r] = cnt - nl
        new_level[2 * r] = kid_l
        new_level[2 * r + 1] = kid_r
        if build:  # the larger child: its parent minus the smaller
            large = 2 * r + 1 if small_is_left else 2 * r
            for s in range(total):
                for c in range(3):
                    S_new[large, s, c] = S[a, s, c] - S_new[small, s, c]
        r += 1
    return S_new, new_level, n_nodes + 2 * m


@_jit
def leaves_of_rows(rows, begin, count, feature, n_nodes, n):
    """The leaf each row reached, from the partition of the rows."""
    out = np.empty(n, np.int64)
    for node in range(n_nodes):
        if feature[node] < 0:
            for i in range(begin[node], begin[node] + count[node]):
                out[rows[i]] = node
    return out


@_jit
def apply_bins(codes_t, feature, bin_left, left, right):
    """:meth:`~fairspec.models.tree.histogram.HistogramTree.apply_bins` row by row
    (``codes_t`` is ``(p, n)``)."""
    n = codes_t.shape[1]
    out = np.empty(n, np.int64)
    for i in range(n):
        node = 0
        while feature[node] >= 0:
            node = left[node] if bin_left[node, codes_t[feature[node], i]] else right[node]
        out[i] = node
    return out


@_jit
def route_by_tables(flat_tables, offsets, starts, flat_codes, n_rows, hops):
    """:meth:`fairspec.models.mp_boost.routing.TrainingRouter.leaves` row by row: ``hops`` times,
    ``node = flat_tables[offsets[node] + flat_codes[starts[node] + row]]`` (integers only, so
    the same leaves as the numpy gathers)."""
    out = np.empty(n_rows, np.int64)
    for i in range(n_rows):
        node = 0
        for _ in range(hops):
            node = flat_tables[offsets[node] + flat_codes[starts[node] + i]]
        out[i] = node
    return out
