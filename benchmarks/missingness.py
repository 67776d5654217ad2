"""Excess loss against missingness: the shape of Figure 2 of the Trinary paper.

    python benchmarks/missingness.py                 # default run, a few minutes on 2 cores
    python benchmarks/missingness.py --repeats 5 --max-rows 8000

Zakrisson ("Trinary Decision Trees for handling missing data", Figure 2) plots, per data set,
the loss a tree gains when a share of the covariates goes missing, for several ways of
handling the missing values and three missingness mechanisms.  We run the same experiment on
the bundled classification data (adult, compas, default, law, german) and scikit-learn's
``load_diabetes`` (regression):

* mechanisms, each at missing rates q = 25 / 50 / 75 %, applied to the cells of the
  ``--missing-features`` (3) features a scikit-learn tree on the training split finds most
  important (adding them to every feature makes Trinary's middle subtrees -- grown on all of a
  node's rows at the node's depth -- multiply to tens of thousands of nodes per tree):
  ``MCAR``        missing completely at random, in training and in test;
  ``MCAR-test``   no values added in training, MCAR in test only (the training split keeps
                  the data's own missing values: compas's ``c_charge_desc`` has some, and a
                  single such row can decide where MIA sends a masked feature's missing values,
                  which is why MIA's MCAR-test loss on compas is far above majority's);
  ``informative`` a cell is missing with probability q if the row's label is 1 (regression:
                  y above the training median) and never otherwise, in training and test --
                  so the missingness itself carries information about y;
* methods: our tree with ``missing`` = mia, trinary, trinary_mia, majority, fractional, and
  mean imputation (training means; the most frequent code for categorical features) followed
  by the same tree without missing values; with ``--trinary-full`` also ``trinary_full``, the
  paper's Trinary with the middle subtree grown even where no training row is missing (our
  ``trinary`` grows it only where training rows are missing, else the middle child is a leaf
  with the node's estimate);
* excess loss = test loss of the method on the data with missing values minus the test loss
  of the same tree (MIA) fitted and evaluated on the data without the added missing values;
  loss = mean log loss with probabilities clipped to [0.01, 0.99] (classification) or MSE
  divided by the variance of y (regression), averaged over ``--repeats`` random 70/30 splits
  and missingness draws.  An excess loss can be negative: the reference tree overfits its
  complete training rows, and a tree whose leaves were grown on fewer present values gives
  less extreme probabilities, which the log loss rewards (informative missingness also hands
  the method information about y).

Every tree: depth ``--depth`` (5), ``min_samples_leaf`` 10, Gini (classification).  Nothing
here is expected in advance: the script prints what it measures and, per mechanism and rate,
which method had the lowest mean excess loss over the data sets.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes

from fairspec.models.missing_tree import MissingAwareTreeClassifier, MissingAwareTreeRegressor

ROOT = Path(__file__).resolve().parents[1]
DATASETS = {  # name -> (target column, positive value)
    "adult": ("income", ">50K"),
    "compas": ("two_year_recid", 1),
    "default": ("default_next_month", 1),
    "law": ("pass_bar", 1),
    "german": ("credit", 1),
}
METHODS = ("mia", "trinary", "trinary_mia", "majority", "fractional", "mean_impute")
MECHANISMS = ("MCAR", "MCAR-test", "informative")
RATES = (0.25, 0.5, 0.75)


def load(name: str, max_rows: int, seed: int):
    """(X float with NaN, y, categorical column indices, task)."""
    if name == "diabetes":
        data = load_diabetes()
        return data.data.astype(float), data.target.astype(float), [], "regression"
    target, positive = DATASETS[name]
    frame = pd.read_csv(ROOT / "data" / f"{name}.csv.gz")
    if len(frame) > max_rows:
        frame = frame.sample(n=max_rows, random_state=seed).reset_index(drop=True)
    y = (frame.pop(target) == positive).to_numpy().astype(int)
    X = np.empty(frame.shape)
    categorical = []
    for j, col in enumerate(frame.columns):
        if pd.api.types.is_numeric_dtype(frame[col]):
            X[:, j] = frame[col].to_numpy(dtype=float)
        else:
            codes, _ = pd.factorize(frame[col], sort=True)
            X[:, j] = np.where(codes < 0, np.nan, codes)
            categorical.append(j)
    return X, y, categorical, "classification"


def make_model(task, method, depth, categorical):
    kw = dict(max_depth=depth, min_samples_leaf=10, categorical_features=categorical)
    if method == "mean_impute":
        kw["missing"] = "none"
    elif method == "trinary_full":
        kw.update(missing="trinary", middle_growth="full")
    else:
        kw["missing"] = method
    if task == "regression":
        return MissingAwareTreeRegressor(**kw)
    return MissingAwareTreeClassifier(**kw)


def loss(task, model, X, y, var_y):
    if task == "regression":
        return float(np.mean((model.predict(X) - y) ** 2) / var_y)
    p = np.clip(model.predict_proba(X)[:, 1], 0.01, 0.99)
    return float(-np.mean(np.where(y == 1, np.log(p), np.log(1 - p))))


def add_missing(rng, X, y_flag, q, mechanism, cols):
    if mechanism == "informative":
        prob = np.where(y_flag, q, 0.0)[:, None]
    else:
        prob = q
    out = X.copy()
    block = out[:, cols]
    block[rng.random(block.shape) < prob] = np.nan
    out[:, cols] = block
    return out


def impute(X_train, X_test, categorical):
    fill = np.zeros(X_train.shape[1])
    for j in range(X_train.shape[1]):
        col = X_train[:, j][~np.isnan(X_train[:, j])]
        if not len(col):
            continue
        if j in categorical:
            values, counts = np.unique(col, return_counts=True)
            fill[j] = values[np.argmax(counts)]
        else:
            fill[j] = col.mean()
    return (np.where(np.isnan(X_train), fill, X_train), np.where(np.isnan(X_test), fill, X_test))


def important_features(X, y, task, k, seed):
    """The k features a scikit-learn tree (which takes NaN) finds most important."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    cls = DecisionTreeRegressor if task == "regression" else DecisionTreeClassifier
    imp = cls(max_depth=5, min_samples_leaf=10, random_state=seed).fit(X, y).feature_importances_
    return np.sort(np.argsort(-imp, kind="stable")[:k])


