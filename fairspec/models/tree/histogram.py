"""Histogram regression trees for gradient boosting: binned features, a learned missing
direction, Newton leaf values.

A boosting round fits one tree to per-row gradients ``g`` and Hessians ``h`` of a loss in
the current score ``z`` (:mod:`fairspec.models.privileged_boost.objective`).  The tree is
the second-order one of XGBoost (Chen & Guestrin 2016, eq. 5-7): a leaf ``L`` holding rows
``I_L`` lowers the loss's second-order expansion most with the Newton value

    w_L = -G_L / (H_L + l2),        G_L = Σ_{i∈I_L} g_i,  H_L = Σ_{i∈I_L} h_i,

which lowers it by ``G_L² / (2 (H_L + l2))``; a split of node ``P`` into ``L`` and ``R`` is
therefore worth

    gain = G_L²/(H_L+l2) + G_R²/(H_R+l2) - G_P²/(H_P+l2)        (twice the loss decrease),

and a node is split by its largest positive gain.

Binning.  Each feature is cut once, on the training rows, into at most ``max_bins``
ordered bins (:class:`FeatureBins`): a numeric feature with few distinct values gets one
bin per value; with more, the cut points are values at evenly spaced ranks, so each bin
holds about as many rows.  A cut point is a training value ``e_k``, and bin ``k`` holds
``e_{k-1} < x <= e_k``, so a split "bin <= k" is exactly ``x <= e_k`` on raw values.  A
categorical feature (integer codes) gets one bin per code; past ``max_bins`` codes, the
rarest share the last bin.  One extra bin, the same slot for every feature, holds missing
values.  Rows are binned once per fit, so a node's statistics of every candidate split are
three ``np.bincount`` calls per feature (``G``, ``H``, row count per bin) followed by a
``cumsum``; no Python loop runs over rows.  Depth-wise growth builds the histograms of the
smaller child of each split only; the larger child's are its parent's minus the smaller's
(LightGBM's subtraction trick, Ke et al. 2017).

Candidate splits, per node and feature:

* numeric: "bin <= k" for every ``k``, with the missing bin sent left, then right;
* categorical: the bins sorted by ``G/H``, then every prefix of that order goes left, the
  missing bin left, then right.  ``G²/H = H·(G/H)²`` is a weighted between-group sum of
  squares of the bins' mean ``G/H`` with weights ``H``, so the best two-way partition is a
  prefix of that order (Fisher 1958; Breiman et al. 1984, Thm. 4.5), and the search is exact.
  By default it is regularised as LightGBM's is (:class:`TreeSettings`: a smoothed order, rare
  categories kept together, a larger ``l2``), which the exactness gives up for fewer splits on
  categories of a handful of rows;
* the last prefix (every observed bin left, missing right) is MIA's "present vs missing"
  split (Twala et al. 2008), stored with the threshold ``+inf`` so that a value past the
  training range also counts as present.

Missing values (``missing``):

``mia``
    Where a node's training rows have missing values, they go where the gain is larger
    (ties: left); where they have none, a missing value at prediction goes to the child with
    more training rows (ties: left): training gave no other information.
``none``
    The data was imputed, or its incomplete rows dropped, before the tree saw it: ``fit``
    and ``predict`` refuse a missing value (the pipeline's ``missing drop`` refuses such a
    row anyway, and ``impute`` fills it).

The tree family's other rules (``trinary``, ``trinary_mia``, ``majority``, ``fractional``)
route a row to a third child or to both children, which a one-leaf-per-row histogram tree
does not represent; they are refused here (and by the spec checker, at the ``missing`` line,
for a family built on this tree).

A category code that the node's training rows do not hold, or one past the codes training
saw, goes where a missing value goes.  Ties between candidate splits go to the lower feature
index, then the lower bin, then missing-left.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fairspec.errors import DataError
from fairspec.models.tree import compiled
from fairspec.models.model_file import check_tree_links, integer, number, show

#: the missing-value rules this tree implements (module docstring)
HISTOGRAM_STRATEGIES = ("mia", "none")
#: the most bins a feature may have (codes are one byte, and one slot is the missing bin)
MAX_BINS = 255
#: a split is made only if its gain exceeds this share of the node's own ``G²/(H+l2)`` (plus
#: ``min_gain``): a gain of float noise (1e-17 on a split that separates nothing) is no gain
GAIN_TOL = 1e-10


def refuse_strategy(missing: str) -> None:
    """``ValueError`` unless ``missing`` is a rule this tree implements."""
    if missing not in HISTOGRAM_STRATEGIES:
        raise ValueError(f"missing {missing!r} is not supported by the histogram tree (it supports "
                         f"{', '.join(HISTOGRAM_STRATEGIES)}): trinary, trinary_mia, majority and fractional route a "
                         f"row to a third child or to both children; use the tree family for them")


@dataclass
class FeatureBins:
    """How each feature's values map to bins, fitted on the training rows.

    ``edges[j]``: the sorted cut values of numeric feature ``j`` (bin ``k`` holds
    ``edges[k-1] < x <= edges[k]``, the last bin everything above ``edges[-1]``);
    ``bin_codes[j]``: for categorical feature ``j``, the category codes in each bin.  Feature
    ``j`` has ``n_bins[j]`` bins of observed values and the code ``n_bins[j]`` for a missing
    value.  Histograms lay the features side by side: feature ``j`` takes the ``n_bins[j] + 1``
    slots from ``offsets[j]``, its missing slot last.
    """

    categorical: np.ndarray
    edges: list = field(default_factory=list)
    bin_codes: list = field(default_factory=list)
    n_bins: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: categorical: code -> bin lookup (codes past it are unseen, i.e. missing)
    code_bin: list = field(default_factory=list)

    @property
    def widths(self) -> np.ndarray:
        return self.n_bins + 1

    @property
    def offsets(self) -> np.ndarray:
        return np.r_[0, np.cumsum(self.widths)[:-1]].astype(np.int64)

    @classmethod
    def fit(cls, X: np.ndarray, categorical, max_bins: int = MAX_BINS) -> "FeatureBins":
        if not 2 <= max_bins <= MAX_BINS:
            raise ValueError(f"max_bins must be from 2 to {MAX_BINS}; got {max_bins!r}")
        p = X.shape[1]
        cat = np.zeros(p, dtype=bool)
        cat[list(categorical)] = True
        edges, bin_codes, code_bin, n_bins = [], [], [], []
        for j in range(p):
            col = X[:, j]
            present = col[~np.isnan(col)]
            if cat[j]:
                codes = present.astype(np.int64)
                counts = np.bincount(codes) if codes.size else np.zeros(0, dtype=np.int64)
                seen = np.flatnonzero(counts)
                if len(seen) > max_bins:  # the most frequent keep a bin of their own (ties: lower code)
                    order = np.lexsort((seen, -counts[seen]))
                    own = np.sort(seen[order[:max_bins - 1]])
                    rest = np.setdiff1d(seen, own)
                    groups = [[int(c)] for c in own] + [[int(c) for c in rest]]
                else:
                    groups = [[int(c)] for c in seen]
                lookup = np.full(len(counts), -1, dtype=np.int64)
                for b, members in enumerate(groups):
                    lookup[members] = b
                edges.append(None)
                bin_codes.append(groups)
                code_bin.append(lookup)
                n_bins.append(len(groups))
            else:
                values = np.unique(present)
                if len(values) > max_bins:
                    ordered = np.sort(present)
                    ranks = (np.arange(1, max_bins) * len(ordered)) // max_bins
                    values = np.unique(ordered[ranks - 1])
                    cuts = values[values < ordered[-1]]
                else:
                    cuts = values[:-1]
                edges.append(cuts.astype(float))
                bin_codes.append(None)
                code_bin.append(None)
                n_bins.append(len(cuts) + 1 if len(values) else 0)
        return cls(cat, edges, bin_codes, np.asarray(n_bins, dtype=np.int64), code_bin)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Bin codes of ``X`` transposed, ``(p, n)`` of ``uint8``: each feature's codes are
        contiguous, as the histograms read them; a missing value (or a category code training
        did not see) is feature ``j``'s code ``n_bins[j]``."""
        n, p = X.shape
        out = np.empty((p, n), dtype=np.uint8)
        for j in range(p):
            col = X[:, j]
            nan = np.isnan(col)
            miss = self.n_bins[j]
            if self.categorical[j]:
                lookup = self.code_bin[j]
                codes = np.where(nan, -1, col).astype(np.int64)
                inside = (codes >= 0) & (codes < len(lookup))
                b = np.full(n, -1, dtype=np.int64)
                b[inside] = lookup[codes[inside]]
                out[j] = np.where(b < 0, miss, b)
            else:
                b = np.searchsorted(self.edges[j], col, side="left")
                out[j] = np.where(nan, miss, b)
        return out


