"""Loading spec files, finding their data, the rendered diagnostic, and the example specs."""
from __future__ import annotations

import pathlib

import pandas as pd
import pytest

from fairspec.dsl import SpecDocument, check_spec, load_spec, parse_spec, resolve_data_path
from fairspec.errors import SpecError, SpecSemanticError, SpecSyntaxError

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE_SPECS = sorted((REPO / "specs").glob("*.fair"))

SPEC = """\
spec people
data "people.csv"
target label positive 1
protected sex
features { age numeric }
model baseline
"""


def test_rendered_syntax_error_snapshot():
    text = "spec people\ndata \"people.csv\"\ntarget label positive 1\n  protectd sex\n"
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(text, "people.fair")
    assert info.value.render() == (
        "people.fair:4:3: error: found name 'protectd', expected 'favourable' or 'adverse', a new statement "
        "(data, target, protected, features, privileged, missing, fairness, model, solver, evaluate, output, "
        "labels, reference, model_card) or end of file\n"
        "    protectd sex\n"
        "    ^^^^^^^^\n"
        "  hint: did you mean 'protected'?"
    )


def test_rendered_semantic_error_snapshot():
    doc = parse_spec(SPEC.replace("age numeric", "age numeric  hour numeric"), "people.fair")
    data = pd.DataFrame({"age": [30, 40], "hours": [1.0, 2.0], "sex": ["F", "M"], "label": [0, 1]})
    with pytest.raises(SpecSemanticError) as info:
        check_spec(doc, data)
    assert str(info.value) == (
        "people.fair:5:25: error: unknown column 'hour' (feature)\n"
        "  features { age numeric  hour numeric }\n"
        "                          ^^^^\n"
        "  hint: did you mean 'hours'?"
    )


@pytest.mark.parametrize("odd", ["\f", "\x85", "\u2028"])
def test_an_error_quotes_the_line_it_names_whatever_other_line_breaks_a_comment_holds(odd):
    # the parser counts "\n" alone; the quoted line had been counted with str.splitlines()
    # (a lone "\r" is a line break since classic Mac files were read: test_parser.py)
    text = f"spec people # a note{odd}more\ndata \"people.csv\"\ntarget label positive 1\n  protectd sex\n"
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(text, "people.fair")
    assert info.value.render().split("\n")[1:3] == ["    protectd sex", "    ^^^^^^^^"]


def test_load_spec_keeps_text_and_path(tmp_path):
    path = tmp_path / "people.fair"
    path.write_text(SPEC, encoding="utf-8")
    doc = load_spec(path)
    assert isinstance(doc, SpecDocument)
    assert doc.text == SPEC and doc.path == path and doc.filename == str(path)
    assert doc.spec == parse_spec(SPEC).spec
    assert parse_spec(SPEC).filename == "<spec>"


def test_missing_spec_file_is_a_spec_error_naming_the_file(tmp_path):
    path = tmp_path / "absent.fair"
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value).startswith(f"{path}: error: cannot read the spec file: ")


