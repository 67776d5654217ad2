"""Defects found by a practitioner's walkthrough of the bundled data sets (law, default, german,
adult): each test failed before its fix."""
import numpy as np
import pandas as pd
import pytest

from fairspec.dsl.load import parse_spec
from fairspec.errors import SpecSemanticError
from fairspec.plan.compile import compile_spec


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
