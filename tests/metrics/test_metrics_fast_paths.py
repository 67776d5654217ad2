"""The faster computations of the metrics give the slower ones' numbers, to the last bit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from fairspec.metrics import groups as groups_module
from fairspec.metrics import proxies
from fairspec.metrics.groups import evaluate_predictions, merged_rows, missing_by_group
from fairspec.metrics.roc import abroca


def _reference_proxies(frame, features, groups, folds=proxies.FOLDS, seed=0):
    """The proxy scores as they were computed before: a score per row, one AUC over the rows."""
    labels = groups_module.group_labels(groups)
    rng = np.random.default_rng(seed)
    names, index = groups_module.distinct_labels(labels)
    n = len(labels)
    fold_of = rng.permutation(n) % max(2, min(folds, n))
    splits = [(np.flatnonzero(fold_of != k), np.flatnonzero(fold_of == k)) for k in np.unique(fold_of)]
    out = []
    for name, kind in features:
        source = proxies._cell_source(frame[name], kind)
        best = (None, None)
        for g in range(1 if len(names) == 2 else len(names)):
            member = (index == g).astype(float)
            if member.min() == member.max():
                continue
            score = np.empty(n)
            for train, test in splits:
                cells = proxies._cells(source, kind, train)
                keys = cells - cells.min(initial=0)
                rows = np.bincount(keys[train], minlength=keys.max() + 1)
                hits = np.bincount(keys[train], weights=member[train], minlength=keys.max() + 1)
                score[test] = ((hits + float(member[train].mean())) / (rows + 1.0))[keys[test]]
            auc = float(roc_auc_score(member, score))
            if best[0] is None or auc > best[0]:
                best = (auc, str(names[g]))
        out.append({"name": name, "auc": best[0], "group": best[1]})
    return out


@pytest.mark.parametrize("seed,n_groups,n", [(0, 2, 3000), (1, 3, 4000), (2, 4, 1500), (3, 2, 40)])
def test_proxy_scores_from_counts_are_the_per_row_scores(seed, n_groups, n):
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array([f"g{i}" for i in range(n_groups)], dtype=object), n)
    frame = pd.DataFrame({"a": rng.normal(size=n).round(1), "b": rng.choice(list("pqrs"), n),
                          "c": (g == "g0") + rng.normal(size=n)})
    frame.loc[rng.random(n) < 0.1, "a"] = np.nan
    frame.loc[rng.random(n) < 0.1, "b"] = None
    kinds = [("a", "numeric"), ("b", "categorical"), ("c", "numeric")]
    assert proxies.proxy_scores(frame, kinds, g, seed=seed)["features"] == _reference_proxies(frame, kinds, g,
                                                                                              seed=seed)


@pytest.mark.parametrize("seed", range(8))
def test_merged_rows_give_the_auc_abroca_and_block_of_the_rows(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(200, 5000))
    g = rng.choice(np.array(["x", "y", "z"][: 2 + seed % 2], dtype=object), n)
    y = (rng.random(n) < 0.4).astype(int)
    score = np.round(rng.random(int(rng.integers(2, 30))), 3)[rng.integers(0, 5, n)]
    pred = (score > 0.5).astype(int)
    cls, value, labels, counts = merged_rows(y, score, g)
    assert counts is not None and counts.sum() == n and len(counts) < n
    assert roc_auc_score(cls, value, sample_weight=counts) == roc_auc_score(y, score)
    assert abroca(cls, value, labels, counts) == abroca(y, score, g)
    merged = evaluate_predictions(y, pred, score, g)
    monkeypatch.setattr(groups_module, "MERGE_SHARE", -1.0)  # never merge
    assert merged_rows(y, score, g)[3] is None
    assert evaluate_predictions(y, pred, score, g) == merged


def test_balanced_accuracy_is_scikit_learns():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(2, 500))
        y = rng.integers(0, 2, n)
        if y.min() == y.max():
            continue
        pred = rng.integers(0, 2, n)
        block = evaluate_predictions(y, pred, None, np.array(["a"] * n, dtype=object))
        assert block["balanced_accuracy"] == balanced_accuracy_score(y, pred)


def test_missing_by_group_is_the_grouped_mean_of_the_missing_cells():
    rng = np.random.default_rng(4)
    n = 2000
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["u", "v", None], n)})
    frame.loc[rng.random(n) < 0.2, "a"] = np.nan
    g = rng.choice(np.array(["b", "A", "a"], dtype=object), n)
    rates = frame.isna().astype(float).groupby(pd.Series(g, name="group")).mean()
    expected = {f: {str(k): float(rates.at[k, f]) for k in rates.index} for f in ("a", "b")}
    assert missing_by_group(frame, ["a", "b"], g) == expected
