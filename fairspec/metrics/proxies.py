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

from fairspec.metrics.groups import distinct_labels, group_labels

#: a feature whose one-feature AUC reaches this is flagged as a proxy of the protected attribute
PROXY_AUC = 0.7
FOLDS = 5
#: numeric features are cut into this many quantile bins
NUMERIC_BINS = 10
#: the most rows the scores are measured on (a seeded random draw beyond it)
MAX_ROWS = 200_000


def _cell_source(values: pd.Series, kind: str) -> np.ndarray:
    """What a row's cell is read from, the same for every fold: a numeric feature's values as
    floats (NaN missing), a categorical feature's category codes (-1 missing)."""
    if kind == "numeric":
        return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    codes, _ = pd.factorize(values.astype(object), use_na_sentinel=True)
    return codes


def _cells(source: np.ndarray, kind: str, train: np.ndarray, missing: np.ndarray | None = None) -> np.ndarray:
    """Each row's cell: its category, or its numeric bin cut at the ``train`` rows' quantiles;
    a missing value is cell -1.  ``source`` is :func:`_cell_source`'s; ``missing``, when given,
    ``np.isnan(source)`` (the same for every fold)."""
    if kind != "numeric":
        return source
    x = source
    missing = np.isnan(x) if missing is None else missing
    seen = x[train][~missing[train]]
    edges = np.unique(np.quantile(seen, np.linspace(0, 1, NUMERIC_BINS + 1)[1:-1])) if len(seen) else np.array([])
    cells = np.searchsorted(edges, x, side="left")  # a value at an edge goes below it: 0 apart from > 0
    return np.where(missing, -1, cells)


def _members_by_fold(members: list[np.ndarray], folds) -> list[list[tuple]]:
    """Per fold, per member array: its training rows, held-out rows and training mean (the
    same for every feature: read once, not once per feature)."""
    return [[(member[train], member[test], float(member[train].mean())) for member in members]
            for train, test in folds]


def _out_of_fold_counts(cells_of_fold, members: list[np.ndarray], folds, by_fold=None) -> list[tuple]:
    """For each of ``members`` (0/1 floats, one per group scored), the out-of-fold scores as
    counts: ``(score, member rows, other rows)`` for every (fold, cell) holding held-out rows,
    where a cell's score is the smoothed share of members among the other folds' rows in it.
    ``by_fold``: :func:`_members_by_fold` of ``members`` and ``folds``, when computed already.

    A row's score is its (fold, cell)'s, so these counts are the pooled out-of-fold scores
    without a score per row, and an AUC weighted by them is the AUC of those scores."""
    out = [([], [], []) for _ in members]
    by_fold = _members_by_fold(members, folds) if by_fold is None else by_fold
    for k, (train, test) in enumerate(folds):
        cells = cells_of_fold(k, train)
        shift = cells.min(initial=0)
        keys = cells - shift  # bincount wants cells from 0
        size = keys.max() + 1
        k_train, k_test = keys[train], keys[test]
        rows = np.bincount(k_train, minlength=size)
        held = np.bincount(k_test, minlength=size)
        for (member_train, member_test, prior), (scores, hits_out, others_out) in zip(by_fold[k], out):
            hits = np.bincount(k_train, weights=member_train, minlength=size)
            share = (hits + prior) / (rows + 1.0)
            held_hits = np.bincount(k_test, weights=member_test, minlength=size)
            present = held > 0
            scores.append(share[present])
            hits_out.append(held_hits[present])
            others_out.append(held[present] - held_hits[present])
    return [tuple(np.concatenate(part) for part in parts) for parts in out]


def _weighted_auc(scores: np.ndarray, members: np.ndarray, others: np.ndarray) -> float:
    """The AUC of "is a member" against ``scores``, each score standing for ``members`` member
    rows and ``others`` other rows: ``roc_auc_score`` of the rows themselves, to the last bit
    (scikit-learn's cumulative counts are sums of whole numbers either way, so its curve is
    the same), at the cost of a few hundred weighted points instead of one per row."""
    from fairspec.metrics.auc import roc_auc

    label = np.r_[np.ones(len(scores)), np.zeros(len(scores))]
    weight = np.r_[members, others]
    keep = weight > 0
    return float(roc_auc(label[keep], np.r_[scores, scores][keep], sample_weight=weight[keep]))


def proxy_scores(frame: pd.DataFrame, features, groups, *, folds: int = FOLDS, seed: int = 0) -> dict:
    """The metrics.json ``data_summary.proxies`` (see docs/ARTIFACTS.md): for each of
    ``features`` (``(name, kind)`` pairs, kind ``numeric`` or ``categorical``), in that order, a
    record of its name, its out-of-fold one-feature AUC and the group it predicts best, on the
    rows of ``frame`` and their group labels ``groups``.

    A feature's cells are computed once per fold (a categorical feature's once) for all the
    groups it is scored for, and each AUC from the counts of :func:`_out_of_fold_counts`."""
    labels = group_labels(groups)
    rng = np.random.default_rng(seed)
    if len(labels) > MAX_ROWS:
        kept = np.sort(rng.choice(len(labels), MAX_ROWS, replace=False))
        frame, labels = frame.iloc[kept], np.asarray(labels)[kept]
    names, index = distinct_labels(labels)
    n = len(labels)
    fold_of = rng.permutation(n) % max(2, min(folds, n))
    splits = [(np.flatnonzero(fold_of != k), np.flatnonzero(fold_of == k)) for k in np.unique(fold_of)]
    targets = [g for g in range(1 if len(names) == 2 else len(names))]
    members = [(index == g).astype(float) for g in targets]
    scored = [(g, m) for g, m in zip(targets, members) if m.min() != m.max()]
    out = []
    by_fold = _members_by_fold([m for _, m in scored], splits)
    for name, kind in features:
        source = _cell_source(frame[name], kind)
        missing = np.isnan(source) if kind == "numeric" else None
        best = (None, None)
        counts = _out_of_fold_counts(lambda k, train: _cells(source, kind, train, missing), [m for _, m in scored],
                                     splits, by_fold)
        for (g, _), (score, hits, others) in zip(scored, counts):
            auc = _weighted_auc(score, hits, others)
            if best[0] is None or auc > best[0]:
                best = (auc, str(names[g]))
        out.append({"name": str(name), "auc": best[0], "group": best[1]})
    return {"method": "one-feature model, out of fold", "folds": len(splits), "seed": seed, "rows": n,
            "threshold": PROXY_AUC, "features": out}
