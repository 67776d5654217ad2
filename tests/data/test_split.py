"""The hold-out's size: the fraction the spec writes, of the kept rows, rounded up."""
from types import SimpleNamespace

import numpy as np
import pytest

from fairspec.data.split import holdout_test_rows, split_rows


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
