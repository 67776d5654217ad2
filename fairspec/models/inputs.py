"""The checks every family runs on what a Python caller hands ``fit`` and ``predict``.

The pipeline always passes a float matrix, 0/1 labels, one string label per row and an
integer seed; a caller of the estimators may pass a DataFrame with nullable columns, labels
such as ``"yes"``/``"no"`` or ``1``/``2``, several protected columns, ``random_state=None``.
Each family used to check (or cast) these in its own way, and a cast can be silent:
``np.asarray([0.2, 0.8]).astype(int)`` is all zeros, so a rule set fitted on those labels
predicted "never" and reported a training accuracy of 1.  One module, so every family refuses
the same input with the same :class:`~fairspec.errors.DataError`, in the words scikit-learn's
own estimators use (``check_estimator`` holds the families to them).
"""
from __future__ import annotations

import functools
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_array, column_or_1d, validate_data

from fairspec.data.prepare import category_text, joined_labels
from fairspec.errors import DataError, finite_at_least_zero


def feature_matrix(X, estimator, *, reset: bool) -> np.ndarray:
    """``X`` as a 2-D float array, ``NaN`` for a missing value.

    ``reset=True`` (``fit``) records ``n_features_in_`` (and ``feature_names_in_`` for a
    DataFrame) on ``estimator``; ``reset=False`` (``predict``) checks ``X`` against them.  A
    DataFrame's missing cells (``None``, ``pd.NA`` of nullable columns) become ``NaN``;
    sparse matrices, complex numbers and infinities are refused, not densified, truncated or
    read as large values.  Whether ``NaN`` is allowed is the estimator's business
    (:func:`refuse_missing`)."""
    if X is None:
        raise DataError("X is None: expected a 2-D array of features (rows x features)")
    if sp.issparse(X):
        raise DataError("sparse input is not supported: pass a dense array (for example X.toarray())")
    original = X
    pandas = hasattr(X, "to_numpy")
    if pandas:
        dtypes = [X.dtype] if hasattr(X, "dtype") else list(X.dtypes)
        is_complex = any(getattr(d, "kind", "") == "c" for d in dtypes)
    else:
        # np.asarray first: iscomplexobj on a mere array-like would dispatch to its own
        # __array_function__ (which may refuse it)
        try:
            X = np.asarray(X)
        except ValueError as exc:  # ragged rows
            raise DataError(f"X must be a 2-D array (rows x features): {exc}") from None
        is_complex = np.iscomplexobj(X)
    if is_complex:  # casting to float would drop the imaginary parts
        raise DataError("Complex data not supported: X holds complex numbers")
    try:
        # pandas: nullable columns hold pd.NA, which numpy cannot cast
        X = X.to_numpy(dtype=float, na_value=np.nan) if pandas else np.asarray(X, dtype=float)
    except TypeError as exc:  # a cell that is no number at all (a dict, a list): a TypeError, as numpy's
        raise TypeError(f"X must hold numbers (categories as integer codes): {exc}") from None
    except ValueError as exc:
        raise DataError(f"X must hold numbers (categories as integer codes): {exc}") from None
    if X.ndim != 2:
        raise DataError(f"X must be a 2-D array (rows x features), got shape {X.shape}. Reshape your data: "
                        "X.reshape(-1, 1) if it has a single feature, X.reshape(1, -1) if it is a single row")
    if reset and X.shape[0] == 0:
        raise DataError(f"cannot fit on zero rows (X has shape {X.shape})")
    try:
        # what is left to check (at least one feature) in scikit-learn's words; a model may
        # still score zero rows, as it always has
        X = check_array(X, dtype=np.float64, ensure_all_finite=False, ensure_min_samples=0, estimator=estimator)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if np.isinf(X).any():
        row, col = np.argwhere(np.isinf(X))[0]
        raise DataError(f"X holds an infinite value (row {row}, feature {col}); a missing value must be NaN")
    try:
        # the original keeps a DataFrame's column names, which scikit-learn records at fit and compares at predict
        validate_data(estimator, original, skip_check_array=True, reset=reset)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    return X


