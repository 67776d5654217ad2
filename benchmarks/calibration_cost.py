"""What a calibrated fit costs against the family's own fit (``on train``), in CPU seconds.

CPU time (``time.process_time``) of single-threaded fits, so the ratio does not depend on how
busy the shared machine is; each pair is fitted side by side in one process, ``--repeat``
times, and the medians are compared.

    python benchmarks/calibration_cost.py --datasets compas law
    python benchmarks/calibration_cost.py --datasets compas --families tree forest
    python benchmarks/calibration_cost.py --synthetic 1000000      # the scale case (depth 5)
    python benchmarks/calibration_cost.py --datasets compas adult --choose-depths 4 5 6

``--choose-depths``: the calibrated fit chooses the tree's depth among these (the calibration's
``choices``); its own fit is the tree at the deepest of them, what the estimator is built with.
``--search-multiplier``: the calibrated fit also chooses the tree's Lagrange multiplier among
the shares a spec's calibrated single tree searches (``TREE_MULTIPLIERS``), as the pipeline does.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fairness_holds import load  # noqa: E402
from fairspec.calibration import CalibratedFairClassifier  # noqa: E402
from fairspec.models.missing_tree import MissingAwareForestClassifier, MissingAwareTreeClassifier  # noqa: E402
from fairspec.models.rule_set import FairRuleSetClassifier  # noqa: E402
from fairspec.registry.criteria import make_criterion  # noqa: E402
from fairspec.registry.families import TREE_MULTIPLIERS  # noqa: E402


def synthetic(n, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 10))
    X[:, 0] += 0.5 * g
    y = (X[:, 0] + X[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    return X, y, g.astype(str), []


def family(name, categorical, depth, bound, min_leaf=1):
    crit = make_criterion("equal_opportunity", bound=bound)
    if name == "tree":
        return MissingAwareTreeClassifier(max_depth=depth, min_samples_leaf=min_leaf, categorical_features=tuple(categorical),
                                          fairness=crit, clock_cap=False)
    if name == "forest":  # 10 trees, as the forest rows of benchmarks/README.md's "Cost"
        return MissingAwareForestClassifier(n_estimators=10, max_depth=depth, categorical_features=tuple(categorical),
                                            fairness=crit, clock_cap=False)
    return FairRuleSetClassifier(max_complexity=30, max_conditions=3, categorical_features=tuple(categorical),
                                 criterion=crit, time_limit=5.0, clock_cap=False)


def cpu(fn):
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="*", default=["compas", "law"])
    ap.add_argument("--families", nargs="+", default=["tree"])
    ap.add_argument("--synthetic", type=int, default=0, help="rows of a synthetic data set instead")
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--bound", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--min-leaf", type=int, default=1, help="tree: min_samples_leaf")
    ap.add_argument("--choose-depths", type=int, nargs="+", default=None,
                    help="tree: the calibration chooses the depth among these")
    ap.add_argument("--search-multiplier", action="store_true",
                    help="tree: the calibration also chooses the Lagrange multiplier (the pipeline's default)")
    args = ap.parse_args(argv)
    cases = [(f"synthetic {args.synthetic:,}", synthetic(args.synthetic))] if args.synthetic else \
        [(d, load(d)) for d in args.datasets]
    print("| data | family | on train CPU s | calibrated CPU s | ratio | inner folds fitted |")
    print("| --- | --- | --- | --- | --- | --- |")
    choices = [{"max_depth": d} for d in args.choose_depths] if args.choose_depths else None
    if choices:
        args.families, args.depth = ["tree"], max(args.choose_depths)
    if args.search_multiplier:
        args.families = ["tree"]
        choices = [{**c, "lagrange_share": s} for c in (choices or [{}]) for s in TREE_MULTIPLIERS]
    for name, (X, y, g, cat) in cases:
        for fam in args.families:
            own, cal, folds = [], [], None
            # a first calibrated fit outside the timing: it imports Pyomo and HiGHS
            CalibratedFairClassifier(family(fam, cat, args.depth, args.bound, args.min_leaf), choices=choices).fit(
                X, y, sensitive_features=g)
            for _ in range(args.repeat):
                own.append(cpu(lambda: family(fam, cat, args.depth, args.bound, args.min_leaf).fit(X, y, sensitive_features=g)))
                est = CalibratedFairClassifier(family(fam, cat, args.depth, args.bound, args.min_leaf), choices=choices)
                cal.append(cpu(lambda: est.fit(X, y, sensitive_features=g)))
                folds = est.calibration_["inner_folds_fitted"]
            a, b = statistics.median(own), statistics.median(cal)
            shown = f"{fam}, depth among {args.choose_depths}" if args.choose_depths else f"{fam}, depth {args.depth}"
            shown += ", multiplier searched" if args.search_multiplier else ""
            shown += f", min leaf {args.min_leaf}" if fam == "tree" else ""
            print(f"| {name} | {shown} | {a:.3f} | {b:.3f} | {b / a:.1f} | {folds} |", flush=True)


if __name__ == "__main__":
    main()
