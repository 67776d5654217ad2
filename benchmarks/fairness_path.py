"""How accurate can a tree of a given depth be at a given gap on unseen rows, if ε′ were chosen
after seeing them?  The ceiling the calibration of issue 43 works under.

For each outer fold (10-fold, stratified by label and group, as ``fairness_holds.py``) one tree is
grown on the training side and its leaves relabelled at every internal bound of ``--grid``
(``fit_bound_path``: exactly what ``fit`` returns at each); the held-out rows of all folds are
pooled per bound.  Each row of the table is one ε′ applied in every fold: its pooled accuracy and
gap are what a calibration that always chose that ε′ would give.  The best row at a gap no larger
than a peer's is an upper bound on what choosing ε′ can do for that depth, because it is picked
with the held-out rows in view; the calibration picks without them.  Protected attribute not a
model input.

    python benchmarks/fairness_path.py --dataset compas --depths 4 6 --min-leaf 30 --seed 7
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fairness_holds import DATASETS, folds_of, load  # noqa: E402
from fairspec.calibration.estimator import gap_standard_error  # noqa: E402
from fairspec.models.missing_tree import MissingAwareTreeClassifier  # noqa: E402
from fairspec.registry.criteria import make_criterion  # noqa: E402

GRID = (0.2, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.025, 0.02, 0.015, 0.01, 0.005, 0.0025, 0.0)


def path_table(dataset, setting, depth, min_leaf, seed, folds, grid):
    """Rows ``(ε′, pooled accuracy, pooled gap, its SE, mean training gap)``, one per bound."""
    X, y, g, cat = load(dataset)
    crit = make_criterion(setting, bound=max(grid))
    pred = np.zeros((len(grid), len(y)), dtype=int)
    train_gap = np.zeros((len(grid), folds))
    for k, (tr, te) in enumerate(folds_of(y, g, folds, seed)):
        tree = MissingAwareTreeClassifier(max_depth=depth, min_samples_leaf=min_leaf, categorical_features=tuple(cat),
                                          fairness=crit, time_limit=10, random_state=k)
        for i, est in enumerate(tree.fit_bound_path(X[tr], y[tr], list(grid), sensitive_features=g[tr])):
            pred[i, te] = est.predict(X[te])
            train_gap[i, k] = crit.gap(y[tr], est.predict(X[tr]).astype(int), g[tr])
    return [(b, float(np.mean(pred[i] == y)), crit.gap(y, pred[i], g), gap_standard_error(crit, y, pred[i], g),
             float(train_gap[i].mean())) for i, b in enumerate(grid)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="compas", choices=list(DATASETS))
    ap.add_argument("--setting", default="equal_opportunity", choices=["equal_opportunity", "equalized_odds"])
    ap.add_argument("--depths", type=int, nargs="+", default=[4, 6])
    ap.add_argument("--min-leaf", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7, help="shuffle seed of the outer folds")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--grid", type=float, nargs="+", default=list(GRID))
    args = ap.parse_args(argv)
    print(f"### {args.dataset}, {args.setting}: pooled out-of-fold per internal bound ε′ ({args.folds}-fold CV, "
          f"shuffle seed {args.seed}, protected attribute NOT a model input; {time.strftime('%Y-%m-%d %H:%M')} UTC, "
          f"load average {os.getloadavg()[0]:.1f})\n")
    print("| depth | min leaf | ε′ | accuracy | pooled gap ± SE | training gap (mean) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for depth in args.depths:
        for b, acc, gap, se, tg in path_table(args.dataset, args.setting, depth, args.min_leaf, args.seed,
                                               args.folds, args.grid):
            print(f"| {depth} | {args.min_leaf} | {b:g} | {acc:.4f} | {gap:.4f} ± {se:.4f} | {tg:.4f} |", flush=True)


if __name__ == "__main__":
    main()
