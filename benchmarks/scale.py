"""Scale: fairspec on 100k to 3M rows, peers beside it, and independent fits on a Dask cluster.

One run prints four tables (benchmarks/README.md, "Scale", records them):

1. per size (100k, 300k, 1M, 3M rows x 12 features and a group column, generated into
   ``--work``, never into the repository): ``fairspec check``, ``compile-and-train`` of a
   depth-5 tree under equal opportunity <= 0.05 (read, split, fit, evaluate, write) and
   ``fairspec predict --metrics``, each a separate process: wall and CPU seconds, peak RSS,
   and the peak RSS over the in-memory size of the frame;
2. the ratios of each command's wall and CPU time to the 100k run's, beside the ratio of rows;
3. every stage's seconds from the 1M run's metrics.json;
4. on the 1M file, LightGBM (100 trees, one thread), scikit-learn's HistGradientBoosting
   (100 iterations) and DecisionTreeClassifier (depth 5), the file read by pandas;
5. (``--rules-only``) a rule set on the 1M file at time limits of 20 and 60 s: set-up and fit
   seconds against the limit, status, rules, test accuracy, whether the model is constant;
6. a 10-fold cross-validation of a 5-point rule-set sweep on compas (55 fits), serial and on a
   ``distributed.LocalCluster`` of 2 worker processes (one thread each), with the per-fit times
   and what they bound for 100 workers.

The machine is shared: the load average is printed with each table, and ratios measured side
by side in one run are what to quote.

    python benchmarks/scale.py                       # everything, ~15-30 min on 2 busy cores
    python benchmarks/scale.py --sizes 100000 1000000 --skip-cv
    python benchmarks/scale.py --cv-only
    python benchmarks/scale.py --rules-only --rules-time-limits 20 60 --rules-calibrated
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

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

TREE_SPEC = """spec scale_tree
data "{data}"
target y positive 1
protected group
features {{
  x1 numeric  x2 numeric  x3 numeric  x4 numeric  x5 numeric  x6 numeric
  x7 numeric  x8 numeric  x9 numeric  c1 categorical  c2 categorical  c3 categorical
}}
missing mia
fairness equal_opportunity <= 0.05
model tree {{ depth 5 }}
evaluate {{ holdout 0.3 stratify seed 1 }}
"""

RULES_SPEC = """spec scale_rules
data "{data}"
target y positive 1
protected group
features {{
  x1 numeric  x2 numeric  x3 numeric  x4 numeric  x5 numeric  x6 numeric
  x7 numeric  x8 numeric  x9 numeric  c1 categorical  c2 categorical  c3 categorical
}}
missing mia
fairness equal_opportunity <= 0.05{on_train}
model rule_set {{ max_complexity 20 }}
solver {{ time_limit {limit}s }}
evaluate {{ holdout 0.3 stratify seed 1 }}
"""

SWEEP_SPEC = """spec compas_sweep
data "{data}" where race in ["African-American", "Caucasian"]
target two_year_recid positive 1
protected race
features {{
  age numeric  priors_count numeric  juv_fel_count numeric  juv_misd_count numeric  juv_other_count numeric
  c_charge_degree categorical  sex categorical
}}
missing mia
fairness equal_opportunity <= [0.02, 0.05, 0.1, 0.15, 0.2] on train
model rule_set {{ max_complexity 20  max_conditions 2 }}
solver {{ time_limit {limit}s  threads 1  seed 7  clock_cap false }}
evaluate {{ cv 10 seed 7 }}
"""


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def generate(rows: int, path: Path, block: int = 500_000) -> Path:
    """``rows`` rows of 9 numeric features (two with 5 % missing), 3 categorical ones (one with
    3 % missing), a group column of three groups and a 0/1 target, written in blocks."""
    if path.exists():
        return path
    tmp = path.with_suffix(".tmp")
    rng = np.random.default_rng(rows)
    cats = [np.array(list("pqrst"), dtype=object), np.array(["u", "v", "w", "z"], dtype=object),
            np.array([f"k{i}" for i in range(12)], dtype=object)]
    with open(tmp, "w") as fh:
        for start in range(0, rows, block):
            n = min(block, rows - start)
            g = rng.choice(np.array(["a", "b", "c"], dtype=object), n, p=[0.5, 0.3, 0.2])
            gi = (g == "b") * 1.0 + (g == "c") * 2.0
            X = rng.normal(size=(n, 9))
            X[:, 0] += 0.3 * gi
            cols = {}
            for j in range(9):
                v = np.round(X[:, j], 3)
                if j in (2, 5):
                    v[rng.random(n) < 0.05] = np.nan
                cols[f"x{j + 1}"] = v
            codes = [rng.integers(0, len(c), n) for c in cats]
            for j, (c, k) in enumerate(zip(cats, codes)):
                v = c[k].copy()
                if j == 1:
                    v[rng.random(n) < 0.03] = None
                cols[f"c{j + 1}"] = v
            logit = (X[:, 0] - 0.8 * X[:, 1] + 0.5 * np.nan_to_num(X[:, 2]) * X[:, 3] + 0.4 * (codes[0] == 2)
                     - 0.3 * (codes[2] % 3) + 0.2 * gi)
            cols["group"] = g
            cols["y"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
            pd.DataFrame(cols).to_csv(fh, index=False, header=start == 0)
    tmp.rename(path)
    return path


def timed(argv: list[str]) -> dict:
    """Run ``argv``; its wall seconds, CPU seconds (user + system) and peak RSS (MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def frame_mb(path: Path) -> float:
    from fairspec.data.table import read_table

    return read_table(path).memory_usage(deep=True).sum() / 2**20


def generated_in_child(rows: int, path: Path) -> tuple[Path, float]:
    """``generate(rows, path)`` and the frame's ``frame_mb``, both in a child process: Linux counts
    a child's peak RSS from the fork, so a table generated or read here would raise the peak of
    every command this script (or ``scale_memory.py``) runs after it."""
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); "
            f"from pathlib import Path; from scale import generate, frame_mb; "
            f"print(frame_mb(generate({rows}, Path({str(path)!r}))))")
    size = float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
    return path, size


