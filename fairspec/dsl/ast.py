"""The typed syntax tree of a ``.fair`` spec.

Every node is a frozen dataclass and carries a :class:`~fairspec.errors.Span` (line and
column in the spec file) that is left out of equality, so tests can compare trees built by
hand with parsed ones.  The tree says only what the user wrote: defaults are filled in
later, by :mod:`fairspec.plan.compile`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from fairspec.errors import Span, written_number


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Name:
    """An identifier as written (column names, keywords used as values)."""

    value: str
    span: Span | None = _span()


@dataclass(frozen=True)
class Duration:
    """A time written as ``120s``, ``2m`` or ``1h``; stored in seconds."""

    seconds: float


@dataclass(frozen=True)
class Param:
    """``name value`` inside a block; a nested block's value is a tuple of ``Param``."""

    name: str
    value: "Value"
    span: Span | None = _span()


@dataclass(frozen=True)
class ValueList:
    """``depth [4, 5, 6]``: the values a model parameter may take, among which the calibration
    of a bound chooses (:mod:`fairspec.calibration`, ``choices``).  ``spans`` locate each value."""

    values: tuple
    spans: tuple = field(default=(), compare=False, repr=False)


Value = Union[int, float, str, bool, Duration, tuple, ValueList]


@dataclass(frozen=True)
class Filter:
    """``where column in [v, ...]`` / ``not in`` / ``== v`` / ``!= v`` / ``< <= > >= v``."""

    column: Name
    op: str
    values: tuple
    span: Span | None = _span()


@dataclass(frozen=True)
class DataSource:
    path: str
    filters: tuple[Filter, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True)
class Target:
    """``target y positive 1`` and, optionally, whether that class is ``favourable`` (a loan)
    or ``adverse`` (a recidivism flag); ``favorable`` is read as ``favourable``."""

    column: Name
    positive: object
    span: Span | None = _span()
    outcome: str | None = None


@dataclass(frozen=True)
class MergedGroup:
    """``["A91", "A93", "A94"] as "male"``: values of a column that make one named group."""

    label: str
    values: tuple
    span: Span | None = _span()  # the label
    value_spans: tuple = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class DerivedGroups:
    """A protected attribute whose groups are derived from a data column: ``age bins [25, 45]``
    (bins closed on the left: < 25, [25, 45), >= 45) or ``sex from personal_status { [...] as
    "male" ... }`` (each value of the column in exactly one named group)."""

    name: Name
    column: Name  # the data column read; the same as ``name`` for ``age bins [...]``
    bins: tuple = ()
    merged: tuple[MergedGroup, ...] = ()
    span: Span | None = _span()
    edge_spans: tuple = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Protected:
    """One attribute, or several joined by ``*`` for intersectional groups.  ``attributes`` are
    the attributes' names (a data column's, or a derived attribute's); ``derived`` holds the
    rules of those whose groups are derived (the others are the columns as they are)."""

    attributes: tuple[Name, ...]
    derived: tuple[DerivedGroups, ...] = ()
    span: Span | None = _span()

    def derivation(self, name: str) -> DerivedGroups | None:
        """The rule that derives attribute ``name``'s groups, or None for a plain column."""
        return next((d for d in self.derived if d.name.value == name), None)


@dataclass(frozen=True)
class Label:
    """``"A11" as "below 0 DM"``: the readable name of one coded value."""

    value: object
    text: str
    span: Span | None = _span()  # the value
    text_span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Labels:
    """``labels status { "A11" as "below 0 DM" ... }``: readable names for a column's codes."""

    column: Name
    entries: tuple[Label, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Reference:
    """``reference "Caucasian"``: the group the report compares every other group with; one
    value per protected attribute (``reference ["Caucasian", "Male"]`` under ``race * sex``)."""

    values: tuple
    span: Span | None = _span()


@dataclass(frozen=True)
class ModelCard:
    """``model_card { intended_use "..." owner "..." }``: what the report's model card says."""

    params: tuple[Param, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True)
class Feature:
    """A feature column and its type: ``numeric``, ``categorical``, or ``None`` when the
    spec leaves the type out (it is then inferred from the data)."""

    name: Name
    kind: str | None
    span: Span | None = _span()


@dataclass(frozen=True)
class Missing:
    """``missing mia`` ... or ``missing impute(median)`` / ``impute(knn k=5)`` / ``drop``."""

    strategy: str
    method: str | None = None
    k: int | None = None
    span: Span | None = _span()


@dataclass(frozen=True)
class Fairness:
    """``fairness C <= eps`` / ``<= [e1, e2]`` (sweep) / ``penalty lam`` / ``penalty [..]`` / just ``C``;
    a bound followed by ``on train`` holds on the training rows only."""

    criterion: Name
    bounds: tuple[float, ...] = ()
    penalties: tuple[float, ...] = ()
    span: Span | None = _span()
    #: ``on train``: the bound holds on the training rows only (otherwise on unseen rows)
    on_train: bool = False


@dataclass(frozen=True)
class Model:
    family: Name
    params: tuple[Param, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True)
class Solver:
    params: tuple[Param, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True)
class Evaluate:
    """``evaluate { holdout 0.3 stratify seed 7 }`` or ``evaluate { cv 10 seed 7 }``."""

    params: tuple[Param, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True)
class Spec:
    name: Name
    data: DataSource
    target: Target
    protected: Protected
    features: tuple[Feature, ...]
    model: Model
    privileged: tuple[Feature, ...] = ()
    missing: Missing | None = None
    fairness: Fairness | None = None
    solver: Solver | None = None
    evaluate: Evaluate | None = None
    output: str | None = None
    #: one per labelled column, in spec order
    labels: tuple[Labels, ...] = ()
    span: Span | None = _span()
    reference: Reference | None = None
    model_card: ModelCard | None = None


def written_value(value) -> str:
    """A spec's value as the spec writes it: ``true``/``false``, numbers bare, text in quotes
    (not Python's ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return written_number(value)
    return str(value)
