"""FairCG rule sets vs aix360's BRCG vs fairlearn's ExponentiatedGradient, side by side.

Issue 4's benchmark: compas (African-American vs Caucasian), adult (sex), default (SEX);
5 stratified 70/30 splits (stratified by label and group); ε in {none, 0.05, 0.025, 0.01} for
equal opportunity and equalized odds at 0.05.  Ours is ``FairRuleSetClassifier`` (max
complexity 30, 4 conditions, deciles); BRCG (the unconstrained ancestor) runs in its own
virtual environment through a subprocess (``--peer-python``); ExponentiatedGradient uses a
depth-3 tree, the constraint object carrying ``difference_bound=ε`` (fairlearn 0.15).  The
BRCG environment (aix360's FeatureBinarizer needs a scikit-learn before 1.4, which is built
for numpy 1, and so is a cvxpy before 1.6; an unpinned install fails at import, every BRCG
split then prints an error and the table has no BRCG rows):

    python3 -m venv /tmp/bench-venv
    /tmp/bench-venv/bin/pip install aix360==0.3.0 ecos "cvxpy<1.6" "numpy<2" "pandas<2.3" "scikit-learn<1.4"

Features.  By default the protected attribute is not a feature.  ``--protected-feature`` follows
the FairCG authors' convention instead: FairCG's published experiment code (conlaw/FairCG,
``readData``) binarizes every column of the data, the group column included, so its rule sets
may condition on the group.  With the flag every method (ours, ExponentiatedGradient, BRCG and
the references) gets the group column as one more categorical feature.  It matters on compas:
a rule set that may say ``race == Caucasian AND ...`` can raise one group's true-positive rate
where the data allow it, instead of reaching the bound through proxies that are fair on the
training rows partly by chance.  Measured in two full runs of this script, one per convention
(5 splits, equal opportunity ≤ 0.05, same fit code): mean test gap 0.125 without the group
column, 0.069 with it, at a mean test accuracy of 0.625 and 0.656.

    python benchmarks/rule_sets.py --quick            # compas, 1 split
    python benchmarks/rule_sets.py --jobs 2 --protected-feature   # everything (31–41 min on 2 cores)
    python benchmarks/rule_sets.py --load a.json b.json   # one table from parts run with --json
    python benchmarks/rule_sets.py --datasets adult --splits 2
    python benchmarks/rule_sets.py --datasets default --first-seed 5 --splits 5   # development splits
    python benchmarks/rule_sets.py --settings none --no-eg --no-brcg   # unconstrained fits only
    python benchmarks/rule_sets.py --cv 10 --settings none --protected-feature   # the paper's protocol
    python benchmarks/rule_sets.py --datasets compas --settings none --no-eg --no-brcg --protected-feature --ceiling
                                                      # what tuned models reach on the same splits (~35 min)

``--cv K`` replaces the issue's 70/30 splits by the FairCG paper's own protocol (its numbers
are means over 10-fold cross-validation): the K folds of one stratified K-fold split, each
fold the test rows of one fit.  The table says which protocol it measured; parts of two
protocols are not joined by ``--load``.

Prints one row per (dataset, setting, method) with mean test accuracy, mean test and train
gap of the setting's criterion, mean fit seconds and complexity, then the ratios the issue
asks for, each target with a met / MISSED verdict (time and complexity judged on the slowest
and the most complex single fit; a peer's mean only against ours over the same splits).
BRCG has no bound: under a bounded setting its row, "BRCG (aix360, no bound)", is its
unconstrained fit audited with that criterion.  Every number is measured in the run that
prints it.  Our fit budgets: 28 s on compas,
100 s on adult and default (``--time-compas``, ``--time-large``; the issue allows 30 s and
120 s).  A budget sizes our fit's work limits and caps its clock (see
``fairspec/models/rule_set/estimator.py``, "Time and work"); the script counts the fits that
ended by work limits alone, which give the same model on any machine.  Measured here with
``--jobs 2 --protected-feature``: everything in 1,873 s; 74 of our 75 fits ended by work
limits; our slowest fit 17.2 s on compas, 74.3 s on adult and 100.7 s on default (the one
the clock cut: its final IP).  The next day the same machine ran 1.2–1.7x slower (median
fit time of the peers' identical fits: ExponentiatedGradient 1.2x, BRCG 1.67x, HistGB 1.31x):
everything took 2,441 s, our 50 adult and compas fits returned the same rule sets as the day
before (every test accuracy equal, their work identical), and the clock cut 12 of the 25
default fits (final IP 11, local search 5, a last tilted phase 3), so 63 of 75 ended by work
limits alone.  Two sessions later, idle: 1,695 s, all 75 by work limits; slowest fits 19.1 s
(compas), 62.5 s (adult), 87.1 s (default); 238 of the 240 fits gave the same test accuracy as
the slow day's run, the two others being default fits the clock had cut that day.
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, train_test_split

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairspec.models.rule_set import FairRuleSetClassifier  # noqa: E402
from fairspec.registry.criteria import MET_TOLERANCE, make_criterion  # noqa: E402

PAPER_ACCURACY = {"compas": 0.676, "adult": 0.825, "default": 0.820}
#: the issue's limits on one fit of ours (column generation + final IP, 2 cores), seconds,
#: and on its complexity (Σ 1 + conditions)
TIME_TARGET = {"compas": 30.0, "adult": 120.0, "default": 120.0}
MAX_COMPLEXITY = 30
#: means of equal per-split values can differ in the last bit (summed in another order): a
#: tie within this is a tie, and "≥" holds
TIE = 1e-12
SETTINGS = [("none", None), ("equal_opportunity", 0.05), ("equal_opportunity", 0.025),
            ("equal_opportunity", 0.01), ("equalized_odds", 0.05)]
OURS, EG, BRCG = "FairCG (ours)", "ExpGrad depth-3", "BRCG (aix360)"
#: BRCG has no fairness bound: its one unconstrained fit is audited under each bounded setting's
#: criterion, and named so that its row is not read as a fit at that bound
BRCG_AUDITED = "BRCG (aix360, no bound)"
#: how the tuned references of ``--ceiling`` are named
CEILING = "ceiling: "

#: the BRCG runner executed inside the peer environment
PEER_SCRIPT = r'''
"""Run aix360's BRCG on prepared splits; executed by benchmarks/rule_sets.py inside the peer venv.

