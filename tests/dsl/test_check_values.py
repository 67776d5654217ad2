"""Checker tests on data read from a file: values a numeric feature cannot hold, with their CSV line."""
from __future__ import annotations

import pytest

from fairspec.data.table import read_table
from fairspec.dsl import check, check_spec, load_spec, parse_spec
from fairspec.errors import SpecSemanticError, render_diagnostic
from fairspec.plan.compile import compile_spec

ROWS = ["age,income,sex,label", "25,1.5,F,1", "32,2.5,M,0", "47,{v},F,1", "51,3.0,M,0", "19,0.5,F,0",
        "38,{w},M,1"]


def diagnostics(tmp_path, features: str, v="4.0", w="2.0", where: str = "", privileged: str = ""):
    return file_diagnostics(tmp_path, "\n".join(ROWS).format(v=v, w=w) + "\n", where, features, privileged=privileged)


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


def test_a_declared_numeric_column_with_a_thousands_separator_is_told_how_to_write_it(tmp_path):
    (diag,) = diagnostics(tmp_path, "income numeric", v='"1,234"')
    assert diag.message == check.NUMERIC_NOT_NUMERIC.format(column="income", examples="'1,234'", line=4)
    assert diag.hint == check.HINT_NUMBER_FOR_PEOPLE.format(plain="1234", cell="'1,234'", then="")
    # text that is no number keeps the general hint
    (diag,) = diagnostics(tmp_path, "income numeric", v="high")
    assert diag.hint == check.HINT_NUMERIC_NOT_NUMERIC


def test_a_numeric_column_of_true_and_false_names_only_the_stray_cell(tmp_path):
    # "holds text such as 'true', 'yes', 'false' (first on line 2)" named valid cells first
    (diag,) = diagnostics(tmp_path, "income numeric", v="yes", w="true")
    assert diag.message == check.NUMERIC_NOT_NUMERIC.format(column="income", examples="'yes'", line=4)
    assert diagnostics(tmp_path, "income numeric", v="false", w="TRUE") == []


def test_na_word_in_a_numeric_column_is_text_with_its_line(tmp_path):
    (diag,) = diagnostics(tmp_path, "income numeric", v="NA")
    assert diag.message == check.NUMERIC_NOT_NUMERIC.format(column="income", examples="'NA'", line=4)
    # the likely fix is an empty cell, not a categorical column of every number in it
    assert diag.hint == check.HINT_MISSING_MARKER.format(cells="'NA'", then="")
    (diag,) = diagnostics(tmp_path, "income numeric", v="NA", w=" ?")
    assert diag.hint == check.HINT_MISSING_MARKER.format(cells="'NA' or '?'", then="")
    # a missing marker beside other text is no longer the whole story
    (diag,) = diagnostics(tmp_path, "income numeric", v="NA", w="high")
    assert diag.hint == check.HINT_NUMERIC_NOT_NUMERIC


def _untyped_age_warning(tmp_path, cell: str):
    """The one inference warning on an untyped ``age`` whose cell 27 is written ``cell``."""
    path = tmp_path / "t.csv"
    path.write_text(NUMBERS.replace("\n27,", f"\n{cell},"))
    text = ('spec t\ndata "t.csv"\ntarget label positive 1\nprotected sex\nfeatures { age }\nmodel baseline\n'
            'evaluate { none }\n')
    (warning,) = check.inference_warnings(parse_spec(text, "t.fair"), read_table(path))
    return warning


def test_an_untyped_feature_read_as_text_for_an_na_cell_says_to_leave_it_empty(tmp_path):
    warning = _untyped_age_warning(tmp_path, "N/A")
    assert warning.hint == check.HINT_MISSING_MARKER.format(cells="'N/A'", then=", and declare it numeric")


# a record spanning lines 3-4 and the where filter make row positions differ from file lines
SHIFTED = ('age,note,sex,label\n25,x,F,1\n32,"two\nlines",M,0\n19,x,{sex1},{label1}\n47,x,{sex2},{label2}\n'
           "51,x,M,0\n38,x,M,1\n60,x,F,0\n")


def file_diagnostics(tmp_path, body: str, where: str = "", features: str = "age", protected: str = "sex",
                     privileged: str = ""):
    """The checker's diagnostics for a spec over the CSV text ``body``."""
    path = tmp_path / "t.csv"
    path.write_text(body)
    text = (f'spec t\ndata "t.csv"{where}\ntarget label positive 1\nprotected {protected}\n'
            f"features {{ {features} }}\n{privileged}model baseline\n")
    try:
        check_spec(parse_spec(text, "t.fair"), read_table(path))
    except SpecSemanticError as error:
        return error.diagnostics
    return []


