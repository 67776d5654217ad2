"""privileged_boost (KbPIB / JPIB) beside the same booster without privileged features and LightGBM.

    python benchmarks/boosting_privileged.py                       # the final table: seeds 0-4, both parts
    python benchmarks/boosting_privileged.py --part auc --seeds 100 101 --data adult compas   # development
    python benchmarks/boosting_privileged.py --part speed --repeats 5

Part ``auc``.  On adult, compas, default, law and german, the protected attribute(s) of
``/work/shared/datasets/README.md`` (adult: sex, race; compas: race, sex; default: SEX; law:
race, sex; german: personal_status, age) are the privileged columns, read while training only;
every other column but the label is a usable feature (categorical where the file holds text).
Each seed is one stratified 70/30 split (by label and first protected column).  Side by side, in
one process, on the same rows:

* ``plain`` -- the same booster without privileged features (``alpha 0``);
* ``kbpib`` / ``jpib`` -- the family's defaults (alpha 1, the teacher reads the features too);
* ``kbpib_priv_only`` -- KbPIB whose teacher reads the privileged columns alone;
* ``lightgbm`` -- LightGBM on the usable features, the same number of trees (``--rounds``),
  depth, learning rate and leaf size, one thread, no early stopping.

Our boosters hold out 20 % of the training rows for early stopping (patience 20), as the paper
does; LightGBM trains on all of them.  Printed: test AUC per data set (mean over seeds) and the
differences the targets read; then the test and training gaps of equal opportunity at the
decision threshold 1/2 and of KbPIB under ``equal_opportunity <= 0.05`` (the threshold chosen
on the training rows) and ``penalty 1``.

Part ``speed``.  All of adult, usable features as above, ``--rounds`` rounds of depth
``--depth``, no early stopping (so every model grows its full number of trees), one thread:
LightGBM, the plain booster, KbPIB (``rounds`` trees of the teacher, then of the student) and
JPIB, interleaved ``--repeats`` times; printed: each one's median seconds and its median ratio to
LightGBM's time in the same repeat.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread everywhere, as LightGBM's num_threads=1

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from fairspec.data.prepare import FeatureEncoder  # noqa: E402
from fairspec.models.privileged_boost import PrivilegedBoostClassifier  # noqa: E402
from fairspec.registry.criteria import make_criterion  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = {  # file, label column, positive value, protected columns
    "adult": ("adult.csv.gz", "income", ">50K", ["sex", "race"]),
    "compas": ("compas.csv.gz", "two_year_recid", 1, ["race", "sex"]),
    "default": ("default.csv.gz", "default_next_month", 1, ["SEX"]),
    "law": ("law.csv.gz", "pass_bar", 1, ["race", "sex"]),
    "german": ("german.csv.gz", "credit", 1, ["personal_status", "age"]),
}
EO = make_criterion("equal_opportunity")


def load(name: str):
    """(frame, y, usable names, usable kinds, privileged names, privileged kinds, groups)."""
    file, label, positive, protected = DATA[name]
    frame = pd.read_csv(ROOT / "data" / file)
    y = (frame[label] == positive).to_numpy().astype(int)

    def kinds(cols):
        return ["numeric" if pd.api.types.is_numeric_dtype(frame[c]) else "categorical" for c in cols]

    usable = [c for c in frame.columns if c != label and c not in protected]
    groups = frame[protected[0]].astype(str).to_numpy()
    return frame, y, usable, kinds(usable), protected, kinds(protected), groups


def encode(frame, train, names, kinds):
    """The pipeline's encoding: categories as codes of the training rows' categories."""
    enc = FeatureEncoder.fit(frame.iloc[train], names, kinds)
    return enc.transform(frame), enc.categorical_indices


def booster(depth, rounds, **kw):
    return PrivilegedBoostClassifier(n_rounds=rounds, max_depth=depth, learning_rate=0.1, min_samples_leaf=20, **kw)


def lightgbm(depth, rounds):
    import lightgbm as lgb

    return lgb.LGBMClassifier(n_estimators=rounds, max_depth=depth, num_leaves=2 ** depth, learning_rate=0.1,
                              min_child_samples=20, num_threads=1, verbose=-1, deterministic=True)


def part_auc(datasets, seeds, depth, rounds):
    rows = []
    for name in datasets:
        frame, y, usable, ukinds, priv, pkinds, groups = load(name)
        for seed in seeds:
            idx = np.arange(len(y))
            strata = np.char.add(y.astype(str), groups.astype(str))
            train, test = train_test_split(idx, test_size=0.3, random_state=seed, stratify=strata)
            X, cat = encode(frame, train, usable, ukinds)
            P, pcat = encode(frame, train, priv, pkinds)
            common = dict(categorical_features=cat, privileged_categorical_features=pcat, random_state=seed)
            models = {
                "plain": booster(depth, rounds, alpha=0.0, **common),
                "kbpib": booster(depth, rounds, **common),
                "jpib": booster(depth, rounds, variant="jpib", **common),
                "kbpib_priv_only": booster(depth, rounds, teacher_reads_features=False, **common),
                "kbpib_eo_bound": booster(depth, rounds, fairness=make_criterion("equal_opportunity", 0.05), **common),
                "kbpib_eo_penalty": booster(depth, rounds, fairness=make_criterion("equal_opportunity", penalty=1.0),
                                            **common),
            }
            for label, model in models.items():
                start = time.perf_counter()
                model.fit(X[train], y[train], groups[train], privileged=P[train])
                seconds = time.perf_counter() - start
                rows.append(dict(data=name, seed=seed, model=label, seconds=seconds,
                                 auc=roc_auc_score(y[test], model.predict_proba(X[test])[:, 1]),
                                 train_gap=EO.gap(y[train], model.predict(X[train]), groups[train]),
                                 test_gap=EO.gap(y[test], model.predict(X[test]), groups[test]),
                                 accuracy=float((model.predict(X[test]) == y[test]).mean()),
                                 trees=model.fit_log_["trees"]))
            lgbm = lightgbm(depth, rounds)
            start = time.perf_counter()
            lgbm.fit(X[train], y[train], categorical_feature=cat or "auto")
            seconds = time.perf_counter() - start
            rows.append(dict(data=name, seed=seed, model="lightgbm", seconds=seconds,
                             auc=roc_auc_score(y[test], lgbm.predict_proba(X[test])[:, 1]),
                             train_gap=EO.gap(y[train], lgbm.predict(X[train]), groups[train]),
                             test_gap=EO.gap(y[test], lgbm.predict(X[test]), groups[test]),
                             accuracy=float((lgbm.predict(X[test]) == y[test]).mean()), trees=rounds))
            print(f"# {name} seed {seed}: " + ", ".join(f"{r['model']} {r['auc']:.4f}" for r in rows
                                                        if r["data"] == name and r["seed"] == seed), flush=True)
    table = pd.DataFrame(rows)
    auc = table.pivot_table(index="data", columns="model", values="auc", aggfunc="mean").reindex(datasets)
    print(f"\nTest AUC, mean over seeds {list(seeds)} (depth {depth}, {rounds} rounds):\n")
    cols = ["plain", "kbpib", "jpib", "kbpib_priv_only", "lightgbm"]
    print("| data | " + " | ".join(cols) + " | kbpib - plain | jpib - plain | kbpib - lightgbm |")
    print("|" + " --- |" * (len(cols) + 4))
    for name, r in auc.iterrows():
        print(f"| {name} | " + " | ".join(f"{r[c]:.4f}" for c in cols)
              + f" | {r['kbpib'] - r['plain']:+.4f} | {r['jpib'] - r['plain']:+.4f}"
              + f" | {r['kbpib'] - r['lightgbm']:+.4f} |")
    for v in ("kbpib", "jpib"):
        d = auc[v] - auc["plain"]
        print(f"\n{v}: AUC >= plain on {int((d >= 0).sum())} of {len(d)}; worst {d.min():+.4f}; "
              f"|{v} - lightgbm| at most {(auc[v] - auc['lightgbm']).abs().max():.4f}")
    gaps = table.pivot_table(index="data", columns="model", values=["train_gap", "test_gap", "accuracy"],
                             aggfunc="mean")
    print("\nEqual-opportunity gap between the groups of the first privileged column, mean over seeds, "
          "train / test gap (test accuracy):\n")
    gcols = ["plain", "kbpib", "kbpib_eo_bound", "kbpib_eo_penalty", "lightgbm"]
    print("| data | " + " | ".join(gcols) + " |")
    print("|" + " --- |" * (len(gcols) + 1))
    for name in datasets:
        cells = (f"{gaps.loc[name, ('train_gap', c)]:.3f} / {gaps.loc[name, ('test_gap', c)]:.3f} "
                 f"({gaps.loc[name, ('accuracy', c)]:.3f})" for c in gcols)
        print(f"| {name} | " + " | ".join(cells) + " |")
    trees = table.pivot_table(index="data", columns="model", values="trees", aggfunc="mean").reindex(datasets)
    print("\nTrees kept after early stopping (mean): " + "; ".join(
        f"{n}: plain {r['plain']:.0f}, kbpib {r['kbpib']:.0f}, jpib {r['jpib']:.0f}" for n, r in trees.iterrows()))
    return table


def part_speed(depth, rounds, repeats):
    frame, y, usable, ukinds, priv, pkinds, groups = load("adult")
    everything = np.arange(len(y))
    X, cat = encode(frame, everything, usable, ukinds)
    P, pcat = encode(frame, everything, priv, pkinds)
    common = dict(categorical_features=cat, privileged_categorical_features=pcat, validation_share=0.0)
    fits = {
        "lightgbm": lambda: lightgbm(depth, rounds).fit(X, y, categorical_feature=cat),
        "plain": lambda: booster(depth, rounds, alpha=0.0, **common).fit(X, y),
        "kbpib": lambda: booster(depth, rounds, **common).fit(X, y, privileged=P),
        "kbpib_priv_only": lambda: booster(depth, rounds, teacher_reads_features=False, **common).fit(X, y,
                                                                                                   privileged=P),
        "jpib": lambda: booster(depth, rounds, variant="jpib", **common).fit(X, y, privileged=P),
    }
    times = {k: [] for k in fits}
    for _ in range(repeats):
        for name, fit in fits.items():
            start = time.perf_counter()
            fit()
            times[name].append(time.perf_counter() - start)
    print(f"\nFit seconds on adult ({len(y)} rows, {X.shape[1]} usable features), {rounds} rounds of depth {depth}, "
          f"one thread, {repeats} interleaved repeats:\n")
    print("| model | trees grown | median s | median ratio to LightGBM (same repeat) |")
    print("| --- | --- | --- | --- |")
    grown = {"lightgbm": rounds, "plain": rounds, "kbpib": 2 * rounds, "kbpib_priv_only": 2 * rounds,
             "jpib": 2 * rounds}
    for name, ts in times.items():
        ratio = statistics.median(t / l for t, l in zip(ts, times["lightgbm"]))
        print(f"| {name} | {grown[name]} | {statistics.median(ts):.2f} | {ratio:.2f} |")
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("auc", "speed", "both"), default="both")
    parser.add_argument("--data", nargs="+", default=list(DATA), choices=list(DATA))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)
    if args.part in ("auc", "both"):
        part_auc(args.data, args.seeds, args.depth, args.rounds)
    if args.part in ("speed", "both"):
        part_speed(args.depth, args.rounds, args.repeats)
    print(f"# done {time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
