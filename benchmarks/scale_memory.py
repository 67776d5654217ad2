"""Peak memory of the scale run split in two: what a command's imports alone take, and what the data adds.

Issue 48 asks for a peak RSS of at most 3x the data frame's in-memory size.  A process that only
imports what a command imports has a peak of its own, whatever the data; this script measures
it (the same ``ru_maxrss`` of a child process as ``benchmarks/scale.py``'s ``timed``), then runs
each command on the file, and prints both peaks, their difference (the data-dependent part) and
each as a multiple of the frame's MB.  The files are ``benchmarks/scale.py``'s (generated into
``--work`` by it, never into the repository).

    python benchmarks/scale_memory.py --rows 1000000 --work /tmp/fairspec-scale
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

HERE = Path(__file__).resolve().parent

#: what each command imports before it reads a row (its module-level imports and the ones it
#: makes on the way: the tree family, the relabelling MIP's Pyomo and HiGHS, the report)
IMPORTS = {
    "check": "import fairspec.cli, fairspec.plan.compile, fairspec.data.table",
    "train": ("import fairspec.cli, fairspec.plan.compile, fairspec.pipeline.train, fairspec.pipeline.outputs, "
              "fairspec.models.missing_tree, fairspec.models.tree.relabel, fairspec.solvers.highs"),
    # predict reads a tree through its scorer, without scikit-learn (fairspec.models.tree.scorer)
    "predict": ("import fairspec.cli, fairspec.pipeline.artifact, fairspec.pipeline.scoring, "
                "fairspec.models.tree.scorer, fairspec.metrics.auc"),
}


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def timed(argv: list[str]) -> dict:
    """``benchmarks/scale.py``'s ``timed``: wall seconds and the child's peak RSS (``wait4``).

    Linux keeps a process's peak RSS across ``exec``, so a child forked from a parent holding a
    large table starts at the parent's size: this parent never imports pandas or reads the
    data (``scale.py``'s per-size table reads the frame before its runs, and its check and
    predict rows had both shown that floor, 468 MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err}")
    return {"wall": wall, "rss_mb": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/fairspec-scale"))
    parser.add_argument("--repeats", type=int, default=3, help="import-only runs per command (the largest peak)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    # the file, the spec and the frame's size, in a child: see timed()
    setup = subprocess.run([sys.executable, "-c", (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); from scale import generate, frame_mb, TREE_SPEC; "
        f"from pathlib import Path; work = Path({str(args.work)!r}); "
        f"data = generate({args.rows}, work / 'rows_{args.rows}.csv'); "
        f"print(json.dumps({{'data': str(data), 'spec': TREE_SPEC.format(data=data), 'mb': frame_mb(data)}}))")],
        check=True, capture_output=True, text=True)
    info = json.loads(setup.stdout)
    data, size = info["data"], info["mb"]
    spec = args.work / f"memory_tree_{args.rows}.fair"
    spec.write_text(info["spec"])
    out = args.work / f"memory_out_{args.rows}"
    shutil.rmtree(out, ignore_errors=True)
    fairspec = [sys.executable, "-m", "fairspec"]
    commands = {
        "check": fairspec + ["check", str(spec)],
        "train": fairspec + ["compile-and-train", str(spec), "--out", str(out), "-q"],
        "predict": fairspec + ["predict", str(out), str(data), "-o", str(args.work / f"memory_pred_{args.rows}.csv"),
                               "--metrics", str(args.work / f"memory_audit_{args.rows}.json")],
    }
    print(f"\n## peak RSS, imports alone and with {args.rows} rows ({load()}, {time.strftime('%Y-%m-%d %H:%M')}); "
          f"frame {size:.0f} MB\n")
    print("| command | imports only: wall s | imports only: RSS MB | run: wall s | run: peak RSS MB "
          "| peak / frame | (peak - imports) / frame |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, argv in commands.items():
        only = [timed([sys.executable, "-c", IMPORTS[name]]) for _ in range(args.repeats)]
        base_wall, base_rss = min(r["wall"] for r in only), max(r["rss_mb"] for r in only)
        run = timed(argv)
        print(f"| {name} | {base_wall:.2f} | {base_rss:.0f} | {run['wall']:.1f} | {run['rss_mb']:.0f} "
              f"| {run['rss_mb'] / size:.2f} | {(run['rss_mb'] - base_rss) / size:.2f} |", flush=True)
    print(f"\n({load()} at the end)")


if __name__ == "__main__":
    main()
