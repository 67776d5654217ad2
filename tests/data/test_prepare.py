"""The feature encoder: category text independent of dtype, and model files that cannot be right."""
from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest

from fairspec.data.prepare import FeatureEncoder, category_text, group_labels
from fairspec.data.table import read_table
from fairspec.errors import ModelFileError
from fairspec.pipeline.artifact import LoadedModel
from fairspec.data.prepare import class_names
from fairspec.data import prepare


def _csv(path, text: str):
    path.write_text(text)
    return read_table(path)


def test_whole_number_categories_encode_the_same_with_and_without_blank_cells(tmp_path):
    # one blank cell makes pandas read the column as floats (2.0); the category is still "2"
    complete = _csv(tmp_path / "complete.csv", "grade,x\n1,0\n2,0\n1,0\n")
    with_blank = _csv(tmp_path / "blank.csv", "grade,x\n1,0\n,0\n2,0\n")
    assert with_blank["grade"].dtype == float and complete["grade"].dtype != float

    trained_complete = FeatureEncoder.fit(complete, ["grade"], ["categorical"])
    trained_blank = FeatureEncoder.fit(with_blank, ["grade"], ["categorical"])
    assert trained_complete.categories == trained_blank.categories == [["1", "2"]]
    np.testing.assert_array_equal(trained_complete.transform(with_blank)[:, 0], [0, np.nan, 1])
    np.testing.assert_array_equal(trained_blank.transform(complete)[:, 0], [0, 1, 0])


def test_category_text_is_one_text_per_value_and_keeps_every_other_text_as_written():
    assert [category_text(v) for v in (2.0, np.float64(-3.0), 7, np.int64(7), "2.0", "+7", "2.50", "F", 2.5, True,
                                       np.False_, "true", "FALSE", "07", "1_000", "t", "nan", "True story")] == [
        "2", "-3", "7", "7", "2", "7", "2.5", "F", "2.5", "True", "False", "True", "False", "07", "1_000", "t",
        "nan", "True story"]


@pytest.mark.parametrize("training, scored", [
    # the words pandas reads as bools: bools in a file of them, text beside another word
    ("c,y\ntrue,1\nfalse,0\nunknown,0\ntrue,1\n", [("c\ntrue\nfalse\n", []),
                                                      ("c\ntrue\nfalse\nunknown\n", []),
                                                      ("c\nTRUE\nfalse\nmaybe\n", ["maybe"])]),
    ("c,y\ntrue,1\nfalse,0\n", [("c\ntrue\nfalse\n", []), ("c\ntrue\nfalse\nmaybe\n", ["maybe"]),
                                 ("c\ntrue\nfalse\n1\n", ["1"])]),
    # one number spelled two ways: one number in a file of numbers, two texts beside a word
    ("c,y\n1,1\n1.0,0\nx,0\n2,1\n", [("c\n1.0\n2\n", []), ("c\n1.0\n2\nx\n", []),
                                        ("c\n+1\n2.00\nq\n", ["q"]), ("c\n1\n2\n3.0\n", ["3"])]),
])
def test_a_cell_is_one_category_whatever_the_other_cells_of_its_file(tmp_path, training, scored):
    # pandas types a column by all of its cells: the same first two cells were scored as two
    # categories or as unseen, depending on the third (found in review)
    encoder = FeatureEncoder.fit(_csv(tmp_path / "train.csv", training), ["c"], ["categorical"])
    assert len(encoder.categories[0]) == len({category_text(v) for v in encoder.categories[0]})
    first_two = []
    for i, (text, unseen) in enumerate(scored):
        frame = _csv(tmp_path / f"score{i}.csv", text)
        codes = encoder.transform(frame)[:2, 0]
        assert not np.isnan(codes).any()
        first_two.append(codes.tolist())
        # named as the file writes them
        assert encoder.unseen_categories(frame).get("c", (0, []))[1] == unseen
    assert all(codes == first_two[0] for codes in first_two)


