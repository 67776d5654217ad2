"""The model card and the sign-off block.

The spec's ``model_card`` statement gives what a reviewer needs beside the numbers and the
numbers cannot say: what the model is for and not for, who owns it, where its data comes
from and when, and what is known to be wrong with it (Mitchell et al., "Model Cards for Model
Reporting", FAT* 2019, sections 4.2 and 4.9).  A field the spec leaves out is listed as not
stated, so an empty field is seen, not missed.  The sign-off block has blank lines for a
name, a role, a date and a decision, to be filled in by hand on the printed page; the model
file's SHA-256 beside it ties the signature to one model.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fairspec.dsl.check_report import MODEL_CARD_FIELDS


@dataclass(frozen=True)
class CardField:
    heading: str
    texts: tuple[str, ...]  # one per paragraph (a limitation each)


@dataclass(frozen=True)
class ModelCardView:
    fields: tuple[CardField, ...]
    not_stated: tuple[str, ...]
    model_sha256: str
    #: the spec has no model_card statement at all
    absent: bool
    signoff: tuple[str, ...] = ("Name", "Role", "Date", "Decision (approve / approve with conditions / reject)")


def model_sha256(model_doc: dict, metrics_doc: dict) -> str:
    """The SHA-256 of model.json as written: metrics.json records it (and ``fairspec report``
    checks it); computed from the document when the metrics do not say."""
    recorded = metrics_doc.get("model_sha256")
    if isinstance(recorded, str):
        return recorded
    from fairspec.pipeline.files import dumps  # the canonical text model.json is written as

    return hashlib.sha256(dumps(model_doc).encode("utf-8")).hexdigest()


def build(model_doc: dict, metrics_doc: dict) -> ModelCardView:
    card = model_doc.get("model_card")
    card = card if isinstance(card, dict) else {}
    fields, missing = [], []
    for key, heading in MODEL_CARD_FIELDS.items():
        value = card.get(key)
        texts = tuple(str(v) for v in value) if isinstance(value, list) else ((str(value),) if value else ())
        if texts:
            fields.append(CardField(heading, texts))
        else:
            missing.append(heading)
    return ModelCardView(tuple(fields), tuple(missing), model_sha256(model_doc, metrics_doc),
                         absent=not card)
