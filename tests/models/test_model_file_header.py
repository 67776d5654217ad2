"""Every family's model-file loader checks kind and format version the same way
(:func:`fairspec.models.model_file.check_header`): another family's file or another fairspec's
format is a ``ModelFileError`` that names the reader, what the file says, and what it reads."""
from __future__ import annotations

import pytest

from fairspec.errors import ModelFileError
from fairspec.models.mip_forest.estimator import FairMIPForestClassifier
from fairspec.models.mp_boost.estimator import estimator_from_json as mp_boost_from_json
from fairspec.models.privileged_boost.estimator import estimator_from_json as privileged_from_json
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.tree.scorer import read_tree_document

LOADERS = [  # (loader, a kind it reads, its name in messages)
    (read_tree_document, "missing_aware_tree_classifier", "missing-aware tree"),
    (FairRuleSetClassifier.from_json, "rule_set", "rule_set"),
    (FairMIPForestClassifier.from_json, "mip_forest", "mip_forest"),
    (mp_boost_from_json, "fair_mp_boost_classifier", "Fair MP-Boost"),
    (privileged_from_json, "privileged_boost_classifier", "privileged_boost"),
]


@pytest.mark.parametrize("load, kind, family", LOADERS)
def test_another_familys_file_is_refused_by_name(load, kind, family):
    others = [k for _, k, _ in LOADERS if k != kind]
    for other in others + [None, 7]:
        with pytest.raises(ModelFileError, match=rf"^not a {family} model: kind {other!r}$"):
            load({"kind": other, "format_version": 1})
    with pytest.raises(ModelFileError, match=rf"^not a {family} model: kind None$"):
        load(["not", "an", "object"])


@pytest.mark.parametrize("load, kind, family", LOADERS)
@pytest.mark.parametrize("version", [2, 0, True, 1.0, "1", None])
def test_another_format_version_is_refused_by_name(load, kind, family, version):
    # True and 1.0 equal 1 in Python, and no writer wrote them: refused like any other
    with pytest.raises(ModelFileError,
                       match=rf"^{family} model format version {version!r}; this fairspec reads 1$"):
        load({"kind": kind, "format_version": version})
