"""The spec's labels for coded categories, as model.json carries them.

German credit codes its categories (``A91``..``A94`` for personal status and sex); a reviewer
cannot tell who is disadvantaged from the codes.  The spec can label them (the ``labels``
statement, :mod:`fairspec.dsl`), and the plan writes the labels into model.json; the report
shows a code with its label wherever it names one.  This module only reads them: where they
come from is the DSL's business, and a file without labels shows the codes as the data spells
them.
"""
from __future__ import annotations


def category_labels(model_doc: dict) -> dict[str, dict[str, str]]:
    """``{column: {value as text: label}}`` from model.json (``schema.labels``, or a feature's
    own ``labels``); empty when the spec labels nothing."""
    schema = model_doc.get("schema") or {}
    found: dict[str, dict[str, str]] = {}
    given = schema.get("labels")
    if isinstance(given, dict):
        for column, mapping in given.items():
            if isinstance(mapping, dict):
                found[str(column)] = {str(k): str(v) for k, v in mapping.items() if v is not None}
    for feature in schema.get("features") or []:
        if isinstance(feature, dict) and isinstance(feature.get("labels"), dict):
            found.setdefault(str(feature.get("name")), {}).update(
                {str(k): str(v) for k, v in feature["labels"].items() if v is not None})
    return found


def labelled(column: str, value, labels: dict[str, dict[str, str]]) -> str:
    """``A91 (male, divorced)`` when the spec labels the value, else the value as text."""
    text = str(value)
    label = labels.get(str(column), {}).get(text)
    return f"{text} ({label})" if label and label != text else text
