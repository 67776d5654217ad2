"""The numpy ROC curve and AUC (fairspec.metrics.auc) against scikit-learn's, bit for bit."""
import numpy as np
import pytest
from sklearn.metrics import roc_auc_score, roc_curve

from fairspec.metrics.auc import roc_auc, roc_curve_points


def _cases():
    rng = np.random.default_rng(7)
    for n, distinct in [(2, None), (9, 3), (200, None), (5000, 40), (20000, 7), (3000, 2)]:
        y = rng.integers(0, 2, n)
        y[0], y[-1] = 0, 1  # both classes
        score = rng.random(n) if distinct is None else rng.integers(0, distinct, n) / max(distinct - 1, 1)
        yield y, score, None
        yield y, score, rng.integers(0, 6, n).astype(float)  # counts, zeros included
    # scores the trees give: few distinct leaf values, many ties, 0 and 1 among them
    y = rng.integers(0, 2, 10000)
    leaves = np.array([0.0, 1.0, 0.125, 1 / 3, 0.7000000000000001, 0.9999999999999999])
    yield y, leaves[rng.integers(0, len(leaves), 10000)], None


@pytest.mark.parametrize("case", list(_cases()))
def test_auc_equals_scikit_learn_bit_for_bit(case):
    y, score, weight = case
    if weight is not None and not (0 < (y * weight).sum() < weight.sum()):
        pytest.fail("the case must hold both classes with weight")  # the generator's mistake, not the code's
    assert roc_auc(y, score, sample_weight=weight) == roc_auc_score(y, score, sample_weight=weight)


@pytest.mark.parametrize("case", list(_cases()))
@pytest.mark.parametrize("drop", [True, False])
def test_curve_equals_scikit_learn(case, drop):
    y, score, weight = case
    fpr, tpr = roc_curve_points(y, score, weight, drop_intermediate=drop)
    want_fpr, want_tpr, _ = roc_curve(y, score, sample_weight=weight, drop_intermediate=drop)
    np.testing.assert_array_equal(fpr, want_fpr)
    np.testing.assert_array_equal(tpr, want_tpr)


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="both classes"):
        roc_auc(np.ones(5), np.arange(5.0))


def test_merged_rows_give_the_rows_auc():
    """Rows of equal (class, score) merged into one with their count: the same AUC."""
    rng = np.random.default_rng(3)
    y, score = rng.integers(0, 2, 3000), rng.integers(0, 12, 3000) / 11
    keys, counts = np.unique(np.c_[y, score], axis=0, return_counts=True)
    assert roc_auc(keys[:, 0], keys[:, 1], counts.astype(float)) == pytest.approx(roc_auc(y, score), abs=1e-12)
