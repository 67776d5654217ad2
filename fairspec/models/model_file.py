"""Checks shared by the families' model-file loaders: a model file is data from outside.

Loaders call these before building an estimator, so a damaged or tampered file fails at load
with a message saying what is wrong, never later at predict time (or in a loop that never
ends).
"""
from __future__ import annotations

import copy

import numpy as np


def show(value) -> str:
    """``repr`` of a value from the file, cut short for an error message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_header(doc, kinds, version: int, family: str) -> str:
    """``doc``'s kind, once ``doc`` is an object of one of ``kinds`` in format ``version``;
    otherwise ``ModelFileError`` naming what it is instead (another family's file, or one an
    older or newer fairspec wrote).  ``family`` names the reader in the messages."""
    from fairspec.errors import ModelFileError

    kind = doc.get("kind") if isinstance(doc, dict) else None
    if not (isinstance(kind, str) and kind in kinds):
        raise ModelFileError(f"not a {family} model: kind {kind!r}")
    found = doc.get("format_version")
    if not is_integer(found) or found != version:
        raise ModelFileError(f"{family} model format version {show(found)}; this fairspec reads {version}")
    return kind


def criterion_from_json(d):
    """The ``fairness`` parameter a model file names (null, or a criterion by name)."""
    from fairspec.registry.criteria import make_criterion

    if d is None:
        return None
    if not isinstance(d, dict) or not isinstance(d.get("name"), str):
        raise ValueError("'fairness' must be null or an object with a 'name'")
    try:
        return make_criterion(d["name"], bound=d.get("bound"), penalty=d.get("penalty"))
    except KeyError:  # the table of criteria is keyed by name
        raise ValueError(f"unknown fairness criterion {d['name']!r}") from None


def is_integer(value) -> bool:
    # bool is an int in Python, and int("3") or int(2.7) would quietly accept what no writer wrote
    return isinstance(value, int) and not isinstance(value, bool)


def integer(value, what: str, low: int | None = None, high: int | None = None) -> int:
    if not is_integer(value):
        raise ValueError(f"{what} must be an integer, got {show(value)}")
    if low is not None and value < low:
        raise ValueError(f"{what} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{what} must be at most {high}, got {show(value)}")
    return value


def number(value, what: str, low: float = -np.inf, high: float = np.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, got {show(value)}")
    try:
        x = float(value)
    except OverflowError:  # an integer literal too large for a float
        x = np.inf
    if not (np.isfinite(x) and low <= x <= high):
        span = "" if (low, high) == (-np.inf, np.inf) else f" in [{low:g}, {high:g}]"
        raise ValueError(f"{what} must be a finite number{span}, got {show(value)}")
    return x


def check_tree_links(children, label: str = "node") -> None:
    """``ValueError`` unless ``children`` (per node, its ``(side, child index)`` pairs; none
    for a leaf) make one tree rooted at node 0.

    Both writers (``grow_tree`` and scikit-learn) number nodes as they create them, so a child
    always follows its parent; with every node but the root the child of exactly one node, a
    row reaches a leaf in fewer steps than there are nodes."""
    n = len(children)
    parent = [-1] * n
    for i, kids in enumerate(children):
        for side, c in kids:
            if not i < c < n:
                raise ValueError(f"{label} {i}: {side} child {c} is not a node after it (the tree has nodes "
                                 f"0..{n - 1}; children always follow their parent)")
            if parent[c] >= 0:
                raise ValueError(f"{label} {c} is reached twice (a child of {label} {parent[c]}, "
                                 f"then of {label} {i} again)")
            parent[c] = i
    orphan = next((i for i in range(1, n) if parent[i] < 0), None)
    if orphan is not None:
        raise ValueError(f"{label} {orphan} is no node's child, so no row can reach it")


def labels_to_json(classes) -> list:
    """A fitted classifier's ``classes_`` as JSON values (numpy scalars are no JSON)."""
    return [c.item() if isinstance(c, np.generic) else c for c in classes]


def class_labels(value) -> np.ndarray:
    """``classes_`` of a classifier from its model file: the two labels ``fit`` saw, the second
    the positive class.  Files written before the labels were recorded have none: the pipeline
    always trained on 0/1, so absent means ``[0, 1]``."""
    if value is None:
        return np.array([0, 1])
    # one type for both: numpy would read [0, "b"] as the strings "0" and "b"
    if not (isinstance(value, list) and len(value) == 2 and type(value[0]) is type(value[1])
            and isinstance(value[0], (str, int, float, bool)) and value[0] != value[1]):
        raise ValueError(f"classes must be a list of two distinct labels of one type, got {show(value)}")
    if isinstance(value[0], float) and not all(np.isfinite(value)):
        raise ValueError(f"classes must be finite numbers, got {show(value)}")
    if not value[0] < value[1]:
        # fit sorts them (binary_labels), the second positive: the other order would load and
        # turn every prediction into the other label (found in review)
        raise ValueError(f"classes must be in sorted order, the positive class second, as fit writes them; "
                         f"got {show(value)}")
    return np.asarray(value)


def feature_indices(value, what: str, n_features: int) -> tuple[int, ...]:
    """A model file's list of column indices (``categorical_features``), each in 0..n_features-1."""
    if not (isinstance(value, list) and all(is_integer(j) and 0 <= j < n_features for j in value)):
        raise ValueError(f"{what} must be a list of feature indices 0..{n_features - 1}")
    return tuple(value)


def record_params(estimator) -> None:
    """Keep the parameters a fit used, as ``fitted_params_``.

    scikit-learn lets ``set_params`` change an estimator after it is fitted; the model file
    must still name the parameters that produced its rules or trees, not ones written beside
    them later (a reviewer reads the file as the recipe of the model in it).  A deep copy, as
    the caller may also change a list it passed (``categorical_features``) in place."""
    estimator.fitted_params_ = copy.deepcopy(estimator.get_params(deep=False))


def params_at_fit(estimator) -> dict:
    """The parameters :func:`record_params` kept, as a new dict the caller may change; an
    estimator fitted before they were kept (unpickled from an older fairspec) has only its
    current ones."""
    kept = getattr(estimator, "fitted_params_", None)
    return dict(kept if kept is not None else estimator.get_params(deep=False))


def json_values(value):
    """``value`` with numpy scalars and arrays made plain JSON values, and tuples lists: a grid
    search hands ``get_params()`` numpy scalars (``np.int64``), which ``json.dumps`` refuses,
    and a fit log holds numpy numbers."""
    if isinstance(value, dict):
        return {str(k): json_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [json_values(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value


def feature_names_to_json(estimator) -> dict:
    """``{"feature_names": [...]}`` for an estimator fitted on a DataFrame, ``{}`` otherwise.

    Without the names a loaded model cannot refuse a DataFrame whose columns come in another
    order, and would apply its rules to the wrong columns (the fitted one refuses it)."""
    names = getattr(estimator, "feature_names_in_", None)
    return {} if names is None else {"feature_names": [str(n) for n in names]}


def restore_feature_names(estimator, doc: dict, n_features: int) -> None:
    """Set ``feature_names_in_`` from a model file's ``feature_names`` when it has them."""
    names = doc.get("feature_names")
    if names is None:
        return
    if not (isinstance(names, list) and len(names) == n_features and all(isinstance(n, str) for n in names)
            and len(set(names)) == n_features):
        raise ValueError(f"feature_names must be a list of {n_features} distinct column names, got {show(names)}")
    estimator.feature_names_in_ = np.asarray(names, dtype=object)