def test_text_categories_of_a_model_file_keep_working():
    encoder = FeatureEncoder.from_json({"names": ["sex", "workclass"], "kinds": ["categorical", "categorical"],
                                        "categories": [["F", "M"], ["Private", "State-gov"]]})
    frame = pd.DataFrame({"sex": ["M", "F", None, "X"], "workclass": ["State-gov", "Private", "Private", None]})
    np.testing.assert_array_equal(encoder.transform(frame), [[1, 1], [0, 0], [np.nan, 0], [np.nan, np.nan]])


def test_a_model_file_that_stored_whole_floats_as_x_point_0_still_scores():
    encoder = FeatureEncoder.from_json({"names": ["grade"], "kinds": ["categorical"], "categories": [["1.0", "2.0"]]})
    frame = pd.DataFrame({"grade": [2.0, 1.0, np.nan, 3.0]})
    np.testing.assert_array_equal(encoder.transform(frame)[:, 0], [1, 0, np.nan, np.nan])


def test_a_cell_spelling_a_category_as_another_number_text_finds_it_whatever_the_other_rows():
    # one text cell ("unknown") keeps a whole column as text, and "13.0" had then missed the
    # category "13" it matched in a file of numbers: one row changed the others' scores (found in review)
    encoder = FeatureEncoder.fit(pd.DataFrame({"edu": [13, 9, 14, 9]}), ["edu"], ["categorical"])
    assert encoder.categories == [["13", "14", "9"]]
    as_numbers = encoder.transform(pd.DataFrame({"edu": [13.0, 9.0, 14.0]}))[:, 0]
    as_text = encoder.transform(pd.DataFrame({"edu": ["13.0", "9", "14.00", "unknown"]}))[:, 0]
    np.testing.assert_array_equal(as_numbers, as_text[:3])
    assert np.isnan(as_text[3])
    # "+13" and "1.3e1" spell 13; "1_3" is a name (float() would read it as 13), "1e400" no finite number
    np.testing.assert_array_equal(encoder.transform(pd.DataFrame({"edu": ["+13", "1.3e1", "1_3", "1e400"]}))[:, 0],
                                  [0, 0, np.nan, np.nan])
    assert encoder.unseen_categories(pd.DataFrame({"edu": ["13.0", "unknown", "1_3"]})) == {
        "edu": (2, ["unknown", "1_3"])}
    # and a category kept as text finds the number a file of numbers holds
    text_kept = FeatureEncoder.from_json({"names": ["g"], "kinds": ["categorical"], "categories": [["1.50", "x"]]})
    np.testing.assert_array_equal(text_kept.transform(pd.DataFrame({"g": [1.5, 2.0]}))[:, 0], [0, np.nan])


def test_a_code_with_a_leading_zero_is_its_own_category_not_the_number_it_spells():
    # read_table keeps such codes as text ("007" and "7" are two zones); the number alias had
    # matched the cell "07" to the category "7", and the cell 7 to the category "007", silently
    encoder = FeatureEncoder.fit(pd.DataFrame({"zone": ["007", "7", "01", "10"]}), ["zone"], ["categorical"])
    assert encoder.categories == [["007", "01", "10", "7"]]
    codes = encoder.transform(pd.DataFrame({"zone": ["007", "7", "07", "0007", "1", "01", "-07"]}))[:, 0]
    np.testing.assert_array_equal(codes, [0, 3, np.nan, np.nan, np.nan, 1, np.nan])
    assert encoder.unseen_categories(pd.DataFrame({"zone": ["07", "1", "7.0"]})) == {"zone": (2, ["07", "1"])}
    only_padded = FeatureEncoder.fit(pd.DataFrame({"zone": ["007", "01"]}), ["zone"], ["categorical"])
    assert np.isnan(only_padded.transform(pd.DataFrame({"zone": [7.0, 1.0]}))[:, 0]).all()


def test_whole_numbers_past_exact_floats_are_never_read_as_one_another():
    encoder = FeatureEncoder.fit(pd.DataFrame({"id": ["9007199254740993", "5"]}), ["id"], ["categorical"])
    # the float of 9007199254740992 is that of ...993: only the exact text finds its category
    assert np.isnan(encoder.transform(pd.DataFrame({"id": ["9007199254740992"]}))[0, 0])


GOOD = {"names": ["age", "sex"], "kinds": ["numeric", "categorical"], "categories": [None, ["F", "M"]]}