def categorical_indices(categorical_features, estimator, n_features: int) -> tuple[int, ...]:
    """The column indices ``categorical_features`` names, sorted, for a fit on ``n_features``
    columns (call it after :func:`feature_matrix`, which records ``feature_names_in_``).

    Accepted as scikit-learn's ``HistGradientBoostingClassifier`` accepts them: indices, a
    boolean mask with one entry per column, or column names of a DataFrame fitted on.  Each
    is checked: ``int(True)`` is 1, so a mask read as indices made columns 0 and 1 categorical
    whatever it said, and an index out of range was dropped without a word."""
    if categorical_features is None:
        return ()
    values = list(np.ravel(np.asarray(categorical_features, dtype=object)))
    if not values:
        return ()
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        if len(values) != n_features:
            raise ValueError(f"categorical_features as a boolean mask needs one entry per feature ({n_features}), "
                             f"got {len(values)}")
        return tuple(int(j) for j in np.flatnonzero(np.asarray(values, dtype=bool)))
    if all(isinstance(v, str) for v in values):
        names = getattr(estimator, "feature_names_in_", None)
        if names is None:
            raise ValueError("categorical_features names columns, but X has no column names: pass indices, "
                             "or a DataFrame")
        where = {str(n): j for j, n in enumerate(names)}
        unknown = [v for v in values if v not in where]
        if unknown:
            raise ValueError(f"categorical_features names {unknown[0]!r}, which is not a column of X")
        return tuple(sorted({where[v] for v in values}))
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        outside = [int(v) for v in values if not 0 <= v < n_features]
        if outside:
            raise ValueError(f"categorical feature index {outside[0]} is outside 0..{n_features - 1}")
        return tuple(sorted({int(v) for v in values}))
    raise ValueError("categorical_features must be column indices, a boolean mask or column names "
                     f"(one kind), got {categorical_features!r}")


def refuse_missing(X: np.ndarray, what: str, instead: str) -> np.ndarray:
    """``X`` when it has no ``NaN``; otherwise a :class:`DataError` naming the first missing
    cell, ``what`` saying why this model cannot take one and ``instead`` what to do."""
    missing = np.isnan(X)
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise DataError(f"{what}, but row {row}, feature {col} is missing (NaN): {instead}")
    return X


def _target(y, n_rows: int, estimator) -> np.ndarray:
    """``y`` as a 1-D array of ``n_rows`` values: a column vector is flattened with a warning,
    as scikit-learn does."""
    if y is None:
        raise DataError(f"{type(estimator).__name__} requires y to be passed, but the target y is None")
    try:
        y = column_or_1d(y, warn=True)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if len(y) != n_rows:
        raise DataError(f"y must have one value per row of X ({n_rows}); got {len(y)}")
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        row = int(np.flatnonzero(~np.isfinite(y))[0])
        raise DataError(f"y has a missing or infinite value (row {row})")
    if y.dtype.kind == "O" and pd.isna(y).any():  # else sorting the labels fails on None < "a"
        row = int(np.flatnonzero(pd.isna(y))[0])
        raise DataError(f"y has a missing value (row {row})")
    return y


class OneClassWarning(UserWarning):
    """``y`` held a single label, 0 or 1, and the fit read it as one of 0/1 labels."""


