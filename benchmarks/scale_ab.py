"""Two checkouts of fairspec side by side on one spec and file: train and predict, alternately.

On a shared machine absolute seconds say little; two codes run alternately in one script see the
same load, and their ratio is what to quote.  Each run is a child process (``python -m fairspec``
from a neutral directory, ``PYTHONPATH`` at the checkout, the same venv), timed as
``benchmarks/scale.py`` times one (wall seconds, peak RSS from ``wait4``).  At the end it says
whether the two trained the same model (``model.json``'s model block), wrote the same predictions
and the same ``predict --metrics`` measures.

    git -C . worktree add --detach /tmp/fairspec-main main
    python benchmarks/scale_ab.py --base /tmp/fairspec-main --spec /tmp/fairspec-scale/tree_1000000.fair \\
        --data /tmp/fairspec-scale/rows_1000000.csv --rounds 2
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd="/")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(proc.stderr.read().decode())
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (e.g. a worktree of main)")
    parser.add_argument("--spec", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True, help="the file predict scores (the spec's)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/fairspec-ab"))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    trees = {"base": args.base.resolve(), "this": ROOT}
    print("| round | code | command | wall s | peak RSS MB | load at start | metrics.json timing |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in range(args.rounds):
        for name, tree in trees.items():
            env = dict(os.environ, PYTHONPATH=str(tree))
            out = args.work / f"out_{name}"
            shutil.rmtree(out, ignore_errors=True)
            load = os.getloadavg()[0]
            wall, rss = timed([sys.executable, "-m", "fairspec", "compile-and-train", str(args.spec.resolve()),
                               "--out", str(out), "-q"], env)
            timing = json.loads((out / "metrics.json").read_text())["timing"]
            print(f"| {r} | {name} | train | {wall:.1f} | {rss:.0f} | {load:.2f} | {timing} |", flush=True)
            load = os.getloadavg()[0]
            wall, rss = timed([sys.executable, "-m", "fairspec", "predict", str(out), str(args.data.resolve()),
                               "-o", str(args.work / f"pred_{name}.csv"),
                               "--metrics", str(args.work / f"audit_{name}.json")], env)
            print(f"| {r} | {name} | predict | {wall:.1f} | {rss:.0f} | {load:.2f} | |", flush=True)
    models = [json.loads((args.work / f"out_{n}" / "model.json").read_text())["model"] for n in trees]
    preds = [(args.work / f"pred_{n}.csv").read_bytes() for n in trees]
    audits = [{k: v for k, v in json.loads((args.work / f"audit_{n}.json").read_text()).items()
               if k not in ("created", "model")} for n in trees]
    print(f"\nsame model: {models[0] == models[1]}; same predictions: {preds[0] == preds[1]}; "
          f"same predict --metrics measures: {audits[0] == audits[1]}")


if __name__ == "__main__":
    main()