@pytest.mark.parametrize("change, fragment", [
    ({"kinds": ["numeric"]}, "differ in length"),
    ({"categories": [None]}, "differ in length"),
    ({"names": ["age"]}, "differ in length"),
    ({"kinds": ["bogus", "categorical"]}, "unknown kind 'bogus'"),
    ({"categories": [None, None]}, "categorical feature 'sex' must have a list of text categories"),
    ({"categories": [None, [1, 2]]}, "categorical feature 'sex' must have a list of text categories"),
    ({"categories": [None, "FM"]}, "categorical feature 'sex' must have a list of text categories"),
    ({"categories": [["a"], ["F", "M"]]}, "numeric feature 'age' must have categories null"),
    ({"names": "age"}, "names must be a list"),
    ({"names": ["age", 3]}, "names must be text"),
])
def test_encoder_from_json_refuses_what_training_cannot_have_written(change, fragment):
    with pytest.raises(ValueError, match=fragment):
        FeatureEncoder.from_json({**GOOD, **change})
    assert FeatureEncoder.from_json(GOOD).to_json() == GOOD


def test_a_damaged_encoder_is_a_damaged_model_file(root):
    path = root / "reports" / "compas_baseline" / "model.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    LoadedModel.from_document(doc, str(path))
    damaged = copy.deepcopy(doc)
    damaged["preprocessing"]["encoder"]["kinds"] = damaged["preprocessing"]["encoder"]["kinds"][:-1]
    with pytest.raises(ModelFileError, match=r"model\.json: error: damaged model file \(encoder lists differ in length"):
        LoadedModel.from_document(damaged, str(path))


def test_an_infinite_value_in_a_scored_file_names_its_column_and_line(tmp_path):
    from fairspec.errors import DataError

    encoder = FeatureEncoder.fit(_csv(tmp_path / "train.csv", "age,x\n20,0\n30,1\n"), ["age"], ["numeric"])
    scored = _csv(tmp_path / "score.csv", "age,x\n25,0\n-inf,1\n")
    with pytest.raises(DataError, match=r"column 'age', line 3: -?inf is not a finite number"):
        encoder.transform(scored, source="score.csv")
    # the reason given fits a cell written Infinity too, not only 1e400 (it named 1e400 alone)
    scored = _csv(tmp_path / "score.csv", "age,x\n25,0\nInfinity,1\n")
    with pytest.raises(DataError, match=r"line 3: inf is not a finite number \(a cell written inf or Infinity"):
        encoder.transform(scored, source="score.csv")


def test_intersectional_labels_never_merge_two_groups():
    # ("x", "y & z") and ("x & y", "z") joined plainly both read "x & y & z"
    frame = pd.DataFrame({"a": ["x", "x & y", "x", 'q"'], "b": ["y & z", "z", "w", "w"]})
    labels = group_labels(frame, ["a", "b"])
    assert list(labels) == ['x & "y & z"', '"x & y" & z', "x & w", '"q""" & w']
    assert list(group_labels(frame, ["a"])) == ["x", "x & y", "x", 'q"']  # one column: the value itself


def test_class_names_are_the_datas_spelling_negative_first():
    from fairspec.data.prepare import class_names

    income = pd.Series(["<=50K", ">50K", "<=50K"])
    assert class_names(income, np.array([0, 1, 0]), ">50K") == ("<=50K", ">50K")
    credit = pd.Series([1.0, 0.0, 1.0])  # floats: a whole number reads as the category "1"
    assert class_names(credit, np.array([0, 1, 0]), 0) == ("1", "0")
    several = pd.Series(["a", "b", "c"])  # positive "a", the rest two values: no one name for them
    assert class_names(several, np.array([1, 0, 0]), "a") == ("not a", "a")


