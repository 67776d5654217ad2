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

from fairspec.models.model_file import check_tree_links, integer as _integer, number as _number, show as _show
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
        # Columns of the side table are the codes some node names, not 0..max code: a table
        # sized by the largest code would let one large code in a model file exhaust memory.
        codes = np.unique(np.concatenate([np.asarray(c, dtype=np.int64).ravel() for i in cat_nodes
                                          for c in (self.left_codes[i], self.right_codes[i])]
                                         + [np.empty(0, np.int64)]))
        cat_row = np.full(self.n_nodes, -1, dtype=np.int64)
        table = np.full((max(len(cat_nodes), 1), max(len(codes), 1)), 2, dtype=np.int8)  # 0 left, 1 right, 2 unseen
        for r, i in enumerate(cat_nodes):
            cat_row[i] = r
            table[r, np.searchsorted(codes, np.asarray(self.left_codes[i], dtype=np.int64))] = 0
            table[r, np.searchsorted(codes, np.asarray(self.right_codes[i], dtype=np.int64))] = 1
        arrs = dict(feature=feat, threshold=thr, cat_row=cat_row, table=table, codes=codes,
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
        hops = 0
        while len(rows):
            # A root-to-leaf path visits each node at most once, so more hops than nodes means
            # the child links loop: fail instead of spinning forever.
            hops += 1
            if hops > self.n_nodes:
                raise ValueError("the tree's child links form a cycle")
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
                col = np.searchsorted(a["codes"], code)
                known = (code >= 0) & (code == xc) & (col < len(a["codes"]))
                known[known] = a["codes"][col[known]] == code[known]
                side = np.full(len(xc), 2, dtype=np.int8)
                side[known] = a["table"][cr[is_cat][known], col[known]]
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
            if len(nxt) and not (0 <= nxt.min() and nxt.max() < self.n_nodes):
                raise ValueError("a split node of the tree has a child link outside the tree")
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
    def from_nodes(cls, nodes: list[dict], relabelled: bool, *, n_features: int | None = None,
                   categorical=None, classification: bool = True) -> "TreeStructure":
        """The tree ``to_nodes`` wrote; ``ValueError`` saying which node is wrong otherwise.

        The nodes come from a file that may have been damaged or edited, and routing follows
        child links until a leaf: a link out of range would crash, a loop would never end.
        So the shape ``grow_tree`` always writes is checked here, once: every child comes after
        its parent in the list (nodes are numbered as they are created) and every node but the
        root is the child of exactly one node.  Then every row reaches a leaf in fewer hops
        than there are nodes.  ``n_features`` bounds the feature indices and ``categorical``
        (indices) says which features split on categories rather than a threshold.
        """
        if not isinstance(nodes, list) or not nodes:
            raise ValueError("a tree needs a non-empty list of nodes")
        if not isinstance(relabelled, bool):
            raise ValueError(f"'relabelled' must be true or false, got {_show(relabelled)}")
        cats = None if categorical is None else {int(j) for j in categorical}
        t = cls()
        labels = []
        for k, nd in enumerate(nodes):
            if not isinstance(nd, dict):
                raise ValueError(f"node {k} is not a JSON object")
            node_id = _field(nd, "id", k)
            if isinstance(node_id, bool) or node_id != k:
                raise ValueError(f"node ids must be 0..{len(nodes) - 1} in order; found {_show(node_id)} at {k}")
            i = t.new_node(_integer(_field(nd, "depth", k), f"node {k}: depth", 0))
            t.n[i] = _integer(_field(nd, "n", k), f"node {k}: n", 0)
            t.weight[i] = _number(_field(nd, "weight", k), f"node {k}: weight", 0.0)
            # a probability for a classifier: anything else would make scores outside [0, 1]
            t.value[i] = _number(_field(nd, "value", k), f"node {k}: value",
                                 *((0.0, 1.0) if classification else ()))
            leaf = _field(nd, "leaf", k)
            if not isinstance(leaf, bool):
                raise ValueError(f"node {k}: 'leaf' must be true or false, got {_show(leaf)}")
            if leaf:
                label = nd.get("label")
                if label is None and relabelled:
                    raise ValueError(f"node {k}: a relabelled tree's leaf needs a 'label'")
                if label is not None and (isinstance(label, bool) or label not in (0, 1)):
                    raise ValueError(f"node {k}: label must be 0 or 1, got {_show(label)}")
                labels.append(0.0 if label is None else float(label))
                continue
            labels.append(0.0)
            f = _integer(_field(nd, "feature", k), f"node {k}: feature", 0)
            if n_features is not None and f >= n_features:
                raise ValueError(f"node {k}: feature {f} is out of range (the model has {n_features} features)")
            t.feature[i] = f
            if "left_categories" in nd:
                if cats is not None and f not in cats:
                    raise ValueError(f"node {k}: splits numeric feature {f} by categories")
                left_codes = _codes(_field(nd, "left_categories", k), f"node {k}: left_categories")
                right_codes = _codes(_field(nd, "right_categories", k), f"node {k}: right_categories")
                if set(left_codes) & set(right_codes):
                    raise ValueError(f"node {k}: a category goes both left and right")
                t.left_codes[i] = np.asarray(left_codes, dtype=np.int64)
                t.right_codes[i] = np.asarray(right_codes, dtype=np.int64)
            else:
                if cats is not None and f in cats:
                    raise ValueError(f"node {k}: splits categorical feature {f} by a threshold")
                thr = _field(nd, "threshold", k)
                t.threshold[i] = np.inf if thr is None else _number(thr, f"node {k}: threshold")
            split = _field(nd, "split", k)
            if split not in ("value", "present_vs_missing"):
                raise ValueError(f"node {k}: split must be 'value' or 'present_vs_missing', got {_show(split)}")
            t.present_vs_missing[i] = split == "present_vs_missing"
            route = _field(nd, "missing", k)
            if not isinstance(route, str) or route not in ROUTE_CODES:
                raise ValueError(f"node {k}: missing must be one of {', '.join(ROUTE_CODES)}; got {_show(route)}")
            t.route[i] = ROUTE_CODES[route]
            if t.present_vs_missing[i]:
                _check_present_vs_missing(t, i, k, route)
            if t.route[i] == FRACTIONAL:
                weights = _field(nd, "missing_weights", k)
                if not isinstance(weights, dict) or "left" not in weights:
                    raise ValueError(f"node {k}: missing_weights must be an object with a 'left' share")
                t.frac_left[i] = _number(weights["left"], f"node {k}: missing_weights.left", 0.0, 1.0)
            t.left[i] = _integer(_field(nd, "left", k), f"node {k}: left")
            t.right[i] = _integer(_field(nd, "right", k), f"node {k}: right")
            # a middle link on a node that never routes there would be a node no row reaches
            if (t.route[i] == MIDDLE) != ("middle" in nd):
                raise ValueError(f"node {k}: a 'middle' child is needed exactly when missing values go to the middle")
            if "middle" in nd:
                t.middle[i] = _integer(nd["middle"], f"node {k}: middle")
        _check_links(t)
        if relabelled:
            t.leaf_label = labels
        return t


def _field(node: dict, key: str, k: int):
    try:
        return node[key]
    except KeyError:
        raise ValueError(f"node {k} has no {key!r}") from None


def _check_present_vs_missing(t: TreeStructure, i: int, k: int, route: str) -> None:
    """``ValueError`` unless node ``i`` (file node ``k``) is the present-vs-missing split that
    training writes: every present value left (no threshold, or every category left and none
    right) and missing values right.  Routing reads the threshold, the categories and the route
    as for any split, while the text says only "is present" and "is missing": a finite threshold
    of 30 had loaded and sent the rows above it down the branch printed "is missing" (found in
    review)."""
    if t.left_codes[i] is None and np.isfinite(t.threshold[i]):
        raise ValueError(f"node {k}: a present_vs_missing split sends every present value left, so its "
                         f"threshold is null; got {_show(t.threshold[i])}")
    if t.left_codes[i] is not None and len(t.right_codes[i]):
        raise ValueError(f"node {k}: a present_vs_missing split sends every category left, so its "
                         f"right_categories are empty; got {_show(t.right_codes[i].tolist())}")
    if t.route[i] != RIGHT:
        raise ValueError(f"node {k}: a present_vs_missing split sends missing values right; got {_show(route)}")


#: category codes are compared with float features, which hold integers exactly only up to 2**53
_MAX_CODE = 2 ** 53


def _codes(values, what: str) -> list[int]:
    if not isinstance(values, list):
        raise ValueError(f"{what} must be a list of category codes, got {_show(values)}")
    return [_integer(v, f"{what}: code", 0, _MAX_CODE) for v in values]


def _check_links(t: TreeStructure) -> None:
    """``ValueError`` unless the child links make one tree rooted at node 0 (see ``from_nodes``)."""
    check_tree_links([[] if t.feature[i] < 0 else
                      [("left", t.left[i]), ("right", t.right[i])] + ([("middle", t.middle[i])] if t.middle[i] >= 0 else [])
                      for i in range(t.n_nodes)])


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
        loss_node = task.loss(S_node)
        node_score = scorer.node_score(S_node, loss_node)
        if loss_node <= 1e-12 * W and fair is None:
            continue  # pure node: no split can lower the loss
        features = (~blocked).nonzero()[0]
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
