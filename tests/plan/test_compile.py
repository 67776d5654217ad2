"""Spec → Plan: defaults are filled in as documented, sweeps expand, nothing else is invented."""
import numpy as np
import pandas as pd
import pytest

from fairspec.dsl.load import parse_spec
from fairspec.plan.compile import compile_spec, compile_with_table
from fairspec.registry.criteria import EqualOpportunity, EqualizedOdds


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    n = 200
    return pd.DataFrame({
        "age": rng.integers(18, 70, n), "income": rng.normal(size=n),
        "city": rng.choice(["x", "y", "z"], n), "sex": rng.choice(["F", "M"], n),
        "y": rng.integers(0, 2, n),
    })


def plan_of(text, table):
    return compile_spec(parse_spec(text, "t.fair"), table)


BASE = 'spec s\ndata "{path}"\ntarget y positive 1\nprotected sex\nfeatures {{ age  income numeric  city }}\n'


def test_defaults(table, tmp_path):
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv") + "model tree\n", table)
    assert [(f.name, f.kind) for f in plan.data.features] == [("age", "numeric"), ("income", "numeric"),
                                                             ("city", "categorical")]
    assert plan.missing.strategy == "mia"  # the tree family's own default
    assert plan.model.params["depth"] == 5 and plan.model.params["forest"] is None
    assert plan.solver.time_limit == 60.0 and plan.solver.threads == 1
    assert plan.evaluation.kind == "holdout" and plan.evaluation.test_size == 0.3 and plan.evaluation.stratify
    assert plan.fairness == () and str(plan.output_dir) == "out/s"


def test_an_output_under_the_home_folder_is_expanded_as_data_is(table, tmp_path, monkeypatch):
    # output "~/x" made a folder named "~" in the current directory (found in review)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv") + 'model tree\noutput "~/runs/s"\n', table)
    assert plan.output_dir == tmp_path / "home" / "runs" / "s"


@pytest.mark.parametrize("evaluate, n_test", [("evaluate { holdout 0.001 }", 1), ("", 60),
                                              ("evaluate { holdout 0.5 }", None), ("evaluate { cv 5 }", None)])
def test_a_hold_out_of_fewer_than_100_rows_is_a_warning(table, tmp_path, evaluate, n_test):
    # holdout 0.0001 left one test row and the run reported its test accuracy without a word
    # (found in review)
    table.to_csv(tmp_path / "d.csv", index=False)
    doc = parse_spec(BASE.format(path=tmp_path / "d.csv") + "model tree\n" + evaluate + "\n", "t.fair")
    plan, _ = compile_with_table(doc, table)
    small = [w for w in plan.warnings if "for testing" in w.message]
    if n_test is None:
        assert small == []
    else:
        (warning,) = small
        assert warning.severity == "warning" and warning.message.startswith(f"the hold-out keeps {n_test} of the 200")
        assert (warning.span is None) == (evaluate == "")  # at the holdout value when one is written
        if evaluate:
            assert (warning.span.line, warning.span.column) == (7, 20)


def test_baseline_defaults_to_median_imputation(table, tmp_path):
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv") + "model baseline\n", table)
    assert (plan.missing.strategy, plan.missing.impute_method) == ("impute", "median")


def test_sweep_expands_into_one_criterion_per_point(table, tmp_path):
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv")
                   + "fairness equal_opportunity <= [0.01, 0.05]\nmodel tree\n", table)
    assert plan.fairness == (EqualOpportunity(bound=0.01), EqualOpportunity(bound=0.05)) and plan.is_sweep
    plan = plan_of(BASE.format(path=tmp_path / "d.csv") + "fairness equalized_odds penalty 2\nmodel tree\n", table)
    assert plan.fairness == (EqualizedOdds(penalty=2.0),) and plan.fairness[0].form == "penalty"


