"""Regenerate the example reports: train every spec in specs/ and time it.

Run from the repository root: ``python reports/regenerate.py [SPEC ...]``.  Each spec's
``output`` line puts its files under ``reports/<name>/``.  Prints one line per spec with the
wall-clock time of the whole ``compile-and-train`` run (the issue's target is under a minute).
When ``compas_rules.fair`` is among them, the README's picture of its report
(``docs/report-screenshot.png``) is taken again with headless Chromium, so it shows the
numbers the committed report holds; the README's caption quotes them and a test
(``tests/test_docs.py``) checks that it does.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fairspec.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "report-screenshot.png"
SCREENSHOT_OF = "compas_rules"


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


def regenerate(specs: list[Path]) -> int:
    worst = 0
    for spec in specs:
        start = time.perf_counter()
        code = main(["compile-and-train", str(spec.relative_to(ROOT)), "-q"])
        print(f"{spec.name:28s} exit {code}  {time.perf_counter() - start:6.1f} s", flush=True)
        worst = max(worst, code)
        if code == 0 and spec.stem == SCREENSHOT_OF:
            screenshot(ROOT / "reports" / SCREENSHOT_OF / "report.html")
            print(f"{'':28s} {SCREENSHOT.relative_to(ROOT)} taken again", flush=True)
    return worst


if __name__ == "__main__":
    os.chdir(ROOT)
    chosen = [Path(p).resolve() for p in sys.argv[1:]] or sorted((ROOT / "specs").glob("*.fair"))
    raise SystemExit(regenerate(chosen))
