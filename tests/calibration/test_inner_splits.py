"""The calibration's inner split (fairspec.calibration.estimator.inner_splits): stratified by label
and group, disjoint, covering, seeded, and the split the label-and-group texts gave."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from fairspec.calibration.estimator import inner_splits


def _rows(n, seed, rare=0.002):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    groups = rng.choice(np.array(["a", "b", "c", "rare"]), n, p=[0.5, 0.3, 0.2 - rare, rare])
    return y, groups


def _by_texts(y, groups, folds, seed):
    """The split as it was computed before: from the texts "<y>|<group>" of every row."""
    strata = np.char.add(y.astype(str), np.char.add("|", groups.astype(str)))
    _, cell_of, counts = np.unique(strata, return_inverse=True, return_counts=True)
    kept = counts[cell_of] < folds
    rest, always = np.flatnonzero(~kept), np.flatnonzero(kept)
    labels = strata[rest]
    if len(rest) >= folds and np.unique(labels, return_counts=True)[1].min() >= folds:
        pairs = StratifiedKFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(rest)), labels)
    else:
        pairs = KFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(rest)))
    return [(np.sort(np.concatenate([rest[tr], always])), rest[te]) for tr, te in pairs], \
        sorted({str(g) for g in groups[always]})


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("folds", [2, 3, 5])
def test_the_split_is_the_one_the_texts_gave(seed, folds):
    y, groups = _rows(2000, seed)
    splits, kept = inner_splits(y, groups, folds, seed)
    reference, reference_kept = _by_texts(y, groups, folds, seed)
    assert kept == reference_kept
    assert len(splits) == len(reference) == folds
    for (tr, te), (rtr, rte) in zip(splits, reference):
        np.testing.assert_array_equal(tr, rtr)
        np.testing.assert_array_equal(te, rte)


def test_folds_are_stratified_disjoint_covering_and_seeded():
    y, groups = _rows(3000, 4, rare=0.001)
    folds = 3
    splits, kept = inner_splits(y, groups, folds, seed=11)
    held = np.concatenate([te for _, te in splits])
    always = np.flatnonzero(groups == "rare")  # a cell of fewer than `folds` rows is never held out
    rare_cells = {(int(a), str(b)) for a, b in zip(y[always], groups[always])}
    never = [i for i in range(len(y)) if (int(y[i]), str(groups[i])) in rare_cells
             and sum((y == y[i]) & (groups == groups[i])) < folds]
    assert len(np.unique(held)) == len(held)  # each row held out at most once
    assert set(held) | set(never) == set(range(len(y)))  # and every row but the rare cells' once
    for tr, te in splits:
        assert not set(tr) & set(te)
        assert set(tr) | set(te) == set(range(len(y)))
        for cell_y in (0, 1):
            for g in ("a", "b", "c"):
                share = ((y[te] == cell_y) & (groups[te] == g)).sum() / ((y == cell_y) & (groups == g)).sum()
                assert abs(share - 1 / folds) < 0.01  # each cell spread evenly over the folds
    again, _ = inner_splits(y, groups, folds, seed=11)
    assert all((a == c).all() and (b == d).all() for (a, b), (c, d) in zip(splits, again))
    other, _ = inner_splits(y, groups, folds, seed=12)
    assert any(not np.array_equal(b, d) for (_, b), (_, d) in zip(splits, other))
