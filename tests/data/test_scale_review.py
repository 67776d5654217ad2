"""The data stage's shortcuts for large files give what the plain, cell-by-cell reading gives."""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairspec.data import prepare, split, table
from fairspec.data.prepare import FeatureEncoder, category_text, class_names
from fairspec.data.table import LEADING_ZERO, holds_leading_zero, read_table

#: characters a cell's first three are drawn from: signs, zeros, ASCII and other digits
#: (Arabic-Indic three, fullwidth five), and characters that are no digit
_CHARACTERS = ["0", "0", "1", "9", "+", "-", ".", "a", " ", "\u0663", "\uff15", "\u00e9", "\x00"]


def _random_cells(rng, n: int) -> list:
    cells = ["".join(rng.choice(_CHARACTERS, size=rng.integers(0, 5))) for _ in range(n)]
    return [None if rng.random() < 0.1 else c for c in cells]


@pytest.mark.parametrize("dtype", [object, "str"])
def test_holds_leading_zero_says_what_matching_every_cell_says(dtype):
    rng = np.random.default_rng(5)
    for _ in range(300):
        cells = pd.Series(_random_cells(rng, int(rng.integers(0, 6))), dtype=dtype)
        assert holds_leading_zero(cells) == bool(cells.str.match(LEADING_ZERO).any()), cells.tolist()
    for cell in set(_random_cells(rng, 3000)) - {None}:
        assert holds_leading_zero(pd.Series([cell], dtype=dtype)) == bool(re.match(LEADING_ZERO, cell)), repr(cell)


def test_reading_a_file_matches_the_pattern_only_on_cells_that_can_begin_a_code(tmp_path, monkeypatch):
    matched = []

    class CountingPattern:
        def match(self, text):
            matched.append(text)
            return re.match(LEADING_ZERO, text)

    monkeypatch.setattr(table, "_LEADING_ZERO", CountingPattern())
    rows = [f"{i},{i + 0.5},{'07' if i == 150 else i},c{i % 7}" for i in range(10, 510)]
    path = tmp_path / "data.csv"
    path.write_text("count,amount,zone,kind\n" + "\n".join(rows) + "\n")
    frame = read_table(path)
    assert frame["zone"].tolist()[140] == "07" and frame["count"].dtype == np.int64
    assert set(matched) == {"07"}  # (the zone column is checked as numbers, then as the text it is)


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


def _text_strata(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    return np.char.add(y.astype(str), np.char.add("|", groups.astype(str)))


@pytest.mark.parametrize("targets", [[0, 1], [1, 10, 2], [True, False]])
def test_strata_are_the_cells_of_target_and_group_in_the_order_of_their_texts(targets):
    rng = np.random.default_rng(len(targets))
    names = np.array(["a", "a|b", "", "b & c", "\u00e9", "B", "10", "1|0"])
    for n in (1, 7, 500):
        y = np.array(targets)[rng.integers(0, len(targets), n)]
        groups = names[rng.integers(0, len(names), n)]
        reference = np.unique(_text_strata(y, groups), return_inverse=True)[1]
        np.testing.assert_array_equal(np.unique(split._strata(y, groups), return_inverse=True)[1], reference)


@pytest.mark.parametrize("kind", ["holdout", "cv"])
def test_a_stratified_split_draws_the_rows_the_text_strata_draw(kind, monkeypatch):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 600)
    groups = np.array(["x", "y & z", "w"])[rng.choice(3, 600, p=[0.6, 0.3, 0.1])]
    evaluation = SimpleNamespace(kind=kind, stratify=True, seed=9, test_size=0.3, folds=4)
    splits, by = split.split_rows(evaluation, y, groups)
    monkeypatch.setattr(split, "_strata", _text_strata)
    expected, expected_by = split.split_rows(evaluation, y, groups)
    assert by == expected_by == "target and group"
    for (train, test), (train_ref, test_ref) in zip(splits, expected, strict=True):
        np.testing.assert_array_equal(train, train_ref)
        np.testing.assert_array_equal(test, test_ref)


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_a_stratified_holdout_draws_the_rows_scikit_learn_draws(seed):
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(seed)
    for n, cells in ((10, 2), (97, 3), (1000, 7), (5000, 12)):
        labels = rng.integers(0, cells, n)
        labels[:2 * cells] = np.repeat(np.arange(cells), 2)  # every cell has two rows
        for n_test in (cells, n // 3, n - cells):
            train, test = split._stratified_holdout(labels, n_test, seed)
            ref_train, ref_test = train_test_split(np.arange(n), test_size=n_test, random_state=seed, stratify=labels)
            np.testing.assert_array_equal(train, np.sort(ref_train))
            np.testing.assert_array_equal(test, np.sort(ref_test))
