"""Derived and labelled groups against data, the hints that propose bins, and the numbers the
checker refuses because no learner could use them (fairspec/dsl/groups.py, fairspec/dsl/check.py)."""
from __future__ import annotations

import pathlib
import re
import sys

import pandas as pd
import pytest

from fairspec.data.table import read_table
from fairspec.dsl import check, check_spec, groups, parse_spec
from fairspec.dsl.transform import NUMBER_TOO_SMALL
from fairspec.errors import SpecSemanticError, SpecSyntaxError
from fairspec.plan.compile import compile_spec
from fairspec.registry.families import FAMILIES

REPO = pathlib.Path(__file__).resolve().parents[2]
GERMAN = REPO / "data" / "german.csv.gz"


@pytest.fixture(scope="module")
def german() -> pd.DataFrame:
    return read_table(GERMAN)


def german_spec(protected: str, *lines: str, fairness: str = "fairness demographic_parity",
                model: str = "model baseline") -> str:
    return "\n".join(["spec g", f'data "{GERMAN}"', "target credit positive 1", protected,
                      "features { month numeric  credit_amount numeric  status }", fairness, model, *lines]) + "\n"


def problems(text: str, table: pd.DataFrame | None):
    try:
        check_spec(parse_spec(text, "g.fair"), table)
    except SpecSemanticError as error:
        return error.diagnostics
    return []


def test_the_issue_s_groups_pass_and_the_plan_shows_how_they_are_made(german):
    text = german_spec('protected sex from personal_status { ["A91", "A93", "A94"] as "male"  "A92" as "female" }'
                       ' * age bins [25, 45]', 'labels status { "A11" as "below 0 DM"  "A14" as "no account" }')
    assert problems(text, german) == []
    plan = compile_spec(parse_spec(text, "g.fair"), german)
    shown = plan.describe()
    assert "sex: from personal_status: ['A91', 'A93', 'A94'] as 'male'; ['A92'] as 'female'" in shown
    assert "age: bins of age at [25, 45], closed on the left: < 25, 25–44, ≥ 45" in shown
    assert "labels      status: 'A11' as 'below 0 DM', 'A14' as 'no account'" in shown
    assert plan.data.protected == ("sex", "age")
    assert [g.kind for g in plan.data.group_columns] == ["merged", "bins"]


def test_a_documented_code_the_data_lacks_is_refused_at_the_code(german):
    # German credit documents A95 (female, single), but no row holds it
    text = german_spec('protected sex from personal_status { ["A91", "A93", "A94"] as "male"  ["A92", "A95"] as '
                       '"female" }')
    (diag,) = problems(text, german)
    assert diag.message == groups.MERGED_VALUE_ABSENT.format(value="'A95'", group="female", column="personal_status")
    assert (diag.span.line, diag.span.column) == (4, 79)


def test_checks_that_need_no_data_run_without_it():
    text = german_spec('protected g from c { ["a"] as "x"  ["a"] as "y" } * age bins [30, 20]',
                       'labels nowhere { "a" as "b" }')
    found = [d.message for d in problems(text, None)]
    assert found == [groups.MERGED_VALUE_TWICE.format(value="'a'", column="c", group="x", line=4),
                     groups.BIN_EDGE_OUT_OF_ORDER.format(edge="20", previous="30"),
                     groups.LABELS_UNUSED.format(column="nowhere")]


def _hinted_protected_line(hint: str) -> str:
    return re.search(r"e\.g\. (protected [^(`]+?) \(bins are", hint).group(1)


def test_a_numeric_column_of_many_values_gets_bins_and_following_the_hint_passes(german):
    text = german_spec("protected age", fairness="fairness fpr_parity")
    (diag,) = problems(text, german)
    assert "groups '56', '62', '64', '67', '70', '75' of 'age' have no negative rows" in diag.message
    line = _hinted_protected_line(diag.hint)
    assert line == "protected age bins [28, 38]"
    # the 47-value `where age in ["19", ...]` this replaces gave three more errors when followed
    assert problems(text.replace("protected age", line), german) == []


def test_the_bins_hint_keeps_the_other_attributes_of_an_intersection(german):
    text = german_spec('protected sex from personal_status { ["A91", "A93", "A94"] as "male"  "A92" as "female" }'
                       " * age")
    plan = compile_spec(parse_spec(text, "g.fair"), german)
    (warning,) = [w for w in plan.warnings if "distinct values" in w.message]
    assert warning.message == groups.MANY_VALUE_GROUPS.format(column="age", count=53)
    line = _hinted_protected_line(warning.hint)
    assert line == "protected sex from personal_status { ... } * age bins [28, 38]"
    fixed = text.replace("* age\n", "* age bins [28, 38]\n")
    assert not [w for w in compile_spec(parse_spec(fixed, "g.fair"), german).warnings if "distinct" in w.message]


