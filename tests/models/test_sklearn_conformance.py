"""Every estimator passes scikit-learn's own estimator checks, with the tags it declares.

fairspec promises scikit-learn-compatible estimators; these are the checks scikit-learn runs on
its own (``check_estimator``), against each family's tags: binary classifiers only
(``multi_class=False``), ``NaN`` accepted where the estimator has a rule for a missing value.
No check is marked as an expected failure.

The checks fit without ``sensitive_features``: every estimator here enforces no criterion (an
audited one, without a bound, is included), which is when fit needs none.  The rule sets get
small work limits and ``clock_cap=False``, so that the checks that fit twice and compare
(idempotence, sample order, subsets) see the same rule set on a busy machine too, and the whole
module stays well under a minute.
"""
from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from fairspec.models.baseline import BaselineClassifier
from fairspec.models.mip_forest import FairMIPForestClassifier
from fairspec.models.mp_boost import FairMPBoostClassifier
from fairspec.models.privileged_boost import PrivilegedBoostClassifier
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.tree.estimators import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                             MissingAwareTreeRegressor)
from fairspec.registry.criteria import make_criterion

RULES = dict(time_limit=5, clock_cap=False, max_rounds=3, search_iterations=20)

ESTIMATORS = [
    BaselineClassifier(),
    BaselineClassifier(learner="logistic"),
    MissingAwareTreeClassifier(),
    MissingAwareTreeClassifier(missing="trinary_mia", fairness=make_criterion("demographic_parity")),
    MissingAwareTreeClassifier(missing="fractional"),
    MissingAwareTreeRegressor(),
    MissingAwareForestClassifier(n_estimators=5),
    FairRuleSetClassifier(**RULES),
    FairRuleSetClassifier(missing="none", criterion=make_criterion("equal_opportunity"), **RULES),
    FairMIPForestClassifier(n_trees=3, max_depth=2, batch_size=40, clock_cap=False, tree_checkpoints=1),
    FairMPBoostClassifier(n_rounds=15),
    FairMPBoostClassifier(n_rounds=15, missing="trinary_mia", fairness=make_criterion("demographic_parity")),
    PrivilegedBoostClassifier(n_rounds=20),
    PrivilegedBoostClassifier(n_rounds=20, variant="jpib", missing="none", validation_share=0.0),
]


# scikit-learn's check_classifiers_one_label fits y of one label on purpose; that the estimators
# warn then is tested in test_inputs.py
@pytest.mark.filterwarnings("ignore::fairspec.models.inputs.OneClassWarning")
@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_the_tags_say_what_each_estimator_takes():
    for est in ESTIMATORS:
        tags = est.__sklearn_tags__()
        assert not tags.input_tags.sparse
        if tags.classifier_tags is not None:
            assert tags.classifier_tags.multi_class is False
    assert not BaselineClassifier().__sklearn_tags__().input_tags.allow_nan  # it needs imputed data
    assert MissingAwareTreeClassifier(missing="none").__sklearn_tags__().input_tags.allow_nan  # routed as majority
    assert MissingAwareTreeRegressor().__sklearn_tags__().input_tags.allow_nan
    assert FairRuleSetClassifier(missing="mia").__sklearn_tags__().input_tags.allow_nan
    assert FairRuleSetClassifier(missing="none").__sklearn_tags__().input_tags.allow_nan  # conditions on NaN: false
    assert FairMIPForestClassifier(missing="none").__sklearn_tags__().input_tags.allow_nan  # a node sends NaN one way
    assert FairMPBoostClassifier(missing="none").__sklearn_tags__().input_tags.allow_nan  # its trees route a NaN
    assert PrivilegedBoostClassifier().__sklearn_tags__().input_tags.allow_nan  # mia: a learned direction
    assert not PrivilegedBoostClassifier(missing="none").__sklearn_tags__().input_tags.allow_nan
