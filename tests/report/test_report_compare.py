"""Runs compared (fairspec.report.compare, `fairspec report DIR DIR ... -o FILE`): one frontier,
the dominated models marked, the less discriminatory alternatives, and runs on other data refused."""
from __future__ import annotations

import copy
import html as html_lib
from pathlib import Path

import pytest
from conftest import make_docs

from fairspec.cli import main
from fairspec.errors import RunsNotComparableError, UsageError
from fairspec.pipeline.outputs import render_outputs
from fairspec.report.compare import build_comparison, render_comparison


def _with(docs, accuracy: float, gap: float, interval=None):
    """``docs`` with its test accuracy and equal-opportunity gap set (the comparison reads no more)."""
    model_doc, metrics_doc = copy.deepcopy(docs)
    test = metrics_doc["test"]
    test["accuracy"] = accuracy
    test["gaps"]["equal_opportunity"] = gap
    test["gap_intervals"]["gaps"]["equal_opportunity"] = interval or [max(0.0, gap - 0.03), gap + 0.03]
    return model_doc, metrics_doc


def test_a_comparison_of_three_runs_marks_the_dominated_one_and_finds_the_alternatives():
    base = make_docs(bound=0.05)
    runs = [("runs/a", [_with(base, 0.70, 0.20)]), ("runs/b", [_with(base, 0.68, 0.05)]),
            ("runs/c", [_with(base, 0.66, 0.10)])]
    context = build_comparison(runs)
    by_run = {m.run: m for m in context.models}
    assert [by_run[r].dominated for r in ("runs/a", "runs/b", "runs/c")] == [False, False, True]
    assert by_run["runs/a"].most_accurate and not by_run["runs/b"].alternative  # 0.02 below: beyond 0.01
    assert "No model within 0.01 of its accuracy has a smaller gap" in context.finding
    wider = build_comparison(runs, tolerance=0.03)
    assert [m.alternative for m in wider.models] == [False, True, False]
    assert "1 model has a smaller gap, less discriminatory alternatives: B (0.680, gap 0.0500)" in wider.finding
    page = html_lib.unescape(render_comparison(wider))
    assert page.count("<svg ") == 1 and ">dominated<" in page and "less discriminatory alternative<" in page
    assert "runs/c" in page and 'id="models"' in page


def test_a_sweep_counts_one_model_per_point_and_the_gap_can_be_chosen():
    base = make_docs(bound=0.05)
    runs = [("sweep", [_with(base, 0.70, 0.20), _with(base, 0.69, 0.10)]), ("single", [_with(base, 0.60, 0.30)])]
    context = build_comparison(runs, gap="demographic_parity")
    assert [m.run for m in context.models] == ["sweep (point 0)", "sweep (point 1)", "single"]
    assert context.gap == "demographic_parity" and context.gap_note == "chosen with --gap"
    with pytest.raises(UsageError, match="--gap 'tpr' is not a gap"):
        build_comparison(runs, gap="tpr")
    other = copy.deepcopy(runs)
    other[1][1][0][1]["fairness"]["criterion"] = "demographic_parity"
    with pytest.raises(UsageError, match="the runs declare different criteria"):
        build_comparison(other)


@pytest.mark.parametrize("change, what", [
    (lambda m, d: m["data"].update(sha256="ef" * 32), "data file (SHA-256)"),
    (lambda m, d: d["evaluation"].update(seed=8), "evaluation (split, folds, seed, stratification)"),
    (lambda m, d: d["data_summary"].update(rows_test=299), "rows used and their split"),
    (lambda m, d: m["data"].update(filters=[]), "row filters"),
])
def test_runs_on_other_data_rows_or_splits_are_refused(change, what):
    base = make_docs(bound=0.05)
    other = copy.deepcopy(base)
    change(*other)
    with pytest.raises(RunsNotComparableError) as info:
        build_comparison([("runs/a", [base]), ("runs/b", [other])])
    assert str(info.value).startswith(f"runs/b: error: cannot be compared with runs/a: its {what} differs (")
    assert str(info.value).endswith("runs compared in one report must be trained and measured on the same data, "
                                    "rows and split")


def _write(d: Path, docs) -> Path:
    d.mkdir(parents=True)
    for rel, text in render_outputs([docs]).items():
        (d / rel).write_text(text, encoding="utf-8")
    return d


def test_the_command_compares_runs_into_one_file_and_refuses_other_data(tmp_path, capsys):
    a = _write(tmp_path / "a", make_docs(bound=0.05))
    b = _write(tmp_path / "b", make_docs(bound=0.2))
    out = tmp_path / "compared.html"
    assert main(["report", str(a), str(b), "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    page = out.read_text(encoding="utf-8")
    assert '<meta name="generator" content="fairspec ' in page and page.count("<svg ") == 1
    assert main(["report", str(a), str(b), "-o", str(out)]) == 0  # a report it wrote may be replaced
    # several runs need a file to go to
    assert main(["report", str(a), str(b)]) == 2
    assert "name it with -o FILE" in capsys.readouterr().err
    # another data sample (make_docs' seed draws other rows): refused, nothing written
    c = _write(tmp_path / "c", make_docs(bound=0.05, seed=3))
    assert main(["report", str(a), str(c), "-o", str(tmp_path / "no.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{c}: error: cannot be compared with {a}: its rows used and their split differs")
    assert not (tmp_path / "no.html").exists()
    # a file fairspec did not write is not replaced
    (tmp_path / "notes.html").write_text("my notes", encoding="utf-8")
    assert main(["report", str(a), str(b), "-o", str(tmp_path / "notes.html")]) == 1
    assert (tmp_path / "notes.html").read_text(encoding="utf-8") == "my notes"
    # one run and -o: its own report, written elsewhere, the run's directory untouched
    before = (a / "report.html").read_bytes()
    assert main(["report", str(a), "-o", str(tmp_path / "a.html")]) == 0
    assert (tmp_path / "a.html").read_bytes() == before and (a / "report.html").read_bytes() == before
