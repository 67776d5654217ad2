"""A model parameter written as a list (``depth [4, 5, 6]``): the calibration of a bound chooses
among its values.  Parsed as one value with each element located; refused, at the list or the
element, wherever nothing calibrates, on a second list, and for a value its parameter cannot take."""
from __future__ import annotations

import pytest

from fairspec.dsl import ast, check, check_spec, parse_spec
from fairspec.dsl.syntax_errors import describe_expected
from fairspec.errors import SpecSemanticError, SpecSyntaxError
from fairspec.plan.compile import model_choice, resolve_params
from fairspec.registry.families import FAMILIES

SPEC = """spec s
data "x.csv"
target y positive 1
protected g
features {{ a numeric }}
{fairness}
model tree {{ {params} }}
"""
BOUND = "fairness equal_opportunity <= 0.05"


def doc(params: str, fairness: str = BOUND):
    return parse_spec(SPEC.format(fairness=fairness, params=params))


def diagnostics(params: str, fairness: str = BOUND) -> list:
    with pytest.raises(SpecSemanticError) as caught:
        check_spec(doc(params, fairness))
    return caught.value.diagnostics


def at(diag) -> tuple[int, int]:
    return diag.span.line, diag.span.column


def test_a_list_parses_as_one_value_with_each_element_located():
    spec = doc("depth [4, 5, 6,]  min_samples_leaf 30  criterion [gini, \"entropy\"]").spec
    depth, leaf, criterion = spec.model.params
    assert depth == ast.Param("depth", ast.ValueList((4, 5, 6)))
    assert [(s.line, s.column) for s in depth.value.spans] == [(7, 21), (7, 24), (7, 27)]
    assert leaf == ast.Param("min_samples_leaf", 30)  # the next parameter is read as before
    assert criterion.value == ast.ValueList(("gini", "entropy"))  # a bare word or a quoted one


def test_a_parameter_named_as_a_statement_keyword_still_follows_a_list():
    # the list is a rule of the block alone: `data`, `model` after it are names, as after any value
    spec = parse_spec(SPEC.format(fairness=BOUND, params="depth [1, 2] criterion gini")).spec
    assert [p.name for p in spec.model.params] == ["depth", "criterion"]
    block = parse_spec('spec s data "x" target y positive 1 protected g features { a } '
                       'model tree { depth [1, 2] data 3 }').spec.model.params
    assert [(p.name, p.value) for p in block] == [("depth", ast.ValueList((1, 2))), ("data", 3)]


def test_a_spec_without_a_list_parses_as_before():
    spec = doc("depth 4 min_samples_leaf 30").spec
    assert spec.model.params == (ast.Param("depth", 4), ast.Param("min_samples_leaf", 30))


def test_a_list_with_no_name_before_it_is_a_syntax_error_at_the_list():
    with pytest.raises(SpecSyntaxError) as caught:
        doc("[4, 5]")
    (diag,) = caught.value.diagnostics
    assert diag.message == "found a list [...] without a parameter name before it, expected a parameter name"
    assert at(diag) == (7, 14)


def test_an_unclosed_block_names_the_list_after_the_block_s_own_brace():
    from fairspec.dsl.grammar import get_parser

    words = describe_expected(get_parser(), {"RBRACE", "NAME", "NUMBER", "LSQB", "DURATION", "TRUE", "FALSE"})
    assert words.startswith("'}', a name") and words.endswith("true/false or a list of values [...]")
    # outside a block '[' is a bracket as before (`fairness c <= [0.01, 0.02]`)
    assert describe_expected(get_parser(), {"LSQB", "NUMBER"}) == "'[' or a number"


def test_a_valid_list_under_a_bound_on_unseen_rows_is_accepted():
    check_spec(doc("depth [4, 5, 6] min_samples_leaf 30"))
    check_spec(doc("criterion [gini, entropy]"))
    check_spec(doc("depth [1, 3]", "fairness demographic_parity <= [0.02, 0.05]"))  # every point chooses


@pytest.mark.parametrize("fairness, why, hint", [
    ("", "the spec has no fairness statement",
     "write one value (depth 4), or add a bound on unseen rows, e.g. fairness equal_opportunity <= 0.05"),
    ("fairness equal_opportunity", "the fairness statement has no bound (it audits equal_opportunity)",
     "write one value (depth 4), or give the criterion a bound: fairness equal_opportunity <= 0.05"),
    ("fairness equal_opportunity penalty 0.5", "the fairness statement is a penalty, not a bound",
     "write one value (depth 4), or replace the penalty by a bound: fairness equal_opportunity <= 0.05"),
    ("fairness equal_opportunity <= 0.05 on train",
     "the bound holds `on train`, where it is met on the training rows without calibration",
     "write one value (depth 4), or leave out `on train` so the bound is calibrated on held-out rows"),
])
def test_a_list_where_nothing_calibrates_is_refused_at_the_list(fairness, why, hint):
    (diag,) = diagnostics("depth [4, 5]", fairness)
    assert diag.message == check.LIST_WITHOUT_CALIBRATION.format(name="depth", owner="model 'tree'", why=why)
    assert diag.message.endswith("nothing calibrates, so nothing chooses")
    assert at(diag) == (7, 20) and diag.span.end_column == 26
    assert diag.hint == hint


