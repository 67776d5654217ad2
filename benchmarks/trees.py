"""Fit-time benchmark of the missing-aware tree against scikit-learn and the Trinary paper's code.

    python benchmarks/trees.py                      # everything (about 5 minutes on 2 cores)
    python benchmarks/trees.py --skip-reference     # only ours vs scikit-learn (seconds)

Part 1 — adult, all 32,561 rows and 14 features (categoricals as integer codes, their real
missing values in workclass / occupation / native_country kept as NaN), depth 5: our tree with
each missing-value strategy against ``sklearn.tree.DecisionTreeClassifier`` (which accepts NaN
since 1.3 and learns where missing values go, like MIA).  Times are the best of
``--repeats`` fits in this process, single-threaded; the ratio is ours / scikit-learn.

Part 2 — the same fit as the ``trinary-tree`` package 0.1.22: it cannot run on the full data
in reasonable time (every Trinary split grows a middle subtree over all of the node's rows at
the same depth, every threshold is scored with pandas, and a categorical feature with k
categories tries 2^k - 2 subsets -- native_country has 41), so both sides fit a random sample
(``--ref-rows``, default 1000 rows) on six features of adult at depth ``--ref-depth`` with the
package's default ``min_samples_leaf=20``.  The package runs in its own virtual environment
(``benchmarks/trinary_reference.py time``, a subprocess; one fit).  Our side reproduces the
package's fit exactly (``criterion="entropy_sum"``, ``middle_growth="full"``, no
present-vs-missing candidate -- the settings the conformance test checks), so the two fits
build the same tree.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from fairspec.models.missing_tree import MissingAwareTreeClassifier

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "data" / "adult.csv.gz"
REFERENCE_PYTHON = Path("/opt/trinary-venv/bin/python")
REFERENCE_SCRIPT = ROOT / "benchmarks" / "trinary_reference.py"
STRATEGIES = ("mia", "trinary", "trinary_mia", "majority", "fractional")
REFERENCE_FEATURES = ("age", "workclass", "education_num", "marital_status", "hours_per_week", "sex")


def encode(frame: pd.DataFrame, features) -> tuple[np.ndarray, list[int]]:
    """Float matrix: numeric columns as is, string columns as codes of their sorted categories."""
    X = np.empty((len(frame), len(features)))
    categorical = []
    for j, name in enumerate(features):
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col):
            X[:, j] = col.to_numpy(dtype=float)
        else:
            codes, _ = pd.factorize(col, sort=True)
            X[:, j] = np.where(codes < 0, np.nan, codes)
            categorical.append(j)
    return X, categorical


def best_time(fit, repeats: int) -> tuple[float, object]:
    times, model = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - start)
    return min(times), model


def part_sklearn(repeats: int, depth: int) -> list[dict]:
    frame = pd.read_csv(ADULT)
    y = (frame["income"] == ">50K").to_numpy().astype(int)
    features = [c for c in frame.columns if c != "income"]
    X, categorical = encode(frame, features)
    rows = []
    sk_time, sk = best_time(lambda: DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y), repeats)
    rows.append({"model": "sklearn DecisionTreeClassifier", "seconds": sk_time, "ratio": 1.0,
                 "train_acc": float((sk.predict(X) == y).mean()), "nodes": int(sk.tree_.node_count)})
    for strategy in STRATEGIES:
        t, m = best_time(lambda: MissingAwareTreeClassifier(max_depth=depth, missing=strategy,
                                                            categorical_features=categorical).fit(X, y), repeats)
        rows.append({"model": f"ours missing={strategy}", "seconds": t, "ratio": t / sk_time,
                     "train_acc": float((m.predict(X) == y).mean()), "nodes": m.tree_.n_nodes})
    print(f"\nadult: {X.shape[0]} rows x {X.shape[1]} features ({len(categorical)} categorical), depth {depth}, "
          f"NaN cells {int(np.isnan(X).sum())}; best of {repeats} fits")
    print(f"{'model':<34}{'fit s':>9}{'ours/sklearn':>14}{'train acc':>11}{'nodes':>7}")
    for r in rows:
        print(f"{r['model']:<34}{r['seconds']:>9.3f}{r['ratio']:>14.2f}{r['train_acc']:>11.4f}{r['nodes']:>7}")
    return rows


def part_reference(rows: int, depth: int, models: list[str], seed: int) -> list[dict]:
    frame = pd.read_csv(ADULT)
    sample = frame.sample(n=rows, random_state=seed).reset_index(drop=True)
    y = (sample["income"] == ">50K").to_numpy().astype(int)
    X, categorical = encode(sample, REFERENCE_FEATURES)
    out = []
    for model in models:
        ours_time, ours = best_time(lambda: MissingAwareTreeClassifier(
            max_depth=depth, min_samples_leaf=20, criterion="entropy_sum", missing=model, middle_growth="full",
            mia_missing_split=False, categorical_features=categorical).fit(X, y), 3)
        cmd = [str(REFERENCE_PYTHON), str(REFERENCE_SCRIPT), "time", "--csv", str(ADULT), "--target", "income",
               "--positive", ">50K", "--features", ",".join(REFERENCE_FEATURES), "--depth", str(depth),
               "--min-samples-leaf", "20", "--model", model, "--rows", str(rows), "--seed", str(seed)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"reference run failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
            ref_time = float("nan")
        else:
            ref_time = json.loads(proc.stdout.strip().splitlines()[-1])["fit_seconds"]
        out.append({"model": model, "ours": ours_time, "reference": ref_time, "speedup": ref_time / ours_time,
                    "nodes": ours.tree_.n_nodes})
    print(f"\ntrinary-tree 0.1.22 vs ours on the same fit: adult sample of {rows} rows, features "
          f"{', '.join(REFERENCE_FEATURES)}, depth {depth}, min_samples_leaf 20 (reference: one fit; ours: best of 3)")
    print(f"{'model':<14}{'ours s':>10}{'trinary-tree s':>16}{'speed-up':>10}{'nodes':>7}")
    for r in out:
        print(f"{r['model']:<14}{r['ours']:>10.4f}{r['reference']:>16.2f}{r['speedup']:>10.0f}{r['nodes']:>7}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-reference", action="store_true")
    ap.add_argument("--ref-rows", type=int, default=1000)
    ap.add_argument("--ref-depth", type=int, default=3)
    ap.add_argument("--ref-models", default="trinary,trinary_mia")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    part_sklearn(args.repeats, args.depth)
    if not args.skip_reference:
        if not REFERENCE_PYTHON.exists():
            print(f"\n{REFERENCE_PYTHON} not found: build the reference environment (benchmarks/README.md)")
        else:
            part_reference(args.ref_rows, args.ref_depth, args.ref_models.split(","), args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
