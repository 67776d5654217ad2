"""The hold-out's size: the fraction the spec writes, of the kept rows, rounded up."""
from types import SimpleNamespace

import numpy as np
import pytest

from fairspec.data.split import holdout_test_rows, split_rows
from fairspec.data import split


@pytest.mark.parametrize("test_size, n, rows", [(0.07, 100, 7), (0.3, 10, 3), (0.3, 11, 4), (0.29, 100, 29),
                                                (0.001, 50, 1), (0.57, 100, 57)])
def test_holdout_rounds_up_the_fraction_as_written(test_size, n, rows):
    # in floating point 0.07 * 100 is 7.000000000000001 and 0.57 * 100 is 56.99999999999999
    assert holdout_test_rows(test_size, n) == rows


@pytest.mark.parametrize("stratify", [True, False])
def test_the_split_tests_on_that_many_rows(stratify):
    rng = np.random.default_rng(0)
    y, groups = rng.integers(0, 2, 100), rng.choice(["a", "b"], 100)
    evaluation = SimpleNamespace(kind="holdout", test_size=0.07, folds=0, stratify=stratify, seed=3)
    [(train, test)], _ = split_rows(evaluation, y, groups)
    assert len(test) == 7 and len(train) == 93 and not set(train) & set(test)


def _text_strata(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    return np.char.add(y.astype(str), np.char.add("|", groups.astype(str)))


@pytest.mark.parametrize("targets", [[0, 1], [1, 10, 2], [True, False]])
def test_strata_are_the_cells_of_target_and_group_in_the_order_of_their_texts(targets):
    rng = np.random.default_rng(len(targets))
    names = np.array(["a", "a|b", "", "b & c", "\u00e9", "B", "10", "1|0"])
    for n in (1, 7, 500):
        y = np.array(targets)[rng.integers(0, len(targets), n)]
        groups = names[rng.integers(0, len(names), n)]
        reference = np.unique(_text_strata(y, groups), return_inverse=True)[1]
        np.testing.assert_array_equal(np.unique(split._strata(y, groups), return_inverse=True)[1], reference)


@pytest.mark.parametrize("kind", ["holdout", "cv"])
def test_a_stratified_split_draws_the_rows_the_text_strata_draw(kind, monkeypatch):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 600)
    groups = np.array(["x", "y & z", "w"])[rng.choice(3, 600, p=[0.6, 0.3, 0.1])]
    evaluation = SimpleNamespace(kind=kind, stratify=True, seed=9, test_size=0.3, folds=4)
    splits, by = split.split_rows(evaluation, y, groups)
    monkeypatch.setattr(split, "_strata", _text_strata)
    expected, expected_by = split.split_rows(evaluation, y, groups)
    assert by == expected_by == "target and group"
    for (train, test), (train_ref, test_ref) in zip(splits, expected, strict=True):
        np.testing.assert_array_equal(train, train_ref)
        np.testing.assert_array_equal(test, test_ref)


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_a_stratified_holdout_draws_the_rows_scikit_learn_draws(seed):
    from sklearn.model_selection import train_test_split

    from fairspec.data import split

    rng = np.random.default_rng(seed)
    for n, cells in ((10, 2), (97, 3), (1000, 7), (5000, 12)):
        labels = rng.integers(0, cells, n)
        labels[:2 * cells] = np.repeat(np.arange(cells), 2)  # every cell has two rows
        for n_test in (cells, n // 3, n - cells):
            train, test = split._stratified_holdout(labels, n_test, seed)
            ref_train, ref_test = train_test_split(np.arange(n), test_size=n_test, random_state=seed, stratify=labels)
            np.testing.assert_array_equal(train, np.sort(ref_train))
            np.testing.assert_array_equal(test, np.sort(ref_test))


@pytest.mark.parametrize("seed", [0, 3, 42])
def test_the_apportionment_is_scikit_learns_ties_and_draws_included(seed):
    # equal class counts tie every remainder, so which classes get the extra rows is drawn: the
    # draws must come from the stream as scikit-learn's private _approximate_mode takes them
    from sklearn.utils.extmath import _approximate_mode

    rng = np.random.default_rng(seed)
    cases = [np.array([4, 2]), np.array([2, 2, 2, 1]), np.full(9, 5), np.array([1, 1, 1, 1, 1, 1, 7])]
    cases += [rng.integers(1, 40, rng.integers(2, 15)) for _ in range(30)]
    for counts in cases:
        for n_draws in range(0, int(counts.sum()) + 1, max(1, int(counts.sum()) // 9)):
            ours, theirs = np.random.RandomState(seed), np.random.RandomState(seed)
            np.testing.assert_array_equal(split._apportion(counts, n_draws, ours),
                                          _approximate_mode(counts, n_draws, theirs))
            assert ours.randint(1 << 30) == theirs.randint(1 << 30)  # the stream is left where theirs is


def test_checking_a_stratified_holdout_imports_no_scikit_learn():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from types import SimpleNamespace; from fairspec.data.split import split_rows; "
            "e = SimpleNamespace(kind='holdout', test_size=0.3, folds=0, stratify=True, seed=1); "
            "split_rows(e, np.arange(100) % 2, np.array(['a', 'b'] * 50)); "
            "print(any(m == 'sklearn' or m.startswith('sklearn.') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
