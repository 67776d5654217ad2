"""Checker tests against small in-memory tables, and the data-free checks."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest


from fairspec.dsl import check, check_spec, parse_spec
from fairspec.errors import SpecSemanticError
from fairspec.registry.families import FAMILIES
from fairspec.registry.criteria import CRITERIA
from fairspec.plan.compile import compile_spec


def table(**overrides) -> pd.DataFrame:
    columns = {
        "age": [25, 32, 47, 51, 19, 38],
        "income": [1.5, np.nan, 3.0, 2.0, 0.5, 4.0],
        "sex": ["F", "M", "F", "M", "F", "M"],
        "race": ["a", "b", "a", "b", "c", "a"],
        "city": ["x", "y", "x", "z", "y", "x"],
        "label": [1, 0, 1, 0, 0, 1],
    }
    columns.update(overrides)
    return pd.DataFrame(columns)


def spec(*lines: str, **statements: str) -> str:
    base = {
        "data": 'data "t.csv"',
        "target": "target label positive 1",
        "protected": "protected sex",
        "features": "features { age numeric  income numeric  city categorical }",
        "model": "model baseline",
    }
    base.update(statements)
    return "spec t\n" + "\n".join([*base.values(), *lines]) + "\n"


def problems(text: str, data: pd.DataFrame | None = None) -> list:
    """The diagnostics ``check_spec`` raises (an empty list if the spec is fine)."""
    doc = parse_spec(text, "t.fair")
    try:
        check_spec(doc, data)
    except SpecSemanticError as error:
        return error.diagnostics
    return []


def messages(text: str, data: pd.DataFrame | None = None) -> list[str]:
    return [d.message for d in problems(text, data)]


def test_valid_spec_passes_with_and_without_data():
    assert problems(spec(), table()) == []
    assert problems(spec(), None) == []


def test_unknown_column_suggests_the_closest_name():
    (diag,) = problems(spec(features="features { agee numeric }"), table())
    assert diag.message == check.UNKNOWN_COLUMN.format(column="agee", role="feature")
    assert diag.hint == "did you mean 'age'?"
    assert (diag.span.line, diag.span.column) == (5, 12)


def test_unknown_column_without_close_name_lists_the_columns():
    (diag,) = problems(spec(protected="protected zzzzzz"), table())
    assert diag.hint.startswith("the data has the columns: age, income, sex")


def test_without_a_table_column_names_are_not_checked():
    assert problems(spec(features="features { nope numeric }", protected="protected nada"), None) == []


@pytest.mark.parametrize("positive, column", [
    ("1", [1, 0, 1, 0, 0, 1]),                       # int column, int positive
    ('"1"', [1, 0, 1, 0, 0, 1]),                     # int column, text positive
    ("1", ["1", "0", "1", "0", "0", "1"]),           # text column, int positive
    ('"yes"', ["yes", "no", "yes", "no", "no", "yes"]),
    ("true", [True, False, True, False, False, True]),
    ("1", [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
])
def test_positive_class_is_compared_as_the_column_type(positive, column):
    assert problems(spec(target=f"target label positive {positive}"), table(label=column)) == []


def test_positive_class_absent():
    (diag,) = problems(spec(target="target label positive 2"), table())
    assert diag.message == check.POSITIVE_ABSENT.format(positive=2, column="label", values="0, 1")
    assert (diag.span.line, diag.span.column) == (3, 23)


def test_target_not_binary_is_judged_after_the_filters():
    labels = [1, 0, 1, 0, 2, 1]  # the 2 is on the row with race c
    msgs = messages(spec(), table(label=labels))
    # each class with its rows and first line: the stray 2 can be found in the file
    assert msgs == [check.TARGET_NOT_BINARY.format(column="label", count=3, values="0 (2 rows, first on line 3), "
                                                   "1 (3 rows, first on line 2), 2 (1 row, first on line 6)")]
    assert messages(spec(data='data "t.csv" where race in ["a", "b"]'), table(label=labels)) == []


def test_target_missing_values_are_reported():
    assert messages(spec(), table(label=[1, 0, np.nan, 0, 0, 1])) == [
        check.TARGET_HAS_MISSING.format(column="label", count=1, line=4)]


def test_protected_attribute_with_missing_values_and_a_single_group():
    data = table(race=["a", None, "a", "b", "b", "a"])
    (diag,) = problems(spec(protected="protected race"), data)
    assert diag.message == check.PROTECTED_HAS_MISSING.format(column="race", count=1, line=3)
    assert diag.hint == 'drop those rows with a where filter, e.g. where race in ["a", "b"]'
    one = messages(spec(data='data "t.csv" where sex == "F"'), table())
    assert one == [check.PROTECTED_ONE_GROUP.format(column="sex", group="F")]


def test_intersectional_protected_attributes_are_each_checked():
    assert messages(spec(protected="protected sex * race"), table(race=["a"] * 6)) == [
        check.PROTECTED_ONE_GROUP.format(column="race", group="a")]


def test_numeric_feature_on_a_text_column():
    (diag,) = problems(spec(features="features { city numeric }"), table())
    assert diag.message == check.NUMERIC_NOT_NUMERIC.format(column="city", examples="'x', 'y', 'z'", line=2)
    # numbers stored as text are accepted; untyped and categorical features never complain
    assert problems(spec(features="features { city numeric }"), table(city=["1", "2", "3", "4", "5", "6"])) == []
    assert problems(spec(features="features { city  sex categorical }"), table()) == []


def test_filters_select_the_rows_the_checks_see():
    # after `age >= 40` only rows 47/F, 51/M remain: two groups, fine; after `age >= 48` only 51/M
    assert messages(spec(data='data "t.csv" where age >= 40'), table()) == [  # two rows cannot be split
        check.HOLDOUT_TOO_FEW_ROWS.format(value=0.3, rows=2, train=1, test=1)]
    assert messages(spec("evaluate none", data='data "t.csv" where age >= 40'), table()) == []
    assert messages(spec(data='data "t.csv" where age >= 48', target="target label positive 0"), table()) == [
        check.TARGET_NOT_BINARY.format(column="label", count=1, values="0 (1 row, first on line 5)"),
        check.PROTECTED_ONE_GROUP.format(column="sex", group="M")]
    # a number written as text matches a numeric column; a text column matches its values
    assert messages(spec(data='data "t.csv" where age in ["25", "19"] and city != "z"'), table()) == [
        check.PROTECTED_ONE_GROUP.format(column="sex", group="F")]


def test_not_equal_keeps_rows_where_the_column_is_missing():
    # training filters with fairspec.data.table.value_mask, which keeps missing cells for != / not in
    data = table(race=["a", None, "a", "b", "c", "a"])
    assert messages(spec(data='data "t.csv" where race != "c"', protected="protected race"), data) == [
        check.PROTECTED_HAS_MISSING.format(column="race", count=1, line=3)]
    assert messages(spec(data='data "t.csv" where race in ["a", "b"]', protected="protected race"), data) == []


def test_filter_problems_and_empty_result():
    diags = problems(spec(data='data "t.csv" where city < 3 and age == "old" and age >= "30"'), table())
    assert [d.message for d in diags] == [check.FILTER_ORDER_ON_TEXT.format(op="<", column="city"),
                                          check.FILTER_NOT_NUMBER.format(column="age", value="'old'"),
                                          check.FILTER_NOT_NUMBER.format(column="age", value="'30'")]
    assert [d.span.column for d in diags] == [20, 40, 57]
    assert diags[2].hint == check.HINT_FILTER_UNQUOTE
    assert messages(spec(data='data "t.csv" where age > 100'), table()) == [check.NO_ROWS_LEFT.format(rows=6)]


def test_role_conflicts_need_no_data():
    text = spec("privileged { income  income }", features="features { age  label  income }",
                protected="protected sex * label", model="model tree")
    msgs = messages(text)
    assert check.TARGET_AS_FEATURE.format(column="label") in msgs
    assert check.TARGET_AS_PROTECTED.format(column="label") in msgs
    assert check.PRIVILEGED_IN_FEATURES.format(column="income") in msgs
    assert check.DUPLICATE_COLUMN.format(column="income", block="privileged") in msgs
    assert check.PRIVILEGED_UNUSED.format(family="tree", users="privileged_boost") in msgs


def test_protected_attribute_may_also_be_a_feature():
    assert problems(spec(features="features { age numeric  sex categorical }"), table()) == []


def test_empty_features_block():
    assert messages(spec(features="features { }")) == [check.NO_FEATURES]


@pytest.mark.parametrize("line, ok", [
    ("fairness equal_opportunity <= 0", True),
    ("fairness equal_opportunity <= 1", True),
    ("fairness equal_opportunity <= 1.01", False),
    ("fairness equal_opportunity <= -0.1", False),
    ("fairness equal_opportunity penalty 0", True),
    ("fairness equal_opportunity penalty 100", True),
    ("fairness equal_opportunity penalty -0.01", False),
])
def test_fairness_value_ranges(line, ok):
    assert (problems(spec(line, model="model tree")) == []) is ok


def test_bound_sweep_reports_each_bad_point_at_its_position():
    diags = problems(spec("fairness equal_opportunity <= [0.1, 2, 3]", model="model tree"))
    assert [(d.span.line, d.span.column) for d in diags] == [(7, 37), (7, 40)]


@pytest.mark.parametrize("line, value, column", [("fairness equal_opportunity <= [0.1, 0.05, 0.1]", "bound 0.1", 43),
                                                 ("fairness equal_opportunity penalty [1, 1.0]", "penalty 1", 40)])
def test_a_sweep_value_given_twice_is_an_error_at_the_repeat(line, value, column):
    # [0.1, 0.1] trained the same model twice, as point-0 and point-1 (found in review)
    (diag,) = problems(spec(line, model="model tree"))
    assert diag.message.startswith(f"fairness {value} is listed twice") and (diag.span.line, diag.span.column) == (7, column)


def test_unknown_criterion_and_family_suggest_names():
    (crit,) = problems(spec("fairness demographic_parit"))
    assert crit.message == check.UNKNOWN_CRITERION.format(name="demographic_parit")
    assert crit.hint == "did you mean 'demographic_parity'?"
    (family,) = problems(spec(model="model rule_sets"))
    assert family.message == check.UNKNOWN_FAMILY.format(name="rule_sets")
    assert family.hint == "did you mean 'rule_set'?"


def test_evaluate_none_before_a_flag_is_told_none_takes_no_other_parameter():
    # "write none true stratify ..." had led to a second error: none cannot be combined with stratify
    text = spec(model="model tree").replace("model tree", "model tree\nevaluate { none stratify }")
    (diag,) = problems(text)
    assert diag.message == check.EVALUATE_NONE_WITH_OTHERS.format(name="stratify") and diag.hint is None


@pytest.mark.parametrize("written, number", [("1e3", 1000), ("7.0", 7)])
def test_a_whole_number_written_as_a_decimal_is_told_how_to_write_it(written, number):
    (diag,) = problems(spec(f"solver {{ seed {written} }}", model="model rule_set"))
    assert f"expects a whole number, got the number {number}.0" in diag.message
    assert diag.hint == check.HINT_WRITE_WHOLE.format(number=number)


@pytest.mark.parametrize("name, ours", [("statistical_parity", "demographic_parity"),
                                        ("predictive_equality", "fpr_parity"), ("equal_odds", "equalized_odds")])
def test_another_name_of_a_criterion_gets_ours_not_the_closest_spelling(name, ours):
    # "statistical_parity" had been answered "did you mean 'accuracy_parity'?", another criterion
    (crit,) = problems(spec(f"fairness {name} <= 0.1"))
    assert crit.message == check.UNKNOWN_CRITERION.format(name=name)
    assert crit.hint == f"'{name}' is called '{ours}' here" and ours in CRITERIA


def test_a_not_implemented_family_gets_a_clear_error(monkeypatch):
    # every family the language names is implemented now: the registry is made to name one that is not
    monkeypatch.setitem(FAMILIES, "mip_forest", dataclasses.replace(FAMILIES["mip_forest"], implemented=False))
    implemented = ", ".join(n for n, f in FAMILIES.items() if f.implemented)
    assert "mip_forest" not in implemented
    assert messages(spec(model="model mip_forest")) == [
        f"model family 'mip_forest' is not implemented yet in fairspec 0.1; implemented: {implemented}"]


def test_criterion_forms_follow_the_family_registry():
    # every (family, criterion, form) combination is accepted exactly when the registry says so
    for name, family in FAMILIES.items():
        if not family.implemented:
            continue
        for criterion in ("demographic_parity", "equal_opportunity", "fpr_parity", "equalized_odds",
                          "accuracy_parity"):
            for form, line in (("audit", ""), ("bound", " <= 0.1"), ("penalty", " penalty 1")):
                msgs = messages(spec(f"fairness {criterion}{line}", model=f"model {name}"))
                assert (msgs == []) is family.can_enforce(criterion, form), (name, criterion, form, msgs)


def test_unenforceable_criterion_says_what_the_family_supports():
    (diag,) = problems(spec("fairness equal_opportunity <= 0.1"))
    assert diag.message == ("model family 'baseline' cannot enforce equal_opportunity as a bound; "
                            "'baseline' enforces no criterion (it can only audit one)")
    assert diag.hint == ("write `fairness equal_opportunity` alone to measure it without enforcing it; "
                         "families that enforce it as a bound: tree, rule_set, mip_forest, mp_boost, privileged_boost")


@pytest.mark.parametrize("model, expected", [
    ("model tree { depth 31 }", check.PARAM_OUT_OF_RANGE.format(
        name="depth", owner="model 'tree'", bounds="between 1 and 30", value=31)),
    ("model tree { depth 2.5 }", check.PARAM_WRONG_TYPE.format(
        name="depth", owner="model 'tree'", expected="a whole number", got="the number 2.5")),
    ("model tree { depth 3.0 }", check.PARAM_WRONG_TYPE.format(  # it said "got the number 3"
        name="depth", owner="model 'tree'", expected="a whole number", got="the number 3.0")),
    ("model tree { depth }", check.PARAM_WRONG_TYPE.format(
        name="depth", owner="model 'tree'", expected="a whole number", got="no value")),
    ("model tree { criterion gain }", check.PARAM_NOT_A_CHOICE.format(
        name="criterion", owner="model 'tree'", choices="gini, entropy", value="'gain'")),
    ("model tree { criterion true }", check.PARAM_NOT_A_CHOICE.format(  # not Python's True
        name="criterion", owner="model 'tree'", choices="gini, entropy", value="true")),
    ("model tree { forest { bootstrap 1 } }", check.PARAM_WRONG_TYPE.format(
        name="bootstrap", owner="block 'forest' of model 'tree'", expected="true or false", got="the number 1")),
    ("model tree { forest { tres 5 } }", check.UNKNOWN_PARAM.format(
        name="tres", owner="block 'forest' of model 'tree'")),
    ("model tree { forest }", check.PARAM_WRONG_TYPE.format(
        name="forest", owner="model 'tree'", expected="a block { ... }", got="no value")),
    ("model tree { depth { } }", check.PARAM_WRONG_TYPE.format(
        name="depth", owner="model 'tree'", expected="a whole number", got="a block")),
    ("model tree { depth 3 depth 4 }", check.DUPLICATE_PARAM.format(name="depth", owner="model 'tree'")),
    ("model baseline { C 0.5 learner logistic }", None),
    ("model rule_set { max_complexity 30 max_conditions 4 thresholds 10 }", None),
    ("model rule_set { complexity_cost 0.0002 }", None),
    ("model rule_set { complexity_cost -0.1 }", check.PARAM_OUT_OF_RANGE.format(
        name="complexity_cost", owner="model 'rule_set'", bounds="between 0 and 1", value="-0.1")),
])
def test_model_parameters_are_checked_against_the_registry(model, expected):
    assert messages(spec(model=model)) == ([] if expected is None else [expected])


def test_a_flag_followed_by_another_parameter_is_one_error_at_the_flag():
    # "bootstrap max_features log2" gave "expects true or false, got 'max_features'" and
    # "unknown parameter 'log2'", without saying to write bootstrap true (found in review)
    (diag,) = problems(spec(model="model tree { forest { bootstrap max_features log2 } }"))
    assert diag.message == check.FLAG_TAKES_NAME.format(name="bootstrap", owner="block 'forest' of model 'tree'",
                                                        next="max_features")
    assert diag.hint == "write bootstrap true max_features ..."
    assert problems(spec(model="model tree { forest { bootstrap true max_features log2 } }")) == []
    assert problems(spec(model="model tree { forest { max_features log2 bootstrap } }")) == []


def test_unknown_model_parameter_hint_lists_allowed_names():
    (diag,) = problems(spec(model="model rule_set { max_rules 3 }"))
    assert diag.hint == "model 'rule_set' takes: max_complexity, max_conditions, thresholds, complexity_cost"


@pytest.mark.parametrize("solver, expected", [
    ("solver { time_limit 2m threads 2 mip_gap 0.01 seed 7 }", None),
    ("solver { time_limit 30 }", None),
    ("solver { time_limit 0s }", check.PARAM_OUT_OF_RANGE.format(
        name="time_limit", owner="solver", bounds="between 0.01s and 2592000s", value="0s")),
    ("solver { threads 0 }", check.PARAM_OUT_OF_RANGE.format(
        name="threads", owner="solver", bounds="between 1 and 256", value=0)),
    ("solver { mip_gap 2 }", check.PARAM_OUT_OF_RANGE.format(
        name="mip_gap", owner="solver", bounds="between 0 and 1", value=2)),
    ("solver { verbose true }", check.UNKNOWN_PARAM.format(name="verbose", owner="solver")),
    ("solver { time_limit 30s clock_cap false }", None),
    ("solver { clock_cap }", None),
    ("solver { clock_cap 0 }", check.PARAM_WRONG_TYPE.format(
        name="clock_cap", owner="solver", expected="true or false", got="the number 0")),
    # a limit shown in full, not as 2.14748e+09
    ("solver { time_limit 1e300 }", check.PARAM_OUT_OF_RANGE.format(
        name="time_limit", owner="solver", bounds="between 0.01s and 2592000s", value="1e+300")),
    ("solver { seed 2147483648 }", check.PARAM_OUT_OF_RANGE.format(
        name="seed", owner="solver", bounds="between 0 and 2147483647", value=2147483648)),
])
def test_solver_parameters(solver, expected):
    assert messages(spec(solver, model="model rule_set")) == ([] if expected is None else [expected])


@pytest.mark.parametrize("model", ["model tree", "model rule_set"])
def test_clock_cap_false_is_accepted_by_the_families_whose_stages_stop_by_work_limits(model):
    assert messages(spec("solver { time_limit 5s  clock_cap false }", model=model)) == []


def test_clock_cap_false_is_refused_where_no_work_limit_could_stop_the_fit():
    model = "model baseline"
    text = spec("solver { seed 5  clock_cap false }", model=model)
    (diag,) = problems(text)
    # the baseline has no time limit at all: "its time limit can only be a clock" was wrong (found in review)
    assert diag.message == check.CLOCK_CAP_NO_SOLVER.format(family=model.split()[1])
    assert "no time limit" in diag.message and "can only be a clock" not in diag.message
    assert diag.hint == check.HINT_CLOCK_CAP.format(families="tree, rule_set, mip_forest")
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines, 1) if line.startswith("solver"))
    assert (diag.span.line, diag.span.column) == (row, lines[row - 1].index("false") + 1)


@pytest.mark.parametrize("setting", ["time_limit 5s", "threads 2", "mip_gap 0.01", "clock_cap true"])
def test_a_solver_setting_the_baseline_never_reads_is_refused_at_its_name(setting):
    # the plan had printed "time_limit=5s threads=2 mip_gap=0.01" for scikit-learn learners,
    # which read none of them, as a reviewer would read a bound on the fit
    text = spec(f"solver {{ seed 5  {setting} }}", model="model baseline")
    (diag,) = problems(text)
    name = setting.split()[0]
    assert diag.message == check.SOLVER_SETTING_UNUSED.format(name=name, family="baseline")
    assert diag.hint == "'baseline' reads only 'seed' from the solver block"
    line = text.splitlines()[diag.span.line - 1]
    assert line[diag.span.column - 1:].startswith(setting)
    for model in ("model tree", "model rule_set"):
        assert messages(spec(f"solver {{ seed 5  {setting} }}", model=model)) == []


@pytest.mark.parametrize("evaluate, expected", [
    ("evaluate { holdout 0.3 stratify seed 7 }", []),
    ("evaluate { cv 10 seed 1 }", []),
    ("evaluate none", []),
    ("evaluate { holdout 0 }", [check.HOLDOUT_OUT_OF_RANGE.format(value=0)]),
    ("evaluate { holdout 1 }", [check.HOLDOUT_OUT_OF_RANGE.format(value=1)]),
    ("evaluate { cv 1 }", [check.CV_TOO_FEW_FOLDS.format(value=1)]),
    ("evaluate { cv 5 holdout 0.2 }", [check.EVALUATE_HOLDOUT_AND_CV]),
    ("evaluate { none seed 3 }", [check.EVALUATE_NONE_WITH_OTHERS.format(name="seed")]),
    ("evaluate { folds 5 }", [check.UNKNOWN_PARAM.format(name="folds", owner="evaluate")]),
])
def test_evaluate_parameters(evaluate, expected):
    assert messages(spec(evaluate)) == expected


@pytest.mark.parametrize("line, model, expected", [
    ("missing mia", "model tree", []),
    ("missing fractional", "model tree", []),
    ("missing impute(knn k=5)", "model baseline", []),
    ("missing drop", "model rule_set", []),
    ("missing trinary", "model rule_set", [check.MISSING_UNSUPPORTED.format(
        family="rule_set", strategy="trinary", supported="mia, impute(mean|median|knn), drop")]),
    ("missing mia", "model baseline", [check.MISSING_UNSUPPORTED.format(
        family="baseline", strategy="mia", supported="impute(mean|median|knn), drop")]),
    ("missing mai", "model tree", [check.UNKNOWN_MISSING.format(name="mai")]),
    ("missing impute(mode)", "model tree", [check.UNKNOWN_IMPUTE_METHOD.format(method="mode")]),
    ("missing impute(median k=3)", "model tree", [check.IMPUTE_K_NOT_KNN.format(method="median")]),
    ("missing impute(knn k=0)", "model tree", [check.IMPUTE_K_INVALID.format(k=0, largest=check.MAX_WHOLE_NUMBER)]),
    ("missing impute(knn k=2.5)", "model tree", [check.IMPUTE_K_INVALID.format(k=2.5, largest=check.MAX_WHOLE_NUMBER)]),
])
def test_missing_strategies_against_families(line, model, expected):
    assert messages(spec(line, model=model)) == expected


def test_all_problems_are_collected_in_spec_order():
    text = "\n".join([
        "spec t",
        'data "t.csv" where rase in ["a"]',
        "target label positive 3",
        "protected sex",
        "features { agee numeric  city numeric }",
        "fairness demographic_parity <= 1.5",
        "model tree { depth 0 }",
        "evaluate { cv 1 }",
    ])
    diags = problems(text, table())
    assert [(d.span.line, d.span.column) for d in diags] == [
        (2, 20), (3, 23), (5, 12), (5, 26), (6, 32), (7, 20), (8, 15)]
    assert [d.message.split(" ")[0] for d in diags] == [
        "unknown", "positive", "unknown", "feature", "fairness", "parameter", "cv"]
    rendered = SpecSemanticError(diags, text, "t.fair").render()
    assert rendered.count("t.fair:") == 7


@pytest.mark.parametrize("evaluate, rows, expected", [
    ("evaluate { holdout 0.5 }", 6, []),
    ("evaluate { holdout 0.9 }", 6, [check.HOLDOUT_TOO_FEW_ROWS.format(value=0.9, rows=6, train=0, test=6)]),
    ("", 2, [check.HOLDOUT_TOO_FEW_ROWS.format(value=0.3, rows=2, train=1, test=1)]),  # the default hold-out
    ("evaluate { cv 6 }", 6, []),
    ("evaluate { cv 7 }", 6, [check.CV_MORE_FOLDS_THAN_ROWS.format(folds=7, rows=6)]),
    ("evaluate { cv 7 }", 4, [check.CV_MORE_FOLDS_THAN_ROWS.format(folds=7, rows=4)]),
    ("evaluate none", 2, []),
])
def test_the_evaluation_must_be_able_to_divide_the_rows_used(evaluate, rows, expected):
    # these passed the checker and stopped training with an internal error
    data = table().iloc[:rows]
    assert messages(spec(evaluate, model="model tree"), data) == expected


def test_missing_drop_must_leave_rows_of_both_classes():
    text = spec("missing drop", model="model tree")
    assert messages(text, table()) == []
    (diag,) = problems(text, table(income=[np.nan] * 6))
    assert diag.message == check.DROP_LEAVES_NO_ROWS.format(rows=6)
    assert diag.hint == check.HINT_DROP.format(features="income (100%)")
    assert diag.span.line == text.splitlines().index("missing drop") + 1
    only_negatives = table(income=[np.nan, 1.0, np.nan, 2.0, 0.5, np.nan])  # the positives are rows 0, 2, 5
    assert messages(text, only_negatives) == [check.DROP_LEAVES_ONE_CLASS.format(label="positive", column="label",
                                                                                  kept=3)]
    # the rows missing drop removes count for the evaluation too
    assert messages(spec("missing drop", "evaluate { cv 6 }", model="model tree"), table()) == [
        check.CV_MORE_FOLDS_THAN_ROWS.format(folds=6, rows=5)]


def test_an_empty_output_path_is_refused_not_ignored():
    text = spec('output ""')
    (diag,) = problems(text)
    assert diag.message == check.OUTPUT_EMPTY and diag.span.line == len(text.splitlines())


@pytest.mark.parametrize("model, refused", [
    ("model baseline { learner logistic  C 0.5 }", None),
    ("model baseline { depth 3 }", None),
    ("model baseline { learner logistic  depth 3 }", ("depth", "logistic", "")),
    ("model baseline { C 5 }", ("C", "tree", " (the default)")),
    # a learner the baseline has not is refused at the learner alone: `depth` had also been "not
    # applicable with learner True" (a bare flag) or "with learner learner"
    ("model baseline { depth 3 learner }", "learner"),
    ("model baseline { depth 3 learner forest }", "learner"),
])
def test_a_parameter_of_the_other_learner_is_refused_not_ignored(model, refused):
    if refused == "learner":
        (message,) = messages(spec(model=model))
        assert message.startswith("parameter 'learner' of model 'baseline' ")
        return
    expected = [] if refused is None else [check.PARAM_NOT_APPLICABLE.format(
        name=refused[0], owner="model 'baseline'", other="learner", needed="tree" if refused[0] == "depth" else "logistic",
        actual=refused[1], default=refused[2])]
    assert messages(spec(model=model)) == expected


@pytest.mark.parametrize("missing, refused", [
    ("missing trinary", None),
    ("missing trinary_mia", None),
    ("missing mia", "mia"),
    ("missing impute(median)", "impute(median)"),
    ("", "mia (the default)"),
])
def test_middle_growth_under_a_strategy_without_a_middle_child_is_refused_not_ignored(missing, refused):
    # only Trinary splits have a middle child to grow; under mia the setting was accepted and ignored
    text = spec(*([missing] if missing else []), model="model tree { middle_growth full }")
    found = problems(text)
    if refused is None:
        assert found == []
    else:
        (diag,) = found
        actual, _, default = refused.partition(" ")
        assert diag.message == check.PARAM_NOT_FOR_MISSING.format(
            name="middle_growth", owner="model 'tree'", needed="trinary or trinary_mia", actual=actual,
            default=f" {default}" if default else "")
        assert diag.span is not None and diag.span.line == text.splitlines().index("model tree { middle_growth full }") + 1


def test_a_data_path_naming_a_directory_says_so(tmp_path):
    from fairspec.dsl import load as load_module

    (tmp_path / "data").mkdir()
    spec_file = tmp_path / "s.fair"
    spec_file.write_text(spec(data='data "data"'))
    with pytest.raises(SpecSemanticError) as info:
        load_module.resolve_data_path(load_module.load_spec(spec_file))
    (diag,) = info.value.diagnostics
    assert diag.message == load_module.DATA_IS_A_DIRECTORY.format(path=tmp_path / "data")


def test_missing_drop_is_checked_for_what_it_leaves_each_group():
    # the groups' checks ran before the drop: a group it emptied of positives (or of every row)
    # passed, and the fit then measured the gap without it, or failed without a location
    text = spec("missing drop", "fairness equal_opportunity", model="model tree")
    no_female_positive = table(income=[np.nan, 1.0, np.nan, 2.0, 0.5, 4.0])  # F rows 0, 2, 4; positives 0, 2, 5
    (diag,) = problems(text, no_female_positive)
    assert diag.message.startswith("equal_opportunity compares TPRs, but group 'F' of 'sex' has no positive rows")
    only_male = table(income=[np.nan, 1.0, np.nan, 2.0, np.nan, 4.0])
    assert messages(text, only_male) == [check.DROP_LEAVES_ONE_GROUP.format(columns="sex")]


@pytest.mark.parametrize("lines, model, shown", [
    (["fairness equal_opportunity <= 1.000001"], "model tree", "fairness bound 1.000001 is outside [0, 1]"),
    (["fairness equal_opportunity penalty 1000000000.5"], "model tree",
     "fairness penalty 1000000000.5 is larger than 1e9"),
    (["solver { mip_gap 1.0000001 }"], "model rule_set", "must be between 0 and 1, got 1.0000001"),
    (["solver { time_limit 2592000.5s }"], "model rule_set", "got 2592000.5s"),
    (["fairness equal_opportunity <= [0.0500000001, 0.0500000001]"], "model tree",
     "fairness bound 0.0500000001 is listed twice"),
])
def test_a_number_out_of_range_is_printed_as_written_not_rounded_into_the_range(lines, model, shown):
    # six digits (:g) printed 1.000001 as 1, "outside [0, 1]" of a value inside it (found in review)
    assert any(shown in m for m in messages(spec(*lines, model=model), None)), messages(spec(*lines, model=model))


def _write_scores_with_a_true_word(path):
    """A numeric column (LSAT-like scores, many values) whose one true/false word sits in a row
    of the group a `where` filter drops; pandas then reads the whole column as text."""
    rng = np.random.default_rng(1)
    n = 300
    score = rng.integers(20, 48, n).astype(object)
    race = np.where(np.arange(n) % 10 == 0, "Other", np.where(np.arange(n) % 2 == 0, "White", "Black"))
    score[0] = "true"  # row 0 is an "Other" row
    pd.DataFrame({"score": score, "gpa": rng.normal(3, 0.3, n).round(2), "race": race,
                  "sex": rng.choice(["female", "male"], n), "y": rng.integers(0, 2, n)}).to_csv(path, index=False)


SPEC = ('spec s\ndata "{path}"{where}\ntarget y positive 1\nprotected sex\nfeatures {{ score gpa }}\n'
        'model tree\n')


@pytest.mark.parametrize("where", ["", ' where race != "Other"', ' where race in ["White", "Black"]'])
def test_an_untyped_features_kind_does_not_depend_on_the_where_filter(tmp_path, where):
    # law.csv.gz with one "true" among LSAT's numbers, in an "Other" row: without a filter LSAT was
    # numeric; with `where race != "Other"` it became categorical, one unordered category per score
    # (116 of them in the report's tree), with no warning (found in the walkthrough review)
    path = tmp_path / "d.csv"
    _write_scores_with_a_true_word(path)
    plan = compile_spec(parse_spec(SPEC.format(path=path, where=where), "t.fair"))
    assert [(f.name, f.kind) for f in plan.data.features] == [("score", "numeric"), ("gpa", "numeric")]


def test_a_small_intersectional_groups_hint_names_every_protected_column(tmp_path):
    # adult, `protected sex * race`, `equal_opportunity <= 0.1`: the warning named 'Female & Other'
    # and 'Female & Amer-Indian-Eskimo' and hinted `where sex in [...]`, a filter that can leave
    # them out only with every female row; race is the column that sets them apart (found in
    # the walkthrough review)
    rng = np.random.default_rng(2)
    n = 2000
    race = np.where(np.arange(n) % 250 == 0, "Other", rng.choice(["White", "Black"], n))
    sex = np.where(np.arange(n) % 2 == 0, "Female", "Male")
    pd.DataFrame({"age": rng.integers(18, 70, n), "sex": sex, "race": race,
                  "y": np.where(np.arange(n) % 4 == 0, 1, rng.integers(0, 2, n))}).to_csv(tmp_path / "d.csv",
                                                                                       index=False)
    text = (f'spec s\ndata "{tmp_path / "d.csv"}"\ntarget y positive 1\nprotected sex * race\n'
            'features { age }\nfairness equal_opportunity <= 0.1\nmodel tree\n')
    plan = compile_spec(parse_spec(text, "t.fair"))
    [warning] = [w for w in plan.warnings if "finer than one training row" in w.message]
    assert "'Female & Other'" in warning.message
    assert "where race in [...]" in warning.hint and "where sex in [...]" in warning.hint


def test_a_did_you_mean_hint_writes_a_column_name_in_backquotes_when_the_spec_must(tmp_path):
    # adult's column written `native-country`, the spec `features { native_country }`: the hint
    # "did you mean 'native-country'?", pasted as written, does not parse (found in the
    # walkthrough review)
    pd.DataFrame({"native-country": ["a", "b"] * 20, "sex": ["F", "M"] * 20, "y": [0, 0, 1, 1] * 10}).to_csv(
        tmp_path / "d.csv", index=False)
    text = (f'spec s\ndata "{tmp_path / "d.csv"}"\ntarget y positive 1\nprotected sex\n'
            'features { native_country }\nmodel tree\n')
    with pytest.raises(SpecSemanticError) as info:
        compile_spec(parse_spec(text, "t.fair"))
    [diagnostic] = info.value.diagnostics
    assert "unknown column 'native_country'" in diagnostic.message
    assert diagnostic.hint.startswith("did you mean `native-country`?")


def test_a_target_the_where_filters_leave_one_class_of_is_not_told_to_add_a_filter(tmp_path):
    # law, `data "law.csv.gz" where pass_bar == 1`: the error's hint was "restrict the rows with a
    # where filter (e.g. where pass_bar in [...])", when the filter is what left one class (found
    # in the walkthrough review)
    pd.DataFrame({"age": range(40), "sex": ["F", "M"] * 20, "y": [0, 0, 1, 1] * 10}).to_csv(
        tmp_path / "d.csv", index=False)
    text = (f'spec s\ndata "{tmp_path / "d.csv"}" where y == 1\ntarget y positive 1\nprotected sex\n'
            'features { age }\nmodel tree\n')
    with pytest.raises(SpecSemanticError) as info:
        compile_spec(parse_spec(text, "t.fair"))
    [diagnostic] = [d for d in info.value.diagnostics if "exactly two classes" in d.message]
    assert "where filter (e.g." not in diagnostic.hint
    assert "loosen" in diagnostic.hint and "0, 1" in diagnostic.hint


def test_a_target_of_three_classes_that_a_filter_leaves_one_of_is_not_told_to_loosen_the_filter(tmp_path):
    # loosening would only bring back the "exactly two classes" error
    pd.DataFrame({"age": range(30), "sex": ["F", "M"] * 15, "y": [0, 1, 2] * 10}).to_csv(tmp_path / "d.csv",
                                                                                        index=False)
    text = (f'spec s\ndata "{tmp_path / "d.csv"}" where y == 1\ntarget y positive 1\nprotected sex\n'
            'features { age }\nmodel tree\n')
    with pytest.raises(SpecSemanticError) as info:
        compile_spec(parse_spec(text, "t.fair"))
    [diagnostic] = [d for d in info.value.diagnostics if "exactly two classes" in d.message]
    assert "loosen" not in diagnostic.hint and "derive a binary column" in diagnostic.hint
