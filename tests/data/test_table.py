"""Reading a data file: only an empty cell is a missing value."""
from __future__ import annotations

import pytest

from fairspec.data.prepare import FeatureEncoder
from fairspec.data.table import read_table
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