def test_the_small_group_warning_proposes_bins_for_a_numeric_column(german):
    text = german_spec("protected age", fairness="fairness equal_opportunity <= 0.05", model="model tree { depth 2 }")
    with pytest.raises(SpecSemanticError) as info:
        compile_spec(parse_spec(text, "g.fair"), german)
    hints = [d.hint for d in info.value.diagnostics if "finer than one training row" in d.message
             or "none on the hold-out" in d.message]
    assert hints and all("`protected age bins [28, 38]`" in h for h in hints)
    assert not any("where age in" in h for h in hints)


def test_a_where_hint_writes_a_numeric_column_s_values_as_numbers():
    table = pd.DataFrame({"code": [1, 1, 2, 2, 3, 3], "y": [1, 0, 1, 0, 1, 1], "x": range(6)})
    text = "spec t\ndata \"t.csv\"\ntarget y positive 1\nprotected code\nfeatures { x }\nfairness fpr_parity\n" \
           "model baseline\n"
    (diag,) = problems(text, table)
    assert "where code in [1, 2]," in diag.hint


def test_labels_on_a_feature_inferred_numeric_are_refused(german):
    text = german_spec("protected personal_status", 'labels month { 6 as "half a year" }').replace("month numeric",
                                                                                                  "month")
    (diag,) = problems(text, german)
    assert diag.message == groups.LABELS_ON_NUMERIC.format(column="month", how="read as ")


# ---- numbers no learner can use ----------------------------------------------------------------
def _unbounded_whole_params():
    """(family, block text) for every whole-number parameter with no upper bound of its own."""
    found = []
    for family in FAMILIES.values():
        if not family.implemented:
            continue
        for param in family.params:
            if param.kind == "int" and param.high is None:
                needs = f"{param.only_with[0]} {param.only_with[1]} " if param.only_with else ""
                found.append((family.name, f"{needs}{param.name} VALUE"))
    return found


@pytest.mark.parametrize("family, param", _unbounded_whole_params())
def test_every_unbounded_whole_number_parameter_stops_at_the_learners_integers(family, param):
    assert _unbounded_whole_params(), "the registry has whole-number parameters without a bound"
    text = f"spec t\ndata \"t.csv\"\ntarget y positive 1\nprotected g\nfeatures {{ x }}\nmodel {family} {{ {param} }}\n"
    largest = check.MAX_WHOLE_NUMBER
    assert problems(text.replace("VALUE", str(largest)), None) == []
    for value in (largest + 1, 99999999999999999999):
        (diag,) = problems(text.replace("VALUE", str(value)), None)
        assert "must be between" in diag.message and f"and {largest}, got {value}" in diag.message


@pytest.mark.parametrize("text, expected", [
    ("evaluate { cv 2147483648 }", "parameter 'cv' of evaluate must be at most 2147483647, got 2147483648"),
    ("missing impute(knn k=2147483648)", check.IMPUTE_K_INVALID.format(k=2147483648, largest=2147483647)),
])
def test_folds_and_neighbours_stop_there_too(text, expected):
    spec = f"spec t\ndata \"t.csv\"\ntarget y positive 1\nprotected g\nfeatures {{ x }}\nmodel baseline\n{text}\n"
    assert [d.message for d in problems(spec, None)] == [expected]


@pytest.mark.parametrize("statement", [
    "target y positive 1e-400",
    'data "t.csv" where x > 2.5e-324',
    "fairness demographic_parity <= 1e-400",
    "fairness demographic_parity penalty [1, 1e-330]",
    "solver { mip_gap 0.1e-310 }",
    "protected x bins [1e-400]",
    'labels g { 1e-400 as "tiny" }',
    'protected g from x { [1, 1e-400] as "tiny" }',
])
def test_a_number_that_underflows_is_refused_where_it_is_written(statement):
    keyword = statement.split()[0]
    base = {"data": 'data "t.csv"', "target": "target y positive 1", "protected": "protected g",
            "features": "features { x }", "model": "model tree"}
    base[keyword] = statement
    text = "spec t\n" + "\n".join(base.values()) + "\n"
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(text)
    (diag,) = info.value.diagnostics
    literal = re.search(r"[0-9.]+e-[0-9]+", statement).group(0)
    line = list(base).index(keyword) + 2
    assert diag.message.startswith(f"number {literal} is too small: it reads as ")
    assert (diag.span.line, diag.span.column) == (line, statement.index(literal) + 1)


def test_the_smallest_normal_number_and_zero_are_numbers():
    smallest = repr(sys.float_info.min)
    assert parse_spec(f"spec t\ndata \"t.csv\"\ntarget y positive {smallest}\nprotected g\nfeatures {{ x }}\n"
                      "model tree\n").spec.target.positive == sys.float_info.min
    for zero in ("0e-400", "0.000", "-0.0e-999"):
        assert parse_spec(f"spec t\ndata \"t.csv\"\ntarget y positive {zero}\nprotected g\nfeatures {{ x }}\n"
                          "model tree\n").spec.target.positive == 0
    assert NUMBER_TOO_SMALL.format(text="number 1e-400", read="0").startswith("number 1e-400 is too small")


