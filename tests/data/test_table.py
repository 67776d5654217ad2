"""Reading a data file: only an empty cell is a missing value."""
from __future__ import annotations

import gzip

import pytest

from fairspec.data.prepare import FeatureEncoder
from fairspec.data.table import apply_filters, read_table
from fairspec.errors import DataError

NA_WORDS = ["NA", "N/A", "None", "null", "nan", "NaN", "NULL", "#N/A", "n/a"]


def test_pandas_na_words_are_values_and_only_empty_cells_are_missing(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("answer,n\n" + "".join(f"{w},{i}\n" for i, w in enumerate(NA_WORDS)) + ",99\n")
    frame = read_table(path)
    assert frame["answer"].iloc[:-1].tolist() == NA_WORDS
    assert frame["answer"].isna().tolist() == [False] * len(NA_WORDS) + [True]
    encoder = FeatureEncoder.fit(frame, ["answer"], ["categorical"])
    assert encoder.categories == [sorted(NA_WORDS)]


def test_na_word_in_a_numeric_column_is_text_named_with_column_and_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("age,city\n25,x\n,y\nNA,z\n")
    frame = read_table(path)
    encoder = FeatureEncoder(["age"], ["numeric"], [None])
    with pytest.raises(DataError, match=r"column 'age', line 4: 'NA' is not a number"):
        encoder.transform(frame, source=str(path))


def test_codes_with_a_leading_zero_read_alike_whatever_else_the_file_holds(tmp_path):
    # "02" read as the number 2 in a file of codes only, and as text "02" beside a code "X":
    # the same row then fell in another category, and got another prediction
    only_codes = tmp_path / "a.csv"
    only_codes.write_text("zone,n\n01,1\n02,2\n")
    mixed = tmp_path / "b.csv"
    mixed.write_text("zone,n\n01,1\n02,2\nX,3\n")
    encoder = FeatureEncoder.fit(read_table(mixed), ["zone"], ["categorical"])
    assert encoder.categories[0] == ["01", "02", "X"]
    assert encoder.transform(read_table(only_codes))[:, 0].tolist() == [0.0, 1.0]
    assert read_table(only_codes)["n"].tolist() == [1, 2]  # plain numbers stay numbers
    numeric = FeatureEncoder.fit(read_table(only_codes), ["zone"], ["numeric"])  # declared numeric: still 1, 2
    assert numeric.transform(read_table(only_codes))[:, 0].tolist() == [1.0, 2.0]


def test_a_column_name_twice_in_the_header_is_refused(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("month,age,month\n1,30,2\n")
    with pytest.raises(DataError, match="line 1: column name\\(s\\) 'month' appear more than once"):
        read_table(path)


@pytest.mark.parametrize("body, line", [
    ("age,city\n25,x\n\n,y\nNA,z\n", 5),                  # a blank line, which pandas skips
    ('age,city\n25,"two\nlines"\n,y\nNA,z\n', 5),         # a quoted field spanning two lines
    ("age,city\r\n25,x\r\n\r\n,y\r\nNA,z\r\n", 5),        # Windows line ends
    ('"age",city\n25,x\n,y\nNA,z', 4),                    # no final newline: row + 2 still holds
])
def test_a_data_error_names_the_line_of_the_file_not_the_row_number_plus_two(tmp_path, body, line):
    path = tmp_path / "t.csv"
    path.write_bytes(body.encode())
    frame = read_table(path)
    encoder = FeatureEncoder(["age"], ["numeric"], [None])
    with pytest.raises(DataError, match=rf"column 'age', line {line}: 'NA' is not a number"):
        encoder.transform(frame, source=str(path))
    kept = apply_filters(frame, [("city", "!=", ["y"])])  # a filter keeps each row's line
    with pytest.raises(DataError, match=rf"column 'age', line {line}: 'NA' is not a number"):
        encoder.transform(kept, source=str(path))


def test_a_compressed_file_with_a_blank_line_names_the_line_too(tmp_path):
    path = tmp_path / "t.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("age,city\n25,x\n\n\nNA,z\n")
    with pytest.raises(DataError, match=r"column 'age', line 5: 'NA' is not a number"):
        FeatureEncoder(["age"], ["numeric"], [None]).transform(read_table(path), source=str(path))
