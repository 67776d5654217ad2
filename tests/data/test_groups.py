"""Derived and labelled protected groups (fairspec/data/groups.py): which group each row falls
in, and what the groups are called."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairspec.data.groups import (GroupColumn, bin_labels, derived_group_labels, readable_group_labels,
                                  whole_numbers)
from fairspec.data.prepare import group_labels
from fairspec.errors import DataError


def _bins(edges, values, whole=True):
    frame = pd.DataFrame({"age": values})
    column = GroupColumn("age", "age", edges=tuple(edges), bin_labels=bin_labels(edges, whole))
    return column.group_texts(frame).tolist()


def test_bins_are_closed_on_the_left_an_edge_starts_its_bin():
    assert _bins([25, 45], [18, 24, 25, 44, 45, 90]) == ["< 25", "< 25", "25–44", "25–44", "≥ 45", "≥ 45"]


def test_bins_agree_with_a_brute_force_comparison_with_every_edge():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 100, size=500).astype(float)
    edges = [10, 33, 34, 70]
    names = bin_labels(edges, True)
    expected = [names[sum(v >= e for e in edges)] for v in values]
    assert _bins(edges, values) == expected


def test_bin_names_say_the_last_value_only_for_whole_numbers():
    assert bin_labels([25, 45], whole=True) == ("< 25", "25–44", "≥ 45")
    assert bin_labels([25, 26, 45], whole=True) == ("< 25", "25", "26–44", "≥ 45")
    assert bin_labels([0.5, 2], whole=False) == ("< 0.5", "0.5 to < 2", "≥ 2")
    assert bin_labels([25.0], whole=True) == ("< 25", "≥ 25")


def test_whole_numbers_reads_the_column_and_the_edges():
    assert whole_numbers(pd.Series([19.0, 20.0, np.nan]), [25])
    assert not whole_numbers(pd.Series([19.5, 20.0]), [25])
    assert not whole_numbers(pd.Series([19, 20]), [25.5])


def test_merged_groups_match_values_as_a_where_filter_does():
    frame = pd.DataFrame({"code": [1, 2, 3, 1], "status": ["A91", "A92", "A93", "A94"]})
    by_number = GroupColumn("g", "code", merged=(("one", ("1",)), ("other", (2, 3))))
    assert by_number.group_texts(frame).tolist() == ["one", "other", "other", "one"]
    sex = GroupColumn("sex", "status", merged=(("male", ("A91", "A93", "A94")), ("female", ("A92",))))
    assert sex.group_texts(frame).tolist() == ["male", "female", "male", "male"]


def test_a_row_in_no_group_is_refused_with_its_line():
    frame = pd.DataFrame({"status": ["A91", "A95"]})
    with pytest.raises(DataError, match=r"column 'status', line 3: 'A95' is in no group of protected attribute 'sex'"):
        GroupColumn("sex", "status", merged=(("male", ("A91",)),)).group_texts(frame)
    with pytest.raises(DataError, match="line 2: 'nan' is in no group"):
        GroupColumn("age", "age", edges=(30,), bin_labels=("< 30", "≥ 30")).group_texts(
            pd.DataFrame({"age": [np.nan]}))


def test_a_plain_column_reads_as_group_labels_did():
    frame = pd.DataFrame({"race": ["A", "B & C"], "code": [1.0, 2.0]})
    columns = [GroupColumn("race", "race"), GroupColumn("code", "code")]
    assert derived_group_labels(frame, columns).tolist() == group_labels(frame, ["race", "code"]).tolist()
    assert derived_group_labels(frame, columns).tolist() == ["A & 1", '"B & C" & 2']


def test_readable_labels_rename_labelled_values_also_inside_intersections():
    frame = pd.DataFrame({"status": ["A91", "A92", "A93"], "age": [20, 50, 30]})
    columns = [GroupColumn("status", "status", labels=(("A91", "male: divorced"), ("A92", "female"))),
               GroupColumn("age", "age", edges=(30,), bin_labels=("< 30", "≥ 30"))]
    assert readable_group_labels(frame, columns) == {"A91 & < 30": "male: divorced & < 30",
                                                     "A92 & ≥ 30": "female & ≥ 30"}
    assert readable_group_labels(frame, [GroupColumn("status", "status")]) == {}


def test_definitions_as_model_json_records_them():
    assert GroupColumn("age", "age", edges=(25, 45), bin_labels=("< 25", "25–44", "≥ 45")).to_json() == {
        "name": "age", "column": "age", "kind": "bins", "edges": [25, 45], "closed": "left",
        "groups": ["< 25", "25–44", "≥ 45"]}
    assert GroupColumn("sex", "ps", merged=(("male", ("A91",)),)).to_json() == {
        "name": "sex", "column": "ps", "kind": "merged", "groups": {"male": ["A91"]}}
    assert GroupColumn("d", "d", labels=((1, "yes"),)).to_json() == {
        "name": "d", "column": "d", "kind": "column", "labels": {"1": "yes"}}
