"""Regenerate the example reports: train every spec in specs/ and time it.

Run from the repository root: ``python reports/regenerate.py [SPEC ...]``.  Each spec's
``output`` line puts its files under ``reports/<name>/``.  Prints one line per spec with the
wall-clock time of the whole ``compile-and-train`` run (the issue's target is under a minute).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from fairspec.cli import main

ROOT = Path(__file__).resolve().parents[1]


def regenerate(specs: list[Path]) -> int:
    worst = 0
    for spec in specs:
        start = time.perf_counter()
        code = main(["compile-and-train", str(spec.relative_to(ROOT)), "-q"])
        print(f"{spec.name:28s} exit {code}  {time.perf_counter() - start:6.1f} s", flush=True)
        worst = max(worst, code)
    return worst


if __name__ == "__main__":
    import os

    os.chdir(ROOT)
    chosen = [Path(p).resolve() for p in sys.argv[1:]] or sorted((ROOT / "specs").glob("*.fair"))
    raise SystemExit(regenerate(chosen))
