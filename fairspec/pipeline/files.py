"""Canonical JSON for output files (written with :func:`fairspec.files.write_atomic`)."""
from __future__ import annotations

import json
import math


def _json_safe(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _json_safe(value.item())
    return value


def dumps(doc) -> str:
    """Canonical JSON: sorted keys, 2-space indent, no NaN (``null`` instead)."""
    return json.dumps(_json_safe(doc), sort_keys=True, indent=2, allow_nan=False) + "\n"