def test_nested_block_and_solver_and_cv(table, tmp_path):
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv")
                   + "missing impute(knn k=3)\nmodel tree { depth 3 forest { trees 7 } }\n"
                     "solver { time_limit 2m threads 2 seed 9 }\nevaluate { cv 4 }\n", table)
    assert plan.model.params["forest"] == {"trees": 7, "max_features": "sqrt", "bootstrap": True}
    assert plan.solver.time_limit == 120.0 and plan.solver.seed == 9 and plan.evaluation.seed == 9
    assert (plan.evaluation.kind, plan.evaluation.folds) == ("cv", 4)
    assert (plan.missing.impute_method, plan.missing.k) == ("knn", 3)
    text = plan.describe()
    assert "cv          4 folds" in text and "forest" in text and "impute(knn k=3)" in text
    assert plan.solver.clock_cap and "clock_cap" not in text


@pytest.mark.parametrize("family, module", [("rule_set", "fairspec.models.rule_set"),
                                            ("tree", "fairspec.models.missing_tree"),
                                            ("tree { forest { trees 3 } }", "fairspec.models.missing_tree")])
def test_clock_cap_false_reaches_the_plan_and_the_estimator(table, tmp_path, family, module):
    import importlib

    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv")
                   + f"model {family}\nsolver {{ time_limit 10s  clock_cap false }}\n", table)
    assert plan.solver.clock_cap is False
    assert "clock_cap=false (work limits only; may run past time_limit)" in plan.describe()
    est = importlib.import_module(module).build_estimator(plan.model, None, plan.solver, categorical_features=(),
                                                          seed=0)
    assert est.get_params()["clock_cap"] is False and est.time_limit == 10.0


@pytest.mark.parametrize("blocks, model_seed, split_seed", [
    ("solver { seed 3 }\nevaluate { holdout 0.3 seed 7 }\n", 3, 7),  # both given: each is respected
    ("evaluate { holdout 0.3 seed 7 }\n", 7, 7),  # one given seeds the whole run
    ("solver { seed 3 }\n", 3, 3),
    ("", 0, 0),
])
def test_solver_seed_seeds_the_model_and_evaluate_seed_the_split(table, tmp_path, blocks, model_seed, split_seed):
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv") + "model tree\n" + blocks, table)
    assert (plan.solver.seed, plan.evaluation.seed) == (model_seed, split_seed)
    assert f"seed={model_seed}" in plan.describe()


def test_an_unreadable_data_file_is_listed_with_the_specs_own_problems(tmp_path):
    from fairspec.errors import DataError, SpecSemanticError
    from fairspec.dsl.load import load_spec

    (tmp_path / "d.csv").write_text("")
    spec = tmp_path / "s.fair"
    spec.write_text('spec s\ndata "d.csv"\ntarget y positive 1\nprotected g\nfeatures { x numeric }\n'
                    'model tree { depth -1 }\n')
    with pytest.raises(SpecSemanticError) as info:  # the spec's error had been dropped
        compile_spec(load_spec(spec))
    lines = [(d.span.line, d.message.split(":")[0]) for d in info.value.diagnostics]
    assert lines == [(2, f"data file {str(tmp_path / 'd.csv')!r}"), (6, "parameter 'depth' of model 'tree' must be "
                                                                       "between 1 and 30, got -1")]
    spec.write_text(spec.read_text().replace("depth -1", "depth 2"))
    with pytest.raises(DataError, match="cannot read the data as CSV"):  # alone, the data error as it was
        compile_spec(load_spec(spec))


def test_the_plan_and_the_report_show_a_filter_as_the_spec_writes_it(table, tmp_path):
    # "age >= [21]" in the report, "city in 'x'" in the plan: a list after in / not in only
    from fairspec.report.context import _filter_text

    table.to_csv(tmp_path / "d.csv", index=False)
    spec = BASE.format(path=tmp_path / "d.csv").replace(
        '.csv"\n', '.csv" where age >= 21 and city in ["x"] and age not in [30, 31]\n') + "model tree\n"
    plan = plan_of(spec, table)
    text = plan.describe()
    assert "keep rows   age >= 21\n" in text and "keep rows   city in ['x']\n" in text
    assert "keep rows   age not in [30, 31]\n" in text
    shown = [_filter_text([c, op, list(v)]) for c, op, v in plan.data.filters]
    assert shown == ["age >= 21", 'city in ["x"]', "age not in [30, 31]"]


