"""Checks of the statements that only the report reads: ``reference`` and ``model_card``.

``target ... adverse`` needs none: the grammar takes only its two words.  A ``reference``
must name one of the groups the data has after the ``where`` filters (derived groups too: a
bin "25–44", a merged "female"), one value per protected attribute, or the label a ``labels``
statement gives the group; a ``model_card`` takes the fields of :data:`MODEL_CARD_FIELDS`,
each a quoted text, once (``limitations`` any number of times).
"""
from __future__ import annotations

import difflib

import numpy as np
import pandas as pd

from fairspec.data.groups import derived_group_labels, readable_group_labels
from fairspec.data.prepare import category_text, joined_labels
from fairspec.dsl import ast
from fairspec.errors import Diagnostic

#: the model card's fields, in the order the report shows them, with their headings
MODEL_CARD_FIELDS = {
    "intended_use": "Intended use",
    "out_of_scope_use": "Out-of-scope use",
    "owner": "Owner",
    "data_source": "Data source",
    "data_period": "Data period",
    "limitations": "Known limitations",
}
#: the one field a card may give more than once: each is one limitation
REPEATABLE_FIELDS = ("limitations",)

UNKNOWN_CARD_FIELD = "unknown model_card field '{name}'"
HINT_CARD_FIELDS = "a model_card takes: {fields}"
CARD_FIELD_NOT_TEXT = "model_card field '{name}' takes a quoted text, got {got}"
CARD_FIELD_EMPTY = "model_card field '{name}' is empty"
CARD_FIELD_TWICE = "model_card field '{name}' is given twice (only limitations may be given several times)"
REFERENCE_ARITY = ("reference names {given} value{s} but the groups are combinations of {needed} protected "
                   "attributes ({attributes}): give one value per attribute, in that order")
HINT_REFERENCE_ARITY = 'e.g. reference [{example}]'
REFERENCE_UNKNOWN = "reference group {label!r} is not among the groups of the rows kept ({count} groups)"
HINT_REFERENCE_GROUPS = "did you mean {close}?"
HINT_REFERENCE_LIST = "the groups are: {groups}"


def reference_label(values) -> str:
    """The group label a ``reference`` statement's values name, as the pipeline labels groups
    (:func:`fairspec.data.prepare.group_labels`): ``1`` for a whole number, ``a & b`` for an
    intersectional group."""
    texts = [category_text(v) if isinstance(v, float) else str(v) for v in values]
    return str(joined_labels([np.array([t], dtype=object).astype(str) for t in texts])[0])


def check_model_card(card: ast.ModelCard | None) -> list[Diagnostic]:
    """Every problem of a ``model_card`` block, each at its field."""
    if card is None:
        return []
    problems, seen = [], set()
    for param in card.params:
        if param.name not in MODEL_CARD_FIELDS:
            close = difflib.get_close_matches(param.name, list(MODEL_CARD_FIELDS), n=1, cutoff=0.6)
            hint = (f"did you mean '{close[0]}'?" if close
                    else HINT_CARD_FIELDS.format(fields=", ".join(MODEL_CARD_FIELDS)))
            problems.append(Diagnostic(UNKNOWN_CARD_FIELD.format(name=param.name), param.span, hint))
        elif not isinstance(param.value, str):
            got = ("no value" if param.value is True else "a list [...]" if isinstance(param.value, ast.ValueList)
                   else f"{type(param.value).__name__} {param.value!r}")
            problems.append(Diagnostic(CARD_FIELD_NOT_TEXT.format(name=param.name, got=got), param.span))
        elif not param.value.strip():
            problems.append(Diagnostic(CARD_FIELD_EMPTY.format(name=param.name), param.span))
        elif param.name in seen and param.name not in REPEATABLE_FIELDS:
            problems.append(Diagnostic(CARD_FIELD_TWICE.format(name=param.name), param.span))
        seen.add(param.name)
    return problems


def model_card_fields(card: ast.ModelCard | None) -> dict | None:
    """The card as the plan and model.json keep it: field -> text (``limitations`` a list)."""
    if card is None:
        return None
    fields: dict = {}
    for param in card.params:
        if param.name in REPEATABLE_FIELDS:
            fields.setdefault(param.name, []).append(param.value)
        else:
            fields[param.name] = param.value
    return fields


def group_names(rows: pd.DataFrame, group_columns) -> dict[str, str]:
    """Each group of ``rows`` (as metrics.json keys it) -> the name a ``labels`` statement gives
    it (itself when none does)."""
    keys = {str(k) for k in derived_group_labels(rows, list(group_columns))}
    readable = readable_group_labels(rows, list(group_columns))
    return {k: readable.get(k, k) for k in sorted(keys)}


def reference_key(values, rows: pd.DataFrame, group_columns) -> str | None:
    """The group a ``reference`` names, as metrics.json keys it: written as the group's value(s),
    or as the label a ``labels`` statement gives it; None when ``rows`` has no such group."""
    label = reference_label(values)
    names = group_names(rows, group_columns)
    if label in names:
        return label
    return next((k for k, shown in names.items() if shown == label), None)


def check_reference(spec: ast.Spec, rows: pd.DataFrame | None, group_columns=None) -> list[Diagnostic]:
    """A ``reference`` that cannot name a group: the wrong number of values, or (with the
    filtered ``rows`` and the attributes' ``group_columns``) a group the data does not have."""
    ref = spec.reference
    if ref is None:
        return []
    attributes = [a.value for a in spec.protected.attributes]
    if len(ref.values) != len(attributes):
        example = ", ".join(f'"{a}-value"' for a in attributes)
        return [Diagnostic(REFERENCE_ARITY.format(given=len(ref.values), s="" if len(ref.values) == 1 else "s",
                                                  needed=len(attributes), attributes=" * ".join(attributes)),
                           ref.span, HINT_REFERENCE_ARITY.format(example=example))]
    if rows is None or not len(rows) or not group_columns or any(g is None for g in group_columns):
        return []
    if reference_key(ref.values, rows, group_columns) is not None:
        return []
    names = group_names(rows, group_columns)
    shown = sorted(set(names) | set(names.values()))
    label = reference_label(ref.values)
    close = difflib.get_close_matches(label, shown, n=1, cutoff=0.6)
    hint = (HINT_REFERENCE_GROUPS.format(close=repr(close[0])) if close
            else HINT_REFERENCE_LIST.format(groups=", ".join(repr(g) for g in list(names)[:12])
                                            + (" ..." if len(names) > 12 else "")))
    return [Diagnostic(REFERENCE_UNKNOWN.format(label=label, count=len(names)), ref.span, hint)]
