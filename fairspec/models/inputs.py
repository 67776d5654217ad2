"""The checks every family runs on what a Python caller hands ``fit`` and ``predict``.

The pipeline always passes a float matrix, 0/1 labels, one string label per row and an
integer seed; a caller of the estimators may pass a DataFrame with nullable columns, float
or string labels, several protected columns, ``random_state=None``.  Each family used to
check (or cast) these in its own way, and a cast can be silent: ``np.asarray([0.2, 0.8])
.astype(int)`` is all zeros, so a rule set fitted on those labels predicted "never" and
reported a training accuracy of 1.  One module, so every family refuses the same input with
the same :class:`~fairspec.errors.DataError`.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from fairspec.errors import DataError


def feature_matrix(X, n_features: int | None = None) -> np.ndarray:
    """``X`` as a 2-D float array, ``NaN`` for a missing value.

    ``n_features`` (at predict time, the number the model was fitted on) must match.  A
    DataFrame's missing cells (``None``, ``pd.NA`` of nullable columns) become ``NaN``;
    complex numbers and infinities are refused, not truncated or read as large values."""
    if X is None:
        raise DataError("X is None: expected a 2-D array of features")
    if hasattr(X, "to_numpy"):  # pandas: nullable columns hold pd.NA, which numpy cannot cast
        try:
            X = X.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise DataError(f"X must hold numbers (categories as integer codes): {exc}") from None
    elif np.iscomplexobj(X):
        raise DataError("X holds complex numbers")
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"X must hold numbers (categories as integer codes): {exc}") from None
    if X.ndim != 2:
        raise DataError(f"X must be a 2-D array (rows x features), got shape {X.shape}")
    if np.isinf(X).any():
        row, col = np.argwhere(np.isinf(X))[0]
        raise DataError(f"X holds an infinite value (row {row}, feature {col}); a missing value must be NaN")
    if n_features is not None and X.shape[1] != n_features:
        raise DataError(f"X has {X.shape[1]} features; the model was fitted on {n_features}")
    return X


def binary_labels(y, n_rows: int) -> np.ndarray:
    """``y`` as an int array of 0 and 1 (1 = the positive class), one per row.

    Checked before any cast: ``astype(int)`` would fold 0.2 and 0.8 into 0, and 1.7 into 1."""
    if y is None:
        raise DataError("y is None: fit needs one label (0 or 1) per row")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1 or len(y) != n_rows:
        raise DataError(f"y must be 1-D with one label per row of X ({n_rows}); got shape {y.shape}")
    if n_rows == 0:
        raise DataError("cannot fit on zero rows")
    if y.dtype.kind not in "biuf" or not np.isin(y, (0, 1)).all():
        raise DataError("y must hold 0 and 1 only (1 = the positive class)")
    return y.astype(int)


def group_labels(sensitive_features, n_rows: int) -> np.ndarray:
    """One string label per row: the group.  Several protected columns (a 2-D array) make
    intersectional groups, their values joined by ``|``; ``None`` is the label ``"None"``."""
    s = np.asarray(sensitive_features, dtype=object)
    if s.ndim == 2:
        s = np.array(["|".join(map(str, row)) for row in s], dtype=object)
    if s.ndim != 1 or len(s) != n_rows:
        raise DataError(f"sensitive_features must have one entry per row of X ({n_rows}); got shape {s.shape}")
    return s.astype(str)


def seed_of(random_state) -> int:
    """The integer seed of ``random_state``.

    ``None`` is 0, not fresh entropy: fairspec promises the same model for the same data,
    parameters and seed, and an estimator built with defaults should keep that promise.  A
    ``numpy.random.RandomState`` gives one draw, as scikit-learn's estimators take it; call
    this once per fit."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    raise ValueError(f"random_state must be an int, None or a numpy RandomState; got {random_state!r}")