@pytest.mark.parametrize("cells", [
    ["red", "blue", None, "purple", "red", np.nan, "purple", "green"],  # text, two kinds of missing
    [2.0, np.nan, 3.0, 2.0, -0.0, 7.5],  # whole floats read as "2", "0"; 7.5 unseen
    pd.array([2, None, 3, 9], dtype="Int64"),  # nullable integers
    [True, False, True],
    [1, True, "1", 1.0, None, "True", 2],  # mixed types: 1 == True in Python, their texts differ
    [None, np.nan],
])
def test_categorical_codes_are_each_cells_text_looked_up(cells):
    # the encoder codes a column through its distinct values; each cell must get the code of its
    # own text (category_text), a missing cell NaN, and every unseen text be counted once per row
    known = ["0", "1", "2", "3", "False", "True", "blue", "red", "green"]
    encoder = FeatureEncoder(["c"], ["categorical"], [known])
    frame = pd.DataFrame({"c": pd.Series(cells, dtype="Int64" if isinstance(cells, pd.arrays.IntegerArray)
                                         else object)})
    X = encoder.transform(frame)
    unseen_rows = []
    for i, v in enumerate(frame["c"].to_numpy(dtype=object)):
        text = None if pd.isna(v) else category_text(v)
        expected = known.index(text) if text in known else np.nan
        assert (np.isnan(X[i, 0]) and np.isnan(expected)) or X[i, 0] == expected, (v, X[i, 0])
        if text is not None and text not in known:
            unseen_rows.append(text)
    found = encoder.unseen_categories(frame)
    if unseen_rows:
        assert found == {"c": (len(unseen_rows), list(dict.fromkeys(unseen_rows)))}
    else:
        assert found == {}


def test_whole_number_groups_read_alike_whatever_the_other_rows_hold():
    # found in review: a column of group codes with one empty cell reads as floats, and the
    # filter the checker suggests (where race in [1, 2]) kept them floats: groups "1.0", "2.0"
    with_gap = pd.DataFrame({"race": [1.0, 2.0, 1.0], "sex": ["f", "m", "f"]})
    assert list(group_labels(with_gap, ["race"])) == ["1", "2", "1"]
    assert list(group_labels(with_gap, ["race", "sex"])) == ["1 & f", "2 & m", "1 & f"]
    assert list(group_labels(pd.DataFrame({"race": [1, 2]}), ["race"])) == ["1", "2"]
    assert list(group_labels(pd.DataFrame({"score": [0.5, 2.0]}), ["score"])) == ["0.5", "2"]


def _category_columns(rng, n: int) -> pd.DataFrame:
    """Columns of every kind a categorical feature arrives as, with missing cells."""
    def pick(values, dtype=object):
        return pd.Series(np.array(values, dtype=object)[rng.integers(0, len(values), n)], dtype=dtype)

    return pd.DataFrame({
        "floats": pick([2.0, -0.0, 0.0, 1.5, np.nan, 1e20], float),
        "floats32": pick([0.1, 2.0, 3.25], np.float32),
        "ints": pick([1, 7, -3], np.int64),
        "bools": pick([True, False], bool),
        "text": pick(["1", "1.0", "+1", "07", "true", "TRUE", "F", "", None], "str"),
        "objects": pick(["a", "b", "2.50", None], object),
        "mixed": pick([1, 1.0, True, "1", "x", None], object),
    })


def test_categories_are_the_texts_of_every_cell():
    rng = np.random.default_rng(11)
    frame = _category_columns(rng, 400)
    encoder = FeatureEncoder.fit(frame, list(frame.columns), ["categorical"] * frame.shape[1])
    expected = [sorted({category_text(v) for v in frame[c].dropna()}) for c in frame.columns]
    assert encoder.categories == expected
    assert "True" in encoder.categories[-1] and "1" in encoder.categories[-1]  # 1 and True: one value, two texts
    y = rng.integers(0, 2, len(frame))
    for column in frame.columns:
        others = sorted({category_text(v) for v in frame[column].to_numpy(dtype=object)[y == 0] if not pd.isna(v)})
        negative = others[0] if len(others) == 1 else "not 1"
        assert class_names(frame[column], y, 1) == (negative, "1")


def test_a_category_is_written_once_per_value_not_once_per_row(monkeypatch):
    written = []

    def counted(value):
        written.append(value)
        return category_text(value)

    monkeypatch.setattr(prepare, "category_text", counted)
    frame = pd.DataFrame({"kind": pd.Series(["a", "b", "c", None] * 250, dtype="str")})
    assert FeatureEncoder.fit(frame, ["kind"], ["categorical"]).categories == [["a", "b", "c"]]
    assert sorted(written) == ["a", "b", "c"]
