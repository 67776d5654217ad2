"""What metrics.json adds to a block of rows for the audit report, beyond its rates and gaps.

:func:`audit_measures` gives the keys merged into a train or test block: how the scores are to
be read (``score_kind``), every group against the reference group (``disparities``,
:mod:`fairspec.metrics.disparity`) and, on the rows the verdict is read on, the curves the
report draws (``roc`` and, for a score that is a probability, ``calibration``;
:mod:`fairspec.metrics.curves`).
"""
from __future__ import annotations

import numpy as np

from fairspec.metrics.curves import calibration_by_group, roc_by_group
from fairspec.metrics.disparity import against_reference, confusion_by_group, largest_group

#: what a model's score is, as the report says it: a probability estimate, a score that only
#: ranks the rows (its AUC is meaningful, its calibration not), or the model's own 0/1 labels
SCORE_KINDS = ("probability", "ranking", "labels")


def reference_group(group_rows: dict[str, int], declared: str | None) -> tuple[str, str]:
    """(the reference group, why it is the one): the spec's, or the group with most rows."""
    if declared is not None:
        return declared, "spec"
    return largest_group(group_rows), "largest group"


def audit_measures(y_true, y_pred, y_score, groups, *, reference: str, reference_from: str,
                   score_kind: str = "probability", curves: bool = False, outcome: str | None = None) -> dict:
    """The keys a block of rows gains for the report (see the module docstring); ``curves``
    on the rows the verdict is read on only (the test rows, or the training rows without);
    ``outcome`` is the spec's word for the positive class (favourable, adverse or None), which
    decides the rate the four-fifths rule reads."""
    if score_kind not in SCORE_KINDS:
        raise ValueError(f"score_kind must be one of {SCORE_KINDS}, not {score_kind!r}")
    score = None if y_score is None else np.asarray(y_score, dtype=float).ravel()
    if score is not None and np.isin(score, (0.0, 1.0)).all():
        score_kind = "labels"
    out = {"score_kind": score_kind,
           "disparities": against_reference(confusion_by_group(y_true, y_pred, groups), reference, reference_from,
                                            outcome=outcome)}
    if curves and score is not None:
        out["roc"] = roc_by_group(y_true, score, groups)
        if score_kind == "probability":
            out["calibration"] = calibration_by_group(y_true, score, groups)
    return out


def data_measures(frame, features, groups, *, seed: int = 0) -> dict:
    """The keys the data summary gains for the report: each feature's proxy score
    (:func:`fairspec.metrics.proxies.proxy_scores`) and each numeric feature's standard
    deviation over the rows used (``feature_sd``, records of name and sd: a logistic coefficient
    times it is the change in the score for one standard deviation of the feature)."""
    from fairspec.metrics.proxies import proxy_scores

    features = list(features)
    sd = []
    for name, kind in features:
        if kind == "numeric":
            values = np.asarray(frame[name], dtype=float)
            values = values[np.isfinite(values)]
            sd.append({"name": str(name), "sd": float(values.std(ddof=1)) if len(values) > 1 else None})
    return {"proxies": proxy_scores(frame, features, groups, seed=seed), "feature_sd": sd}
