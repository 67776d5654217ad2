"""The boosting families' speed targets in one run: 200 rounds on adult against LightGBM's 200
trees of the same depth, one thread (issue 46: plain, KbPIB, JPIB; issue 45: mp_boost).

    python benchmarks/boosting.py                    # the table: 5 interleaved repeats, ~3 min
    python benchmarks/boosting.py --repeats 3 --rounds 50
    python benchmarks/boosting.py --one kbpib        # one fit in this process (for an outside timer)
    python benchmarks/boosting.py --one none         # the same process without a fit: its start-up
                                                     # (--family mp: with mp_boost's data)

Rows, all on all of adult (32,561 rows):

* ``plain``, ``kbpib``, ``jpib``: ``model privileged_boost`` as ``boosting_privileged.py --part
  speed`` fits it (12 usable features, the protected sex and race privileged, depth 4, learning
  rate 0.1, 20 rows a leaf, no early stopping, so every model grows all its trees: 200 for
  plain, 400 for KbPIB and JPIB, teacher and student) against ``lightgbm d4``;
* ``mp_boost a=0 d2`` ... ``mp_boost a=0.9 d3``: ``model mp_boost`` as ``boosting_mp.py``'s speed
  section fits it (its defaults: minipatches of sqrt(N) rows and sqrt(M) features, mu = 0.2;
  alpha and depth as named) against ``lightgbm d2`` / ``lightgbm d3``.

Each repeat fits every row once, in this order, so a row's ratio compares fits made seconds
apart; printed: median wall and CPU seconds and the median of the per-repeat ratios to the
LightGBM of the same depth, and whether it is within the issues' 3x.  Which code path ran
(numba's compiled loops or numpy) is printed in the header.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread everywhere, as LightGBM's num_threads=1

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import boosting_mp  # noqa: E402
import boosting_privileged  # noqa: E402

from fairspec.models.tree import compiled  # noqa: E402

TARGET = 3.0  # issues 45 and 46: at most 3x LightGBM's time


def privileged_fits(rounds: int) -> dict:
    """name -> (LightGBM row it is compared with, trees grown, a function fitting it once)."""
    frame, y, usable, ukinds, priv, pkinds, _ = boosting_privileged.load("adult")
    everything = np.arange(len(y))
    X, cat = boosting_privileged.encode(frame, everything, usable, ukinds)
    P, pcat = boosting_privileged.encode(frame, everything, priv, pkinds)
    common = dict(categorical_features=cat, privileged_categorical_features=pcat, validation_share=0.0)
    booster = boosting_privileged.booster
    return {
        "lightgbm d4": (None, rounds,
                        lambda: boosting_privileged.lightgbm(4, rounds).fit(X, y, categorical_feature=cat)),
        "plain": ("lightgbm d4", rounds, lambda: booster(4, rounds, alpha=0.0, **common).fit(X, y)),
        "kbpib": ("lightgbm d4", 2 * rounds, lambda: booster(4, rounds, **common).fit(X, y, privileged=P)),
        "jpib": ("lightgbm d4", 2 * rounds,
                 lambda: booster(4, rounds, variant="jpib", **common).fit(X, y, privileged=P)),
    }


def mp_fits(rounds: int) -> dict:
    """As :func:`privileged_fits`, for mp_boost at depths 2 and 3."""
    Xm, ym, gm, catm, _ = boosting_mp.load("adult")
    out = {}
    for depth in (2, 3):
        out[f"lightgbm d{depth}"] = (None, rounds, lambda d=depth: boosting_mp.fit_lightgbm(
            Xm, ym, catm, 0, n_trees=rounds, depth=d))
        for alpha in (0.0, 0.9):
            out[f"mp_boost a={alpha:g} d{depth}"] = (f"lightgbm d{depth}", rounds, lambda d=depth, a=alpha: (
                boosting_mp.FairMPBoostClassifier(n_rounds=rounds, categorical_features=catm, random_state=0,
                                                  alpha=a, max_depth=d).fit(Xm, ym, sensitive_features=gm)))
    return out


FAMILIES = {"privileged": (privileged_fits, ("lightgbm d4", "plain", "kbpib", "jpib")),
            "mp": (mp_fits, tuple(["lightgbm d2", "lightgbm d3"] + [f"mp_boost a={a} d{d}" for d in (2, 3)
                                                                     for a in ("0", "0.9")]))}


def fits(rounds: int) -> dict:
    return {**privileged_fits(rounds), **mp_fits(rounds)}


def header() -> str:
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    path = "compiled (numba)" if compiled.active() else "numpy"
    return (f"{time.strftime('%Y-%m-%d %H:%M %Z')}, load average {load}, {os.cpu_count()} cores, "
            f"python {platform.python_version()}, {path} path")


def table(rounds: int, repeats: int) -> dict:
    runs = fits(rounds)
    for _, _, fit in runs.values():  # a first fit of each: numba's compiled loops loaded, caches warm
        fit()
    wall = {k: [] for k in runs}
    cpu = {k: [] for k in runs}
    for _ in range(repeats):
        for name, (_, _, fit) in runs.items():
            w0, c0 = time.perf_counter(), time.process_time()
            fit()
            wall[name].append(time.perf_counter() - w0)
            cpu[name].append(time.process_time() - c0)
    print(f"\n{rounds} rounds on adult, one thread, median of {repeats} interleaved repeats ({header()})\n")
    print("| model | trees grown | wall s | CPU s | wall / LightGBM | CPU / LightGBM | within 3x |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    out = {}
    for name, (ref, trees, _) in runs.items():
        if ref is None:
            rw = rc = 1.0
        else:
            rw = statistics.median(a / b for a, b in zip(wall[name], wall[ref]))
            rc = statistics.median(a / b for a, b in zip(cpu[name], cpu[ref]))
        verdict = "" if ref is None else ("yes" if rw <= TARGET else "**no**")
        print(f"| {name} | {trees} | {statistics.median(wall[name]):.3f} | {statistics.median(cpu[name]):.3f} | "
              f"{rw:.2f} | {rc:.2f} | {verdict} |")
        out[name] = dict(wall=wall[name], cpu=cpu[name], wall_ratio=rw, cpu_ratio=rc)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--one", help="fit this row once and exit ('none': load the data only)")
    parser.add_argument("--family", choices=list(FAMILIES), default="privileged",
                        help="with --one none: whose data to load")
    args = parser.parse_args(argv)
    if args.one is not None:  # the process loads the data of the row's family only
        family = next((f for f, (_, names) in FAMILIES.items() if args.one in names), None)
        if args.one != "none" and family is None:
            parser.error(f"--one: none or one of {', '.join(n for _, ns in FAMILIES.values() for n in ns)}")
        runs = FAMILIES[family or args.family][0](args.rounds)
        if args.one != "none":
            runs[args.one][2]()
        return 0
    print(f"# {header()}", flush=True)
    table(args.rounds, args.repeats)
    print(f"\n# done {header()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