def binary_labels(y, n_rows: int, estimator) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, y01)``: the two class labels, sorted, and ``y`` as an int array of 0 and 1,
    1 where ``y`` is ``classes[1]``.

    ``classes[1]`` is the positive class, as in scikit-learn (``predict_proba[:, 1]``), and
    the one a fairness criterion's rates count: labels 0/1 keep their meaning, ``"no"``/``"yes"``
    make ``"yes"`` positive.  A continuous ``y`` is refused, not cast: ``astype(int)`` would
    fold 0.2 and 0.8 into 0, and 1.7 into 1.

    One label cannot say which class is positive: that is a matter of the two labels' order,
    and the other label is not there.  scikit-learn's own classifiers do not guess either (a
    decision tree keeps the one class, a logistic regression refuses it).  False or True is
    one of the bools, so the other is known.  A lone 0 or 1 is read as one of 0/1 labels, the
    reading the pipeline's targets and :func:`fairspec.metrics.groups.zero_one_labels` take,
    and the model stays two-class (``classes_`` [0, 1]); but it could as well be one of
    labels 1 and 2, where 1 is the negative class, and a fairness criterion would then count
    the wrong rows as positives.  So a :class:`OneClassWarning` says what was assumed (it had
    been silent: all 1s of labels 1 and 2 fitted as the positive class, while all 2s were
    refused).  Any other lone label is an error."""
    y = _target(y, n_rows, estimator)
    try:
        check_classification_targets(y)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    classes = np.unique(y)
    kind = type_of_target(y, input_name="y")
    if kind != "binary":
        shown = ", ".join(map(repr, classes[:5].tolist())) + (", ..." if len(classes) > 5 else "")
        raise DataError(f"Only binary classification is supported. The type of the target is "
                        f"{kind}: y has {len(classes)} classes ({shown})")
    if len(classes) == 1:
        # 0/1 (or False/True) labels say which class is missing, so the model can still be the
        # two-class one the pipeline expects; any other single label cannot say which is positive
        if y.dtype.kind == "b":
            classes = np.array([False, True])
        elif y.dtype.kind in "iuf" and classes[0] in (0, 1):
            only = classes.tolist()[0]
            read, other = ("positive", "1 and 2, 1 is the negative one") if only == 1 else \
                ("negative", "-1 and 0, 0 is the positive one")
            warnings.warn(f"y holds one class only ({only!r}): read as the {read} class of labels 0 and 1 "
                          f"(classes_ [0, 1]); if the labels are others (of {other}), one label cannot say which "
                          f"class is positive: fit on rows of both classes", OneClassWarning,
                          stacklevel=_outside_fairspec())
            classes = np.array([0, 1], dtype=y.dtype)
        else:
            raise DataError(f"y holds one class only ({classes.tolist()[0]!r}): a binary classifier needs two "
                            "(0/1 labels may be all 0 or all 1)")
    return classes, (y == classes[1]).astype(int)


def _outside_fairspec() -> int:
    """The ``stacklevel`` of the innermost caller outside the fairspec package, so that a
    warning names the caller's line, however deep in a fit it is raised."""
    package = str(Path(__file__).resolve().parents[1]) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def numeric_target(y, n_rows: int, estimator) -> np.ndarray:
    """``y`` of a regressor: a float array, one finite value per row of ``X``."""
    y = _target(y, n_rows, estimator)
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"y must hold numbers: {exc}") from None
    if not np.isfinite(y).all():
        row = int(np.flatnonzero(~np.isfinite(y))[0])
        raise DataError(f"y has a missing or infinite value (row {row})")
    return y


def group_labels(sensitive_features, n_rows: int) -> np.ndarray:
    """One string label per row: the group.  Several protected columns (a 2-D array) make
    intersectional groups, labelled as the pipeline labels them (``a & b``, a value holding
    ``&`` quoted: :func:`fairspec.data.prepare.joined_labels`); joined by ``|`` unquoted, the
    groups ``("a|b", "c")`` and ``("a", "b|c")`` had been one, and the bound not imposed
    between them.

    A missing label (``None``, NaN, ``pd.NA``) is an error, as a missing protected value is
    for a spec: as the text ``"None"`` or ``"nan"`` it had become a group of its own, so a
    bound was imposed on a group nobody named and the rows' real groups went unconstrained.

    A label is a value, not a spelling (:func:`_label_text`): the numbers 1 and 1.0 are one
    group, as a protected column of numbers is in a spec."""
    s = np.asarray(sensitive_features, dtype=object)
    missing = np.asarray(pd.isna(s), dtype=bool) if s.ndim in (1, 2) else np.zeros(0, dtype=bool)
    if missing.any():
        row = int(np.argwhere(missing)[0][0])
        raise DataError(f"sensitive_features has a missing value (row {row}): every row needs its group; "
                        f"give rows of unknown group a label of their own (e.g. 'unknown') if they are one")
    if s.ndim not in (1, 2) or len(s) != n_rows:
        raise DataError(f"sensitive_features must have one entry per row of X ({n_rows}); got shape {s.shape}")
    # an array of text (what the pipeline passes) is its own texts: no value to write.  Only an
    # array given so: numpy turns a list mixing 1 and "a" into text too, and 1.0 into "1.0"
    text = isinstance(sensitive_features, np.ndarray) and sensitive_features.dtype.kind == "U"
    texts = s if text else _label_texts(s)
    if s.ndim == 2:
        return joined_labels([texts[:, j] for j in range(s.shape[1])])
    return texts.astype(str)


