"""`fairspec report` refuses a metrics.json whose report measures were edited: the disparities
are recomputed from their counts, the counts must give the block's rates, the reference group
must be the run's, and the unconstrained model's gaps must be what its rates give."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
from conftest import GROUPS, make_docs

from fairspec.pipeline.outputs import read_outputs, render_outputs
from tests.helpers_outputs import edit, refusal


def _write(d: Path, docs) -> Path:
    d.mkdir(parents=True)
    for rel, text in render_outputs([docs]).items():
        (d / rel).write_text(text, encoding="utf-8")
    return d


@pytest.fixture
def run(tmp_path):
    model_doc, metrics_doc = make_docs(bound=0.05)
    metrics_doc["unconstrained"] = {"train": copy.deepcopy(metrics_doc["train"]),
                                    "test": copy.deepcopy(metrics_doc["test"]),
                                    "training_log": {"status": "optimal", "mip_gap": 0.0, "reproducible": True}}
    d = _write(tmp_path / "run", (model_doc, metrics_doc))
    assert read_outputs(d)
    return d


def _move_a_positive(counts: dict) -> None:
    """One false negative read as a true positive: the group's rows stay, its rates move."""
    counts.update(tp=counts["tp"] + 1, fn=counts["fn"] - 1)


@pytest.mark.parametrize("change, place", [
    (lambda m: m["test"]["disparities"]["groups"][GROUPS[1]].update(selection_rate_ratio=0.9),
     f"metrics.test.disparities.groups.{GROUPS[1]}.selection_rate_ratio is 0.9, but the counts give "),
    (lambda m: m["test"]["disparities"]["four_fifths"].update(flagged=False, ratio=0.95),
     "metrics.test.disparities.four_fifths.flagged is false, but the counts give "),
    (lambda m: _move_a_positive(m["train"]["disparities"]["groups"]["Other"]),
     "metrics.train.groups.Other.selection_rate is "),
    (lambda m: m["test"]["disparities"].update(reference="Other"),
     f"metrics.test.disparities.groups.{GROUPS[0]}.accuracy_difference is 0.0, but the counts give "),
    (lambda m: m["unconstrained"]["test"]["gaps"].update(equal_opportunity=0.0),
     "metrics.unconstrained.test.gaps.equal_opportunity is 0.0, but the tpr of the test block's groups give "),
])
def test_an_edited_report_measure_is_refused(run, change, place):
    edit(run / "metrics.json", change)
    message = refusal(run)
    assert message.startswith(f"{run / 'metrics.json'}: error: damaged metrics file ({place}"), message


def test_a_reference_group_the_run_did_not_choose_is_refused(run):
    # recomputed consistently around another group, the disparities still name a reference the
    # run did not use: neither the spec's (none) nor the group with the most rows
    from fairspec.metrics.disparity import COUNTS, against_reference

    def change(m):
        for key in ("train", "test"):
            d = m[key]["disparities"]
            counts = {g: {k: e[k] for k in COUNTS} for g, e in d["groups"].items()}
            m[key]["disparities"] = against_reference(counts, "Other", "largest group")

    edit(run / "metrics.json", change)
    assert refusal(run).endswith('(metrics.train.disparities.reference is "Other" (largest group), but the run\'s '
                                 f'reference group is "{GROUPS[0]}" (largest group))')