@pytest.mark.parametrize("model, shown, hidden", [
    ("model baseline { learner logistic  C 0.5 }", ["baseline(learner=logistic, C=0.5)", "one indicator column",
                                                   "seed        4 (no solver"], ["depth", "time_limit", "mip_gap"]),
    ("model baseline { learner tree  depth 3 }", ["baseline(learner=tree, depth=3, min_samples_leaf=1*)",
                                                 "integer codes"], ["C=", "time_limit", "indicator"]),
    ("model tree", ["time_limit=60s* threads=1* mip_gap=0.0001* seed=4"], ["indicator", "middle_growth"]),
    # middle_growth shapes Trinary's third child only
    ("missing trinary\nmodel tree { middle_growth full }", ["criterion=gini*, middle_growth=full, forest"], []),
    ("missing mia\nmodel tree", ["mia"], ["middle_growth"]),
])
def test_the_plan_lists_only_the_settings_the_model_reads(table, tmp_path, model, shown, hidden):
    # depth=5 for a logistic learner, C=1.0 for a tree, a time limit for scikit-learn: each printed
    # as if it shaped the fit
    table.to_csv(tmp_path / "d.csv", index=False)
    plan = plan_of(BASE.format(path=tmp_path / "d.csv") + model + "\nsolver { seed 4 }\n", table)
    text = plan.describe()
    assert all(s in text for s in shown), text
    assert not any(h in text for h in hidden), text


@pytest.mark.parametrize("blocks, marked, unmarked", [
    ("model tree { depth 3 }\n", ["depth=3,", "min_samples_leaf=1*", "time_limit=60s*", "threads=1*",
                                  "mip_gap=0.0001*", "seed=0*", "missing     mia*", "holdout     0.3* of rows",
                                  "(stratified* by", "seed 0*\n", "output        out/s*\n"], []),
    ("missing mia\nmodel tree { depth 3  min_samples_leaf 5  min_samples_split 4  criterion entropy  "
     "forest { trees 3  max_features all  bootstrap false } }\nsolver { time_limit 5s  threads 2  mip_gap 0.01 }\n"
     "evaluate { holdout 0.25 stratify false seed 3 }\noutput \"out\"\n",
     [], ["*"]),
    # a nested block's own defaults too (found in review: forest={..., 'bootstrap': True} unmarked)
    ("model tree { forest { trees 3 } }\n", ["forest={trees=3, max_features=sqrt*, bootstrap=True*}"], ["trees=3*"]),
    # one seed, written in either block, seeds the whole run: neither is a default then
    ("model tree\nsolver { seed 4 }\n", ["threads=1*"], ["seed=4*", "seed 4*"]),
    ("model tree\nevaluate { cv 3 }\n", ["(stratified* by", "seed 0*;"], ["3*"]),
])
def test_the_plan_marks_every_setting_the_spec_does_not_write(table, tmp_path, blocks, marked, unmarked):
    table.to_csv(tmp_path / "d.csv", index=False)
    text = plan_of(BASE.format(path=tmp_path / "d.csv") + blocks, table).describe()
    assert all(m in text for m in marked), text
    assert not any(u in text for u in unmarked), text
    assert text.endswith("\n  * not written in the spec: a default") == bool(marked)


def test_a_criterions_label_keeps_every_digit_of_its_setting():
    # training messages and the rule-set fit log labelled a sweep over 0.05 and 0.05000001
    # "<= 0.05" twice (found in review)
    assert EqualOpportunity(bound=0.05000001).label() == "equal_opportunity <= 0.05000001"
    assert EqualizedOdds(penalty=1234567.0).label() == "equalized_odds penalty 1234567"


