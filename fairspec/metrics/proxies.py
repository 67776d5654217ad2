"""Proxies: how well each feature alone predicts the protected attribute.

Leaving the protected attribute out of the model's inputs does not keep it out of the model:
a feature that tells the groups apart (a postcode, a first name, "relationship = Husband")
carries it in.  A reviewer's first question once the attribute is not an input is which
features could stand in for it.

The measure is the AUC of a one-feature model, out of fold.  For a feature and a group g the
model scores a row by the share of g among the training rows that fall in the row's cell:
a categorical feature's category, or a numeric feature's decile (cut at the training rows'
quantiles), with a missing value its own cell.  The shares are smoothed by one row of the
overall share, ``(rows of g in the cell + p_g) / (rows in the cell + 1)``, so a cell seen
once is not read as certain.  The rows are split into :data:`FOLDS` shuffled folds; each
fold is scored by the shares of the others, and the AUC of "is g" against the pooled scores
is the feature's score for g.  With two groups one AUC serves both (the shares of one are
one minus the other's); with more, each group is scored against the rest and the feature
keeps its largest AUC and that group's name.

An AUC of 0.5 is a feature that says nothing of the group, 1 a copy of it.  Out of fold, a
noise feature scores near 0.5 whatever its number of categories, where an in-sample share
would reward many small categories.  A feature is flagged at :data:`PROXY_AUC` or more: 0.7
is the conventional floor of "acceptable discrimination" for a classifier (Hosmer and
Lemeshow, *Applied Logistic Regression*, 2nd ed., 2000, §5.2.4), so a flagged feature alone
sorts a random member of a group above a random non-member 7 times in 10.  The flag is a
prompt to look, not a finding: a strong proxy may be a legitimate predictor, and several
weak ones together can carry as much as one strong one.

On more than :data:`MAX_ROWS` rows the scores are measured on that many rows drawn at random
(seeded): an AUC's standard error on 200,000 rows is under 0.002 (Hanley and McNeil, 1982, at
a group share of 1 %), far inside the flag's resolution, and a million-row audit no longer
spends most of its time here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from fairspec.metrics.groups import distinct_labels, group_labels

#: a feature whose one-feature AUC reaches this is flagged as a proxy of the protected attribute
PROXY_AUC = 0.7
FOLDS = 5
#: numeric features are cut into this many quantile bins
NUMERIC_BINS = 10
#: the most rows the scores are measured on (a seeded random draw beyond it)
MAX_ROWS = 200_000


def _cells(values: pd.Series, kind: str, train: np.ndarray) -> np.ndarray:
    """Each row's cell: its category, or its numeric bin cut at the ``train`` rows' quantiles;
    a missing value is cell -1."""
    if kind == "numeric":
        x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        seen = x[train][~np.isnan(x[train])]
        edges = np.unique(np.quantile(seen, np.linspace(0, 1, NUMERIC_BINS + 1)[1:-1])) if len(seen) else np.array([])
        cells = np.searchsorted(edges, x, side="left")  # a value at an edge goes below it: 0 apart from > 0
        return np.where(np.isnan(x), -1, cells)
    codes, _ = pd.factorize(values.astype(object), use_na_sentinel=True)
    return codes


def _out_of_fold_scores(cells_of, member: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Each row's smoothed share of ``member`` rows in its cell, from the other folds' rows."""
    score = np.empty(len(member))
    for train, test in folds:
        cells = cells_of(train)
        prior = float(member[train].mean())
        shift = cells.min(initial=0)
        keys = cells - shift  # bincount wants cells from 0
        rows = np.bincount(keys[train], minlength=keys.max() + 1)
        hits = np.bincount(keys[train], weights=member[train], minlength=keys.max() + 1)
        share = (hits + prior) / (rows + 1.0)
        score[test] = share[keys[test]]
    return score


def proxy_scores(frame: pd.DataFrame, features, groups, *, folds: int = FOLDS, seed: int = 0) -> dict:
    """The metrics.json ``data_summary.proxies`` (see docs/ARTIFACTS.md): for each of
    ``features`` (``(name, kind)`` pairs, kind ``numeric`` or ``categorical``), in that order, a
    record of its name, its out-of-fold one-feature AUC and the group it predicts best, on the
    rows of ``frame`` and their group labels ``groups``."""
    labels = group_labels(groups)
    rng = np.random.default_rng(seed)
    if len(labels) > MAX_ROWS:
        kept = np.sort(rng.choice(len(labels), MAX_ROWS, replace=False))
        frame, labels = frame.iloc[kept], np.asarray(labels)[kept]
    names, index = distinct_labels(labels)
    n = len(labels)
    fold_of = rng.permutation(n) % max(2, min(folds, n))
    splits = [(np.flatnonzero(fold_of != k), np.flatnonzero(fold_of == k)) for k in np.unique(fold_of)]
    targets = range(1 if len(names) == 2 else len(names))
    out = []
    for name, kind in features:
        column = frame[name]
        best = (None, None)
        for g in targets:
            member = (index == g).astype(float)
            if member.min() == member.max():
                continue
            score = _out_of_fold_scores(lambda train: _cells(column, kind, train), member, splits)
            auc = float(roc_auc_score(member, score))
            if best[0] is None or auc > best[0]:
                best = (auc, str(names[g]))
        out.append({"name": str(name), "auc": best[0], "group": best[1]})
    return {"method": "one-feature model, out of fold", "folds": len(splits), "seed": seed, "rows": n,
            "threshold": PROXY_AUC, "features": out}
