"""Growing a missing-aware tree (depth-first, explicit stack) and routing rows through it.

A node's rows are an index array into the training data plus a weight per row; a row can
reach several nodes (C4.5 fractional cases split it; Trinary's middle child is grown on
all of its parent's rows), so weights, not row sets, are what the statistics sum.

Trinary middle child (Zakrisson, Algorithm 1, and the reference package ``trinary-tree``):
it is grown on *all* of the parent's rows with the split feature blanked (never split on
again below it), at the parent's depth.  Growing it for every split multiplies the work
by up to ``C(depth + p, p)``, so ``middle_growth`` chooses:

* ``"full"`` — as the paper: every Trinary split grows its middle subtree;
* ``"observed"`` (default) — the middle subtree is grown only when some training row of
  the node is missing the split feature; otherwise the middle child is a leaf carrying the
  node's own estimate (which is what the paper's middle subtree predicts at its root, and
  what a row missing a value never seen missing in training gets).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fairspec.models.tree.split_search import (FRACTIONAL, LEFT, MIDDLE, RIGHT, ROUTE_CODES, ROUTE_NAMES,
                                               TIE_TOL, VOTE_TOL, EncodedFeatures, SplitScorer, Task)


@dataclass
class TreeStructure:
    """A fitted tree as flat arrays (node 0 is the root; ``-1`` = no such child)."""

    feature: list = field(default_factory=list)
    threshold: list = field(default_factory=list)  # numeric: left iff x < threshold (as trinary-tree)
    left_codes: list = field(default_factory=list)  # categorical: codes going left (else None)
    right_codes: list = field(default_factory=list)
    route: list = field(default_factory=list)  # where a missing value goes
    frac_left: list = field(default_factory=list)  # fractional: weight share of the left child
    present_vs_missing: list = field(default_factory=list)
    left: list = field(default_factory=list)
    right: list = field(default_factory=list)
    middle: list = field(default_factory=list)
    value: list = field(default_factory=list)  # P(y=1) or mean
    n: list = field(default_factory=list)  # training rows the node was grown on
    weight: list = field(default_factory=list)
    depth: list = field(default_factory=list)
    #: per leaf label override after fairness relabelling (``None`` = majority of ``value``)
    leaf_label: list | None = None

    def new_node(self, depth: int) -> int:
        for name, default in (("feature", -1), ("threshold", np.nan), ("left_codes", None), ("right_codes", None),
                              ("route", -1), ("frac_left", 0.0), ("present_vs_missing", False), ("left", -1),
                              ("right", -1), ("middle", -1), ("value", 0.0), ("n", 0), ("weight", 0.0),
                              ("depth", depth)):
            getattr(self, name).append(default)
        return len(self.feature) - 1

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    def leaves(self) -> np.ndarray:
        return np.flatnonzero(np.asarray(self.feature) < 0)

    # -- routing --------------------------------------------------------------------------
    def _arrays(self):
        cache = getattr(self, "_cache", None)
        if cache is not None and cache[0] == self.n_nodes:
            return cache[1]
        feat = np.asarray(self.feature, dtype=np.int64)
        thr = np.asarray([np.inf if t is None else t for t in self.threshold], dtype=float)
        cat_nodes = [i for i in range(self.n_nodes) if self.left_codes[i] is not None and feat[i] >= 0]
        kmax = 1
        for i in cat_nodes:
            codes = np.concatenate([np.asarray(self.left_codes[i], float), np.asarray(self.right_codes[i], float)])
            if len(codes):
                kmax = max(kmax, int(codes.max()) + 1)
        cat_row = np.full(self.n_nodes, -1, dtype=np.int64)
        table = np.full((max(len(cat_nodes), 1), kmax), 2, dtype=np.int8)  # 0 left, 1 right, 2 unseen
        for r, i in enumerate(cat_nodes):
            cat_row[i] = r
            table[r, np.asarray(self.left_codes[i], dtype=np.int64)] = 0
            table[r, np.asarray(self.right_codes[i], dtype=np.int64)] = 1
        arrs = dict(feature=feat, threshold=thr, cat_row=cat_row, table=table, kmax=kmax,
                    route=np.asarray(self.route, dtype=np.int64), frac=np.asarray(self.frac_left, float),
                    left=np.asarray(self.left, dtype=np.int64), right=np.asarray(self.right, dtype=np.int64),
                    middle=np.asarray(self.middle, dtype=np.int64))
        self._cache = (self.n_nodes, arrs)
        return arrs

    def route_rows(self, X: np.ndarray):
        """Every (row, leaf, weight) a row of ``X`` reaches; weights of a row sum to 1."""
        a = self._arrays()
        n = X.shape[0]
        rows = np.arange(n)
        nodes = np.zeros(n, dtype=np.int64)
        wts = np.ones(n)
        out_r, out_l, out_w = [], [], []
        while len(rows):
            f = a["feature"][nodes]
            done = f < 0
            if done.any():
                out_r.append(rows[done]), out_l.append(nodes[done]), out_w.append(wts[done])
                rows, nodes, wts, f = rows[~done], nodes[~done], wts[~done], f[~done]
                if not len(rows):
                    break
            x = X[rows, f]
            missing = np.isnan(x)
            go_left = x < a["threshold"][nodes]
            cr = a["cat_row"][nodes]
            is_cat = cr >= 0
            if is_cat.any():
                xc = x[is_cat]
                code = np.where(np.isnan(xc), -1, xc).astype(np.int64)
                known = (code >= 0) & (code < a["kmax"]) & (code == xc)
                side = np.full(len(xc), 2, dtype=np.int8)
                side[known] = a["table"][cr[is_cat][known], code[known]]
                go_left[is_cat] = side == 0
                missing[is_cat] = side == 2  # a category this node never saw routes like a missing value
            route = a["route"][nodes]
            nxt = np.where(go_left, a["left"][nodes], a["right"][nodes])
            m_left = missing & (route == LEFT)
            m_right = missing & (route == RIGHT)
            m_mid = missing & (route == MIDDLE)
            m_frac = missing & (route == FRACTIONAL)
            nxt[m_left] = a["left"][nodes[m_left]]
            nxt[m_right] = a["right"][nodes[m_right]]
            nxt[m_mid] = a["middle"][nodes[m_mid]]
            new_w = wts.copy()
            if m_frac.any():
                fl = a["frac"][nodes[m_frac]]
                nxt[m_frac] = a["left"][nodes[m_frac]]
                new_w[m_frac] = wts[m_frac] * fl
                rows = np.concatenate([rows, rows[m_frac]])
                nxt = np.concatenate([nxt, a["right"][nodes[m_frac]]])
                new_w = np.concatenate([new_w, wts[m_frac] * (1.0 - fl)])
            nodes, wts = nxt, new_w
            keep = wts > 0
            if not keep.all():
                rows, nodes, wts = rows[keep], nodes[keep], wts[keep]
        if not out_r:
            return np.empty(0, int), np.empty(0, int), np.empty(0)
        return np.concatenate(out_r), np.concatenate(out_l), np.concatenate(out_w)

    def leaf_labels(self) -> np.ndarray:
        """The label each node predicts as a leaf: the relabelled one, else the majority."""
        if self.leaf_label is not None:
            return np.asarray(self.leaf_label, dtype=float)
        return (np.asarray(self.value) > 0.5 + VOTE_TOL).astype(float)

    # -- JSON -----------------------------------------------------------------------------
    def to_nodes(self) -> list[dict]:
        out = []
        labels = self.leaf_labels()
        for i in range(self.n_nodes):
            node = {"id": i, "depth": int(self.depth[i]), "n": int(self.n[i]), "weight": float(self.weight[i]),
                    "value": float(self.value[i])}
            if self.feature[i] < 0:
                node["leaf"] = True
                node["label"] = int(labels[i])
            else:
                node["leaf"] = False
                node["feature"] = int(self.feature[i])
                if self.left_codes[i] is not None:
                    node["left_categories"] = [int(c) for c in self.left_codes[i]]
                    node["right_categories"] = [int(c) for c in self.right_codes[i]]
                else:
                    t = self.threshold[i]
                    node["threshold"] = None if np.isinf(t) else float(t)
                node["split"] = "present_vs_missing" if self.present_vs_missing[i] else "value"
                node["missing"] = ROUTE_NAMES[self.route[i]]
                if self.route[i] == FRACTIONAL:
                    node["missing_weights"] = {"left": float(self.frac_left[i]), "right": 1.0 - float(self.frac_left[i])}
                node["left"] = int(self.left[i])
                node["right"] = int(self.right[i])
                if self.middle[i] >= 0:
                    node["middle"] = int(self.middle[i])
            out.append(node)
        return out

    @classmethod
    def from_nodes(cls, nodes: list[dict], relabelled: bool) -> "TreeStructure":
        t = cls()
        for k, nd in enumerate(nodes):
            if nd["id"] != k:
                raise ValueError(f"node ids must be 0..{len(nodes) - 1} in order; found {nd['id']} at {k}")
            i = t.new_node(int(nd["depth"]))
            t.n[i], t.weight[i], t.value[i] = int(nd["n"]), float(nd["weight"]), float(nd["value"])
            if nd["leaf"]:
                continue
            t.feature[i] = int(nd["feature"])
            if "left_categories" in nd:
                t.left_codes[i] = np.asarray(nd["left_categories"], dtype=np.int64)
                t.right_codes[i] = np.asarray(nd["right_categories"], dtype=np.int64)
            else:
                t.threshold[i] = np.inf if nd["threshold"] is None else float(nd["threshold"])
            t.present_vs_missing[i] = nd["split"] == "present_vs_missing"
            t.route[i] = ROUTE_CODES[nd["missing"]]
            if t.route[i] == FRACTIONAL:
                t.frac_left[i] = float(nd["missing_weights"]["left"])
            t.left[i], t.right[i] = int(nd["left"]), int(nd["right"])
            t.middle[i] = int(nd.get("middle", -1))
        if relabelled:
            t.leaf_label = [float(nd.get("label", 0)) for nd in nodes]
        return t


@dataclass
class GrowSettings:
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    middle_growth: str = "observed"
    max_features: int | None = None  # features tried per split (forest); None = all


def grow_tree(enc: EncodedFeatures, y: np.ndarray, weights: np.ndarray, task: Task, scorer: SplitScorer,
              settings: GrowSettings, groups: np.ndarray | None = None,
              rng: np.random.Generator | None = None) -> TreeStructure:
    """Grow one tree greedily on the rows with positive weight."""
    tree = TreeStructure()
    rd = task.row_data(y, groups)
    p = enc.codes.shape[0]
    fair = scorer.fair
    root_idx = np.flatnonzero(weights > 0)
    root_w = weights[root_idx].astype(float)
    root = tree.new_node(0)
    scorer.start(task.node_stats(root_w, root_w, task.subset(rd, root_idx)))
    # (node, row indices, growth weights, reach weights, depth, features blocked below)
    stack = [(root, root_idx, root_w, root_w, 0, np.zeros(p, dtype=bool))]
    while stack:
        node, idx, w, reach, depth, blocked = stack.pop()
        rd_idx = task.subset(rd, idx)
        S_node = task.node_stats(w, reach, rd_idx)
        W = float(task.weight(S_node))
        est = float(task.estimate(S_node))
        tree.value[node], tree.n[node], tree.weight[node] = est, len(idx), W
        if (depth >= settings.max_depth or len(idx) < settings.min_samples_split
                or len(idx) < 2 * settings.min_samples_leaf or W <= 0):
            continue
        node_score = scorer.node_score(S_node)
        if task.loss(S_node) <= 1e-12 * W and fair is None:
            continue  # pure node: no split can lower the loss
        features = np.flatnonzero(~blocked)
        if settings.max_features is not None and len(features) > settings.max_features:
            features = np.sort(rng.choice(features, settings.max_features, replace=False))
        best = None
        for j in features:
            codes_j = enc.codes[j, idx]
            U = len(enc.values[j])
            counts = np.bincount(codes_j, minlength=U + 1)
            if counts[U] == len(idx):
                continue  # every row of the node is missing this feature
            stats = task.bin_stats(codes_j, U + 1, w, reach, rd_idx)
            cand = scorer.best_for_feature(int(j), stats, counts, enc.values[j], bool(enc.categorical[j]),
                                           S_node, est)
            if cand is None:
                continue
            if best is None or cand.score < best.score - TIE_TOL * max(1.0, abs(cand.score)):
                best = cand
        if best is None or not best.score < node_score - TIE_TOL * max(1.0, abs(node_score)):
            continue
        f = best.feature
        codes_f = enc.codes[f, idx]
        U = len(enc.values[f])
        missing = codes_f == U
        table = np.zeros(U + 1, dtype=bool)
        table[best.left_bins] = True
        go_left = table[codes_f]
        go_right = ~go_left & ~missing
        tree.feature[node] = f
        if best.threshold is not None:
            tree.threshold[node] = best.threshold
        else:
            tree.left_codes[node] = best.left_codes.astype(np.int64)
            tree.right_codes[node] = best.right_codes.astype(np.int64)
        tree.route[node] = best.route
        tree.present_vs_missing[node] = best.present_vs_missing
        route = best.route
        m_w = missing.astype(float)
        if route == LEFT:
            lm, rm = go_left | missing, go_right
            lw_scale = rw_scale = None
        elif route == RIGHT:
            lm, rm = go_left, go_right | missing
            lw_scale = rw_scale = None
        elif route == FRACTIONAL:
            fl = best.missing_fraction_left
            tree.frac_left[node] = fl
            lm, rm = go_left | missing, go_right | missing
            lw_scale = np.where(missing, fl, 1.0)
            rw_scale = np.where(missing, 1.0 - fl, 1.0)
        else:  # MIDDLE
            lm, rm = go_left, go_right
            lw_scale = rw_scale = None
        li, lw, lr = idx[lm], w[lm], reach[lm]
        ri, rw, rr = idx[rm], w[rm], reach[rm]
        if lw_scale is not None:
            lw, lr = lw * lw_scale[lm], lr * lw_scale[lm]
            rw, rr = rw * rw_scale[rm], rr * rw_scale[rm]
            lk, rk = lw > 0, rw > 0
            li, lw, lr, ri, rw, rr = li[lk], lw[lk], lr[lk], ri[rk], rw[rk], rr[rk]
        left = tree.new_node(depth + 1)
        right = tree.new_node(depth + 1)
        tree.left[node], tree.right[node] = left, right
        children = []
        if fair is not None:
            for ci, cw, cr in ((li, lw, lr), (ri, rw, rr)):
                S_c = task.node_stats(cw, cr, task.subset(rd, ci))
                children.append((S_c, task.majority(S_c)))
        if route == MIDDLE:
            middle = tree.new_node(depth)
            tree.middle[node] = middle
            mid_reach = reach * m_w  # only the rows missing the feature really arrive there
            if fair is not None:
                children.append((task.node_stats(w, mid_reach, rd_idx), task.majority(S_node)))
            if settings.middle_growth == "full" or missing.any():
                blocked_mid = blocked.copy()
                blocked_mid[f] = True
                stack.append((middle, idx, w, mid_reach, depth, blocked_mid))
            else:
                tree.value[middle], tree.n[middle], tree.weight[middle] = est, 0, 0.0
        if fair is not None:
            fair.apply((S_node, task.majority(S_node)), children)
        # pushed last = grown first: left, then right, then middle
        stack.append((right, ri, rw, rr, depth + 1, blocked))
        stack.append((left, li, lw, lr, depth + 1, blocked))
    return tree
