"""Open a rendered report in headless Chromium: it loads, shows the per-group tables, logs no error.

Chromium (Debian package ``chromium``) is a test tool the project does not install: a user
without root gets it or not.  Where CI asks for it (``.ci/run`` sets
``FAIRSPEC_REQUIRE_CHROMIUM=1`` and installs the package), a missing browser fails these
tests; elsewhere they are reported as skipped, with the reason, instead of run.
"""
from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import GROUPS, HOSTILE_COLUMN, make_docs

from fairspec.report import build_context, write_report

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND",  # any network use would fail
    "--enable-logging=stderr", "--v=0",
]


#: set (to anything but empty or 0) where a missing Chromium must fail these tests: .ci/run sets it
REQUIRE_CHROMIUM = "FAIRSPEC_REQUIRE_CHROMIUM"


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        message = ("headless Chromium is not on PATH, so the report was not opened in a browser "
                   "(`apt-get install -y chromium` as root installs it; .ci/run does)")
        if os.environ.get(REQUIRE_CHROMIUM, "") not in ("", "0"):
            pytest.fail(f"{message}; {REQUIRE_CHROMIUM} is set, so this is a failure")
        pytest.skip(message)
    return path


def run_chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=60)


def console_errors(stderr: str) -> list[str]:
    """Console messages and uncaught exceptions Chromium logged for the page."""
    return [line for line in stderr.splitlines()
            if ":CONSOLE" in line or "Uncaught" in line or "Refused to" in line]


class DomTables(HTMLParser):
    """Collects the data-group of each row of every <table class="groups">, and element names."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[str]] = {}
        self.current: str | None = None
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        if tag == "table" and attrs.get("class") == "groups":
            self.current = attrs.get("id")
            self.tables[self.current] = []
        elif tag == "tr" and self.current and "data-group" in attrs:
            self.tables[self.current].append(attrs["data-group"])

    def handle_endtag(self, tag):
        if tag == "table":
            self.current = None


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_report_opens_in_headless_chromium(tmp_path):
    page = write_report(tmp_path / "report.html", build_context(*make_docs()))
    result = run_chromium(page, tmp_path / "profile", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_errors(result.stderr) == []

    dom = DomTables()
    dom.feed(result.stdout)
    for table_id in ("groups-train", "groups-test", "groups-data"):
        assert sorted(dom.tables.get(table_id, [])) == sorted(GROUPS), table_id
    assert "script" not in dom.tags and "img" not in dom.tags  # hostile names stayed text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in result.stdout and HOSTILE_COLUMN not in result.stdout

    shot = tmp_path / "shot.png"
    result = run_chromium(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1000,1400")
    assert result.returncode == 0 and console_errors(result.stderr) == []
    assert png_size(shot) == (1000, 1400)


def test_console_error_detection_works(tmp_path):
    """The check above must be able to fail: a page with a script error is caught."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><title>t</title><script>not_defined_anywhere();</script>", encoding="utf-8")
    result = run_chromium(page, tmp_path / "profile", "--dump-dom")
    errors = console_errors(result.stderr)
    assert any("not_defined_anywhere" in line for line in errors), result.stderr[-2000:]


def _renamed(doc, old: str, new: str):
    """``doc`` with every key or string ``old`` replaced by ``new`` (a group's name throughout)."""
    if isinstance(doc, dict):
        return {(new if k == old else k): _renamed(v, old, new) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_renamed(v, old, new) for v in doc]
    return new if doc == old else doc


def test_a_long_name_from_the_data_wraps_instead_of_widening_the_page(tmp_path):
    # a 200-character group name and a 150-character category, with no space to break at, had
    # widened their tables to 2,800 pixels; in print the browser shrank every page to fit them
    long = "G" * 200
    model_doc, metrics_doc = (_renamed(doc, GROUPS[-1], long) for doc in make_docs())
    model_doc["schema"]["features"][2]["categories"] = ["F", "C" * 150]
    page = write_report(tmp_path / "report.html", build_context(model_doc, metrics_doc))
    text = page.read_text(encoding="utf-8")
    assert long in text and "C" * 150 in text
    # the page measures itself: its width, written into the DOM Chromium dumps
    page.write_text(text.replace("</body>", "<script>document.body.setAttribute('data-width', "
                                            "document.documentElement.scrollWidth)</script></body>"), encoding="utf-8")
    result = run_chromium(page, tmp_path / "profile", "--dump-dom", "--window-size=1000,1400")
    assert result.returncode == 0, result.stderr[-2000:]
    width = int(re.search(r'data-width="(\d+)"', result.stdout).group(1))
    assert width <= 1000


def test_a_missing_chromium_is_a_skip_for_a_user_and_a_failure_where_ci_requires_it(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv(REQUIRE_CHROMIUM, raising=False)
    with pytest.raises(pytest.skip.Exception, match="not on PATH"):
        chromium()
    monkeypatch.setenv(REQUIRE_CHROMIUM, "1")
    with pytest.raises(pytest.fail.Exception, match="is set, so this is a failure"):
        chromium()


def pdf_pages(path: Path) -> int:
    """The number of pages of a PDF Chromium printed (its page objects)."""
    return len(re.findall(rb"/Type\s*/Page[^s]", path.read_bytes()))


def test_a_sweep_report_and_a_comparison_load_without_error_and_print(tmp_path):
    from fairspec.report.compare import build_comparison, render_comparison

    pts = [make_docs(bound=b, seed=0) for b in (0.05, 0.1, 0.2)]
    sweep = write_report(tmp_path / "sweep.html", build_context(*pts[0], sweep=pts))
    compared = tmp_path / "compared.html"
    compared.write_text(render_comparison(build_comparison([("a", pts[:1]), ("b", pts[1:])])), encoding="utf-8")
    for page in (sweep, compared):
        result = run_chromium(page, tmp_path / "profile", "--dump-dom")
        assert result.returncode == 0 and console_errors(result.stderr) == [], result.stderr[-2000:]
        assert "<svg" in result.stdout and "<script" not in result.stdout
        pdf = tmp_path / f"{page.stem}.pdf"
        result = run_chromium(page, tmp_path / "profile", f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
        assert result.returncode == 0 and console_errors(result.stderr) == [], result.stderr[-2000:]
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf_pages(pdf) >= 1


def test_the_report_prints_with_its_figures_and_folded_parts_open(tmp_path):
    page = write_report(tmp_path / "report.html", build_context(*make_docs()))
    pdf = tmp_path / "report.pdf"
    result = run_chromium(page, tmp_path / "profile", f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    assert result.returncode == 0 and console_errors(result.stderr) == [], result.stderr[-2000:]
    pages = pdf_pages(pdf)
    assert 3 <= pages <= 20, pages
    # printed, the folded parts (training rows' tables, the appendix's fit log) are open: the print
    # style shows every <details> content
    css = page.read_text(encoding="utf-8").split("@media print", 1)[1]
    for folded in ("details.records", "details.appendix", "details.point"):
        assert f"{folded} > *:not(summary) {{ display: block; }}" in page.read_text(encoding="utf-8")
    assert "break-inside: avoid" in css