def _label_texts(labels: np.ndarray) -> np.ndarray:
    """:func:`_label_text` of every entry of ``labels`` (an object array), each distinct value
    written once: per row it took about a second on 200,000 rows.  A value is known by its type
    too, since True == 1 == 1.0 in Python and the bool must stay "True"."""
    written: dict = {}
    texts = np.empty(labels.shape, dtype=object)
    flat = texts.reshape(-1)
    for i, value in enumerate(labels.reshape(-1)):
        try:
            key = (type(value), value)
            text = written.get(key)
            if text is None:
                text = written[key] = _label_text(value)
        except TypeError:  # an unhashable label
            text = _label_text(value)
        flat[i] = text
    return texts


def _label_text(value) -> str:
    """The text of one group label: a number's, whatever its type, as
    :func:`fairspec.data.prepare.category_text` writes it (a whole float without ``.0``), so
    the int 1 and the float 1.0 are one group, as they are in a protected column of a spec's
    data; they had been the groups "1" and "1.0", and a bound was imposed between the rows of
    one group.  Any other label is its ``str``: a text stays as written ("1.0" and "01" are
    groups of their own, as a protected column of text keeps them), and True and False are
    "True" and "False", never the numbers 1 and 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    return category_text(value)


#: the largest seed every component takes (HiGHS's random_seed is a 32-bit signed int); the
#: spec's ``seed`` has the same range
MAX_SEED = 2**31 - 1


def require_whole(estimator, name: str, least: int, optional: bool = False) -> None:
    """A ValueError unless parameter ``name`` of ``estimator`` is a whole number (not a bool)
    of at least ``least`` (or None, when ``optional``: the estimator then derives it).
    ``int()`` had turned None into a TypeError and 2.5 into 2; a rule set's ``beam_width`` or
    ``columns_per_round`` of 0 had priced nothing and returned a worse model without a word,
    and a ``threads`` of 0 or -1 had reached HiGHS (found in review)."""
    value = getattr(estimator, name)
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        either = " (or None)" if optional else ""
        raise ValueError(f"{name} must be a whole number of at least {least}{either}; got {value!r}")


def require_finite(estimator, name: str, most: float | None = None) -> None:
    """A ValueError unless parameter ``name`` of ``estimator`` is a finite number of at least 0
    (and at most ``most`` when given, as a share must be).

    Each had failed late or not at all (found in review): a ``time_limit`` of inf or NaN in an
    OverflowError or ValueError from sizing the work limits, after the column generation or
    the growing had run, a negative one read as 0; a rule set's ``complexity_cost`` of NaN made
    HiGHS spin on the final IP past every time limit; a negative ``mip_gap`` was refused by
    Pyomo only when the first MIP was built, and a NaN one was passed on silently; a
    ``cg_fraction`` of NaN or 2 was taken as it came."""
    value = getattr(estimator, name)
    if not finite_at_least_zero(value) or (most is not None and value > most):
        span = f"from 0 to {most:g}" if most is not None else "of at least 0"
        raise ValueError(f"{name} must be a finite number {span}; got {value!r}")


def require_flag(estimator, name: str) -> None:
    """A ValueError unless parameter ``name`` of ``estimator`` is True or False: ``bool()`` had
    read the string "false" as True."""
    value = getattr(estimator, name)
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")


def fit_or_keep(fit):
    """Decorate an estimator's ``fit``: on an exception, the estimator's attributes are put
    back as they were, so a refit that fails (a misspelt parameter found after the column
    layout was replaced) leaves the previous model whole, not one whose predict runs on half
    of the new state (found in review)."""
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
    return wrapper


def seed_of(random_state) -> int:
    """The integer seed of ``random_state``.

    ``None`` is 0, not fresh entropy: fairspec promises the same model for the same data,
    parameters and seed, and an estimator built with defaults should keep that promise.  A
    ``numpy.random.RandomState`` gives one draw, as scikit-learn's estimators take it; call
    this once per fit."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        # HiGHS's random_seed is a C int: setting one outside it fails, and HiGHS keeps 0
        # while the model file would record the seed asked for (found in review)
        if not 0 <= int(random_state) <= MAX_SEED:
            raise ValueError(f"random_state must be a whole number from 0 to {MAX_SEED}; got {random_state!r}")
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    raise ValueError(f"random_state must be an int, None or a numpy RandomState; got {random_state!r}")
