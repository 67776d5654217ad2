"""Which rows train and which test: the hold-out or cross-validation split of the kept rows.

Here, below the plan, so that the checks made before training (:mod:`fairspec.plan.small_groups`)
see the very rows the pipeline will train on.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def holdout_test_rows(test_size: float, n: int) -> int:
    """How many of ``n`` rows a hold-out of ``test_size`` tests on: rounded up, as scikit-learn
    rounds, but from the fraction as the spec writes it.  In floating point 0.07 × 100 is
    7.000000000000001, which scikit-learn rounds up to 8 rows."""
    return math.ceil(Fraction(repr(float(test_size))) * n)


def split_rows(evaluation, y: np.ndarray, groups: np.ndarray):
    """``(splits, stratified_by)``: index arrays [(train, test)] for holdout, k pairs for cv,
    [(all, empty)] for none; and what the split was stratified by.

    ``evaluation`` has the plan's ``kind``, ``test_size``, ``folds``, ``stratify`` and ``seed``.
    Stratified by target and group when every target-and-group cell can be divided (a cell
    of at least 2 rows for a hold-out, as many as folds for cv, and a test and training side
    with room for one row of every cell); else by target alone when its two classes can be;
    else not at all (``None``: a tiny or very unbalanced data set, where scikit-learn's
    stratified splitters refuse to work).  ``stratify false`` (hold-out or cv) stratifies by
    nothing.

    scikit-learn is imported only by the splits that need it (cross-validation, an
    unstratified hold-out): importing it takes longer than checking a spec against a million
    rows, and ``fairspec check`` of a stratified hold-out draws its rows without it."""
    ev = evaluation
    n = len(y)
    if ev.kind == "none":
        return [(np.arange(n), np.arange(0))], None
    strata = _strata(y, groups)
    choices = [("target and group", strata), ("target", y)] if ev.stratify else []
    if ev.kind == "cv":
        from sklearn.model_selection import KFold, StratifiedKFold

        for by, labels in choices:
            if np.unique(labels, return_counts=True)[1].min() >= ev.folds:
                folds = StratifiedKFold(n_splits=ev.folds, shuffle=True, random_state=ev.seed)
                return list(folds.split(np.zeros(n), labels)), by
        folds = KFold(n_splits=ev.folds, shuffle=True, random_state=ev.seed)
        return list(folds.split(np.zeros(n))), None
    n_test = holdout_test_rows(ev.test_size, n)
    for by, labels in choices:
        cells, counts = np.unique(labels, return_counts=True)
        if counts.min() >= 2 and min(n_test, n - n_test) >= len(cells):
            return [_stratified_holdout(labels, n_test, ev.seed)], by
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(n), test_size=n_test, random_state=ev.seed)
    return [(np.sort(train), np.sort(test))], None


def _stratified_holdout(labels: np.ndarray, n_test: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """The sorted (train, test) rows of ``train_test_split(np.arange(n), test_size=n_test,
    random_state=seed, stratify=labels)``: the same draws from the same random stream, each
    class's rows taken as arrays.  scikit-learn gathers a million row numbers one by one into
    Python lists and shuffles them once more (the order, which sorting discards), about two
    seconds a split.  Without a whole-number seed (None, a ``RandomState``), scikit-learn's
    splitter runs."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        from sklearn.model_selection import train_test_split

        train, test = train_test_split(np.arange(len(labels)), test_size=n_test, random_state=seed, stratify=labels)
        return np.sort(train), np.sort(test)
    _, class_of_row, class_counts = np.unique(labels, return_inverse=True, return_counts=True)
    rows_of_class = np.split(np.argsort(class_of_row.reshape(-1), kind="stable"), np.cumsum(class_counts)[:-1])
    rng = np.random.RandomState(seed)
    n_train = len(labels) - n_test
    train_counts = _apportion(class_counts, n_train, rng)
    test_counts = _apportion(class_counts - train_counts, n_test, rng)
    train, test = [], []
    for rows, count, n_tr, n_te in zip(rows_of_class, class_counts, train_counts, test_counts):
        drawn = rows.take(rng.permutation(count), mode="clip")
        train.append(drawn[:n_tr])
        test.append(drawn[n_tr:n_tr + n_te])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


def _apportion(class_counts: np.ndarray, n_draws: int, rng: np.random.RandomState) -> np.ndarray:
    """How many of ``n_draws`` rows each class gives, in proportion to ``class_counts``: the
    floor of each share, then one more row to the classes of the largest remainders, a tie
    among equal remainders drawn from ``rng`` (``rng.choice`` without replacement).

    This is the apportionment scikit-learn's stratified splitters make (its private
    ``_approximate_mode``), drawing from the stream in the same order, so the hold-out is
    scikit-learn's (``tests/data/test_split.py`` compares them); written here so that
    ``fairspec check`` draws a hold-out without importing scikit-learn."""
    shares = class_counts / class_counts.sum() * n_draws
    counts = np.floor(shares)
    missing = int(n_draws - counts.sum())
    remainders = shares - counts
    for value in np.unique(remainders)[::-1]:
        if missing <= 0:
            break
        (tied,) = np.where(remainders == value)
        take = min(len(tied), missing)
        counts[rng.choice(tied, size=take, replace=False)] += 1
        missing -= take
    return counts.astype(int)


def _strata(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each row's target-and-group cell, named by its text ``"<y>|<group>"``, or by that text's
    rank among the cells' texts.

    The splitters read only which rows share a cell and the cells' sorted order, which the
    ranks keep; built and sorted for every row, the texts took a second per split of a million
    rows, where a few cells need them.  The ranks need whole-number (or bool) targets and text
    groups, whose values are equal exactly when their texts are."""
    if y.dtype.kind not in "biu" or groups.dtype.kind != "U":
        return np.char.add(y.astype(str), np.char.add("|", groups.astype(str)))
    _, target_codes = np.unique(y, return_inverse=True)
    group_names, group_codes = np.unique(groups, return_inverse=True)
    _, first_row, cell_of_row = np.unique(target_codes * len(group_names) + group_codes, return_index=True,
                                          return_inverse=True)
    texts = np.char.add(y[first_row].astype(str), np.char.add("|", groups[first_row].astype(str)))
    _, rank_of_cell = np.unique(texts, return_inverse=True)
    return rank_of_cell[cell_of_row]


def training_sides(evaluation, splits) -> list[tuple[str, np.ndarray]]:
    """``(name, rows)`` of every set of rows a model is fitted on: the hold-out's training
    side; each cv fold's, then every row (the kept model); every row without evaluation."""
    if evaluation.kind == "cv":
        n = len(splits[0][0]) + len(splits[0][1])
        return [(f"cv fold {k}", train) for k, (train, _) in enumerate(splits, start=1)] + \
            [("the final model on all rows", np.arange(n))]
    if evaluation.kind == "holdout":
        return [("the hold-out's training side", splits[0][0])]
    return [("all rows", splits[0][0])]