Usage: python _brcg_peer.py IN.npz OUT.json   (IN holds X_train, y_train, X_test, categorical, names)
aix360 0.3.0's FeatureBinarizer passes ``sparse=`` to OneHotEncoder, removed in scikit-learn
1.4: a one-line shim maps it to ``sparse_output``.
"""
import json
import sys
import time

import numpy as np
import pandas as pd
import sklearn.preprocessing as skp

_OneHot = skp.OneHotEncoder


def _OneHotShim(*args, sparse=None, **kwargs):
    if sparse is not None:
        kwargs["sparse_output"] = sparse
    return _OneHot(*args, **kwargs)


skp.OneHotEncoder = _OneHotShim
import aix360.algorithms.rbm.features as _features  # noqa: E402

_features.OneHotEncoder = _OneHotShim
from aix360.algorithms.rbm import BooleanRuleCG, FeatureBinarizer  # noqa: E402


def frame(X, categorical, names):
    df = pd.DataFrame(X, columns=names)
    for j in categorical:
        df[names[j]] = df[names[j]].map(lambda v: "missing" if np.isnan(v) else f"c{int(v)}")
    for j, n in enumerate(names):
        if j not in categorical:
            df[n] = df[n].fillna(df[n].median())  # BRCG has no missing-value handling
    return df


def main(inp, out):
    data = np.load(inp, allow_pickle=False)
    names = [str(n) for n in data["names"]]
    categorical = [int(c) for c in data["categorical"]]
    tr = frame(data["X_train"], categorical, names)
    te = frame(data["X_test"], categorical, names)
    fb = FeatureBinarizer(colCateg=[names[j] for j in categorical], numThresh=9, negations=True)
    start = time.perf_counter()
    Xtr = fb.fit_transform(tr)
    model = BooleanRuleCG(lambda0=0.001, lambda1=0.001, CNF=False)
    model.fit(Xtr, data["y_train"])
    seconds = time.perf_counter() - start
    pred_test = model.predict(fb.transform(te))
    pred_train = model.predict(Xtr)
    rules = model.explain()["rules"]
    complexity = sum(1 + r.count(" AND ") + 1 for r in rules)
    json.dump({"pred_test": np.asarray(pred_test).astype(int).tolist(),
               "pred_train": np.asarray(pred_train).astype(int).tolist(),
               "seconds": seconds, "complexity": complexity, "rules": rules}, open(out, "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
'''


DATASETS = {
    "compas": dict(file="compas.csv.gz", target="two_year_recid", positive=1, group="race",
                   keep=("African-American", "Caucasian"),
                   features=["sex", "age", "age_cat", "juv_fel_count", "juv_misd_count", "juv_other_count",
                             "priors_count", "c_charge_degree"]),
    "adult": dict(file="adult.csv.gz", target="income", positive=">50K", group="sex", keep=None, features=None),
    "default": dict(file="default.csv.gz", target="default_next_month", positive=1, group="SEX", keep=None,
                    features=None),
}


def load(name, protected_feature=False):
    """(X float with NaN, y, group, feature names, categorical column indices).

    ``protected_feature`` appends the group column as a categorical feature (the FairCG
    authors' convention, see the module docstring)."""
    d = DATASETS[name]
    df = pd.read_csv(ROOT / "data" / d["file"])
    if d["keep"]:
        df = df[df[d["group"]].isin(d["keep"])].reset_index(drop=True)
    y = (df[d["target"]].astype(str).str.strip() == str(d["positive"])).to_numpy().astype(int)
    groups = df[d["group"]].astype(str).to_numpy()
    features = d["features"] or [c for c in df.columns if c not in (d["target"], d["group"])]
    if protected_feature:
        features = [*features, d["group"]]
    X = np.empty((len(df), len(features)))
    categorical = []
    for j, f in enumerate(features):
        col = df[f]
        if pd.api.types.is_numeric_dtype(col):
            X[:, j] = col.astype(float)
            if f == d["group"]:
                categorical.append(j)
        else:
            values = sorted(col.dropna().astype(str).unique())
            codes = {v: i for i, v in enumerate(values)}
            X[:, j] = [codes[str(v)] if pd.notna(v) else np.nan for v in col]
            categorical.append(j)
    return X, y, groups, features, categorical


def split(X, y, groups, seed, cv=None):
    """The issue's split ``seed``: a stratified 70/30 split (by label and group) drawn with that
    seed; or, with ``cv = (k, shuffle_seed)``, the paper's protocol: fold ``seed`` of a
    stratified k-fold cross-validation shuffled by ``shuffle_seed`` (test = that fold)."""
    strat = np.char.add(y.astype(str), groups.astype(str))
    if cv is None:
        return train_test_split(X, y, groups, test_size=0.3, stratify=strat, random_state=seed)
    k, shuffle_seed = cv
    train, test = list(StratifiedKFold(k, shuffle=True, random_state=shuffle_seed).split(X, strat))[seed]
    return X[train], X[test], y[train], y[test], groups[train], groups[test]


def protocol(cv):
    return "70/30 splits" if cv is None else f"{cv[0]}-fold CV (shuffle seed {cv[1]})"


def criterion_for(name, bound):
    return make_criterion("equal_opportunity" if name == "none" else name, bound)


def run_ours(task):
    dataset, seed, setting, bound, time_limit, protected_feature, cv = task
    X, y, groups, features, categorical = load(dataset, protected_feature)
    Xtr, Xte, ytr, yte, gtr, gte = split(X, y, groups, seed, cv)
    crit = criterion_for(setting, bound)
    est = FairRuleSetClassifier(criterion=crit if bound is not None else None, categorical_features=categorical,
                                time_limit=time_limit, threads=1, random_state=seed)
    start = time.perf_counter()
    est.fit(Xtr, ytr, gtr)
    seconds = time.perf_counter() - start
    pred_tr, pred_te = est.predict(Xtr), est.predict(Xte)
    return dict(dataset=dataset, seed=seed, setting=setting, bound=bound, method=OURS,
                accuracy=float((pred_te == yte).mean()), test_gap=crit.gap(yte, pred_te, gte),
                train_gap=crit.gap(ytr, pred_tr, gtr), seconds=seconds,
                complexity=est.fit_log_["complexity"], status=est.fit_log_["status"],
                selected_from=est.fit_log_["selected_from"], mip_gap=est.fit_log_["mip_gap"],
                reproducible=est.fit_log_["reproducible"], cut_by_clock=",".join(est.fit_log_["cut_by_clock"]),
                tilts_skipped="tilts_skipped" in est.fit_log_)


def run_eg(task):
    from fairlearn.reductions import EqualizedOdds, ExponentiatedGradient, TruePositiveRateParity
    from sklearn.tree import DecisionTreeClassifier

    dataset, seed, setting, bound, _, protected_feature, cv = task
    X, y, groups, _, _ = load(dataset, protected_feature)
    Xtr, Xte, ytr, yte, gtr, gte = split(X, y, groups, seed, cv)
    crit = criterion_for(setting, bound)
    constraint = (TruePositiveRateParity if setting == "equal_opportunity" else EqualizedOdds)(difference_bound=bound)
    eg = ExponentiatedGradient(DecisionTreeClassifier(max_depth=3, random_state=seed), constraints=constraint,
                               eps=bound)
    start = time.perf_counter()
    eg.fit(Xtr, ytr, sensitive_features=gtr)
    seconds = time.perf_counter() - start
    pred_tr = eg.predict(Xtr, random_state=seed)
    pred_te = eg.predict(Xte, random_state=seed)
    return dict(dataset=dataset, seed=seed, setting=setting, bound=bound, method=EG,
                accuracy=float((pred_te == yte).mean()), test_gap=crit.gap(yte, pred_te, gte),
                train_gap=crit.gap(ytr, pred_tr, gtr), seconds=seconds, complexity=None)


def ceiling_models(categorical, n_features, seed):
    """Models no rule set of complexity 30 should be expected to beat, each tuned on the training
    rows alone (5-fold grid search by accuracy; the test rows are never seen): gradient boosting
    over depth, learning rate, rounds and leaf size, a random forest over leaf size, and a
    logistic regression on one-hot categories and cubic splines of the numbers (its penalty by
    LogisticRegressionCV).  They bound what these features allow on a split, so a target above
    them on the same split is one only chance could meet."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, SplineTransformer

    numeric = [j for j in range(n_features) if j not in categorical]
    # scikit-learn 1.8+ warns that two defaults will change, and takes them (their values are the
    # plain L2 fit either way); an older one takes neither
    new_api = ({"l1_ratios": (0.0,), "use_legacy_attributes": False}
               if "use_legacy_attributes" in inspect.signature(LogisticRegressionCV).parameters else {})
    boosting = GridSearchCV(HistGradientBoostingClassifier(categorical_features=categorical or None,
                                                           random_state=seed),
                            {"max_depth": [2, 3, 4], "learning_rate": [0.03, 0.1], "max_iter": [100, 300],
                             "min_samples_leaf": [20, 100]}, cv=5)
    forest = GridSearchCV(RandomForestClassifier(n_estimators=300, random_state=seed),
                          {"min_samples_leaf": [5, 20, 50]}, cv=5)
    splines = make_pipeline(ColumnTransformer([("categories", OneHotEncoder(handle_unknown="ignore"), categorical),
                                               ("numbers", SplineTransformer(n_knots=6), numeric)]),
                            LogisticRegressionCV(Cs=10, scoring="accuracy", max_iter=2000, **new_api))
    return [(f"{CEILING}HistGB tuned (reference)", boosting), (f"{CEILING}forest tuned (reference)", forest),
            (f"{CEILING}spline logistic (reference)", splines)]


def run_reference(dataset, seed, protected_feature=False, cv=None, ceiling=False):
    """Unconstrained context, not a peer: scikit-learn's gradient boosting (depth 3, 100 trees)
    and a depth-5 tree on the same split, to show how much accuracy the features allow; with
    ``ceiling``, also the tuned models of :func:`ceiling_models`."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y, groups, _, categorical = load(dataset, protected_feature)
    Xtr, Xte, ytr, yte, gtr, gte = split(X, y, groups, seed, cv)
    crit = criterion_for("none", None)
    rows = []
    models = [("HistGB depth-3 (reference)", HistGradientBoostingClassifier(
                  max_depth=3, categorical_features=categorical or None, random_state=seed)),
              ("tree depth-5 (reference)", DecisionTreeClassifier(max_depth=5, random_state=seed))]
    if ceiling:
        models += ceiling_models(categorical, X.shape[1], seed)
    for name, model in models:
        # the tuned models read NaN themselves (a category of its own for the one-hot encoder; the
        # benchmark's only missing cells are in adult's categorical columns)
        fill = np.nan_to_num if name.startswith("tree") else (lambda a: a)
        start = time.perf_counter()
        model.fit(fill(Xtr), ytr)
        seconds = time.perf_counter() - start
        pred_tr, pred_te = model.predict(fill(Xtr)), model.predict(fill(Xte))
        rows.append(dict(dataset=dataset, seed=seed, setting="none", bound=None, method=name,
                         accuracy=float((pred_te == yte).mean()), test_gap=crit.gap(yte, pred_te, gte),
                         train_gap=crit.gap(ytr, pred_tr, gtr), seconds=seconds, complexity=None))
    return rows


def run_brcg(dataset, seed, peer_python, protected_feature=False, settings=SETTINGS, cv=None):
    X, y, groups, features, categorical = load(dataset, protected_feature)
    Xtr, Xte, ytr, yte, gtr, gte = split(X, y, groups, seed, cv)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "brcg_peer.py"
        script.write_text(PEER_SCRIPT)
        inp, res = Path(tmp) / "in.npz", Path(tmp) / "out.json"
        np.savez(inp, X_train=Xtr, y_train=ytr, X_test=Xte, categorical=np.array(categorical, dtype=int),
                 names=np.array(features))
        proc = subprocess.run([peer_python, str(script), str(inp), str(res)], capture_output=True, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1"})
        if proc.returncode != 0:
            print(f"BRCG failed on {dataset} split {seed}: {proc.stderr[-800:]}", file=sys.stderr)
            return []
        doc = json.loads(res.read_text())
    pred_te, pred_tr = np.array(doc["pred_test"]), np.array(doc["pred_train"])
    for setting, bound in settings:
        crit = criterion_for(setting, bound)
        out.append(dict(dataset=dataset, seed=seed, setting=setting, bound=bound,
                        method=BRCG if bound is None else BRCG_AUDITED,
                        accuracy=float((pred_te == yte).mean()), test_gap=crit.gap(yte, pred_te, gte),
                        train_gap=crit.gap(ytr, pred_tr, gtr), seconds=doc["seconds"],
                        complexity=doc["complexity"]))
    return out


def label(setting, bound):
    return "none (EO audited)" if bound is None or pd.isna(bound) else f"{setting} <= {bound:g}"


def paired(df, dataset, setting_label, method, other):
    """Mean and standard error over splits of (method − other) test accuracy, split by split."""
    sel = df[(df.dataset == dataset) & (df.setting_label == setting_label)]
    a = sel[sel.method == method].set_index("seed").accuracy
    b = sel[sel.method == other].set_index("seed").accuracy
    diff = (a - b).dropna()
    if len(diff) < 2:
        return ""
    return f" [paired diff {diff.mean():+.4f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.4f} SE, {len(diff)} splits]"


def check_rows(df):
    """The rows a table may average (parts joined by ``--load``): one feature convention, and
    each fit once, a later part's row replacing an earlier part's row of the same fit."""
    conventions = set(df.get("protected_feature", pd.Series([False] * len(df))).fillna(False).astype(bool))
    if len(conventions) > 1:
        raise SystemExit("rows with and without the protected attribute as a feature: load one convention at a time")
    # a fold of a cross-validation and a 70/30 split of the same seed are different test rows
    protocols = set(df.get("protocol", pd.Series([protocol(None)] * len(df))).fillna(protocol(None)))
    if len(protocols) > 1:
        raise SystemExit(f"rows of {' and '.join(sorted(protocols))}: load one protocol at a time")
    key = ["dataset", "seed", "setting", "bound", "method"]
    again = df.duplicated(key, keep="last")
    if again.any():
        # a mean over a fit counted twice would weigh that split twice
        print(f"{int(again.sum())} rows measured again in a later part: the later row is used")
        df = df[~again].reset_index(drop=True)
    return df, conventions


def splits_of(df, dataset, setting_label, method):
    sel = df[(df.dataset == dataset) & (df.setting_label == setting_label) & (df.method == method)]
    return set(sel.seed)


def compared(df, dataset, setting_label, other, ok):
    """A verdict against a peer's mean only when both means are over the same splits."""
    if splits_of(df, dataset, setting_label, OURS) != splits_of(df, dataset, setting_label, other):
        return "not compared: other splits"
    return "met" if ok else "MISSED"


def report(rows):
    df, conventions = check_rows(pd.DataFrame(rows))
    print("features:", " and ".join(sorted("protected attribute included" if c else "protected attribute excluded"
                                           for c in conventions)))
    print("splits:", df["protocol"].iloc[0] if "protocol" in df else protocol(None))
    df["setting_label"] = [label(s, b) for s, b in zip(df.setting, df.bound)]
    order = {label(s, b): i for i, (s, b) in enumerate(SETTINGS)}
    agg = (df.groupby(["dataset", "setting_label", "method"], sort=False)
             .agg(n=("accuracy", "size"), accuracy=("accuracy", "mean"), acc_sd=("accuracy", "std"),
                  test_gap=("test_gap", "mean"), train_gap=("train_gap", "mean"),
                  train_gap_max=("train_gap", "max"), seconds=("seconds", "mean"),
                  seconds_max=("seconds", "max"), complexity=("complexity", "mean"),
                  complexity_max=("complexity", "max"))
             .reset_index())
    agg["order"] = agg.setting_label.map(order)
    agg = agg.sort_values(["dataset", "order", "method"]).drop(columns="order")
    with pd.option_context("display.width", 220, "display.max_columns", 20, "display.max_rows", 500):
        print(agg.round(4).to_string(index=False))
    if "reproducible" in df:
        fits = df[df.method == OURS]
        cut = fits[fits.reproducible == False]  # noqa: E712 (a column of bools and NaN)
        print(f"\nour fits stopped by work limits alone (same model on any machine): "
              f"{int((fits.reproducible == True).sum())} of {len(fits)}")  # noqa: E712
        for stage, n in cut.cut_by_clock.str.split(",").explode().value_counts().items():
            print(f"  the clock cut {stage} in {n} fits")
        if "tilts_skipped" in fits:
            skipped = fits[fits.tilts_skipped == True]  # noqa: E712
            print(f"fits whose bound was slack after the paper's phase (tilts skipped): {len(skipped)}"
                  + "".join(f"; {d} {s} {b:g}: {n}" for (d, s, b), n in skipped.groupby(["dataset", "setting", "bound"]).size().items()))
    print("\nratios and targets")
    for dataset in agg.dataset.unique():
        a = agg[agg.dataset == dataset]
        ours = a[a.method == OURS].set_index("setting_label")
        brcg = a[a.method == BRCG].set_index("setting_label")
        eg = a[a.method == EG].set_index("setting_label")
        base = label("none", None)
        if base in ours.index:
            acc = ours.loc[base, "accuracy"]
            se = ours.loc[base, "acc_sd"] / np.sqrt(ours.loc[base, "n"])
            paper = PAPER_ACCURACY[dataset]
            spread = "" if ours.loc[base, "n"] < 2 else f" ± {se:.4f} SE"  # one split has no SE
            line = f"  {dataset}: unconstrained acc {acc:.4f}{spread} vs paper {paper:.3f} " \
                   f"(ratio {acc / paper:.3f}: {'met' if acc >= paper - TIE else 'MISSED'})"
            if base in brcg.index:
                b = brcg.loc[base]
                line += (f", vs BRCG {b.accuracy:.4f} (ratio {acc / b.accuracy:.3f}: "
                         f"{compared(df, dataset, base, BRCG, acc >= b.accuracy - TIE)}; BRCG complexity "
                         f"{b.complexity:.1f})")
                line += paired(df, dataset, base, OURS, BRCG)
            most = ours.loc[base, "complexity_max"]
            line += (f"; complexity {ours.loc[base, 'complexity']:.1f}, max {most:.0f} "
                     f"(<= {MAX_COMPLEXITY}: {'met' if most <= MAX_COMPLEXITY else 'MISSED'})"
                     f"; mean fit {ours.loc[base, 'seconds']:.1f}s")
            ref = a[(a.setting_label == base) & a.method.str.endswith("(reference)")]
            if len(ref):
                line += "; reference " + ", ".join(f"{m} {v:.4f}" for m, v in zip(ref.method, ref.accuracy))
            ceiling = ref[ref.method.str.startswith(CEILING)]
            if len(ceiling):
                best = ceiling.accuracy.max()
                line += (f"; the paper's figure is {'above' if paper > best + TIE else 'within'} the best tuned "
                         f"model's {best:.4f} on these splits")
            print(line)
        for setting, bound in SETTINGS[1:]:
            key = label(setting, bound)
            if key not in ours.index:
                continue
            o = ours.loc[key]
            line = (f"  {dataset} {key}: test gap {o.test_gap:.4f} (target <= {bound + 0.03:.3f}: "
                    f"{'met' if o.test_gap <= bound + 0.03 + TIE else 'MISSED'}), max train gap {o.train_gap_max:.4f} "
                    f"(<= eps: {'yes' if o.train_gap_max <= bound + MET_TOLERANCE else 'NO'}), acc {o.accuracy:.4f}")
            if key in eg.index:
                e = eg.loc[key]
                line += (f" vs ExpGrad {e.accuracy:.4f} / gap {e.test_gap:.4f} (acc ratio {o.accuracy / e.accuracy:.3f}: "
                         f"{compared(df, dataset, key, EG, o.accuracy >= e.accuracy - TIE)})")
                line += paired(df, dataset, key, OURS, EG)
            line += f"; mean fit {o.seconds:.1f}s, max {o.seconds_max:.1f}s"
            print(line)
        if len(ours):
            # the limits are on one fit, so the slowest and the most complex fit decide
            slowest, limit = ours.seconds_max.max(), TIME_TARGET[dataset]
            print(f"  {dataset}: slowest of our {int(ours.n.sum())} fits {slowest:.1f}s (target <= {limit:g}s: "
                  f"{'met' if slowest <= limit else 'MISSED'}); largest complexity {ours.complexity_max.max():.0f} "
                  f"(<= {MAX_COMPLEXITY}: {'met' if ours.complexity_max.max() <= MAX_COMPLEXITY else 'MISSED'})")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="compas only, one split")
    p.add_argument("--datasets", nargs="+", default=["compas", "adult", "default"])
    p.add_argument("--splits", type=int, help="how many splits (default 5; with --cv, every fold)")
    p.add_argument("--first-seed", type=int, default=0,
                   help="seeds first-seed .. first-seed+splits-1 (the headline is 0-4; 5 and up are for development)")
    p.add_argument("--cv", type=int, metavar="K",
                   help="the FairCG paper's protocol instead of 70/30 splits: stratified K-fold cross-validation "
                        "shuffled by --first-seed, folds 0 .. K-1 (--splits runs the first few)")
    p.add_argument("--time-compas", type=float, default=28.0, help="our fit budget on compas (s)")
    p.add_argument("--time-large", type=float, default=100.0, help="our fit budget on adult/default (s)")
    p.add_argument("--peer-python", default="/tmp/bench-venv/bin/python", help="python of the aix360 venv")
    p.add_argument("--jobs", type=int, default=1, help="parallel processes (each single-threaded)")
    p.add_argument("--no-brcg", action="store_true")
    p.add_argument("--no-ours", action="store_true", help="peers and references only")
    p.add_argument("--no-eg", action="store_true")
    p.add_argument("--settings", nargs="+", metavar="NAME[:EPS]",
                   help="run only these settings, e.g. none equal_opportunity:0.05 (default: all five)")
    p.add_argument("--protected-feature", action="store_true",
                   help="give every method the protected attribute as a feature (the FairCG authors' convention)")
    p.add_argument("--ceiling", action="store_true",
                   help="add tuned gradient boosting, forest and spline-logistic references to the unconstrained "
                        "setting: what the features allow on these splits (several minutes per split on adult)")
    p.add_argument("--json", help="also write every row to this file")
    p.add_argument("--load", nargs="+", help="print the table from rows saved with --json (parts of a run)")
    args = p.parse_args(argv)
    if args.load:
        rows = [r for f in args.load for r in json.loads(Path(f).read_text())]
        report(rows)
        return
    if args.quick:
        args.datasets, args.splits = ["compas"], 1
    if args.splits is not None and args.splits < 1:  # 0 had read as "not given" and run 5
        p.error("--splits: at least 1")
    settings = SETTINGS
    if args.settings:
        choices = {n if b is None else f"{n}:{b:g}": (n, b) for n, b in SETTINGS}
        wanted = set()
        for n in args.settings:
            try:
                wanted.add((n.split(":")[0], float(n.split(":")[1]) if ":" in n else None))
            except ValueError:  # a bound that is no number
                wanted.add((n, "?"))
        settings = [sb for sb in SETTINGS if sb in wanted]
        if len(settings) < len(wanted):  # a typo would otherwise run fewer settings without a word
            p.error(f"--settings: choose among {', '.join(choices)}")
    if args.no_ours and args.no_eg and args.no_brcg and ("none", None) not in settings:
        p.error("nothing to run: every method is turned off, and the references run only with the setting none")
    if args.json:
        # checked before hours of fits, whose rows are saved only there
        folder = Path(args.json).resolve().parent
        if not folder.is_dir():
            p.error(f"--json: no folder {folder}")
    if args.cv is not None:
        if args.cv < 2:
            p.error("--cv: at least 2 folds")
        cv = (args.cv, args.first_seed)
        seeds = range(min(args.splits or args.cv, args.cv))
    else:
        cv, seeds = None, range(args.first_seed, args.first_seed + (args.splits or 5))
    tasks = [(d, s, setting, bound, args.time_compas if d == "compas" else args.time_large, args.protected_feature,
              cv) for d in args.datasets for s in seeds for setting, bound in settings]
    from joblib import Parallel, delayed

    def save(rows):
        # after every stage, so a long run that is stopped keeps what it measured
        for r in rows:
            r["protected_feature"] = args.protected_feature
            r["protocol"] = protocol(cv)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1, default=float))

    start = time.perf_counter()
    rows = [] if args.no_ours else Parallel(n_jobs=args.jobs)(delayed(run_ours)(t) for t in tasks)
    save(rows)
    if not args.no_eg:
        rows += Parallel(n_jobs=args.jobs)(delayed(run_eg)(t) for t in tasks if t[3] is not None)
        save(rows)
    if ("none", None) in settings:
        references = Parallel(n_jobs=args.jobs)(delayed(run_reference)(d, s, args.protected_feature, cv,
                                                                        args.ceiling)
                                                for d in args.datasets for s in seeds)
        rows += [r for part in references for r in part]
        save(rows)
    if not args.no_brcg:
        if Path(args.peer_python).exists():
            peers = Parallel(n_jobs=args.jobs)(delayed(run_brcg)(d, s, args.peer_python, args.protected_feature,
                                                                 settings, cv)
                                               for d in args.datasets for s in seeds)
            rows += [r for part in peers for r in part]
        else:
            print(f"no peer python at {args.peer_python}: BRCG skipped", file=sys.stderr)
    save(rows)
    report(rows)
    print(f"\ntotal wall time {time.perf_counter() - start:.0f}s")


if __name__ == "__main__":
    main()
