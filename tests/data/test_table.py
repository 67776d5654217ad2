"""Reading a data file: only an empty cell is a missing value."""
from __future__ import annotations

import bz2
import gzip
import lzma

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


def test_a_long_cell_is_quoted_with_its_middle_cut_out(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("age,city\n25,x\n" + "9" * 5000 + ",y\n")  # an integer Python will not convert
    frame = read_table(path)
    with pytest.raises(DataError) as info:
        FeatureEncoder(["age"], ["numeric"], [None]).transform(frame, source=str(path))
    message = str(info.value)
    assert len(message) < 300 and "line 3: '999" in message and "…" in message and "(5,000 characters)" in message


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


@pytest.mark.parametrize("compress, kind", [(gzip.compress, "gzip"), (bz2.compress, "bzip2"),
                                            (lzma.compress, "xz")])
def test_a_compressed_file_under_a_plain_name_is_named_as_compressed(tmp_path, compress, kind):
    # it said "line 2: 4 fields, the header has 1" of the compressed bytes (found in review)
    path = tmp_path / "t.csv"
    path.write_bytes(compress(b"a,b\n1,2\n"))
    with pytest.raises(DataError, match=f"the file is {kind}-compressed, but its name does not end in"):
        read_table(path)
    path.write_text("BZh91AY,b\n1,2\n")  # text that begins like bzip2's magic is still text
    assert read_table(path).columns.tolist() == ["BZh91AY", "b"]


@pytest.mark.parametrize("body, message", [
    # a delimiter at the end of every line: pandas made the first column the index, shifting the rest
    ("a,b\n1,x,\n2,y,\n", r"line 2: 3 fields, the header has 2 \(the line ends with a delimiter\)"),
    ("a,b,c\n1,x,5\n2,y\n3,z,7\n", r"line 3: 2 fields, the header has 3"),   # pandas padded it with NaN
    # a stray quote: pandas merged lines 3-5 into one field and dropped two records
    ('a,b\n1,x\n2,"y\n3,z\n4,"w",5\n', r"lines 3-5: a quote opening a field on line 3 is closed only by"),
    ('a,b\n1,"x"y\n', r"line 2: text follows a quoted field"),
])
def test_a_record_whose_fields_do_not_match_the_header_is_refused_with_its_line(tmp_path, body, message):
    path = tmp_path / "t.csv"
    path.write_text(body)
    with pytest.raises(DataError, match=message):
        read_table(path)


def test_a_quoted_field_may_still_span_lines_and_hold_delimiters(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,"x,\ny"\n2,"say ""hi"""\n')
    assert read_table(path)["b"].tolist() == ["x,\ny", 'say "hi"']


def test_unreadable_files_are_data_errors_with_a_reason(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("a,b\n1,x\n2,M\xe2le\n".encode("latin-1"))
    with pytest.raises(DataError, match="line 3: the file is not UTF-8"):
        read_table(latin)
    broken = tmp_path / "t.csv.xz"
    broken.write_bytes(b"junk")  # an lzma error had been an internal error (exit 70)
    with pytest.raises(DataError, match="cannot read the data as CSV"):
        read_table(broken)
    zst = tmp_path / "t.csv.zst"
    zst.write_bytes(b"a,b\n1,x\n")  # pandas wanted the zstandard module: an ImportError, exit 70
    with pytest.raises(DataError, match="not .zst files"):
        read_table(zst)
