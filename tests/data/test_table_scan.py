"""The one pass over a data file's bytes (``_scan_bytes``) against the rules it implements, cell
by cell, on random small files cut into blocks of a few bytes."""
import re

import numpy as np
import pytest

from fairspec.data import table
from fairspec.data.table import LEADING_ZERO


def plain_records(data: bytes):
    """Records below the header of a plain file, by its definition (``_plain_record_lines``)."""
    if b'"' in data or b"\x00" in data or data.count(b"\r") != data.count(b"\r\n"):
        return None
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines = lines[:-1]
    commas = [line.count(b",") for line in lines]
    if not commas or commas[0] == 0 or any(c != commas[0] for c in commas):
        return None
    return len(lines) - 1 if len(lines) >= 2 else None


def may_lead_with_zero(data: bytes) -> bool:
    """Whether some field may begin as a code with a leading zero (``_may_hold_leading_zero``)."""
    text = data.decode("latin-1")
    starts = [0] + [m.end() for m in re.finditer(r"[,\n\r]", text)]
    for at in starts:
        head = text[at:at + 3]
        if head[:1] in (" ", "\t", '"'):
            return True
        if re.match(LEADING_ZERO.replace(r"\d", r"[0-9\x80-\xff]"), head):
            return True
    return False


CELLS = ["1", "01", "-02", "+0x", "0", "2.5", "", " 7", "a", "é0", "0é", '"q"', "-0", "+03"]


@pytest.mark.parametrize("seed", range(40))
def test_the_scan_counts_records_and_finds_leading_zeros_as_the_rules_say(tmp_path, monkeypatch, seed):
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 4))
    rows = []
    for _ in range(int(rng.integers(1, 8))):
        n = width if rng.random() < 0.9 else int(rng.integers(1, 5))  # now and then a short or long record
        rows.append(",".join(rng.choice(CELLS[:12] if rng.random() < 0.5 else CELLS, n)))
    end = ["\n", "\r\n", "\r"][int(rng.choice(3, p=[0.7, 0.2, 0.1]))]
    text = end.join(["a" + ",b" * (width - 1)] + rows) + (end if rng.random() < 0.7 else "")
    data = text.encode("utf-8")
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    monkeypatch.setattr(table, "_SCAN_BLOCK", int(rng.integers(1, 12)))  # many blocks, cut anywhere
    assert table._scan_bytes(path) == (plain_records(data), may_lead_with_zero(data)), text
    assert table._plain_record_count(path) == plain_records(data)
    assert table._may_hold_leading_zero(path) == may_lead_with_zero(data)


@pytest.mark.parametrize("seed", range(30))
def test_group_labels_of_one_column_are_the_texts_numpy_converts_each_cell_to(seed):
    # joined_labels' one-column path converts each distinct text once; the result must be
    # values.astype(object).astype(str), dtype and all, whatever the cells hold
    from fairspec.data.prepare import joined_labels

    rng = np.random.default_rng(seed)
    pool = ["a", "b", "", "ab & c", 'q"', "é", "long group name", 1, 1.0, True, 2.5, float("nan"), None]
    kinds = rng.choice(["text", "mixed", "unicode"])
    n = int(rng.integers(0, 30))
    if kinds == "unicode":
        values = np.array(rng.choice(["a", "bb", "", "é", "x & y"], n)).astype(f"<U{int(rng.integers(5, 9))}")
    else:
        cells = pool[:7] if kinds == "text" else pool
        values = np.array([cells[i] for i in rng.integers(0, len(cells), n)], dtype=object)
    expected = values.astype(object).astype(str)
    got = joined_labels([values])
    assert got.dtype == expected.dtype and np.array_equal(got, expected), (values, got, expected)
