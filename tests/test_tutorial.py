"""docs/tutorial.md: its final spec is specs/german_tutorial.fair, and every command it shows
prints what it says, run on the spec as the tutorial has it at that step."""
from __future__ import annotations

import gzip
import io
import os
import pathlib
import re

import pytest

from fairspec.cli import main

REPO = pathlib.Path(__file__).resolve().parents[1]
TUTORIAL = REPO / "docs" / "tutorial.md"
SPEC = REPO / "specs" / "german_tutorial.fair"
SPEC_PATH = "specs/german_tutorial.fair"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    """(kind, text) of each fenced block of the tutorial, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(TUTORIAL.read_text(encoding="utf-8"))]


def steps() -> list[tuple[str, str, str]]:
    """(spec text, command, printed) for each console block, with the spec as the last `fair`
    block before it writes it."""
    found, spec = [], None
    for kind, text in blocks():
        if kind == "fair":
            spec = text
        elif kind == "console":
            command, _, printed = text.partition("\n")
            assert command.startswith("$ "), f"a console block starts with the command: {command!r}"
            found.append((spec, command[2:], printed))
    return found


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder laid out as the repository is for the tutorial: specs/ and the bundled data."""
    (tmp_path / "specs").mkdir()
    os.symlink(REPO / "data", tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, err.getvalue() + out.getvalue()


def test_the_tutorial_s_final_spec_is_the_bundled_file_and_it_checks(workdir):
    fair = [text for kind, text in blocks() if kind == "fair"]
    assert len(fair) >= 5
    assert fair[-1] == SPEC.read_text(encoding="utf-8")
    (workdir / SPEC_PATH).write_text(fair[-1], encoding="utf-8")
    code, printed = run(["check", SPEC_PATH])
    assert code == 0, printed
    assert "german_tutorial.fair: ok: spec 'german_tutorial', family tree" in printed


def test_the_data_is_shown_as_the_file_holds_it():
    (_, command, printed), *_ = steps()
    assert command == "gzip -dc data/german.csv.gz | head -3"
    with gzip.open(REPO / "data" / "german.csv.gz", "rt", encoding="utf-8") as fh:
        assert printed == "".join(next(fh) for _ in range(3))


def test_every_check_and_compile_prints_what_the_tutorial_shows(workdir):
    shown = [(spec, command, printed) for spec, command, printed in steps()
             if command.split()[:2] in (["fairspec", "check"], ["fairspec", "compile"])]
    assert len(shown) >= 6
    for spec, command, printed in shown:
        (workdir / SPEC_PATH).write_text(spec, encoding="utf-8")
        code, actual = run(command.split()[1:])
        assert actual == printed, f"{command} on the spec before it:\n{actual}"
        assert (code == 0) == (": error:" not in printed)


def test_the_tutorial_trains_reports_and_scores_as_it_says(workdir):
    (workdir / SPEC_PATH).write_text(SPEC.read_text(encoding="utf-8"), encoding="utf-8")
    commands = {command.split()[1]: printed for _, command, printed in steps() if command.startswith("fairspec ")}
    code, printed = run(["compile-and-train", SPEC_PATH])
    assert code == 0, printed
    # the progress lines carry this machine's timings
    results = [line for line in printed.splitlines() if not line.startswith("fairspec: ")]
    assert results == [line for line in commands["compile-and-train"].splitlines()
                       if not line.startswith("fairspec: ")]
    assert run(["report", "out/german_tutorial"]) == (0, commands["report"])
    applicants = next(text for kind, text in blocks() if text.startswith("status,month,"))
    (workdir / "new_applicants.csv").write_text(applicants, encoding="utf-8")
    predict = next(command for _, command, _ in steps() if command.startswith("fairspec predict"))
    assert run(predict.split()[1:]) == (0, commands["predict"])
    assert (workdir / "out" / "german_tutorial" / "predictions.csv").read_text().startswith("prediction,score\n")