def sizes_table(sizes: list[int], work: Path) -> dict:
    fairspec = [sys.executable, "-m", "fairspec"]
    results = {}
    print(f"\n## fairspec per size ({load()}, {time.strftime('%Y-%m-%d %H:%M')})\n")
    print("| rows | frame MB | command | wall s | CPU s | peak RSS MB | RSS / frame |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for rows in sizes:
        data, size = generated_in_child(rows, work / f"rows_{rows}.csv")
        spec = work / f"tree_{rows}.fair"
        spec.write_text(TREE_SPEC.format(data=data))
        out = work / f"out_{rows}"
        shutil.rmtree(out, ignore_errors=True)
        runs = {
            "check": timed(fairspec + ["check", str(spec)]),
            "train": timed(fairspec + ["compile-and-train", str(spec), "--out", str(out), "-q"]),
            "predict": timed(fairspec + ["predict", str(out), str(data), "-o", str(work / f"pred_{rows}.csv"),
                                         "--metrics", str(work / f"audit_{rows}.json")]),
        }
        runs["timing"] = json.loads((out / "metrics.json").read_text())["timing"]
        results[rows] = runs
        for name in ("check", "train", "predict"):
            r = runs[name]
            print(f"| {rows:,} | {size:.0f} | {name} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['rss_mb']:.0f} | "
                  f"{r['rss_mb'] / size:.2f} |", flush=True)
    return results


def ratios_table(results: dict) -> None:
    sizes = sorted(results)
    base = sizes[0]
    print(f"\n## growth against {base:,} rows ({load()})\n")
    print("| rows | rows ratio | " + " | ".join(f"{c} wall | {c} CPU" for c in ("check", "train", "predict")) + " |")
    print("| --- | --- | " + " | ".join("--- | ---" for _ in range(3)) + " |")
    for rows in sizes:
        cells = [f"{results[rows][c][k] / results[base][c][k]:.2f}" for c in ("check", "train", "predict")
                 for k in ("wall", "cpu")]
        print(f"| {rows:,} | {rows / base:.0f} | " + " | ".join(cells) + " |")


def stages_table(results: dict, rows: int) -> None:
    if rows not in results:
        return
    print(f"\n## stages of compile-and-train on {rows:,} rows (its metrics.json; {load()})\n")
    print("| stage | seconds |")
    print("| --- | --- |")
    for name, seconds in results[rows]["timing"].items():
        print(f"| {name} | {seconds} |")
    print(f"| (process wall, imports and writing included) | {results[rows]['train']['wall']:.1f} |")


def peers_table(data: Path) -> None:
    """LightGBM, HistGradientBoosting and a depth-5 tree on the same file, each held to one
    thread (threadpoolctl for scikit-learn's OpenMP): wall and CPU seconds of fit and predict."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier
    from threadpoolctl import threadpool_limits

    print(f"\n## peers on {data.name} (one thread each; {load()})\n")

    def clocked(func):
        wall, cpu = time.perf_counter(), time.process_time()
        value = func()
        return value, time.perf_counter() - wall, time.process_time() - cpu

    frame, read_wall, read_cpu = clocked(lambda: pd.read_csv(data))
    X = frame.drop(columns=["y", "group"])
    for c in ("c1", "c2", "c3"):
        X[c] = X[c].astype("category")
    y = frame["y"].to_numpy()
    cut = int(0.7 * len(frame))
    codes = X.copy()
    for c in ("c1", "c2", "c3"):
        codes[c] = codes[c].cat.codes.replace(-1, np.nan)
    models = []
    try:
        import lightgbm as lgb

        models.append(("LightGBM, 100 trees", lgb.LGBMClassifier(n_estimators=100, num_threads=1, verbose=-1), X))
    except ImportError:
        print("LightGBM is not installed (pip install lightgbm)")
    models += [("HistGradientBoosting, 100 iterations",
                HistGradientBoostingClassifier(max_iter=100, categorical_features="from_dtype", early_stopping=False), X),
               ("DecisionTree, depth 5 (missing as -1)", DecisionTreeClassifier(max_depth=5), codes.fillna(-1))]
    print("| what | fit wall s | fit CPU s | predict wall s | predict CPU s | test accuracy |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| pandas read_csv | {read_wall:.2f} | {read_cpu:.2f} | | | |")
    with threadpool_limits(1):
        for name, model, matrix in models:
            _, fit_wall, fit_cpu = clocked(lambda: model.fit(matrix.iloc[:cut], y[:cut]))
            pred, pred_wall, pred_cpu = clocked(lambda: model.predict(matrix.iloc[cut:]))
            print(f"| {name} | {fit_wall:.2f} | {fit_cpu:.2f} | {pred_wall:.2f} | {pred_cpu:.2f} | "
                  f"{(pred == y[cut:]).mean():.4f} |", flush=True)


def rules_table(work: Path, limits: list[float], calibrated: bool) -> None:
    """Issue 48's rule set on 1M rows: ``compile-and-train`` of ``model rule_set { max_complexity
    20 }`` at each time limit, the bound held on the training rows (one fit) and, with
    ``calibrated``, the same bound calibrated (inner fits and the refit).  Set-up and fit seconds
    come from the fit log (the refit's, for a calibrated bound) and metrics.json's timing."""
    data = generate(1_000_000, work / "rows_1000000.csv")
    fairspec = [sys.executable, "-m", "fairspec"]
    print(f"\n## a rule set on 1M rows ({load()}, {time.strftime('%Y-%m-%d %H:%M')})\n")
    print("| time_limit s | bound | set-up s | stages s | fit_seconds | process wall s | CPU s | status | "
          "rules | test accuracy | constant model | cut by clock |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    forms = [(" on train", "on train")] + ([("", "calibrated")] if calibrated else [])
    for limit in limits:
        for on_train, name in forms:
            spec = work / f"rules_{limit:g}_{name.replace(' ', '_')}.fair"
            spec.write_text(RULES_SPEC.format(data=data, limit=f"{limit:g}", on_train=on_train))
            out = work / f"out_rules_{limit:g}_{name.replace(' ', '_')}"
            shutil.rmtree(out, ignore_errors=True)
            run = timed(fairspec + ["compile-and-train", str(spec), "--out", str(out), "-q"])
            metrics = json.loads((out / "metrics.json").read_text())
            log = json.loads((out / "model.json").read_text())["training"]["fit_log"]
            # model.json's fit log has no timings; metrics.json's training_log keeps them
            timed_log = metrics["training_log"]
            setup = timed_log.get("setup_seconds")
            stages = None if setup is None else timed_log["seconds"] - setup
            print(f"| {limit:g} | {name} | {setup} | {stages if stages is None else round(stages, 1)} | "
                  f"{metrics['timing'].get('fit_seconds')} | {run['wall']:.1f} | {run['cpu']:.1f} | {log['status']} | "
                  f"{log['n_rules']} | {metrics['test']['accuracy']:.4f} | {metrics['constant_model'] is not None} | "
                  f"{log['cut_by_clock']} |", flush=True)
    print(f"\n({load()} at the end)")


def same_fits(serial: list, parallel: list) -> bool:
    """Whether two runs of the same tasks gave byte-identical results: each fit's model document
    (its fit log without timings, as model.json writes it) and, for a fold's fit, the rows it
    scored, their labels and their scores.  A fit that raised compares by its message."""
    from fairspec.pipeline.artifact import _without_fit_timings

    def key(result):
        if isinstance(result, BaseException):
            return ("error", type(result).__name__, str(result))
        fitted, scored, labels, scores, _seconds = result
        doc = json.dumps(_without_fit_timings(fitted.estimator.to_json()), sort_keys=True)
        arrays = [None if a is None else (np.asarray(a).dtype.str, np.asarray(a).tobytes())
                  for a in (scored, labels, scores)]
        return doc, arrays

    return len(serial) == len(parallel) and all(key(a) == key(b) for a, b in zip(serial, parallel))


def cv_table(work: Path, limit: float) -> None:
    """55 rule-set fits, serial and on a 2-worker LocalCluster, through the pipeline's own tasks."""
    import distributed

    from fairspec import load_spec
    from fairspec.parallel import run_tasks, use_scheduler
    from fairspec.pipeline.train import _fit_task, _point_tasks, prepare_data
    from fairspec.plan.compile import compile_spec

    spec = work / "compas_sweep.fair"
    spec.write_text(SWEEP_SPEC.format(data=ROOT / "data" / "compas.csv.gz", limit=limit))
    plan = compile_spec(load_spec(str(spec)))
    data = prepare_data(plan)
    tasks = [task for criterion in plan.fairness for task in _point_tasks(plan, data, criterion)]
    shared = (plan, data.frame, data.y, data.groups)
    print(f"\n## 10-fold cv of a 5-point rule-set sweep on compas: {len(tasks)} fits, time_limit {limit:g} s, "
          f"clock_cap false ({load()}, {time.strftime('%Y-%m-%d %H:%M')})\n")
    t = time.perf_counter()
    serial = run_tasks(_fit_task, tasks, shared=shared)
    serial_wall = time.perf_counter() - t
    load_serial = load()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        with use_scheduler(cluster.scheduler_address):
            run_tasks(_fit_task, tasks[:2], shared=shared)  # workers warmed up: imports, scattered data
            t = time.perf_counter()
            parallel = run_tasks(_fit_task, tasks, shared=shared)
            cluster_wall = time.perf_counter() - t
    load_cluster = load()
    same = same_fits(serial, parallel)
    fits = np.array([r[-1] for r in serial])
    print("| run | wall s | speed-up | load |")
    print("| --- | --- | --- | --- |")
    print(f"| serial, one process | {serial_wall:.1f} | 1.00 | {load_serial} |")
    print(f"| LocalCluster, 2 workers | {cluster_wall:.1f} | {serial_wall / cluster_wall:.2f} | {load_cluster} |")
    print(f"\nsame predictions and models on every fit: {same}")
    print(f"per fit (serial): mean {fits.mean():.2f} s, median {np.median(fits):.2f} s, longest {fits.max():.2f} s, "
          f"sum {fits.sum():.1f} s")
    overhead = max(cluster_wall - fits.sum() / 2, 0.0) / len(tasks)
    bound = max(fits.max(), fits.sum() / 100)
    print(f"100 workers: at least max(longest fit {fits.max():.2f} s, sum / 100 = {fits.sum() / 100:.2f} s) = "
          f"{bound:.2f} s, plus the scheduler's cost per task (here at most {overhead:.3f} s a task over the ideal "
          f"two-way split): about {bound + overhead * len(tasks) / 100:.2f} s, bounded by the longest fit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000, 3_000_000])
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "fairspec-scale")
    parser.add_argument("--skip-cv", action="store_true")
    parser.add_argument("--cv-only", action="store_true")
    parser.add_argument("--skip-peers", action="store_true")
    parser.add_argument("--peers-only", action="store_true")
    parser.add_argument("--cv-time-limit", type=float, default=2.0)
    parser.add_argument("--rules-only", action="store_true", help="only the rule set on 1M rows (issue 48)")
    parser.add_argument("--rules-time-limits", type=float, nargs="+", default=[20.0, 60.0])
    parser.add_argument("--rules-calibrated", action="store_true", help="also the calibrated bound")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.rules_only:
        rules_table(args.work, args.rules_time_limits, args.rules_calibrated)
        return
    if args.peers_only:
        peers_table(generate(1_000_000, args.work / "rows_1000000.csv"))
        return
    if not args.cv_only:
        results = sizes_table(args.sizes, args.work)
        ratios_table(results)
        stages_table(results, 1_000_000)
        if not args.skip_peers:
            peers_table(generate(1_000_000, args.work / "rows_1000000.csv"))
    if not args.skip_cv:
        cv_table(args.work, args.cv_time_limit)


if __name__ == "__main__":
    main()