@pytest.mark.parametrize("blank, message", [
    (dict(sex1="F", label1="", sex2="F", label2=""), check.TARGET_HAS_MISSING.format(column="label", count="{count}",
                                                                                   line="{line}")),
    (dict(sex1="", label1="1", sex2="", label2="1"), check.PROTECTED_HAS_MISSING.format(column="sex", count="{count}",
                                                                                       line="{line}")),
], ids=["label", "group"])
@pytest.mark.parametrize("where, count, line", [("", 2, 5), (" where age > 20", 1, 6)])
def test_a_missing_label_or_group_names_the_file_line_of_the_first(tmp_path, blank, message, where, count, line):
    (diag,) = file_diagnostics(tmp_path, SHIFTED.format(**blank), where)
    assert diag.message == message.format(count=count, line=line)
    assert f"(first on line {line} of the data)" in diag.message


def test_an_ordering_filter_on_numbers_with_a_stray_text_cell_names_the_cell(tmp_path):
    body = SHIFTED.format(sex1="F", label1="1", sex2="F", label2="0").replace("47,", "unknown,")
    (diag,) = file_diagnostics(tmp_path, body, " where age >= 30")
    assert diag.message == check.FILTER_ORDER_ON_STRAY_TEXT.format(op=">=", column="age", examples="'unknown'",
                                                                   line=6)
    assert diag.hint == check.HINT_FILTER_STRAY_TEXT
    # a column of text has no cell to blame: the operator is what is wrong
    (diag,) = file_diagnostics(tmp_path, body, " where sex >= 3")
    assert (diag.message, diag.hint) == (check.FILTER_ORDER_ON_TEXT.format(op=">=", column="sex"),
                                         check.HINT_FILTER_TEXT)


def test_the_missing_group_hint_says_when_it_lists_only_some_groups(tmp_path):
    body = "age,sex,label\n" + "".join(f"{20 + i},g{i:03d},{i % 2}\n" for i in range(132)) + "60,,1\n"
    (diag,) = file_diagnostics(tmp_path, body)
    shown = ", ".join(f'"g{i:03d}"' for i in range(6))
    assert diag.hint == check.HINT_PROTECTED_MISSING.format(column="sex", groups=shown + ", ... (132 in all)")


def test_the_missing_group_hint_is_a_filter_the_spec_can_take(tmp_path):
    body = 'age,sex,label\n25,"say ""hi""",1\n32,"a\nb",0\n47,"say ""hi""",0\n51,"a\nb",1\n60,,1\n'
    (diag,) = file_diagnostics(tmp_path, body)
    where = diag.hint.split("e.g.")[1]  # ' where sex in [...]', pasted as written
    assert file_diagnostics(tmp_path, body, where) == []


NUMBERS = "age,sex,label\n" + "".join(f"{20 + i},{'FM'[i % 2]},{i % 2}\n" for i in range(18))