def test_a_single_value_list_is_refused_with_the_value_to_write():
    (diag,) = diagnostics("depth [4]")
    assert diag.message == check.LIST_TOO_SHORT.format(name="depth", owner="model 'tree'")
    assert at(diag) == (7, 20) and diag.hint == "write depth 4 (no brackets), or list another value"


@pytest.mark.parametrize("params, value, column", [("depth [4, 5, 4]", "4", 27), ("depth [4, 4.0]", "4", 24),
                                                   ("criterion [gini, entropy, gini]", "'gini'", 40)])
def test_a_repeated_value_is_refused_at_its_second_place(params, value, column):
    # 4 and 4.0 are one setting (the message writes the number as the checker reads it)
    (diag,) = diagnostics(params)
    name = params.split()[0]
    assert diag.message == check.LIST_VALUE_REPEATED.format(value=value, name=name, owner="model 'tree'")
    assert at(diag) == (7, column) and diag.hint == check.HINT_LIST_VALUE_REPEATED


def test_each_value_is_checked_as_a_single_value_at_its_own_place():
    zero, too_deep, half = diagnostics("depth [0, 31, 2.5, 3]")
    owner = "model 'tree'"
    assert zero.message == check.PARAM_OUT_OF_RANGE.format(name="depth", owner=owner, bounds="between 1 and 30",
                                                           value="0")
    assert at(zero) == (7, 21)
    assert too_deep.message.endswith("got 31") and at(too_deep) == (7, 24)
    assert half.message == check.PARAM_WRONG_TYPE.format(name="depth", owner=owner, expected="a whole number",
                                                         got="the number 2.5")
    assert at(half) == (7, 28)
    (word,) = diagnostics("criterion [gini, ginny]")
    assert word.message == check.PARAM_NOT_A_CHOICE.format(name="criterion", owner=owner, choices="gini, entropy",
                                                           value="'ginny'")
    assert at(word) == (7, 31)


def test_a_second_list_is_refused_at_it_naming_the_first():
    (diag,) = diagnostics("depth [4, 5] min_samples_leaf [10, 30]")
    assert diag.message == check.SECOND_LIST.format(first="depth", name="min_samples_leaf", owner="model 'tree'")
    assert "one parameter per spec" in diag.message
    assert at(diag) == (7, 44)
    assert diag.hint == "keep the list on one of them and write one value for the other, e.g. min_samples_leaf 10"


@pytest.mark.parametrize("block, name, owner, column", [
    ("model tree { forest { trees [10, 20] } }", "trees", "block 'forest' of model 'tree'", 29),
    ("model tree\nsolver { time_limit [10, 20] }", "time_limit", "solver", 21),
    ("model tree\nevaluate { holdout [0.2, 0.3] }", "holdout", "evaluate", 20),
])
def test_a_list_outside_a_model_s_own_parameters_is_refused(block, name, owner, column):
    text = SPEC.format(fairness=BOUND, params="").replace("model tree {  }", block)
    with pytest.raises(SpecSemanticError) as caught:
        check_spec(parse_spec(text))
    (diag,) = caught.value.diagnostics
    assert diag.message == check.LIST_NOT_HERE.format(name=name, owner=owner)
    assert diag.span.column == column and diag.hint.startswith(f"write one value, e.g. {name} ")


def test_a_list_for_a_block_parameter_is_the_wrong_type():
    (diag,) = diagnostics("forest [1, 2]")
    assert diag.message == check.PARAM_WRONG_TYPE.format(name="forest", owner="model 'tree'",
                                                         expected="a block { ... }", got="a list [...]")


def test_the_recipe_holds_the_first_value_and_the_choice_its_values():
    family = FAMILIES["rule_set"]
    params, choice = model_choice(resolve_params(family.params, doc("complexity_cost [0, 0.01]").spec.model.params))
    assert choice == ("complexity_cost", (0.0, 0.01)) and isinstance(choice[1][0], float)  # a float parameter's
    assert params["complexity_cost"] == 0.0 and params["max_complexity"] == 30
    params, choice = model_choice(resolve_params(family.params, doc("max_complexity 20").spec.model.params))
    assert choice is None and params["max_complexity"] == 20