@dataclass
class Layout:
    """Where each feature's bins sit in a histogram row (:class:`FeatureBins`), as arrays."""

    bins: FeatureBins

    def __post_init__(self):
        b = self.bins
        self.widths, self.offsets = b.widths, b.offsets
        self.total = int(self.widths.sum())
        self.feature = np.repeat(np.arange(len(self.widths)), self.widths)
        self.position = np.arange(self.total) - self.offsets[self.feature]
        self.missing_slot = self.offsets + b.n_bins
        self.is_missing = np.zeros(self.total, dtype=bool)
        self.is_missing[self.missing_slot] = True
        cat_slot = b.categorical[self.feature]
        self.categorical_observed = cat_slot & ~self.is_missing
        self.any_categorical = bool(b.categorical.any())
        # scan order key: feature, then (numeric) the bin's rank, the missing slot last
        self.key = self.feature + self.position / self.widths[self.feature]
        self.key[self.is_missing] = self.feature[self.is_missing] + 0.9999999
        self.max_width = int(self.widths.max(initial=1))
        self.categorical_slot = cat_slot.astype(float)
        #: each feature's last bin of observed values: its cut is "present vs missing"
        self.last_observed = np.zeros(self.total, dtype=bool)
        self.last_observed[self.missing_slot[b.n_bins > 0] - 1] = True
        self._compiled = None

    def workspace(self, codes_t: np.ndarray, s: "TreeSettings", root_counts: np.ndarray | None) -> dict:
        """What the compiled loops read and write while growing trees on the rows ``codes_t``
        (:mod:`fairspec.models.tree.compiled`), made once per fit and reused by every tree
        grown on the same array (which a fit does not change)."""
        w = self._compiled
        if w is not None and w["codes_t"] is codes_t and w["settings_of"] == s:
            return w
        b = self.bins
        n = codes_t.shape[1]
        cat_col = np.full(self.total, -1, dtype=np.int64)
        cat_col[self.categorical_observed] = np.arange(int(self.categorical_observed.sum()))
        most = 2 ** (s.max_depth + 1) - 1
        counts = root_counts if root_counts is not None else count_histogram(codes_t, self)
        self._compiled = dict(
            codes_t=codes_t, settings_of=s, codes_rows=np.ascontiguousarray(codes_t.T), root_counts=np.ascontiguousarray(counts[0]),
            slot_int=np.vstack([self.feature, cat_col]).astype(np.int64),
            feat_int=np.vstack([self.offsets, b.n_bins, self.missing_slot]).astype(np.int64),
            slot_flags=np.vstack([self.is_missing, self.categorical_observed, self.last_observed]),
            is_cat=np.asarray(b.categorical, dtype=bool),
            lam=s.l2 + s.category_l2 * self.categorical_slot,
            settings=np.array([s.min_samples_leaf, s.min_child_hessian, s.min_gain, GAIN_TOL, s.min_category_rows],
                              dtype=float),
            no_keys=np.zeros((2 ** s.max_depth, 0)), all_rows=np.arange(n, dtype=np.int64),
            rows=np.empty(n, dtype=np.int64), buf=np.empty(n, dtype=np.int64),
            begin=np.zeros(most, dtype=np.int64), count=np.zeros(most, dtype=np.int64),
            feature=np.empty(most, dtype=np.int64), tpos=np.zeros(most, dtype=np.int64),
            missing_left=np.empty(most, dtype=bool), left=np.empty(most, dtype=np.int64),
            right=np.empty(most, dtype=np.int64), node_sums=np.zeros((most, 3)),
            held=np.zeros((most, self.max_width), dtype=bool))
        return self._compiled


