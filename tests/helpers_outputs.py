"""Helpers of the tests that hand-edit the files a run wrote (model.json, metrics.json,
sweep.json) and check how `fairspec report` reads them back, or compare two runs' documents."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairspec.errors import ModelFileError
from fairspec.pipeline.outputs import read_outputs


def without_seconds(doc) -> str:
    """``doc`` as JSON text without its wall-clock seconds (what two runs of one fit differ in)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if "seconds" not in k}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return json.dumps(strip(doc), sort_keys=True)


def edit(path: Path, change) -> None:
    """Rewrite the JSON file ``path`` after ``change(document)`` has edited it in place."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def refusal(out_dir: Path) -> str:
    """The message of the ModelFileError that reading the run in ``out_dir`` raises."""
    with pytest.raises(ModelFileError) as caught:
        read_outputs(out_dir)
    return str(caught.value)
