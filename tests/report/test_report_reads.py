"""What `fairspec report` reads back: a gap in metrics.json is what the file's own per-group rates
give, a fairness verdict is what the file's own gaps and bound give
(fairspec.metrics.fairness_summary), and sweep.json and model.json agree with each point's
metrics.json.  A hand-edited gap or verdict is refused (exit 1), never shown."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from conftest import GROUPS, make_docs

from fairspec.cli import main
from fairspec.metrics import GAP_RATES, MET_TOLERANCE, fairness_summary
from fairspec.pipeline.outputs import read_outputs, render_outputs
from fairspec.registry.criteria import make_criterion
from tests.helpers_outputs import edit, refusal

BOUND = 0.05
CRITERION = "equal_opportunity"


def _write(d: Path, model_doc: dict, metrics_doc: dict) -> Path:
    """The files a run of these documents writes (metrics.json stamped with the model's digest)."""
    d.mkdir(parents=True, exist_ok=True)
    for rel, text in render_outputs([(model_doc, metrics_doc)]).items():
        (d / rel).write_text(text, encoding="utf-8")
    return d


def _docs(test_gap, unmeasured: bool):
    """make_docs' run (three groups, bound 0.05) with the test TPRs set so that the criterion's
    test gap is ``test_gap`` (None: fewer than two groups have a TPR) and, with ``unmeasured``,
    group "Other" without a TPR on the test rows; the gaps and the fairness block are then what
    fairspec writes for those rates (the report refuses a gap its rates do not give)."""
    model_doc, metrics_doc = make_docs(bound=BOUND)
    train, test = metrics_doc["train"], metrics_doc["test"]
    first, second, other = GROUPS
    # test_gap - 0.0 is test_gap to the last bit: the gaps a hair either side of the bound stay so
    tprs = {first: test_gap, second: None if test_gap is None else 0.0, other: None if unmeasured else 0.0}
    for group, tpr in tprs.items():
        test["groups"][group].update(tpr=tpr, fnr=None if tpr is None else 1.0 - tpr)
    # rates set by hand are no share of counts: the block reads as one written before the counts
    test.pop("disparities")
    test["gaps"][CRITERION] = test_gap
    fpr_gap = test["gaps"]["fpr_parity"]  # equalized odds: the larger of the TPR and FPR gaps
    test["gaps"]["equalized_odds"] = None if test_gap is None or fpr_gap is None else max(test_gap, fpr_gap)
    metrics_doc["fairness"] = fairness_summary(make_criterion(CRITERION, bound=BOUND), train, test)
    return model_doc, metrics_doc


# the gaps around the bound where the verdict turns, with fairspec's tolerance
GAPS = [0.0, BOUND - 1e-12, BOUND, BOUND + MET_TOLERANCE, math.nextafter(BOUND + MET_TOLERANCE, 1.0),
        BOUND + 2 * MET_TOLERANCE, 0.3, None]


@pytest.mark.parametrize("unmeasured", [False, True], ids=["all groups measured", "a group unmeasured"])
@pytest.mark.parametrize("test_gap", GAPS)
def test_the_verdict_fairspec_writes_loads_and_every_other_one_is_refused(tmp_path, test_gap, unmeasured):
    model_doc, metrics_doc = _docs(test_gap, unmeasured)
    written = metrics_doc["fairness"]["met_test"]
    assert written is not True or not unmeasured  # fairness_summary: never met with a group unmeasured
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    assert read_outputs(d)
    for other in {True, False, None} - {written}:
        edit(d / "metrics.json", lambda m: m["fairness"].update(met_test=other))
        message = refusal(d)
        assert message.startswith(f"{d / 'metrics.json'}: error: damaged metrics file (fairness.met_test is "
                                   f"{json.dumps(other)}, but "), message
        assert message.endswith(f" give {json.dumps(written)})"), message


def test_report_refuses_a_met_verdict_whose_gap_exceeds_its_bound(tmp_path, capsys):
    # the report showed "MET: The test gap 0.3000 is within the bound 0.05"
    model_doc, metrics_doc = _docs(0.3, unmeasured=False)
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    before = (d / "report.html").read_bytes()
    edit(d / "metrics.json", lambda m: m["fairness"].update(met_test=True))
    assert main(["report", str(d)]) == 1
    assert capsys.readouterr().err == (f"{d / 'metrics.json'}: error: damaged metrics file (fairness.met_test is "
                                       f"true, but the test gap 0.3 and the bound 0.05 give false)\n")
    assert (d / "report.html").read_bytes() == before


def test_a_met_verdict_over_the_measured_groups_only_is_refused_naming_them(tmp_path):
    model_doc, metrics_doc = _docs(0.01, unmeasured=True)
    assert metrics_doc["fairness"]["unmeasured_test"] == ["Other"]
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    edit(d / "metrics.json", lambda m: m["fairness"].update(met_test=True))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file (fairness.met_test is true, but the "
                          f"test gap 0.01 and the bound 0.05, with no test rate for [\"Other\"], give null)")
    # nor can the group be dropped from unmeasured_test to make the verdict "met"
    edit(d / "metrics.json", lambda m: m["fairness"].update(unmeasured_test=[]))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: damaged metrics file (fairness.unmeasured_test is [], "
                          f"but the file's test block gives [\"Other\"])")


@pytest.mark.parametrize("change, problem", [
    (lambda f, m: f.update(achieved_test=0.01),
     "fairness.achieved_test is 0.01, but the file's test block gives 0.3"),
    (lambda f, m: f.update(achieved_train=None),
     "fairness.achieved_train is null, but the file's train block gives 0."),
    (lambda f, m: f.update(interval_test=[0.0, 0.04]),
     "fairness.interval_test is [0.0, 0.04], but the file's test block gives ["),
    (lambda f, m: f.update(met_train=None), "fairness.met_train is null, but the train gap "),
    (lambda f, m: f.update(criterion=None, bound=None), "fairness.achieved_train is 0."),
], ids=["achieved_test", "achieved_train", "interval_test", "met_train", "criterion"])
def test_a_fairness_block_that_is_not_what_its_blocks_give_is_refused(tmp_path, change, problem):
    model_doc, metrics_doc = _docs(0.3, unmeasured=False)
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    edit(d / "metrics.json", lambda m: change(m["fairness"], m))
    message = refusal(d)
    assert message.startswith(f"{d / 'metrics.json'}: error: damaged metrics file ("), message
    assert problem in message, message


def test_with_a_group_left_out_the_interval_bounds_the_gap_from_below_only(tmp_path):
    # the interval is of the gap over the measured groups, which a group left out can only
    # widen: its high end had been reported as if it bounded the gap over every group
    model_doc, metrics_doc = _docs(0.01, unmeasured=True)
    low, high = metrics_doc["test"]["gap_intervals"]["gaps"][CRITERION]
    assert high < 1.0 and metrics_doc["fairness"]["interval_test"] == [low, 1.0]
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    assert f"{low:.4f} to 1.0000 (95%)" in (d / "report.html").read_text(encoding="utf-8")
    # a file written before keeps loading with the interval copied as it was; nothing else does
    edit(d / "metrics.json", lambda m: m["fairness"].update(interval_test=[low, high]))
    assert read_outputs(d)
    edit(d / "metrics.json", lambda m: m["fairness"].update(interval_test=[low, 0.5]))
    assert "fairness.interval_test is [" in refusal(d)


def test_a_file_written_before_the_verdict_rules_still_loads(tmp_path):
    # no unmeasured_test, interval_test or met_*: each rule applies to the keys present, and
    # before unmeasured_test a test verdict was the gap against the bound alone
    model_doc, metrics_doc = _docs(0.01, unmeasured=True)
    for key in ("unmeasured_test", "interval_test", "met_train"):
        metrics_doc["fairness"].pop(key)
    metrics_doc["fairness"]["met_test"] = True
    assert read_outputs(_write(tmp_path / "run", model_doc, metrics_doc))


def test_a_current_metrics_file_must_agree_with_its_model_not_only_carry_its_digest(tmp_path):
    # only files without the digest were compared with their model: a penalty written into
    # metrics.json was reported for a model trained under a bound
    model_doc, metrics_doc = make_docs(bound=BOUND)
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    edit(d / "metrics.json", lambda m: m["fairness"].update(penalty=0.5))
    assert refusal(d) == (f"{d / 'metrics.json'}: error: fairness penalty 0.5 differs from None in "
                          f"{d / 'model.json'} (one was edited: metrics.json records the digest of this model.json)")
    edit(d / "metrics.json", lambda m: (m["fairness"].update(penalty=None), m["data_summary"].update(positive=True)))
    assert "positive class True differs from 1" in refusal(d)


@pytest.mark.parametrize("key, value", [("met_test", False), ("test_accuracy", 0.99), ("interval_test", [0.0, 0.5])])
def test_a_sweep_point_that_differs_from_its_metrics_file_is_refused(root, tmp_path, key, value):
    d = Path(shutil.copytree(root / "reports" / "compas_tree_sweep", tmp_path / "sweep"))
    edit(d / "sweep.json", lambda s: s["points"][1].update({key: value}))
    message = refusal(d)
    assert message.startswith(f"{d / 'sweep.json'}: error: point 1: {key} {value!r} differs from "), message
    assert f"in {d / 'point-1' / 'metrics.json'}" in message


# --- the gaps are what the groups' rates give ------------------------------------------------------

def _example(root: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(root / "reports" / "compas_rules", tmp_path / "run"))


@pytest.mark.parametrize("split, gap, value", [
    ("train", "demographic_parity", 0.2),
    ("test", "accuracy_parity", None),
    ("test", "equalized_odds", 0.0),
    # the criterion's gap: named where it was edited, not as the fairness block that no longer matches it
    ("test", "equal_opportunity", 0.05),
])
def test_report_refuses_a_gap_its_group_rates_do_not_give(root, tmp_path, capsys, split, gap, value):
    # the report showed the edited gap beside the rates that contradict it
    d = _example(root, tmp_path)
    recorded = json.loads((d / "metrics.json").read_text(encoding="utf-8"))[split]["gaps"][gap]
    before = (d / "report.html").read_bytes()
    edit(d / "metrics.json", lambda m: m[split]["gaps"].update({gap: value}))
    assert main(["report", str(d), "-q"]) == 1
    assert capsys.readouterr().err == (
        f"{d / 'metrics.json'}: error: damaged metrics file (metrics.{split}.gaps.{gap} is {json.dumps(value)}, "
        f"but the {' and '.join(GAP_RATES[gap])} of the {split} block's groups give {json.dumps(recorded)})\n")
    assert (d / "report.html").read_bytes() == before


def test_a_gap_off_by_float_noise_loads_and_one_off_by_more_is_refused(root, tmp_path):
    d = _example(root, tmp_path)
    recorded = json.loads((d / "metrics.json").read_text(encoding="utf-8"))["test"]["gaps"]["demographic_parity"]
    edit(d / "metrics.json", lambda m: m["test"]["gaps"].update(demographic_parity=recorded + MET_TOLERANCE / 2))
    assert read_outputs(d)
    edit(d / "metrics.json", lambda m: m["test"]["gaps"].update(demographic_parity=recorded + 2 * MET_TOLERANCE))
    assert refusal(d).startswith(f"{d / 'metrics.json'}: error: damaged metrics file "
                                 f"(metrics.test.gaps.demographic_parity is {json.dumps(recorded + 2 * MET_TOLERANCE)}, ")


def test_an_edited_group_rate_is_refused_by_the_gap_it_no_longer_gives(root, tmp_path):
    d = _example(root, tmp_path)
    edit(d / "metrics.json", lambda m: m["test"]["groups"]["Caucasian"].update(selection_rate=0.9))
    assert refusal(d).startswith(f"{d / 'metrics.json'}: error: damaged metrics file "
                                 f"(metrics.test.gaps.demographic_parity is ")


def test_a_gap_whose_rate_the_groups_do_not_record_is_not_checked(root, tmp_path):
    # a file older than one of the rates has nothing to check that gap against; reading it
    # must not stop on the missing key
    d = _example(root, tmp_path)

    def without_accuracy(m):
        for split in ("train", "test"):
            for group in m[split]["groups"].values():
                del group["accuracy"]
            m[split]["gaps"]["accuracy_parity"] = 0.5

    edit(d / "metrics.json", without_accuracy)
    assert read_outputs(d)


def test_the_report_written_with_the_files_is_the_one_fairspec_report_renders_from_them(tmp_path, capsys):
    # an infinite fit-log value (a relabelling MIP without a bound) is null in the JSON files: the
    # report rendered from the documents in memory had printed inf, a re-render "—" (found in review)
    model_doc, metrics_doc = make_docs(bound=BOUND)
    metrics_doc["training_log"]["relabel_bound"] = math.inf
    model_doc["training"]["fit_log"]["relabel_bound"] = math.inf
    d = _write(tmp_path / "run", model_doc, metrics_doc)
    written = (d / "report.html").read_text(encoding="utf-8")
    assert "inf" not in written.split("relabel_bound", 1)[1][:200]
    assert main(["report", str(d)]) == 0
    capsys.readouterr()
    assert (d / "report.html").read_text(encoding="utf-8") == written
