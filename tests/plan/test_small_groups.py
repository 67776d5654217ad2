"""The checker warns when a bound is finer than one training row of a group, and only then."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.errors import SpecSemanticError
from fairspec.dsl.load import parse_spec
from fairspec.plan.compile import compile_spec

# per group: (rows, positives); the bound 0.05 needs 1 / 0.05 = 20 training rows of a rate's kind
GROUPS = {"big": (400, 200), "mid": (40, 30), "few": (12, 3), "solo": (4, 2)}


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    parts = []
    for group, (rows, positives) in GROUPS.items():
        y = np.r_[np.ones(positives, int), np.zeros(rows - positives, int)]
        parts.append(pd.DataFrame({"x": rng.normal(size=rows), "g": group, "y": y}))
    path = tmp_path / "d.csv"
    pd.concat(parts).to_csv(path, index=False)
    return path


def spec_text(path, fairness, evaluate="holdout 0.3", model="tree { depth 2 }"):
    return (f'spec s\ndata "{path}"\ntarget y positive 1\nprotected g\nfeatures {{ x numeric }}\n'
            f"fairness {fairness}\nmodel {model}\nevaluate {{ {evaluate} }}\n")


def warnings_of(path, *args, **kwargs):
    plan = compile_spec(parse_spec(spec_text(path, *args, **kwargs), "t.fair"))
    assert plan.spec_filename == "t.fair"
    # the warning that the test rows cannot check a bound (tests/calibration) is not these tests'
    return plan, tuple(w for w in plan.warnings if "cannot check the bound" not in w.message)


def expected(rate_rows: dict[str, int], share: float, bound: float) -> set[str]:
    return {g for g, n in rate_rows.items() if 0 < n * share < 1 / bound}


def named(warning) -> set[str]:
    return {g for g in GROUPS if f"'{g}'" in warning.message}


def test_equal_opportunity_counts_positive_training_rows(data):
    plan, warnings = warnings_of(data, "equal_opportunity <= 0.05")
    positives = {g: p for g, (_, p) in GROUPS.items()}
    assert len(warnings) == 1 and warnings[0].severity == "warning"
    # 30 positives x 0.7 = 21 training rows clear 20; 3 and 1 do not
    assert named(warnings[0]) == expected(positives, 0.7, 0.05) == {"few", "solo"}
    assert "TPR" in warnings[0].message and "positive rows in all: 'solo' 2, 'few' 3" in warnings[0].message
    # it points at the bound, and prints as FILE:LINE:COL: warning
    assert (warnings[0].span.line, warnings[0].span.column) == (6, 31)
    assert plan.warning_text().startswith("t.fair:6:31: warning: the bound 0.05 is finer than one training row")


def test_equalized_odds_also_counts_negative_rows_and_a_sweep_uses_its_finest_bound(data):
    _, warnings = warnings_of(data, "equalized_odds <= [0.2, 0.05]")
    negatives = {g: r - p for g, (r, p) in GROUPS.items()}
    assert [("TPR" in w.message, "FPR" in w.message) for w in warnings] == [(True, False), (False, True)]
    assert named(warnings[1]) == expected(negatives, 0.7, 0.05) == {"mid", "few", "solo"}
    line = spec_text(data, "equalized_odds <= [0.2, 0.05]").splitlines()[5]
    assert (warnings[0].span.line, warnings[0].span.column) == (6, line.index("0.05") + 1)


@pytest.mark.parametrize("sweep", ["[0, 0.05]", "[0.05, 0]"])
def test_a_bound_of_zero_in_a_sweep_leaves_the_warning_of_its_finest_positive_bound(data, sweep):
    _, alone = warnings_of(data, "equal_opportunity <= 0.05")
    _, warnings = warnings_of(data, f"equal_opportunity <= {sweep}")
    assert alone and [w.message for w in warnings] == [w.message for w in alone]
    line = spec_text(data, f"equal_opportunity <= {sweep}").splitlines()[5]
    assert (warnings[0].span.line, warnings[0].span.column) == (6, line.index("0.05") + 1)


def test_cross_validation_trains_the_kept_model_on_every_row(data):
    # under demographic parity every row counts: few's 12 x 1.0 < 20, mid's 40 clears it
    _, warnings = warnings_of(data, "demographic_parity <= 0.05", evaluate="cv 3")
    assert len(warnings) == 1 and named(warnings[0]) == {"few", "solo"} and "all of them train" in warnings[0].message
    _, holdout = warnings_of(data, "demographic_parity <= 0.05", evaluate="holdout 0.6")
    assert named(holdout[0]) == {"mid", "few", "solo"}  # 40 x 0.4 = 16 < 20


@pytest.mark.parametrize("fairness", ["equal_opportunity", "equal_opportunity <= 0.3",
                                      "demographic_parity penalty 2", "equal_opportunity <= 0"])
def test_no_warning_without_a_bound_finer_than_a_row(data, fairness):
    # 0.3 needs 3.3 training positives: few's 3 x 0.7 and solo's 2 x 0.7 are still short of that
    _, warnings = warnings_of(data, fairness)
    if fairness.endswith("0.3"):
        assert len(warnings) == 1 and named(warnings[0]) == {"few", "solo"}
    else:
        assert warnings == ()


def test_the_bundled_specs_compile_without_warnings(root):
    # but one, whose test rows cannot check its bound (tests/calibration), which its readers
    # should know: the sweep's finest bound 0.02 on compas's 30 % hold-out (noise 0.039); the
    # tutorial meets that warning at 0.1 on a hold-out and moves to cv 5 (docs/tutorial.md)
    unchecked = {"compas_tree_sweep.fair": "the hold-out's test rows cannot check the bound 0.02"}
    for path in sorted((root / "specs").glob("*.fair")):
        from fairspec import load_spec
        warnings = compile_spec(load_spec(path)).warnings
        if path.name in unchecked:
            assert [w.message.split(":")[0] for w in warnings] == [unchecked[path.name]], path
        else:
            assert warnings == (), path


def test_the_warning_reaches_stderr_under_quiet_the_model_file_and_the_report(data, tmp_path, capsys):
    spec = tmp_path / "s.fair"
    spec.write_text(spec_text(data, "equal_opportunity <= 0.05"))
    out = tmp_path / "run"
    assert main(["compile-and-train", str(spec), "--out", str(out), "-q"]) == 0
    err = capsys.readouterr().err
    assert f"{spec}:6:31: warning: the bound 0.05 is finer" in err and "hint: leave such groups out" in err
    warning = json.loads((out / "model.json").read_text())["spec"]["warnings"][0]
    assert (warning["line"], warning["column"]) == (6, 31) and "'solo' 2" in warning["message"]
    report = (out / "report.html").read_text()
    assert "Warnings when the spec was compiled" in report and "line 6, column 31: the bound 0.05" in report
    assert "&#39;solo&#39; 2" in report  # escaped like every user string


def test_groups_equal_but_for_case_or_end_spaces_are_named_once_and_a_filter_can_clear_them(tmp_path):
    # `Female` and `female ` had silently become two groups, a bound enforced between them
    rng = np.random.default_rng(1)
    g = np.array(["Female", "female ", "Male", "Other"] * 50)
    frame = pd.DataFrame({"x": rng.normal(size=200), "g": g, "y": np.repeat([0, 1], 100)})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    _, warnings = warnings_of(path, "equal_opportunity")
    alike = [w for w in warnings if "differ only in case" in w.message]
    assert len(alike) == 1 and alike[0].span.line == 4  # at `protected g`
    assert "'Female' and 'female '" in alike[0].message and "Male" not in alike[0].message.split(":")[0]
    text = spec_text(path, "equal_opportunity").replace(f'"{path}"', f'"{path}" where g != "female "')
    plan = compile_spec(parse_spec(text, "t.fair"))
    assert not [w for w in plan.warnings if "differ only in case" in w.message]


def test_a_filter_that_drops_a_look_alike_of_a_value_it_keeps_says_so(tmp_path):
    # `where g in ["Female", "Male"]` had dropped the 50 rows of "female " without a word, where
    # with no filter they are warned of as a look-alike group (found in review)
    rng = np.random.default_rng(1)
    g = np.array(["Female", "female ", "Male", "Other", "MALE"] * 40)
    frame = pd.DataFrame({"x": rng.normal(size=200), "g": g, "y": np.repeat([0, 1], 100)})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    text = spec_text(path, "equal_opportunity").replace(f'"{path}"', f'"{path}" where g in ["Female", "Male"]')
    plan = compile_spec(parse_spec(text, "t.fair"))
    (warning,) = [w for w in plan.warnings if "filter" in w.message]
    assert (warning.span.line, warning.span.column) == (2, len(f'data "{path}" where ') + 1)
    assert "leaves out 'MALE' (40 rows), 'female ' (40 rows), which differ from 'Female' or 'Male'" in warning.message
    assert "Other" not in warning.message  # dropped, but like no value named
    # naming every spelling, or dropping by `!=`, says nothing
    for where in ('where g in ["Female", "female ", "Male", "MALE"]', 'where g != "Other"'):
        plan = compile_spec(parse_spec(spec_text(path, "equal_opportunity").replace(f'"{path}"', f'"{path}" {where}'),
                                       "t.fair"))
        assert not [w for w in plan.warnings if "filter" in w.message]


def test_groups_that_write_one_number_two_ways_are_named_too(tmp_path):
    # race coded 1/2 with one cell "01": read_table keeps the column as text, and "01" had become
    # a third group of one row, unannounced (found in review)
    rng = np.random.default_rng(3)
    g = np.array(["1", "2"] * 100, dtype=object)
    g[7] = "01"
    frame = pd.DataFrame({"x": rng.normal(size=200), "g": g, "y": np.tile([0, 0, 1, 1], 50)})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    _, warnings = warnings_of(path, "equal_opportunity")
    (alike,) = [w for w in warnings if "in how they write one number" in w.message]
    assert "'01' and '1'" in alike.message and "'2'" not in alike.message


def test_warnings_come_in_the_order_of_the_spec_lines(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"x": rng.normal(size=40), "g": ["a", "A"] * 20, "y": np.repeat([0, 1], 20)})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    # look-alike groups (the protected line, 4), a bound finer than a row (fairness, 6) and a
    # hold-out under 100 rows (evaluate, 8): found in another order than the lines'
    _, warnings = warnings_of(path, "equal_opportunity <= 0.05")
    assert any("cannot check the bound" in w.message for w in compile_spec(parse_spec(
        spec_text(path, "equal_opportunity <= 0.05"), "t.fair")).warnings)  # also on line 6
    lines = [w.span.line for w in warnings]
    assert lines == [4, 6, 8]


@pytest.mark.parametrize(("evaluate", "side", "hint"), [
    ("holdout 0.3 seed 1", "the hold-out's training side", "pick an `evaluate` seed that keeps one"),
    ("cv 3 seed 1", "cv fold", "or evaluate on a hold-out")])
def test_a_training_side_without_a_class_is_an_error_at_the_evaluate_line(tmp_path, evaluate, side, hint):
    # 20 rows, one positive: drawn into the test rows (or under cv, the fold that tests it),
    # the model was fitted on negatives alone, predicted 0 everywhere, and the run exited 0
    y = np.zeros(20, int)
    y[6] = 1
    path = tmp_path / "d.csv"
    pd.DataFrame({"g": ["b", "a"] * 10, "x": np.arange(1, 21), "y": y}).to_csv(path, index=False)
    text = spec_text(path, "demographic_parity", evaluate=evaluate, model="baseline { learner tree depth 2 }")
    with pytest.raises(SpecSemanticError) as exc:
        compile_spec(parse_spec(text, "t.fair"))
    (error,) = [d for d in exc.value.diagnostics if d.severity == "error"]
    assert error.message.startswith(f"the positive class has 1 row in all and none on {side}")
    assert error.span.line == 8 and hint in error.hint
    # with no split, the one positive row is trained on: nothing is said
    assert compile_spec(parse_spec(spec_text(path, "demographic_parity", evaluate="none",
                                             model="baseline { learner tree depth 2 }"), "t.fair"))
