"""Checker tests on data read from a file: values a numeric feature cannot hold, with their CSV line."""
from __future__ import annotations

import pytest

from fairspec.data.table import read_table
from fairspec.dsl import check, check_spec, parse_spec
from fairspec.errors import SpecSemanticError

ROWS = ["age,income,sex,label", "25,1.5,F,1", "32,2.5,M,0", "47,{v},F,1", "51,3.0,M,0", "19,0.5,F,0",
        "38,{w},M,1"]


def diagnostics(tmp_path, features: str, v="4.0", w="2.0", where: str = "", privileged: str = ""):
    path = tmp_path / "t.csv"
    path.write_text("\n".join(ROWS).format(v=v, w=w) + "\n")
    text = (f'spec t\ndata "t.csv"{where}\ntarget label positive 1\nprotected sex\nfeatures {{ {features} }}\n'
            f"{privileged}model baseline\n")
    try:
        check_spec(parse_spec(text, "t.fair"), read_table(path))
    except SpecSemanticError as error:
        return error.diagnostics
    return []


@pytest.mark.parametrize("features", ["age income numeric", "age income"])
@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity"])
def test_infinite_value_in_a_numeric_feature_names_column_and_line(tmp_path, features, value):
    (diag,) = diagnostics(tmp_path, features, v=value)
    shown = "-inf" if value.startswith("-") else "inf"
    assert diag.message == check.NUMERIC_NOT_FINITE.format(column="income", count=1, value=shown, line=4)
    assert (diag.span.line, diag.span.column) == (5, 16)
    assert diag.hint == check.HINT_NUMERIC_NOT_FINITE


def test_infinite_values_are_counted_and_the_line_survives_a_filter(tmp_path):
    (diag,) = diagnostics(tmp_path, "income numeric", v="inf", w="-inf", where=' where age > 30')
    assert diag.message == check.NUMERIC_NOT_FINITE.format(column="income", count=2, value="inf", line=4)
    # the filter drops the row with the infinite value: nothing to report
    assert diagnostics(tmp_path, "income numeric", v="inf", where=" where age < 40") == []


def test_infinite_value_in_a_privileged_feature(tmp_path):
    diags = diagnostics(tmp_path, "age", v="inf", privileged="privileged { income numeric }\n")
    assert check.NUMERIC_NOT_FINITE.format(column="income", count=1, value="inf", line=4) in [
        d.message for d in diags]


def test_infinite_text_is_a_category_of_a_categorical_feature(tmp_path):
    assert diagnostics(tmp_path, "income categorical", v="inf") == []


def test_na_word_in_a_numeric_column_is_text_with_its_line(tmp_path):
    (diag,) = diagnostics(tmp_path, "income numeric", v="NA")
    assert diag.message == check.NUMERIC_NOT_NUMERIC.format(column="income", examples="'NA'", line=4)