def test_an_untyped_feature_read_as_text_for_a_stray_cell_is_a_warning(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(NUMBERS.replace("\n27,", "\n2?,"))  # 17 numbers and "2?" on line 9
    text = ('spec t\ndata "t.csv"\ntarget label positive 1\nprotected sex\nfeatures { age }\nmodel baseline\n'
            'evaluate { none }\n')  # 18 rows: a hold-out would add a warning of its own
    doc, table = parse_spec(text, "t.fair"), read_table(path)
    check_spec(doc, table)  # a warning, not an error
    (warning,) = check.inference_warnings(doc, table)
    assert warning.message == check.INFERRED_CATEGORICAL.format(column="age", examples="'2?'", line=9,
                                                                numbers=17, cells=18)
    assert (warning.severity, warning.hint) == ("warning", check.HINT_INFERRED_CATEGORICAL)
    assert render_diagnostic(warning, text, "t.fair").startswith("t.fair:5:12: warning: feature 'age' has no type")
    # compiling carries it on the plan, which `check`, `compile` and `compile-and-train` print
    spec = tmp_path / "t.fair"
    spec.write_text(text)
    assert compile_spec(load_spec(spec)).warnings == (warning,)


def test_an_untyped_feature_read_as_text_for_an_amount_in_dollars_says_how_to_write_it(tmp_path):
    warning = _untyped_age_warning(tmp_path, "$27")
    assert warning.hint == check.HINT_NUMBER_FOR_PEOPLE.format(plain="27", cell="'$27'",
                                                              then=", and declare it numeric")


def test_an_untyped_feature_of_numbers_read_as_codes_for_a_leading_zero_is_a_warning(tmp_path):
    # one "027" made the column codes (text) and the feature categorical, unannounced (found in review)
    path = tmp_path / "t.csv"
    path.write_text(NUMBERS.replace("\n27,", "\n027,"))  # line 9
    text = ('spec t\ndata "t.csv"\ntarget label positive 1\nprotected sex\nfeatures { age }\nmodel baseline\n'
            'evaluate { none }\n')
    doc, table = parse_spec(text, "t.fair"), read_table(path)
    (warning,) = check.inference_warnings(doc, table)
    assert warning.message == check.INFERRED_CODES.format(column="age", examples="'027'", line=9, cells=18)
    assert (warning.severity, warning.hint) == ("warning", check.HINT_INFERRED_CODES)
    for typed in ("age numeric", "age categorical"):  # either type, written, silences it
        assert check.inference_warnings(parse_spec(text.replace("{ age }", f"{{ {typed} }}"), "t.fair"), table) == []


@pytest.mark.parametrize("body, features", [
    (NUMBERS.replace("\n27,", "\n2?,").replace("\n28,", "\nx,"), "age"),   # 16 of 18 numbers: below 90 %
    (NUMBERS.replace("\n27,", "\n2?,"), "age categorical"),               # the type is written
    (NUMBERS.replace("\n27,", "\n2?,").replace("\n20,", "\n020,"), "age"),  # codes with a leading zero are text
    (NUMBERS, "age"),                                                       # numeric: nothing to say
], ids=["two-text-cells", "typed", "leading-zero", "numbers-only"])
def test_no_inference_warning_when_the_text_is_no_stray_cell(tmp_path, body, features):
    path = tmp_path / "t.csv"
    path.write_text(body)
    text = f'spec t\ndata "t.csv"\ntarget label positive 1\nprotected sex\nfeatures {{ {features} }}\nmodel baseline\n'
    assert check.inference_warnings(parse_spec(text, "t.fair"), read_table(path)) == []


def test_a_hint_quotes_a_column_name_as_a_spec_must_write_it(tmp_path):
    # the hint said `where c-charge degree in [...]`, which does not parse (found in review)
    body = "age,c-charge degree,label\n25,F,1\n32,,0\n47,M,1\n51,F,0\n"
    (diag,) = file_diagnostics(tmp_path, body, protected="`c-charge degree`")
    assert diag.hint == 'drop those rows with a where filter, e.g. where `c-charge degree` in ["F", "M"]'
    assert parse_spec(f'spec t\ndata "t.csv" {diag.hint.split("e.g. ")[1]}\ntarget label positive 1\n'
                      'protected sex\nfeatures { age }\nmodel baseline\n')  # the hint pastes as it reads


def test_a_target_without_positive_rows_is_one_error_not_one_more_per_group(tmp_path):
    # positive 2 on a 0/1 target added "group ... has no positive rows" with the hint
    # `where sex in []`, which does not parse (found in review)
    body = "\n".join(ROWS).format(v="4.0", w="2.0") + "\n"
    path = tmp_path / "t.csv"
    path.write_text(body)
    text = ('spec t\ndata "t.csv"\ntarget label positive 2\nprotected sex\nfeatures { age }\n'
            'fairness equal_opportunity <= 0.1\nmodel tree\n')
    with pytest.raises(SpecSemanticError) as info:
        check_spec(parse_spec(text, "t.fair"), read_table(path))
    (diag,) = info.value.diagnostics
    assert diag.message.startswith("positive class 2 does not occur in target 'label'")


def test_whole_number_group_codes_read_as_floats_are_shown_as_the_file_writes_them(tmp_path):
    # one empty cell makes the code column floats: the hint said `where sex in [1.0, 2.0]`
    body = "age,sex,label\n25,1,1\n32,2,0\n47,1,0\n51,2,1\n60,,1\n"
    (diag,) = file_diagnostics(tmp_path, body)
    assert diag.hint == check.HINT_PROTECTED_MISSING.format(column="sex", groups="1, 2")
    where = diag.hint.split("e.g.")[1]
    assert file_diagnostics(tmp_path, body, where) == []


@pytest.mark.parametrize("features", ["age  score", "age  score numeric", "age  score categorical"])
def test_a_feature_empty_in_every_row_is_a_warning(tmp_path, features):
    # it passed without a word, and under impute it was filled with 0 (found in review)
    path = tmp_path / "t.csv"
    path.write_text("age,score,sex,label\n" + "".join(f"{20 + i},,{'FM'[i % 2]},{i // 2 % 2}\n" for i in range(18)))
    text = (f'spec t\ndata "t.csv"\ntarget label positive 1\nprotected sex\nfeatures {{ {features} }}\n'
            'model baseline\nevaluate { none }\n')
    doc, table = parse_spec(text, "t.fair"), read_table(path)
    (warning,) = check.empty_feature_warnings(doc, table)
    assert warning.message == "feature 'score' is empty in every row of the data: no model can use it"
    assert (warning.span.line, warning.span.column, warning.severity) == (5, 17, "warning")
    assert check.empty_feature_warnings(parse_spec(text.replace("age  score", "age"), "t.fair"), table) == []