@dataclass
class HistogramTree:
    """A fitted regression tree as flat arrays; node 0 is the root, ``feature < 0`` a leaf.

    A numeric split sends ``x <= threshold`` left (``threshold`` ``+inf``: MIA's "present vs
    missing"); a categorical one sends the codes of ``left_codes`` left and those of
    ``right_codes`` right; a missing value, or any other code, goes left iff ``missing_left``.
    ``value`` is what a leaf adds to the score (the Newton value times the learning rate).
    """

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    n: np.ndarray
    left_codes: list
    right_codes: list
    #: per node, the bins going left (training only: routes validation rows by their bins)
    bin_left: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def depth(self) -> int:
        if getattr(self, "_depth", None) is None:
            depth = np.zeros(self.n_nodes, dtype=np.int64)
            for i in range(self.n_nodes):  # children follow their parent (from_json checks it)
                if self.feature[i] >= 0:
                    depth[self.left[i]] = depth[self.right[i]] = depth[i] + 1
            self._depth = int(depth.max(initial=0))
        return self._depth

    def apply_bins(self, codes_t: np.ndarray) -> np.ndarray:
        """The leaf each row reaches, from its bin codes ``(p, n)`` by the fit's bins."""
        if compiled.active():
            return compiled.apply_bins(np.ascontiguousarray(codes_t), self.feature, self.bin_left, self.left,
                                       self.right)
        n = codes_t.shape[1]
        node = np.zeros(n, dtype=np.int64)
        rows = np.arange(n)
        for _ in range(self.depth):
            inner = self.feature[node] >= 0
            if not inner.any():
                break
            r, at = rows[inner], node[inner]
            b = codes_t[self.feature[at], r]
            node[r] = np.where(self.bin_left[at, b], self.left[at], self.right[at])
        return node

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The node (leaf) each row of raw features ``X`` reaches."""
        categorical = {int(f) for f, c in zip(self.feature, self.left_codes) if f >= 0 and c is not None}
        return EnsembleRouter([self], categorical).leaves(X)[0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.value[self.apply(X)]

    # -- model file -------------------------------------------------------------------------
    def to_json(self) -> dict:
        """Plain lists; a threshold of ``+inf`` (present vs missing) is written ``null``."""
        return {
            "feature": self.feature.tolist(),
            "threshold": [None if not np.isfinite(t) else float(t) for t in self.threshold],
            "missing_left": self.missing_left.tolist(),
            "left": self.left.tolist(), "right": self.right.tolist(),
            "value": self.value.tolist(), "n": self.n.tolist(),
            "left_codes": self.left_codes, "right_codes": self.right_codes,
        }

    @classmethod
    def from_json(cls, doc: dict, n_features: int, categorical) -> "HistogramTree":
        """The tree ``to_json`` wrote; ``ValueError`` saying what is wrong otherwise."""
        if not isinstance(doc, dict):
            raise ValueError("a tree must be an object")
        keys = ("feature", "threshold", "missing_left", "left", "right", "value", "n", "left_codes", "right_codes")
        lists = {k: doc[k] for k in keys}
        m = len(lists["feature"]) if isinstance(lists["feature"], list) else -1
        if m < 1 or not all(isinstance(v, list) and len(v) == m for v in lists.values()):
            raise ValueError(f"a tree's {', '.join(keys)} must be lists of one length (its nodes), at least 1")
        categorical = set(categorical)
        feature = [integer(f, "a node's feature", low=-1, high=n_features - 1) for f in lists["feature"]]
        children = []
        for i, f in enumerate(feature):
            integer(lists["n"][i], "a node's row count", low=0)
            number(lists["value"][i], "a node's value")
            if f < 0:
                if lists["left"][i] != -1 or lists["right"][i] != -1:
                    raise ValueError(f"leaf {i} must have children -1")
                children.append([])
                continue
            if not isinstance(lists["missing_left"][i], bool):
                raise ValueError(f"node {i}: missing_left must be true or false, got {show(lists['missing_left'][i])}")
            left, right = (integer(lists[s][i], f"node {i}'s {s} child") for s in ("left", "right"))
            children.append([("left", left), ("right", right)])
            if f in categorical:
                for side in ("left_codes", "right_codes"):
                    codes = lists[side][i]
                    if not (isinstance(codes, list) and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0
                                                            for c in codes)):
                        raise ValueError(f"node {i} splits categorical feature {f}: {side} must be a list of codes")
                if set(lists["left_codes"][i]) & set(lists["right_codes"][i]):
                    raise ValueError(f"node {i} sends a category both ways")
                if lists["threshold"][i] is not None:
                    raise ValueError(f"node {i} splits categorical feature {f}: its threshold must be null")
            else:
                if lists["left_codes"][i] is not None or lists["right_codes"][i] is not None:
                    raise ValueError(f"node {i} splits numeric feature {f}: its codes must be null")
                t = lists["threshold"][i]
                if t is not None:
                    number(t, f"node {i}'s threshold")
        check_tree_links(children)
        threshold = np.array([np.inf if t is None else float(t) for t in lists["threshold"]], dtype=float)
        return cls(np.asarray(feature, dtype=np.int64), threshold,
                   np.asarray([bool(v) if isinstance(v, bool) else False for v in lists["missing_left"]]),
                   np.asarray(lists["left"], dtype=np.int64), np.asarray(lists["right"], dtype=np.int64),
                   np.asarray(lists["value"], dtype=float), np.asarray(lists["n"], dtype=np.int64),
                   [None if c is None else list(c) for c in lists["left_codes"]],
                   [None if c is None else list(c) for c in lists["right_codes"]])


def _histograms(codes_t: np.ndarray, rows: np.ndarray | None, local: np.ndarray, k: int, g: np.ndarray,
                h: np.ndarray, layout: Layout, counts: np.ndarray | None = None) -> np.ndarray:
    """``(3, k, slots)``: per node (``local``: each row's node among ``k``) and histogram slot
    (:class:`Layout`), the sums of ``g``, ``h`` and the row count over ``rows`` (all rows when
    None; ``counts``, when given, are the counts, already known).  ``codes_t`` is ``(p, n)``,
    so one gather takes every feature's codes of ``rows`` and each feature's are contiguous."""
    S = np.empty((3, k, layout.total))
    if rows is not None:
        g, h, codes_t = g[rows], h[rows], codes_t[:, rows]
    local = local.astype(np.intp)
    for j, (w, o) in enumerate(zip(layout.widths.tolist(), layout.offsets.tolist())):
        idx = local * w + codes_t[j] if k > 1 else codes_t[j]
        S[0, :, o:o + w] = np.bincount(idx, weights=g, minlength=k * w).reshape(k, w)
        S[1, :, o:o + w] = np.bincount(idx, weights=h, minlength=k * w).reshape(k, w)
        if counts is None:
            S[2, :, o:o + w] = np.bincount(idx, minlength=k * w).reshape(k, w)
    if counts is not None:
        S[2] = counts
    return S


def count_histogram(codes_t: np.ndarray, layout: Layout) -> np.ndarray:
    """The root's row counts per slot, ``(1, slots)``: the same for every tree of a fit."""
    C = np.empty((1, layout.total))
    for j, (w, o) in enumerate(zip(layout.widths.tolist(), layout.offsets.tolist())):
        C[0, o:o + w] = np.bincount(codes_t[j], minlength=w)
    return C


def _squash(ratio: np.ndarray) -> np.ndarray:
    """An increasing map of the reals into (0.0005, 0.9995), for sort keys within a feature."""
    return 0.5 + np.arctan(ratio) * (0.999 / np.pi)


def best_splits(S: np.ndarray, layout: Layout, s: "TreeSettings"):
    """The best split of each of ``k`` nodes from its histograms ``S`` (``(3, k, slots)``:
    sums of ``g``, ``h`` and rows).

    Returns ``(gain, slot, missing_left, order)``: ``gain`` is ``-inf`` where no candidate
    passes the leaf limits; the split sends left the slots ``order[node, offset : slot + 1]``
    of the chosen slot's feature (``order`` None: the slots in their own order)."""
    k = S.shape[1]
    seg = layout.feature
    order = None
    candidate = ~layout.is_missing
    if layout.any_categorical:
        cat = layout.categorical_observed
        G, H, C = S[:, :, cat]
        rare = C < max(s.min_category_rows, 1)
        key = np.broadcast_to(layout.key, S.shape[1:]).copy()
        # empty and rare categories last, where no cut falls between them
        key[:, cat] = seg[cat] + np.where(rare, np.where(C > 0, 0.99998, 0.99999),
                                          _squash(G / (H + s.category_smoothing + 1e-300)))
        order = np.argsort(key, axis=1, kind="stable")
        S = np.take_along_axis(S, order[None], axis=2)
        candidate = candidate & (~layout.categorical_observed | (S[2] >= s.min_category_rows) | layout.last_observed)
    # per feature, the sums of its observed bins up to each one (its missing slot comes last)
    sums = np.cumsum(S, axis=2)
    ends = layout.missing_slot
    total = sums[:, :, ends[0]]  # (3, k): the node's own sums
    before = np.concatenate([np.zeros((3, k, 1)), sums], axis=2)[:, :, layout.offsets]
    left = sums - before[:, :, seg]
    missing = S[:, :, ends][:, :, seg]
    lam = s.l2 + s.category_l2 * layout.categorical_slot  # per slot: categorical splits pay more
    parent = total[0][:, None] ** 2 / (total[1][:, None] + lam)
    gains = np.empty((2, k, layout.total))
    for d, to_left in enumerate((True, False)):
        gl, hl, cl = left + missing if to_left else left
        gr, hr, cr = total[0][:, None] - gl, total[1][:, None] - hl, total[2][:, None] - cl
        ok = (candidate & (np.minimum(cl, cr) >= s.min_samples_leaf)
              & (np.minimum(hl, hr) >= s.min_child_hessian))
        with np.errstate(divide="ignore", invalid="ignore"):
            gains[d] = np.where(ok, gl * gl / (hl + lam) + gr * gr / (hr + lam) - parent, -np.inf)
    # the best over (slot, missing left then right); ties: the lower slot, then missing-left
    flat = gains.transpose(1, 2, 0).reshape(k, -1)
    best = np.argmax(flat, axis=1)
    gain = flat[np.arange(k), best]
    slot, side = np.divmod(best, 2)
    # noise is no gain: a split must beat min_gain by more than float error of the parent's term
    scale = np.abs(parent[np.arange(k), slot]) + 1.0
    gain = np.where(gain > s.min_gain + GAIN_TOL * scale, gain, -np.inf)
    return gain, slot, side == 0, order


@dataclass(frozen=True)
class TreeSettings:
    max_depth: int = 4
    min_samples_leaf: int = 20
    #: the least ``H`` a child may hold (LightGBM's ``min_sum_hessian_in_leaf``): a leaf of
    #: near-certain rows would otherwise take a Newton step of ``-G/H`` with ``H`` near 0
    min_child_hessian: float = 1e-3
    l2: float = 0.0
    min_gain: float = 0.0
    learning_rate: float = 1.0
    missing: str = "mia"
    #: categorical splits, regularised as LightGBM's are (its ``cat_smooth``, ``cat_l2`` and the
    #: count it compares with ``cat_smooth``): the categories are ordered by ``G/(H + smoothing)``,
    #: a category of fewer rows than ``min_category_rows`` at the node is put last and no cut
    #: falls among such, and the split's gain takes ``l2 + category_l2``.  Without them a
    #: feature of hundreds of categories (compas's charge descriptions) is cut by the ``G/H``
    #: of categories of one or two rows, and boosting overfits within a few trees
    category_smoothing: float = 10.0
    category_l2: float = 10.0
    min_category_rows: int = 10


def grow_histogram_tree(codes_t: np.ndarray, bins: FeatureBins, g: np.ndarray, h: np.ndarray,
                        settings: TreeSettings, layout: Layout | None = None,
                        root_counts: np.ndarray | None = None) -> tuple[HistogramTree, np.ndarray]:
    """Grow one tree depth-wise on binned rows ``codes_t`` (``(p, n)``, :meth:`FeatureBins.transform`)
    for gradients ``g`` and Hessians ``h``; returns the tree and the leaf each row reached.
    ``layout`` and ``root_counts`` (:func:`count_histogram`) may be passed in by a caller
    growing many trees on the same rows."""
    s = settings
    refuse_strategy(s.missing)
    layout = layout or Layout(bins)
    if compiled.active():
        return _grow_compiled(codes_t, bins, g, h, s, layout, root_counts)
    n = codes_t.shape[1]
    width = layout.max_width
    feature, threshold, missing_left = [-1], [np.nan], [False]
    left, right, n_rows = [-1], [-1], [n]
    left_codes, right_codes = [None], [None]
    G_node, H_node = [float(g.sum())], [float(h.sum())]
    bin_left = [np.zeros(width, dtype=bool)]
    rows_of = {0: np.arange(n)}  # each node's rows; a split node's pass to its children
    level = np.zeros(1, dtype=np.int64)
    S = _histograms(codes_t, None, np.zeros(n, dtype=np.intp), 1, g, h, layout, counts=root_counts)
    for depth in range(s.max_depth):
        gain, slot, to_left, order = best_splits(S, layout, s)
        G, H, C = S
        split = np.flatnonzero(np.isfinite(gain))
        if not len(split):
            break
        m = len(split)
        table = np.zeros((m, width), dtype=bool)
        kids = np.arange(len(feature), len(feature) + 2 * m).reshape(m, 2)
        feat_split = layout.feature[slot[split]]
        stats = np.zeros((m, 2, 3))
        for r, a in enumerate(split.tolist()):
            node, f, t = int(level[a]), int(feat_split[r]), int(slot[a])
            o, nb = int(layout.offsets[f]), int(bins.n_bins[f])
            goes_left = (order[a, o:t + 1] if order is not None else np.arange(o, t + 1)) - o
            counts = C[a, o:o + nb + 1]
            left_bins = np.zeros(width, dtype=bool)
            left_bins[goes_left] = True
            n_left = counts[:nb][left_bins[:nb]].sum()
            if counts[nb] > 0:
                m_left = bool(to_left[a])
            else:  # nothing learned about missing values here: the child with more rows
                m_left = bool(n_left >= counts[:nb].sum() - n_left)
            if bins.categorical[f]:
                left_bins[:nb][counts[:nb] == 0] = m_left  # a category the node lacks goes as missing does
                members = bins.bin_codes[f]
                held = np.flatnonzero(counts[:nb] > 0).tolist()
                left_codes[node] = sorted(c for b in held if left_bins[b] for c in members[b])
                right_codes[node] = sorted(c for b in held if not left_bins[b] for c in members[b])
            else:
                threshold[node] = np.inf if t - o >= nb - 1 else float(bins.edges[f][t - o])
            left_bins[nb] = m_left
            table[r] = left_bins
            feature[node] = f
            missing_left[node] = m_left
            bin_left[node] = left_bins
            left[node], right[node] = int(kids[r, 0]), int(kids[r, 1])
            sel = left_bins[:nb + 1]
            stats[r, 0] = (G[a, o:o + nb + 1][sel].sum(), H[a, o:o + nb + 1][sel].sum(), counts[sel].sum())
            stats[r, 1] = (G_node[node] - stats[r, 0, 0], H_node[node] - stats[r, 0, 1], n_rows[node] - stats[r, 0, 2])
        feature += [-1] * 2 * m
        threshold += [np.nan] * 2 * m
        missing_left += [False] * 2 * m
        left += [-1] * 2 * m
        right += [-1] * 2 * m
        left_codes += [None] * 2 * m
        right_codes += [None] * 2 * m
        bin_left += [np.zeros(width, dtype=bool)] * 2 * m
        G_node += stats[:, :, 0].ravel().tolist()
        H_node += stats[:, :, 1].ravel().tolist()
        n_rows += [int(round(c)) for c in stats[:, :, 2].ravel()]
        # route the rows of the split nodes to their children
        for r, a in enumerate(split.tolist()):
            rows = rows_of.pop(int(level[a]))
            goes = table[r][codes_t[feat_split[r], rows] if len(rows) < n else codes_t[feat_split[r]]]
            rows_of[int(kids[r, 0])], rows_of[int(kids[r, 1])] = rows[goes], rows[~goes]
        level = kids.ravel()
        if depth == s.max_depth - 1:
            break
        # histograms of the next level: each split's smaller child built, the larger by subtraction
        small_is_left = stats[:, 0, 2] <= stats[:, 1, 2]
        small = [rows_of[int(c)] for c in np.where(small_is_left, kids[:, 0], kids[:, 1])]
        local = np.repeat(np.arange(m), [len(rows) for rows in small])
        built = _histograms(codes_t, np.concatenate(small), local, m, g, h, layout)
        rest = S[:, split] - built
        pick = small_is_left[None, :, None]
        S = np.stack([np.where(pick, built, rest), np.where(pick, rest, built)], axis=2).reshape(3, 2 * m, -1)
    G_node, H_node = np.asarray(G_node), np.asarray(H_node)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -G_node / (H_node + s.l2) * s.learning_rate
    value[~np.isfinite(value)] = 0.0
    tree = HistogramTree(np.asarray(feature, dtype=np.int64), np.asarray(threshold, dtype=float),
                         np.asarray(missing_left, dtype=bool), np.asarray(left, dtype=np.int64),
                         np.asarray(right, dtype=np.int64), value, np.asarray(n_rows, dtype=np.int64),
                         left_codes, right_codes, np.asarray(bin_left))
    node_of_row = np.empty(n, dtype=np.int64)
    for node, rows in rows_of.items():
        node_of_row[rows] = node
    return tree, node_of_row


def _grow_compiled(codes_t: np.ndarray, bins: FeatureBins, g: np.ndarray, h: np.ndarray, s: TreeSettings,
                   layout: Layout, root_counts: np.ndarray | None) -> tuple[HistogramTree, np.ndarray]:
    """:func:`grow_histogram_tree` by the loops of :mod:`fairspec.models.tree.compiled`: the
    same tree, level by level; only the categories' sort keys (an ``arctan``) are numpy's."""
    n = codes_t.shape[1]
    w = layout.workspace(codes_t, s, root_counts)
    g = np.ascontiguousarray(g, dtype=float)
    h = np.ascontiguousarray(h, dtype=float)
    most = w["feature"].shape[0]
    feature, tpos, missing_left, left, right = (w[k] for k in ("feature", "tpos", "missing_left", "left", "right"))
    feature.fill(-1)
    missing_left.fill(False)
    left.fill(-1)
    right.fill(-1)
    node_sums, bin_left, held = w["node_sums"], np.zeros((most, layout.max_width), dtype=bool), w["held"]
    held.fill(False)
    rows, begin, count = w["rows"], w["begin"], w["count"]
    rows[:] = w["all_rows"]
    begin[0], count[0] = 0, n
    node_sums[0] = float(g.sum()), float(h.sum()), n
    S = compiled.root_histogram(w["codes_rows"], g, h, w["root_counts"], w["feat_int"][0], layout.total)
    level = np.zeros(1, dtype=np.int64)
    n_nodes = 1
    cat = layout.categorical_observed
    for depth in range(s.max_depth):
        if layout.any_categorical:
            sq = _squash(S[:, cat, 0] / (S[:, cat, 1] + s.category_smoothing + 1e-300))
        else:
            sq = w["no_keys"]
        S, level, n_nodes = compiled.grow_level(
            S, sq, w["codes_rows"], g, h, rows, begin, count, level, n_nodes, w["slot_int"], w["feat_int"],
            w["slot_flags"], w["is_cat"], w["lam"], w["settings"], layout.any_categorical,
            depth == s.max_depth - 1, feature, tpos, missing_left, left, right, node_sums, bin_left, held, w["buf"])
        if not len(level):
            break
    split = feature[:n_nodes] >= 0
    threshold = np.full(n_nodes, np.nan)
    left_codes: list = [None] * n_nodes
    right_codes: list = [None] * n_nodes
    for node in np.flatnonzero(split).tolist():
        f, t = int(feature[node]), int(tpos[node])
        nb = int(bins.n_bins[f])
        if bins.categorical[f]:
            members = bins.bin_codes[f]
            lb = bin_left[node]
            heldb = np.flatnonzero(held[node, :nb]).tolist()
            left_codes[node] = sorted(c for b in heldb if lb[b] for c in members[b])
            right_codes[node] = sorted(c for b in heldb if not lb[b] for c in members[b])
        else:
            threshold[node] = np.inf if t >= nb - 1 else float(bins.edges[f][t])
    G_node, H_node = node_sums[:n_nodes, 0], node_sums[:n_nodes, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -G_node / (H_node + s.l2) * s.learning_rate
    value[~np.isfinite(value)] = 0.0
    tree = HistogramTree(feature[:n_nodes].copy(), threshold, missing_left[:n_nodes].copy(), left[:n_nodes].copy(),
                         right[:n_nodes].copy(), value, np.rint(node_sums[:n_nodes, 2]).astype(np.int64), left_codes,
                         right_codes, bin_left[:n_nodes])
    return tree, compiled.leaves_of_rows(rows, begin, count, feature, n_nodes, n)


def check_no_missing(X: np.ndarray, missing: str, what: str = "X") -> None:
    """Under ``missing none`` a missing value has no rule: a :class:`DataError` naming the cell."""
    if missing == "none" and np.isnan(X).any():
        row, col = np.argwhere(np.isnan(X))[0]
        raise DataError(f"{what} row {row}, feature {col} is missing (NaN), and missing 'none' has no rule for a "
                        f"missing value: impute it, drop the row, or use missing 'mia'")


class EnsembleRouter:
    """Routes raw rows through many trees at once, with no loop over rows.

    Each feature's values are binned once per call by the cut points the trees use on it (a
    numeric feature: its thresholds, ``x <= t`` exactly ``code <= index of t``; a categorical
    one: the codes the splits list, any other code and a missing value taking one last code),
    and every node gets a table saying, per code, whether a row goes left.  A leaf points to
    itself, so each level moves every row one step without masks.
    """

    def __init__(self, trees: list[HistogramTree], categorical):
        categorical = set(int(j) for j in categorical)
        p = 1 + max([int(t.feature.max(initial=-1)) for t in trees] + [0])
        cuts: list = [set() for _ in range(p)]
        for t in trees:
            for i in np.flatnonzero(t.feature >= 0):
                j = int(t.feature[i])
                if j in categorical:
                    cuts[j].update(t.left_codes[i] + t.right_codes[i])
                elif np.isfinite(t.threshold[i]):
                    cuts[j].add(float(t.threshold[i]))
        self.categorical = categorical
        self.cuts = [np.asarray(sorted(c), dtype=float) for c in cuts]
        # codes per feature: numeric 0..len(cuts) by searchsorted, then missing; categorical one
        # per listed code, then "other or missing"
        self.missing_code = [len(c) + (0 if j in categorical else 1) for j, c in enumerate(self.cuts)]
        width = max(self.missing_code, default=0) + 1
        offsets = np.cumsum([0] + [t.n_nodes for t in trees])
        total = int(offsets[-1])
        self.feature = np.zeros(total, dtype=np.int64)
        self.children = np.zeros((total, 2), dtype=np.int64)
        self.value = np.zeros(total)
        self.goes_left = np.zeros((total, width), dtype=bool)
        self.roots = offsets[:-1]
        self.depths = [t.depth for t in trees]
        for t, off in zip(trees, offsets[:-1].tolist()):
            ids = off + np.arange(t.n_nodes)
            self.value[ids] = t.value
            inner = t.feature >= 0
            self.children[ids] = ids[:, None]  # a leaf points to itself
            self.children[ids[inner], 0] = off + t.left[inner]
            self.children[ids[inner], 1] = off + t.right[inner]
            for i in np.flatnonzero(inner).tolist():
                j = int(t.feature[i])
                row = self.goes_left[off + i]
                self.feature[off + i] = j
                miss = self.missing_code[j]
                if j in categorical:
                    row[np.searchsorted(self.cuts[j], t.left_codes[i])] = True
                elif np.isfinite(t.threshold[i]):
                    row[:np.searchsorted(self.cuts[j], t.threshold[i]) + 1] = True
                else:  # present vs missing: every observed value goes left
                    row[:miss] = True
                row[miss:] = False
                row[miss] = bool(t.missing_left[i])

    def codes(self, X: np.ndarray) -> np.ndarray:
        """``(p, n)`` codes of ``X`` by the cut points (module docstring)."""
        n = X.shape[0]
        out = np.zeros((len(self.cuts), n), dtype=np.int64)
        for j, cuts in enumerate(self.cuts):
            col = X[:, j]
            nan = np.isnan(col)
            if j in self.categorical:
                where = np.minimum(np.searchsorted(cuts, col), max(len(cuts) - 1, 0))
                listed = (cuts[where] == col) if len(cuts) else np.zeros(n, dtype=bool)
                out[j] = np.where(listed & ~nan, where, self.missing_code[j])
            else:
                out[j] = np.where(nan, self.missing_code[j], np.searchsorted(cuts, col, side="left"))
        return out

    def leaves(self, X: np.ndarray) -> np.ndarray:
        """``(trees, n)``: the (global) node each row reaches in each tree."""
        codes = self.codes(X)
        n = X.shape[0]
        flat = codes.ravel()
        rows = np.arange(n)
        out = np.empty((len(self.roots), n), dtype=np.int64)
        # per node and code, the next node: a row's step is two lookups
        step = np.where(self.goes_left, self.children[:, :1], self.children[:, 1:]).ravel()
        width = self.goes_left.shape[1]
        for k, (root, depth) in enumerate(zip(self.roots.tolist(), self.depths)):
            node = np.full(n, root, dtype=np.int64)
            for _ in range(depth):
                node = step[node * width + flat[self.feature[node] * n + rows]]
            out[k] = node
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The sum over the trees of the value of the leaf each row reaches."""
        if not len(self.roots):
            return np.zeros(X.shape[0])
        return self.value[self.leaves(X)].sum(axis=0)
