"""Fairness that holds on unseen rows: the calibration every family that enforces a bound
shares (:mod:`.estimator`), kept outside the families, which meet their bound on their
training rows only."""
from fairspec.calibration.estimator import CalibratedFairClassifier

__all__ = ["CalibratedFairClassifier"]