def test_data_path_is_found_next_to_the_spec_first(tmp_path, monkeypatch):
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir()
    (spec_dir / "people.fair").write_text(SPEC, encoding="utf-8")
    (spec_dir / "people.csv").write_text("x\n1\n", encoding="utf-8")
    (tmp_path / "people.csv").write_text("x\n2\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    doc = load_spec(spec_dir / "people.fair")
    assert resolve_data_path(doc).resolve() == (spec_dir / "people.csv").resolve()
    (spec_dir / "people.csv").unlink()
    assert resolve_data_path(doc).resolve() == (tmp_path / "people.csv").resolve()


def test_data_path_not_found_points_at_the_data_string(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs").mkdir()
    path = tmp_path / "specs" / "people.fair"
    path.write_text(SPEC, encoding="utf-8")
    with pytest.raises(SpecSemanticError) as info:
        resolve_data_path(load_spec(path))
    (diag,) = info.value.diagnostics
    assert (diag.span.line, diag.span.column) == (2, 6)
    assert str(tmp_path / "specs" / "people.csv") in diag.message
    assert str(tmp_path / "people.csv") in diag.message


@pytest.mark.parametrize("kind", ["pipe", "device", "too big"])
def test_a_spec_path_that_is_no_regular_file_of_a_spec_s_size_is_refused_before_reading(tmp_path, kind):
    # a named pipe had blocked the read for ever, and /dev/zero read until the memory ran out
    # (found in review)
    import os

    path = {"pipe": tmp_path / "pipe.fair", "device": pathlib.Path("/dev/zero"), "too big": tmp_path / "big.fair"}[kind]
    if kind == "pipe":
        os.mkfifo(path)
    elif kind == "too big":
        path.write_text(SPEC + "#" * 1_000_001, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    reason = "more than a spec's 1,000,000" if kind == "too big" else "not a regular file"
    assert str(info.value).startswith(f"{path}: error: cannot read the spec file: ") and reason in str(info.value)


@pytest.mark.parametrize("data", ["/dev/null", "x" * 300 + ".csv"])
def test_a_data_path_the_system_will_not_open_as_a_file_is_named_at_the_data_string(tmp_path, data):
    # a name too long had been an internal error (Path.is_dir() raised), a device "not found"
    path = tmp_path / "people.fair"
    path.write_text(SPEC.replace('"people.csv"', f'"{data}"'), encoding="utf-8")
    with pytest.raises(SpecSemanticError) as info:
        resolve_data_path(load_spec(path))
    (diag,) = info.value.diagnostics
    assert (diag.span.line, diag.span.column) == (2, 6)
    expected = "is not a regular file (a device or a pipe)" if data == "/dev/null" else "File name too long"
    assert expected in diag.message


def test_example_specs_exist():
    assert EXAMPLE_SPECS, "specs/*.fair: the repository ships example specs"


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=[p.stem for p in EXAMPLE_SPECS])
def test_example_spec_parses_and_checks_against_its_data(path):
    doc = load_spec(path)
    assert doc.spec.name.value
    check_spec(doc, pd.read_csv(resolve_data_path(doc)))


def test_a_spec_that_is_not_utf8_is_named_at_the_line_and_column_of_the_first_bad_byte(tmp_path):
    # the message gave "position 12", a byte offset into the file (found in review)
    path = tmp_path / "latin1.fair"
    path.write_bytes("spec s\n# café and thé\n".encode("latin-1"))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.render().split("\n")[:3] == [
        f"{path}:2:6: error: the spec file is not UTF-8 text: byte 0xe9 here is not UTF-8 (a Latin-1 or "
        "Windows-1252 accent, say)", "  # caf\ufffd and th\ufffd", "       ^"]
    path.write_bytes("spec s\n".encode("utf-16"))
    with pytest.raises(SpecError, match="is UTF-16 text"):
        load_spec(path)
    # lone CR line ends (old Mac), and CRLF: the same line and column (a CR-only file said 1:16)
    for end in ("\r", "\r\n"):
        path.write_bytes(f"spec s{end}# café and thé{end}".encode("latin-1"))
        with pytest.raises(SpecError) as info:
            load_spec(path)
        assert info.value.render().startswith(f"{path}:2:6: error: the spec file is not UTF-8 text")


def test_names_and_values_match_whichever_unicode_form_the_spec_and_the_data_were_saved_in(tmp_path):
    # a CSV header saved in NFD ("c" + combining cedilla) gave "unknown column 'raçe' ... did you
    # mean 'raçe'?", and a spec saved in NFD did not parse (found in review)
    import unicodedata

    nfc, nfd = (lambda t: unicodedata.normalize("NFC", t)), (lambda t: unicodedata.normalize("NFD", t))
    rows = "".join(f"{a},{g},{y}\n" for a, g, y in [(30, "Française", 1), (40, "Suédoise", 0)] * 10)
    text = ('spec accentué\ndata "d.csv" where raçe in ["Française", "Suédoise"]\ntarget y positive 1\n'
            'protected raçe\nfeatures { âge numeric }\nmodel baseline\nevaluate { none }\n')
    for spec_form, data_form in [(nfc, nfd), (nfd, nfc)]:
        (tmp_path / "d.csv").write_text(data_form("âge,raçe,y\n" + rows), encoding="utf-8")
        (tmp_path / "s.fair").write_text(spec_form(text), encoding="utf-8")
        assert nfd(text) != nfc(text)
        doc = load_spec(tmp_path / "s.fair")
        assert doc.spec.name.value == nfc("accentué")
        from fairspec.data.table import read_table
        table = read_table(tmp_path / "d.csv")
        check_spec(doc, table)
        assert sorted(table["raçe"].unique()) == ["Française", "Suédoise"]


def test_a_value_spelled_with_escapes_matches_the_data_in_whichever_unicode_form(tmp_path):
    # "Orle\u0301ans" (e + combining accent, by escapes) matched no "Orléans" of the data, and the
    # hint "did you mean 'Orléans'?" read as the value itself (found in review)
    from fairspec.data.table import read_table

    rows = "".join(f"{y},{g},{c}\n" for y, g, c in [(0, "A", "Orléans"), (1, "B", "Orléans"), (0, "B", "Paris"),
                                                    (1, "A", "Paris")])
    (tmp_path / "d.csv").write_text("y,g,city\n" + rows, encoding="utf-8")
    (tmp_path / "s.fair").write_text('spec s\ndata "d.csv" where city == "Orle\\u0301ans"\ntarget y positive 1\n'
                                     'protected g\nfeatures { city }\nmodel baseline\nevaluate { none }\n')
    doc = load_spec(tmp_path / "s.fair")
    assert doc.spec.data.filters[0].values == ("Orléans",)
    check_spec(doc, read_table(tmp_path / "d.csv"))