@pytest.mark.parametrize("method, written", [("median", "impute(median)"), ("mean", "impute(mean)"),
                                             ("knn", "impute(knn k=5)"), ("Median", "impute(median)")])
def test_an_imputation_method_alone_is_pointed_to_impute(method, written):
    text = f"spec t\ndata \"t.csv\"\ntarget y positive 1\nprotected g\nfeatures {{ x }}\nmodel tree\nmissing {method}\n"
    (diag,) = problems(text, None)
    assert diag.hint == f"{method.lower()} is a way to impute: write missing {written}"


@pytest.mark.parametrize("written, fixed", [("30sec", "30s"), ("2mins", "2m"), ("1.5hours", "1.5h"),
                                            ("30 sec", "time_limit 30s"), ("2 minutes", "time_limit 2m"),
                                            ("1 h", "time_limit 1h")])
def test_a_duration_s_unit_spelled_out_gets_the_letter(written, fixed):
    text = f"spec t\ndata \"t.csv\"\ntarget y positive 1\nprotected g\nfeatures {{ x }}\nmodel tree\n" \
           f"solver {{ time_limit {written} }}\n"
    try:
        found = problems(text, None)
    except SpecSyntaxError as error:
        found = error.diagnostics
    (diag,) = found
    assert diag.hint.endswith(f"s, m or h (seconds, minutes, hours), right after the number: write {fixed}")


@pytest.mark.parametrize("block, fixed", [("{ depth: 4 }", "depth 4"), ("{depth:4}", "depth 4"),
                                          ("{ depth=4 }", "depth 4"), ("{ depth = 4 }", "depth 4"),
                                          ("{ forest { trees: 3 } }", "trees 3")])
def test_a_separator_between_a_parameter_and_its_value_is_named(block, fixed):
    text = f"spec t\ndata \"t.csv\"\ntarget y positive 1\nprotected g\nfeatures {{ x }}\nmodel tree {block}\n"
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(text)
    hint = info.value.diagnostics[0].hint
    assert "between them: write " + fixed == hint.split("with no ")[1].split(" ", 1)[1], hint
    assert "backquotes" not in hint


# ---- more mistakes, each at its place -----------------------------------------------------------
PEOPLE = REPO / "tests" / "dsl" / "data" / "people.csv"


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    return read_table(PEOPLE)


def people_spec(protected: str, *lines: str, features: str = "features { age numeric }") -> str:
    return "\n".join(["spec p", 'data "people.csv"', "target label positive 1", protected, features,
                      "model baseline", *lines]) + "\n"


@pytest.mark.parametrize("protected, message, at", [
    ('protected g from label { [0] as "no"  [1] as "yes" }', "target 'label' is also the protected attribute",
     (4, 18)),
    ("protected hours bins [40]", "protected attribute 'hours' has 1 missing value(s) after filtering (first on "
                                  "line 3 of the data)", (4, 11)),
    ('protected r from race { ["A", "B", "C"] as "x" }', "protected attribute 'race' has 1 missing value(s)",
     (4, 18)),
    ("protected sex bins [1]", "bins need a numeric column, but 'sex' holds text such as 'Female', 'Male'",
     (4, 11)),
    ('protected g from degree { [0, 1] as "all" }', "protected attribute 'g' has a single group ('all')", (4, 11)),
    ('protected g from city { "Paris" as "" "Lyon" as "l" "Nice" as "n" }', groups.MERGED_NAME_EMPTY, (4, 36)),
    ('protected g from city { }', "'g from city' lists no group", (4, 11)),
])
def test_each_mistake_in_a_derived_attribute_is_reported_at_its_place(people, protected, message, at):
    found = problems(people_spec(protected), people)
    assert any(message in d.message and (d.span.line, d.span.column) == at for d in found), \
        [(d.message, d.span) for d in found]


def test_a_column_may_merge_its_own_values_and_take_no_labels_then(people):
    merged = 'protected city from city { ["Paris", "Lyon"] as "big"  "Nice" as "small" }'
    assert problems(people_spec(merged), people) == []
    (diag,) = problems(people_spec(merged, 'labels city { "Paris" as "capital" }'), people)
    assert diag.message == groups.LABELS_ON_DERIVED.format(column="city", how="named in 'city from city'")


def test_labels_of_numeric_codes_on_a_categorical_feature_and_a_plain_protected_column(people):
    text = people_spec("protected degree", 'labels degree { 1 as "graduate"  0 as "none" }',
                       features="features { age numeric  city categorical }")
    assert problems(text, people) == []
    text = people_spec("protected sex", 'labels degree { "1" as "graduate" }',
                       features="features { age numeric  degree categorical }")
    assert problems(text, people) == []
