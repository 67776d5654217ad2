"""Regenerate the committed example reports: train every spec in specs/ into reports/<name>/.

Run from anywhere: ``python reports/regenerate.py [SPEC ...]`` (every spec of ``specs/`` by
default).  Each spec is trained with ``compile-and-train SPEC --output reports/<name>``: the
specs' own ``output`` lines point at ``out/<name>``, which git ignores, so a user running the
README's first command never rewrites these committed files; this script is the one thing
that does.  Prints one line per spec: its exit code, the wall-clock time of the whole run, and
whether the fit is reproducible (the clock stopped no stage).  A spec whose fit the clock cut
is reported and makes the exit code 1: its report would say "not guaranteed", and the slow
test that retrains the examples (``tests/test_examples_reproduce.py``) would skip it; run
again on an idler machine.

When ``compas_rules.fair`` is among them, the README's picture of its report
(``docs/report-screenshot.png``) is taken again with headless Chromium, so it shows the numbers
the committed report holds; the README quotes them from ``reports/compas_rules/metrics.json``
and ``tests/test_docs.py`` checks that it does.  Afterwards, update any number the README
quotes that changed (the test names it).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fairspec.cli import main

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "reports"
SCREENSHOT = ROOT / "docs" / "report-screenshot.png"
SCREENSHOT_OF = "compas_rules"
#: the package versions the examples were made with, as pip constraints: .ci/run installs them,
#: so the slow test that retrains the examples compares like with like
VERSIONS = REPORTS / "versions.txt"


def screenshot(report: Path, target: Path = SCREENSHOT) -> None:
    """The top of ``report`` as a PNG at ``target``; replaced only when Chromium wrote it whole."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium is not on PATH: the README's screenshot was not refreshed "
                         "(apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={tmp}/profile", f"--screenshot={shot}", "--window-size=1000,1500",
                        report.resolve().as_uri()], check=True, capture_output=True, timeout=120)
        if not shot.is_file() or shot.stat().st_size == 0:
            raise SystemExit(f"chromium wrote no screenshot of {report}")
        staged = target.with_name(f".{target.name}.tmp")
        shutil.copyfile(shot, staged)
        os.replace(staged, target)


def reproducible(run_dir: Path) -> bool:
    """Whether every model of a run says the clock stopped no stage of its fit."""
    models = sorted(run_dir.glob("point-*/model.json")) or [run_dir / "model.json"]
    return all(json.loads(m.read_text(encoding="utf-8"))["training"]["fit_log"].get("reproducible") is not False
               for m in models)


def write_versions() -> None:
    """``reports/versions.txt`` from the committed models' ``software`` blocks (Python aside:
    pip cannot choose it); refused when two examples were made under different versions."""
    blocks = {json.dumps({k: v for k, v in json.loads(m.read_text(encoding="utf-8"))["software"].items()
                          if k != "python"}, sort_keys=True) for m in REPORTS.rglob("model.json")}
    if len(blocks) != 1:
        raise SystemExit(f"the examples under reports/ were made under different package versions: {blocks}; "
                         f"regenerate them all")
    pins = json.loads(blocks.pop())
    VERSIONS.write_text("# The package versions the committed examples were made with (written by reports/regenerate.py)\n"
                        + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins)), encoding="utf-8")


def regenerate(specs: list[Path]) -> int:
    worst = 0
    for spec in specs:
        out = REPORTS / spec.stem
        start = time.perf_counter()
        code = main(["compile-and-train", str(spec.relative_to(ROOT)), "--output", str(out.relative_to(ROOT)), "-q"])
        seconds = time.perf_counter() - start
        if code == 0 and not reproducible(out):
            print(f"{spec.name:28s} exit 0  {seconds:6.1f} s  NOT reproducible: the clock cut a stage "
                  f"(a busy machine); run again when it is idle", flush=True)
            code = 1
        else:
            print(f"{spec.name:28s} exit {code}  {seconds:6.1f} s", flush=True)
        worst = max(worst, code)
        if code == 0 and spec.stem == SCREENSHOT_OF:
            screenshot(out / "report.html")
            print(f"{'':28s} {SCREENSHOT.relative_to(ROOT)} taken again", flush=True)
    write_versions()
    print(f"{'':28s} {VERSIONS.relative_to(ROOT)} written", flush=True)
    return worst


if __name__ == "__main__":
    os.chdir(ROOT)
    chosen = [Path(p).resolve() for p in sys.argv[1:]] or sorted((ROOT / "specs").glob("*.fair"))
    raise SystemExit(regenerate(chosen))
