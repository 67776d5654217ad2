"""The split search of :class:`fairspec.models.tree.split_search.SplitScorer` compiled for its
commonest case: classification, Gini, missing values by ``mia``, no fairness penalty, every row
of weight 1 (the trees ``mp_boost`` grows on its minipatches).  Used when numba is installed
(``pip install fairspec[fast]``) and :func:`fairspec.models.tree.compiled.active`.

Why.  A minipatch tree of ``mp_boost`` holds a few hundred rows; scoring one feature at one
node is a few dozen numpy calls on arrays of a few dozen bins, and the calls' overhead, not the
arithmetic, was most of the round (``benchmarks/README.md``, Fair MP-Boost).  Here one call
scores every threshold of a feature.

Same splits.  :meth:`SplitScorer.best_for_feature` is the reference, and this loop computes
the same floats in the same order:

* with every row of weight 1 the statistics are whole numbers (row counts), so the running
  sums left of each threshold, the totals and ``L + M`` are exact in any order of addition;
* the loss of a set is ``W·(1 - p₀·p₀ - p₁·p₁)`` with ``p_y = w_y / max(W, 1e-300)``, evaluated
  left to right as numpy does, and a candidate's score is the children's summed loss divided by
  the node's weight (numba, as numpy, fuses no multiply and add without ``fastmath``);
* the candidates are ordered as there (threshold by threshold; with missing rows, missing-left
  before missing-right at each threshold), the first within :data:`TIE_TOL` of the minimum wins,
  and the present-vs-missing split replaces it only if lower by more than that tolerance;
* categories are ordered by their share of positives with a stable sort (Breiman's ordering,
  exact for Gini), as ``np.argsort(kind="stable")``.

``tests/models/test_boosting_same_models.py`` fits every ``mp_boost`` case with and without
the compiled loops against model files written before this module existed, and
``tests/models/test_tree_compiled_split.py`` compares the two searches candidate by candidate.
"""
from __future__ import annotations

import numpy as np

from fairspec.models.tree.compiled import _jit

#: what :func:`best_mia_gini` found
NO_SPLIT, THRESHOLD, PRESENT_VS_MISSING = 0, 1, 2
#: routes of the missing rows (``split_search.LEFT`` and ``RIGHT``; checked there at import)
LEFT, RIGHT = 0, 1
#: ``split_search.TIE_TOL``
TIE_TOL = 1e-12
_EPS = 1e-300


@_jit
def _gini(w0, w1):
    W = w0 + w1
    safe = max(W, _EPS)
    p0 = w0 / safe
    p1 = w1 / safe
    return W * (1.0 - p0 * p0 - p1 * p1)


@_jit
def best_mia_gini(stats, counts, categorical, W, msl, mia_missing_split):
    """``(kind, score, cut, route, obs)`` of the best split of one feature at a node, from the
    per-bin label weights ``stats`` (bins × 2, the last bin missing) and row ``counts``;
    ``obs`` the observed bins in scan order (categories by share of positives)."""
    U = counts.shape[0] - 1
    nM = counts[U]
    M0 = stats[U, 0]
    M1 = stats[U, 1]
    n_obs = 0
    for k in range(U):
        if counts[k] > 0:
            n_obs += 1
    obs = np.empty(n_obs, dtype=np.int64)
    i = 0
    for k in range(U):
        if counts[k] > 0:
            obs[i] = k
            i += 1
    pvm_allowed = mia_missing_split and n_obs >= 1 and nM > 0
    if n_obs < 2 and not pvm_allowed:
        return NO_SPLIT, np.inf, -1, LEFT, obs
    if categorical and n_obs >= 2:
        est = np.empty(n_obs)
        for i in range(n_obs):
            w0 = stats[obs[i], 0]
            w1 = stats[obs[i], 1]
            Wk = w0 + w1
            est[i] = w1 / max(Wk, _EPS) if Wk > 0 else 0.0
        obs = obs[np.argsort(est, kind="mergesort")]
    tot0 = 0.0
    tot1 = 0.0
    n_tot = 0
    for i in range(n_obs):
        tot0 += stats[obs[i], 0]
        tot1 += stats[obs[i], 1]
        n_tot += counts[obs[i]]
    best_kind = NO_SPLIT
    best_score = np.inf
    best_cut = -1
    best_route = LEFT
    if n_obs >= 2:
        L0 = 0.0
        L1 = 0.0
        nL = 0
        m = np.inf
        m_cut = -1
        m_route = LEFT
        # first pass: the minimum; second: the first candidate within the tolerance of it
        for sweep in range(2):
            L0 = 0.0
            L1 = 0.0
            nL = 0
            limit = m + TIE_TOL * max(1.0, abs(m))
            found = False
            for c in range(n_obs - 1):
                L0 += stats[obs[c], 0]
                L1 += stats[obs[c], 1]
                nL += counts[obs[c]]
                R0 = tot0 - L0
                R1 = tot1 - L1
                nR = n_tot - nL
                lossL = _gini(L0, L1)
                lossR = _gini(R0, R1)
                if nM == 0:
                    sc = (lossL + lossR) / W if (nL >= msl and nR >= msl) else np.inf
                    if sweep == 0:
                        m = min(m, sc)
                    elif sc <= limit:
                        m_cut = c
                        m_route = LEFT if L0 + L1 >= R0 + R1 else RIGHT
                        found = True
                        break
                else:
                    sl = (_gini(L0 + M0, L1 + M1) + lossR) / W if (nL + nM >= msl and nR >= msl) else np.inf
                    sr = (lossL + _gini(R0 + M0, R1 + M1)) / W if (nL >= msl and nR + nM >= msl) else np.inf
                    if sweep == 0:
                        m = min(m, min(sl, sr))
                    elif sl <= limit:
                        m_cut = c
                        m_route = LEFT
                        found = True
                        break
                    elif sr <= limit:
                        m_cut = c
                        m_route = RIGHT
                        found = True
                        break
            if sweep == 0 and not np.isfinite(m):
                break
            if found:
                best_kind = THRESHOLD
                best_score = m
                best_cut = m_cut
                best_route = m_route
    if pvm_allowed and n_tot >= msl and nM >= msl:
        pvm = (_gini(tot0, tot1) + _gini(M0, M1)) / W
        if best_kind == NO_SPLIT or pvm < best_score - TIE_TOL * max(1.0, abs(pvm)):
            best_kind = PRESENT_VS_MISSING
            best_score = pvm
            best_cut = -1
            best_route = RIGHT
    return best_kind, best_score, best_cut, best_route, obs