@pytest.mark.parametrize("params, warned", [
    ("max_complexity 3  max_conditions 5", True),   # rules hold at most 2 conditions
    ("max_complexity 6  max_conditions 5", False),  # 1 + 5 fits
    ("max_complexity 3", False),                    # the default max_conditions is not the user's
])
def test_max_conditions_beyond_what_max_complexity_lets_a_rule_hold_is_a_warning(table, tmp_path, params, warned):
    # it was partly ignored without a word, where the checker refuses a parameter the fit ignores
    table.to_csv(tmp_path / "d.csv", index=False)
    text = BASE.format(path=tmp_path / "d.csv") + f"model rule_set {{ {params} }}\nevaluate {{ none }}\n"
    found = [w for w in plan_of(text, table).warnings if "max_conditions" in w.message]
    if not warned:
        assert found == []
        return
    (warning,) = found
    assert warning.message == ("max_conditions 5 cannot be reached under max_complexity 3: a rule's complexity is "
                               "1 plus its conditions, so a rule holds at most 2 conditions")
    assert (warning.span.line, warning.span.column, warning.severity) == (6, 51, "warning")  # at the 5


@pytest.fixture
def written_table(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"age": rng.integers(18, 70, n), "sex": rng.choice(["F", "M"], n),
                          "flag": rng.choice(["true", "false"], n), "y": rng.choice(["true", "false"], n)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    return frame


def plan_text(tmp_path, written_table, body):
    head = f'spec s\ndata "{tmp_path / "d.csv"}"\ntarget y positive "true"\nprotected sex\nfeatures {{ age }}\n'
    return compile_spec(parse_spec(head + body, "t.fair"), written_table).describe()


def test_the_plan_prints_every_digit_the_spec_wrote(tmp_path, written_table):
    # :g kept six digits: a sweep over two bounds printed "<= 0.05" twice, and a time limit of
    # 1234567 s read "1.23457e+06s"
    text = plan_text(tmp_path, written_table, "fairness equal_opportunity <= [0.05000001, 0.05]\nmodel tree\n"
                                      "solver { time_limit 1234567s  mip_gap 0.00012345678 }\n"
                                      "evaluate { holdout 0.123456789 }\n")
    assert "fairness[0] equal_opportunity <= 0.05000001\n" in text
    assert "fairness[1] equal_opportunity <= 0.05\n" in text
    assert "time_limit=1234567s threads=1* mip_gap=0.00012345678 " in text
    assert "holdout     0.123456789 of rows" in text


def test_the_plan_writes_true_as_the_spec_does(tmp_path, written_table):
    # "positive class True" and "flag in [True, False]": Python's spelling, not the spec's
    written_table["y"] = written_table["y"] == "true"
    written_table["flag"] = written_table["flag"] == "true"
    written_table.to_csv(tmp_path / "d.csv", index=False)
    head = (f'spec s\ndata "{tmp_path / "d.csv"}" where flag in [true, false]\ntarget y positive true\n'
            "protected sex\nfeatures { age }\nmodel tree\n")
    text = compile_spec(parse_spec(head, "t.fair"), pd.read_csv(tmp_path / "d.csv")).describe()
    assert "keep rows   flag in [true, false]\n" in text and "(positive class true)" in text


@pytest.mark.parametrize("fairness, note", [("fairness equal_opportunity penalty 0.5\n", True),
                                            ("", True), ("fairness equal_opportunity <= 0.1\n", False)])
def test_a_tree_without_a_bound_says_its_solver_limits_act_on_nothing(tmp_path, written_table, fairness, note):
    # specs/adult_tree.fair printed "time_limit=60s ... mip_gap=0.0001" for a tree that runs no MIP
    text = plan_text(tmp_path, written_table, fairness + "model tree\n")
    assert "time_limit=60s" in text
    assert ("no leaf-relabelling MIP runs: time_limit and mip_gap act on nothing" in text) == note