def run_dataset(name, repeats, depth, max_rows, n_missing_features, with_full):
    methods = list(METHODS)
    results = {}  # (mechanism, q, method) -> list of excess losses
    for r in range(repeats):
        X, y, categorical, task = load(name, max_rows, seed=r)
        if with_full and "trinary_full" not in methods:
            methods.append("trinary_full")
        rng = np.random.default_rng(1000 + r)
        test = np.zeros(len(y), dtype=bool)
        test[rng.permutation(len(y))[: int(0.3 * len(y))]] = True
        Xtr, Xte, ytr, yte = X[~test], X[test], y[~test], y[test]
        var_y = float(np.var(ytr)) if task == "regression" else 1.0
        base = make_model(task, "mia", depth, categorical).fit(Xtr, ytr)
        base_loss = loss(task, base, Xte, yte, var_y)
        med = np.median(ytr) if task == "regression" else 0.5
        cols = important_features(Xtr, ytr, task, n_missing_features, r)
        for mechanism in MECHANISMS:
            for q in RATES:
                if mechanism == "MCAR-test":
                    Xtr_m = Xtr
                else:
                    Xtr_m = add_missing(rng, Xtr, ytr > med, q, mechanism, cols)
                Xte_m = add_missing(rng, Xte, yte > med, q, mechanism, cols)
                for method in methods:
                    a, b = (impute(Xtr_m, Xte_m, categorical) if method == "mean_impute" else (Xtr_m, Xte_m))
                    model = make_model(task, method, depth, categorical).fit(a, ytr)
                    results.setdefault((mechanism, q, method), []).append(loss(task, model, b, yte, var_y) - base_loss)
    return {k: float(np.mean(v)) for k, v in results.items()}, methods


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--max-rows", type=int, default=5000, help="random sample of larger data sets")
    ap.add_argument("--datasets", default="adult,compas,default,law,german,diabetes")
    ap.add_argument("--missing-features", type=int, default=3,
                    help="missing values are added to this many features (the most important ones)")
    ap.add_argument("--trinary-full", action="store_true",
                    help="also run Trinary with the middle subtree always grown (slow: up to C(depth+p, p) nodes)")
    args = ap.parse_args(argv)
    names = args.datasets.split(",")
    start = time.perf_counter()
    all_results, all_methods = {}, []
    for name in names:
        t0 = time.perf_counter()
        all_results[name], methods = run_dataset(name, args.repeats, args.depth, args.max_rows,
                                                   args.missing_features, args.trinary_full)
        all_methods += [m for m in methods if m not in all_methods]
        print(f"{name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    print(f"excess test loss (method with missing values minus MIA tree without added missing values), "
          f"mean of {args.repeats} splits; depth {args.depth}; rows <= {args.max_rows}; missing values added "
          f"to the {args.missing_features} most important features")
    print("classification: log loss (p clipped to [0.01, 0.99]); diabetes: MSE / var(y)")
    width = max(len(n) for n in names) + 2
    for mechanism in MECHANISMS:
        for q in RATES:
            print(f"\n{mechanism}, {int(q * 100)} % missing")
            print(f"{'method':<14}" + "".join(f"{n:>{max(width, 9)}}" for n in names) + f"{'mean rank':>11}")
            table = {m: [all_results[n].get((mechanism, q, m), np.nan) for n in names] for m in all_methods}
            # rank per data set among the methods run on it (1 = lowest excess loss)
            ranks = {m: [] for m in all_methods}
            for i, n in enumerate(names):
                vals = {m: table[m][i] for m in all_methods if not np.isnan(table[m][i])}
                order = sorted(vals, key=vals.get)
                for rank, m in enumerate(order, 1):
                    ranks[m].append(rank)
            for m in all_methods:
                cells = "".join(f"{v:>{max(width, 9)}.4f}" if not np.isnan(v) else f"{'-':>{max(width, 9)}}"
                                for v in table[m])
                print(f"{m:<14}{cells}{np.mean(ranks[m]):>11.2f}")
            core = [m for m in all_methods if not np.isnan(table[m]).any()]
            best = min(core, key=lambda m: np.mean(ranks[m]))
            winners = [min(core, key=lambda m: table[m][i]) for i in range(len(names))]
            print(f"best mean rank: {best}; best per data set: "
                  + ", ".join(f"{n}={w}" for n, w in zip(names, winners)))
    print(f"\ntotal {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
