"""The corpus of broken specs: each file says where its error is and what it says.

A file's first line is ``# expect: LINE:COL message fragment``; an optional second line
``# hint: fragment`` names a fragment of the hint.  Every file must fail (syntax or
semantic error) with a diagnostic at exactly that place whose message contains the fragment.
"""
from __future__ import annotations

import pathlib
import re

import pytest

from fairspec.data.table import read_table
from fairspec.dsl import check_spec, load_spec, resolve_data_path
from fairspec.errors import SpecError

BROKEN = sorted((pathlib.Path(__file__).parent / "broken").glob("*.fair"))
EXPECT = re.compile(r"^# expect: (\d+):(\d+) (.+)$")
HINT = re.compile(r"^# hint: (.+)$")


def test_corpus_is_large_enough():
    assert len(BROKEN) >= 15


def _expectation(path: pathlib.Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    match = EXPECT.match(lines[0])
    assert match, f"{path.name}: first line must be '# expect: LINE:COL fragment'"
    hint = HINT.match(lines[1]) if len(lines) > 1 else None
    return int(match.group(1)), int(match.group(2)), match.group(3), hint.group(1) if hint else None


def _load_and_check(path: pathlib.Path) -> None:
    doc = load_spec(path)
    table = read_table(resolve_data_path(doc))  # read as the commands read it
    check_spec(doc, table)


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_spec_reports_expected_diagnostic(path):
    line, column, fragment, hint = _expectation(path)
    with pytest.raises(SpecError) as info:
        _load_and_check(path)
    error = info.value
    at_place = [d for d in error.diagnostics if d.span and (d.span.line, d.span.column) == (line, column)]
    assert at_place, f"no diagnostic at {line}:{column}; got:\n{error.render()}"
    assert any(fragment in d.message for d in at_place), error.render()
    if hint is not None:
        assert any(d.hint and hint in d.hint for d in at_place), error.render()
    # the rendered text starts each diagnostic with FILE:LINE:COL and never shows Lark's terminal names
    rendered = error.render()
    assert f"{path}:{line}:{column}: error:" in rendered
    assert not re.search(r"__ANON|\$END|\bRBRACE\b|\bLSQB\b", rendered)
