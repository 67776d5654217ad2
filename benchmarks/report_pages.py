"""Measure rendered audit reports: size, screens at 1280 px, where each section starts, printed pages.

    python benchmarks/report_pages.py RUN_DIR [RUN_DIR ...] [--compare FILE]

Each RUN_DIR is a run's output directory (its report.html is measured as it is; render it first
with ``fairspec report RUN_DIR`` or ``-o``).  ``--compare FILE`` measures a comparison page too.
Headless Chromium lays the page out in a 1280 x 800 window (a common laptop screen): a copy of
the page with one script appended records ``scrollHeight`` and each section's top, and a second
run prints the untouched page to PDF (A4, Chromium's default margins, no header or footer), whose
page objects are counted.  Screens = page height / 800.  Prints one row per page.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTH, SCREEN = 1280, 800
SECTIONS = ("summary", "model-card", "groups", "figures", "model", "points", "data", "spec", "how-to-read", "appendix")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars"]
PROBE = ("<script>var b=document.body;b.setAttribute('data-height',document.documentElement.scrollHeight);"
         "b.setAttribute('data-width',document.documentElement.scrollWidth);"
         + "".join(f"var e=document.getElementById('{s}');if(e)b.setAttribute('data-top-{s}',"
                   f"Math.round(e.getBoundingClientRect().top+window.scrollY));" for s in SECTIONS)
         + "</script></body>")


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise SystemExit("chromium is not on PATH (apt-get install -y chromium)")
    return path


def measure(page: Path, work: Path) -> dict:
    probe = work / f"{page.parent.name}-probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE), encoding="utf-8")
    dom = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={work}/profile", f"--window-size={WIDTH},{SCREEN}",
                          "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120).stdout
    attrs = dict(re.findall(r'data-([a-z-]+)="(\d+)"', dom))
    pdf = work / f"{page.parent.name}.pdf"
    subprocess.run([chromium(), *FLAGS, f"--user-data-dir={work}/profile", f"--print-to-pdf={pdf}",
                    "--no-pdf-header-footer", page.as_uri()], capture_output=True, timeout=120)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes())) if pdf.exists() else 0
    height = int(attrs.get("height", 0))
    tops = {s: int(attrs[f"top-{s}"]) for s in SECTIONS if f"top-{s}" in attrs}
    return {"kb": page.stat().st_size / 1024, "height": height, "width": int(attrs.get("width", 0)),
            "screens": height / SCREEN, "tops": tops, "pages": pages}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args(argv)
    pages = [d / "report.html" for d in args.runs] + ([args.compare] if args.compare else [])
    print(f"{'page':34s} {'KB':>6s} {'width':>6s} {'screens':>8s} {'summary ends':>13s} {'appendix from':>14s} "
          f"{'print pages':>12s}")
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages:
            m = measure(page.resolve(), Path(tmp))
            after_summary = next((m["tops"][s] for s in SECTIONS[1:] if s in m["tops"]), m["height"])
            appendix = m["tops"].get("appendix", m["height"])
            name = page.parent.name if page.name == "report.html" else page.name
            print(f"{name:34s} {m['kb']:6.1f} {m['width']:6d} {m['screens']:8.1f} "
                  f"{after_summary / SCREEN:10.1f} sc {appendix / SCREEN:11.1f} sc {m['pages']:12d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
