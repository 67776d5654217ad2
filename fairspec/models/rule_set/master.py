r"""The restricted master problem of FairCG (Lawless and Günlük 2021, eq. 10–18), in Pyomo.

Nomenclature (all on *patterns*: training rows with identical literals, label and group,
merged with a count :math:`n_i`, so every sum below is weighted by :math:`n_i`):

* :math:`\mathcal P`, :math:`\mathcal Z` — positive / negative patterns;
  :math:`\mathcal P_g`, :math:`\mathcal Z_g` — those of group :math:`g`;
* :math:`K` — the rules (columns) generated so far; :math:`a_{ik}=1` if rule :math:`k`
  covers pattern :math:`i`; :math:`K_i` the rules covering :math:`i`;
  :math:`c_k = 1 + |k|` the complexity of rule :math:`k`;
* :math:`w_k` — rule :math:`k` is selected; :math:`\zeta_i` — positive :math:`i` is missed;
  :math:`\delta_i` — negative :math:`i` is (wrongly) covered (exact form only).

The paper's master with Hamming loss (eq. 10–14) and its fairness rows::

    min   Σ_{i∈P} n_i ζ_i + Σ_k (Σ_{i∈Z} n_i a_ik) w_k                       (10)
    s.t.  ζ_i + Σ_{k∈K_i} w_k ≥ 1                     i ∈ P  [cover]           (11)
          Σ_k c_k w_k ≤ C                                    [complexity]      (12)
          ζ ≥ 0, w ∈ {0,1}  (w ≥ 0 in the LP, no w ≤ 1: see below)             (13–14)
    equal opportunity, for every ordered pair of groups (a, b)  (15–16):
          Σ_{i∈P_a} n_i ζ_i / |P_a| − Σ_{i∈P_b} n_i ζ_i / |P_b| ≤ ε
    equalized odds adds, for every ordered pair (a, b)  (17–18):
          Σ_k (Σ_{i∈Z_a} n_i a_ik / |Z_a| − Σ_{i∈Z_b} n_i a_ik / |Z_b|) w_k ≤ ε

With ``complexity_cost`` ρ > 0 (:attr:`MasterProblem.complexity_cost`, rows per unit of
complexity) the objective (10) also charges ``ρ c_k w_k`` for every rule: the regulariser
``λ0 + λ1 |k|`` of aix360's BRCG (Dash, Günlük and Wei 2018) with ``λ0 = λ1 = ρ``, next to
the paper's bound (12).  Each column's objective coefficient grows by ``ρ c_k``, so its reduced
cost does too (:mod:`.pricing`).

With two groups the ordered pairs are the paper's two rows; with more groups every ordered
pair gets its row, which bounds the largest gap between any two groups (the gap
:meth:`fairspec.registry.criteria.Criterion.gap` measures).  ``|P_g|`` counts the rows, so the
first sum is group ``a``'s false-negative rate: an FNR gap equals the TPR gap.

The LP relaxation keeps ``w`` without the upper bound 1: with ``w ≤ 1`` the bound's dual
enters the reduced cost of an existing column but is invisible to the pricing problem of a
new one, and column generation can cycle (the paper, sec. 4).  ``ζ ≤ 1`` is a valid
inequality we do keep.

**Why the paper's IP is not enough, and the exact form.**  In (10–18) nothing stops
:math:`\zeta_i = 1` for a positive that a selected rule covers: the objective pays for it, but
the fairness rows (15–16) then see a false negative that the classifier does not make.  On
compas (issue 4's prototype) rule sets that met ε = 0.05 or 0.01 in the model had a real train
gap of 0.15–0.18.
The final IP (``exact=True``) therefore adds, when there are FNR fairness rows, the *exactness rows*

    ζ_i + w_k ≤ 1                       i ∈ P, k ∈ K_i  [exact_positive]

so that, for binary ``w``, ζ_i = 1 − max_{k∈K_i} w_k = 1 − ŷ_i exactly (the cover row gives
≥, these give ≤).  When the criterion compares false-positive rates (equalized odds), or the
problem is small enough, the negatives get the same treatment with
δ_i ∈ [0, 1]:

    δ_i ≥ w_k              i ∈ Z, k ∈ K_i     [exact_negative_lower]
    δ_i ≤ Σ_{k∈K_i} w_k    i ∈ Z              [exact_negative_upper]

so δ_i = ŷ_i; the objective's negative part becomes Σ_{i∈Z} n_i δ_i (the 0-1 loss rather
than the Hamming loss that charges a negative once per covering rule), and rows (17–18) use
δ instead of the column sums.  With these rows the model's fairness rows *are* the
classifier's gaps on the training data.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyomo.environ as pyo

#: slack subtracted from ε in the solver's fairness rows.  It only absorbs float noise: a gap
#: exactly equal to ε is allowed (rates are multiples of 1/|P_g|, so a real violation exceeds ε
#: by far more than HiGHS's tolerances once w is integral).  Only HiGHS sees the shifted
#: bound: a rule set is judged against ε itself (:attr:`FairnessRow.epsilon`, and
#: ``Criterion.meets`` on its re-measured gap), else a gap of exactly ε, which the IP finds,
#: would be refused as 1e-9 over
EPS_SAFETY = 1e-9


def distinct_rows(literals: np.ndarray, *labels) -> tuple[np.ndarray, np.ndarray]:
    """Rows alike in ``literals`` (bool, one row per pattern) and in every per-row array of
    ``labels``: the index of each distinct row's first occurrence (in sorted key order) and,
    for every row, the number of its distinct row.

    The key packs the literals eight bytes to an unsigned word, big-endian, so comparing words
    compares the bytes in order: the same sorted order as one column per byte, over an eighth of
    the columns (the sort is most of a merge's cost on a million rows)."""
    labels = [np.asarray(label).astype(np.int64) for label in labels]
    packed = np.packbits(literals, axis=1)
    if any(len(label) and label.min() < 0 for label in labels):  # not in fairspec: codes are >= 0
        key = np.column_stack([packed.astype(np.int64)] + labels)
    else:
        pad = (-packed.shape[1]) % 8
        packed = np.concatenate([packed, np.zeros((len(packed), pad), dtype=np.uint8)], axis=1)
        words = np.ascontiguousarray(packed).view(">u8").astype(np.uint64) if packed.shape[1] else \
            np.zeros((len(packed), 0), dtype=np.uint64)
        key = np.column_stack([words] + [label.astype(np.uint64) for label in labels])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return first, inverse.ravel()


@dataclass
class Patterns:
    """Training rows merged by (literal vector, label, group).

    Attributes
    ----------
    literals : bool array of shape (n_patterns, n_literals)
    y : int array of shape (n_patterns,)
    group : int array of shape (n_patterns,), codes into ``group_labels``
    count : float array of shape (n_patterns,)
    row_pattern : int array of shape (n_rows,), the pattern of each training row
    """

    literals: np.ndarray
    y: np.ndarray
    group: np.ndarray
    count: np.ndarray
    row_pattern: np.ndarray
    group_labels: np.ndarray
    #: int array of shape (n_patterns,): the fairness fold of the pattern's rows (0 without folds)
    fold: np.ndarray = None

    @classmethod
    def from_rows(cls, literal_matrix: np.ndarray, y: np.ndarray, groups: np.ndarray, folds=None) -> "Patterns":
        group_labels, group_codes = np.unique(groups, return_inverse=True)
        folds = np.zeros(len(y), dtype=np.int64) if folds is None else np.asarray(folds, dtype=np.int64)
        first, inverse = distinct_rows(literal_matrix, y, group_codes, folds)
        return cls(literals=literal_matrix[first], y=y[first].astype(int), group=group_codes[first],
                   count=np.bincount(inverse).astype(float), row_pattern=inverse, group_labels=group_labels,
                   fold=folds[first])

    def merged_by(self, columns: np.ndarray) -> "Patterns":
        """Patterns merged by their row of ``columns`` (bool, ``(n_patterns, K)``), label, group and fold.

        The final IP and the local search see a pattern only through which of its ``K``
        columns cover it, so patterns alike on those columns are interchangeable there: merging
        them (counts summed) gives the same objective and fairness rows over far fewer ζ / δ
        variables and exactness rows.  On adult the 21,842 training patterns are nearly all distinct (``fnlwgt``), while
        a hundred rules split them into a few thousand coverage classes.  The merged patterns'
        ``literals`` are the ``columns`` rows, so ``merged.literals[:, k]`` is column ``k``'s
        coverage.
        """
        columns = np.asarray(columns, dtype=bool).reshape(len(self.y), -1)
        fold = self.fold if self.fold is not None else np.zeros(len(self.y), dtype=np.int64)
        first, inverse = distinct_rows(columns, self.y, self.group, fold)
        return Patterns(literals=columns[first], y=self.y[first], group=self.group[first],
                        count=np.bincount(inverse, weights=self.count), row_pattern=inverse[self.row_pattern],
                        group_labels=self.group_labels, fold=fold[first])

    @property
    def positives(self) -> np.ndarray:
        return np.flatnonzero(self.y == 1)

    @property
    def negatives(self) -> np.ndarray:
        return np.flatnonzero(self.y == 0)

    def coverage(self, rule) -> np.ndarray:
        """Which patterns a rule (tuple of literal indices) covers; the empty rule covers all."""
        if len(rule) == 0:
            return np.ones(len(self.y), dtype=bool)
        return self.literals[:, list(rule)].all(axis=1)


@dataclass
class FairnessRow:
    """One ordered-pair row ``Σ_i coef_i x_i ≤ bound`` (x = ζ for ``fnr``, ŷ for ``fpr``)."""

    name: str
    rate: str  # "fnr" (on positives: the TPR gap) or "fpr" (on negatives)
    coef: np.ndarray  # shape (n_patterns,), zero outside the two groups' rows
    bound: float  # the solver's: ε less EPS_SAFETY
    epsilon: float  # the criterion's ε, which a rule set's gap is judged against


def fairness_rows(patterns: Patterns, criterion) -> list[FairnessRow]:
    """Rows (15–18) for every ordered pair of groups that both have rows in the rate's condition.

    A group with no positive (negative) row has no TPR (FPR) and is left out, as
    :meth:`Criterion.gap` leaves it out.

    When the patterns carry fairness folds (``fold`` takes values 0..F-1, F ≥ 2), the rows are
    repeated on each fold with that fold's group sizes: the rule set must meet the bound on
    every fold as well as on the whole training set.  This is our addition, not the paper's:
    choosing among thousands of rules, the exact IP otherwise finds rule sets whose train gap
    is small partly by chance (a selection effect), and a rule set fair on each of two
    disjoint halves is less likely to be fair by chance on both.  On the current fit the folds
    no longer narrow the test gap and cost accuracy, so the estimator imposes none by default
    (``fairness_folds`` in :class:`.estimator.FairRuleSetClassifier`; the measurements:
    ``benchmarks/README.md``).
    """
    if criterion is None or criterion.bound is None:
        return []
    rows = []
    folds = np.unique(patterns.fold) if patterns.fold is not None else np.array([0])
    subsets = [("", np.ones(len(patterns.y), dtype=bool))]
    if len(folds) >= 2:
        subsets += [(f"_fold{f}", patterns.fold == f) for f in folds]
    for suffix, subset in subsets:
        rows += _pair_rows(patterns, criterion, subset, suffix)
    return rows


def _pair_rows(patterns: Patterns, criterion, subset: np.ndarray, suffix: str) -> list[FairnessRow]:
    bound = max(float(criterion.bound) - EPS_SAFETY, 0.0)
    rows = []
    for rate in criterion.rates:
        label, name = {"tpr": (1, "fnr"), "fpr": (0, "fpr")}[rate]
        in_rate = (patterns.y == label) & subset
        sizes = {g: patterns.count[in_rate & (patterns.group == g)].sum() for g in np.unique(patterns.group)}
        present = [g for g, s in sizes.items() if s > 0]
        for a in present:
            for b in present:
                if a == b:
                    continue
                coef = np.zeros(len(patterns.y))
                sel_a = in_rate & (patterns.group == a)
                sel_b = in_rate & (patterns.group == b)
                coef[sel_a] = patterns.count[sel_a] / sizes[a]
                coef[sel_b] = -patterns.count[sel_b] / sizes[b]
                rows.append(FairnessRow(f"{name}_{a}_{b}{suffix}", name, coef, bound, float(criterion.bound)))
    return rows


@dataclass
class MasterProblem:
    """Everything the master needs besides its columns."""

    patterns: Patterns
    fairness: list[FairnessRow]
    max_complexity: float
    #: cost of missing a positive pattern (n_i by default; column generation tilts it)
    positive_cost: np.ndarray = None
    #: cost of covering a negative pattern (n_i by default)
    negative_cost: np.ndarray = None
    fairness_active: bool = True
    meta: dict = field(default_factory=dict)
    #: cost of one unit of complexity in the objective, in rows (the estimator's
    #: ``complexity_cost`` times the training rows): adds ``complexity_cost · c_k`` to every
    #: column's objective coefficient (0: the paper's objective (10))
    complexity_cost: float = 0.0

    def __post_init__(self):
        if self.positive_cost is None:
            self.positive_cost = self.patterns.count.copy()
        if self.negative_cost is None:
            self.negative_cost = self.patterns.count.copy()


def column_parts(problem: MasterProblem, covered: np.ndarray, complexity: float, *, exact_negatives=False):
    """One rule's column in the master (10–18): its objective coefficient, the positive
    patterns whose cover row it enters (ascending, coefficient 1), its complexity-row
    coefficient and its FPR fairness-row coefficients (``[(row name, value)]``, nonzero ones).

    The single source of the master's column structure: :func:`column_entries` (the Pyomo
    rows), :func:`master_lp_arrays` and the columns that column generation appends to HiGHS
    are all read from it, so every form of the master holds the same numbers.
    """
    pats = problem.patterns
    positives = np.flatnonzero(covered & (pats.y == 1))
    rule_cost = float(problem.complexity_cost) * float(complexity)
    if exact_negatives:
        # the negatives enter through δ (exact form): the rule costs only its complexity
        return rule_cost, positives, float(complexity), []
    objective = float(problem.negative_cost[covered & (pats.y == 0)].sum()) + rule_cost
    fairness = []
    for row in problem.fairness:
        if row.rate == "fpr":
            value = float(row.coef[covered].sum())
            if value != 0.0:
                fairness.append((row.name, value))
    return objective, positives, float(complexity), fairness


def column_entries(problem: MasterProblem, covered: np.ndarray, complexity: float, *, exact_negatives=False):
    """Objective coefficient and row coefficients of one rule (:func:`column_parts`) keyed by
    row: ``("cover", i)``, ``("complexity",)``, ``("fairness", name)``."""
    objective, positives, complexity, fairness = column_parts(problem, covered, complexity,
                                                              exact_negatives=exact_negatives)
    entries = {("cover", int(i)): 1.0 for i in positives}
    entries[("complexity",)] = complexity
    for name, value in fairness:
        entries[("fairness", name)] = value
    return objective, entries


@dataclass
class MasterArrays:
    """The master LP (10–18) as arrays (:func:`master_lp_arrays`): columns ``w`` (one per
    rule) then ``ζ`` (one per positive pattern), rows keyed as in :func:`column_entries`."""

    costs: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    matrix: object  # scipy.sparse CSC, rows x columns
    row_keys: list
    w_cols: np.ndarray
    zeta_cols: np.ndarray
    zeta_patterns: np.ndarray


def master_lp_arrays(problem: MasterProblem, coverage: np.ndarray, complexities) -> MasterArrays:
    """The LP relaxation :func:`build_master` gives with ``integer=False``, as sparse arrays.

    Same variables, rows, bounds and coefficients, in the order APPSI loads the Pyomo model
    (``w`` then ``ζ``; cover rows, the complexity row, the fairness rows), with the rows
    that model leaves out left out here too (a complexity row without columns, a fairness row
    without a variable).  Built in NumPy, without a Python object per nonzero: on a million
    rows the Pyomo build and load took most of the fit's set-up.
    """
    import scipy.sparse as sp

    pats = problem.patterns
    coverage = np.asarray(coverage, dtype=bool).reshape(len(pats.y), -1)
    n_rules = coverage.shape[1]
    positives = pats.positives
    n_pos = len(positives)
    cover_row = np.full(len(pats.y), -1, dtype=np.int64)
    cover_row[positives] = np.arange(n_pos)
    row_keys = [("cover", int(i)) for i in positives]
    row_lower, row_upper = [np.ones(n_pos)], [np.full(n_pos, np.inf)]
    rows, cols, vals = [], [], []
    objective = np.zeros(n_rules)
    fpr_values: dict[str, list] = {}
    for k in range(n_rules):
        objective[k], covered_positives, complexity, fairness = column_parts(problem, coverage[:, k], complexities[k])
        rows.append(cover_row[covered_positives])
        cols.append(np.full(len(covered_positives), k))
        vals.append(np.ones(len(covered_positives)))
        for name, value in fairness:
            fpr_values.setdefault(name, []).append((k, value))
    if n_rules:
        row = len(row_keys)
        row_keys.append(("complexity",))
        row_lower.append([-np.inf]), row_upper.append([float(problem.max_complexity)])
        rows.append(np.full(n_rules, row)), cols.append(np.arange(n_rules))
        vals.append(np.array([float(c) for c in complexities[:n_rules]]))
    zeta = n_rules + np.arange(n_pos)
    rows.append(np.arange(n_pos)), cols.append(zeta), vals.append(np.ones(n_pos))
    for fr in problem.fairness if problem.fairness_active else []:
        if fr.rate == "fnr":
            nonzero = np.flatnonzero(fr.coef[positives] != 0)
            entries = (zeta[nonzero], fr.coef[positives[nonzero]].astype(float))
        else:
            pairs = fpr_values.get(fr.name, [])
            entries = (np.array([k for k, _ in pairs], dtype=np.int64), np.array([v for _, v in pairs], dtype=float))
        if not len(entries[0]):
            continue  # no variable in the row: trivially met, and left out (build_master's Skip)
        row = len(row_keys)
        row_keys.append(("fairness", fr.name))
        row_lower.append([-np.inf]), row_upper.append([fr.bound])
        rows.append(np.full(len(entries[0]), row)), cols.append(entries[0]), vals.append(entries[1])
    matrix = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                           shape=(len(row_keys), n_rules + n_pos))
    return MasterArrays(
        costs=np.concatenate([objective, problem.positive_cost[positives].astype(float)]),
        col_lower=np.zeros(n_rules + n_pos),
        col_upper=np.concatenate([np.full(n_rules, np.inf), np.ones(n_pos)]),
        row_lower=np.concatenate(row_lower), row_upper=np.concatenate(row_upper), matrix=matrix,
        row_keys=row_keys, w_cols=np.arange(n_rules), zeta_cols=zeta, zeta_patterns=positives)


def build_master(problem: MasterProblem, coverage: np.ndarray, complexities, *, integer: bool,
                 exact: bool = False, exact_negatives: bool = False) -> pyo.ConcreteModel:
    """The master (10–18) over the columns ``coverage`` (bool, ``(n_patterns, n_rules)``).

    ``integer`` makes ``w`` binary (the final IP); ``exact`` adds the exactness rows of the
    module docstring for the positives, ``exact_negatives`` also for the negatives (then
    the objective charges negatives through δ).
    """
    pats = problem.patterns
    coverage = np.asarray(coverage, dtype=bool).reshape(len(pats.y), -1)
    n_rules = coverage.shape[1]
    fpr_rows = [r for r in problem.fairness if r.rate == "fpr"]
    exact_negatives = exact and exact_negatives
    m = pyo.ConcreteModel(name="faircg_master")
    m.positives = pyo.Set(initialize=pats.positives.tolist(), ordered=True)
    m.negatives = pyo.Set(initialize=pats.negatives.tolist() if exact_negatives else [], ordered=True)
    m.rules = pyo.RangeSet(0, n_rules - 1) if n_rules else pyo.Set(initialize=[])
    m.fairness_rows = pyo.Set(initialize=[r.name for r in problem.fairness] if problem.fairness_active else [],
                              ordered=True)

    m.w = pyo.Var(m.rules, domain=pyo.Binary if integer else pyo.NonNegativeReals)  # rule k selected
    m.zeta = pyo.Var(m.positives, bounds=(0, 1))  # positive i missed
    m.delta = pyo.Var(m.negatives, bounds=(0, 1))  # negative i covered (exact form)

    # assemble each row's w-terms from the one column description
    terms: dict[tuple, list] = {}
    objective_w = []
    for k in range(n_rules):
        obj, entries = column_entries(problem, coverage[:, k], complexities[k], exact_negatives=exact_negatives)
        if obj:
            objective_w.append(obj * m.w[k])
        for key, coef in entries.items():
            terms.setdefault(key, []).append(coef * m.w[k])
    rows_by_name = {r.name: r for r in problem.fairness}

    m.loss = pyo.Objective(
        expr=sum(float(problem.positive_cost[i]) * m.zeta[i] for i in m.positives)
        + sum(float(problem.negative_cost[i]) * m.delta[i] for i in m.negatives)
        + sum(objective_w),
        sense=pyo.minimize,
    )

    @m.Constraint(m.positives)
    def cover(m, i):
        """(11)  ζ_i + Σ_{k∈K_i} w_k ≥ 1."""
        return m.zeta[i] + sum(terms.get(("cover", i), [])) >= 1

    @m.Constraint()
    def complexity(m):
        """(12)  Σ_k c_k w_k ≤ C."""
        body = sum(terms.get(("complexity",), []))
        return pyo.Constraint.Skip if isinstance(body, int) else body <= problem.max_complexity

    @m.Constraint(m.fairness_rows)
    def fairness(m, name):
        """(15–18)  Σ_{P_a} n_i ζ_i/|P_a| − Σ_{P_b} n_i ζ_i/|P_b| ≤ ε, and the FPR analogue."""
        row = rows_by_name[name]
        if row.rate == "fnr":
            body = sum(float(row.coef[i]) * m.zeta[i] for i in m.positives if row.coef[i] != 0)
        elif exact_negatives:
            body = sum(float(row.coef[i]) * m.delta[i] for i in m.negatives if row.coef[i] != 0)
        else:
            body = sum(terms.get(("fairness", name), []))
        # a row without any variable yet (no column covers those negatives) is trivially
        # met; column generation creates it when the first column enters it (row_bounds)
        return pyo.Constraint.Skip if isinstance(body, (int, float)) else body <= row.bound

    covering_pairs = [(int(i), k) for k in range(n_rules) for i in np.flatnonzero(coverage[:, k])]
    exact_positives = exact and needs_exact_positives(problem.fairness)
    positive_pairs = [(i, k) for i, k in covering_pairs if pats.y[i] == 1] if exact_positives else []
    negative_pairs = [(i, k) for i, k in covering_pairs if pats.y[i] == 0] if exact_negatives else []
    m.positive_cover_pairs = pyo.Set(initialize=positive_pairs, dimen=2)
    m.negative_cover_pairs = pyo.Set(initialize=negative_pairs, dimen=2)

    @m.Constraint(m.positive_cover_pairs)
    def exact_positive(m, i, k):
        """ζ_i + w_k ≤ 1: a covered positive is not a false negative."""
        return m.zeta[i] + m.w[k] <= 1

    @m.Constraint(m.negative_cover_pairs)
    def exact_negative_lower(m, i, k):
        """δ_i ≥ w_k: a covered negative is a false positive."""
        return m.delta[i] >= m.w[k]

    negatives_covered = {}
    for i, k in negative_pairs:
        negatives_covered.setdefault(i, []).append(k)

    @m.Constraint(m.negatives)
    def exact_negative_upper(m, i):
        """δ_i ≤ Σ_{k∈K_i} w_k: an uncovered negative is not a false positive."""
        ks = negatives_covered.get(i)
        if not ks:
            return m.delta[i] <= 0
        return m.delta[i] <= sum(m.w[k] for k in ks)

    return m


def needs_exact_positives(fairness: list[FairnessRow]) -> bool:
    """Whether the exact form needs the rows ζ_i + w_k ≤ 1 under these fairness rows.

    Only the FNR fairness rows can gain from a ζ_i = 1 on a covered positive; without them the
    objective, which charges every ζ_i, already sets ζ_i = 1 − max_k w_k at any optimum, and
    the rows only slow HiGHS down: on adult's unconstrained IP they were 51k of 58k rows, and
    HiGHS ran 57 s against a 35 s time limit; without them it proved optimality in 18 s.
    """
    return any(r.rate == "fnr" for r in fairness)


def dominated_columns(coverage: np.ndarray, y: np.ndarray, complexities, fairness: list[FairnessRow]) -> np.ndarray:
    r"""Mask of the columns the master IP never needs: each has another column that can take its
    place in any rule set without making the objective or any row worse.

    Let :math:`P_k`, :math:`Z_k` be the positive and negative patterns rule :math:`k` covers.
    Column :math:`b` *dominates* :math:`a` when :math:`P_a \subseteq P_b`,
    :math:`Z_b \subseteq Z_a` and :math:`c_b \le c_a`.  Take a feasible rule set :math:`S \ni a`
    and :math:`S' = S \setminus \{a\} \cup \{b\}`:

    * covered positives: :math:`P(S') \supseteq P(S)`, so no ζ_i grows (eq. 10–11);
    * covered negatives: :math:`Z(S') = Z(S \setminus a) \cup Z_b \subseteq Z(S)`, so the 0-1
      loss on negatives does not grow, and neither does the Hamming loss
      (:math:`|Z_b| \le |Z_a|`, one charge per covering rule);
    * complexity: :math:`c(S') \le c(S) \le C` (eq. 12).

    The fairness rows (15–18) are differences of group rates, which can move either way when
    coverage grows, so under them the inclusion is tightened to equality on the rows the rates
    read: :math:`P_a = P_b` when there are FNR rows, :math:`Z_a = Z_b` when there are FPR rows.
    Then every rate, hence every row, is the same for :math:`S'` as for :math:`S`.

    Columns with identical coverage and complexity dominate each other; the earlier one (lower
    index) is kept, so every dominated column has a kept one that dominates it (the relation
    with that tie-break is a strict partial order).  Measured on compas (seed 0, 22 s fit):
    141 of the final IP's 300 columns were dominated.

    ``coverage`` is patterns × columns; pattern counts do not matter (the inclusions are on
    sets).  Cost: two products of the coverage with itself, O(patterns · columns²).
    """
    cov = np.asarray(coverage, dtype=np.float32)
    m = cov.shape[1]
    if m < 2:
        return np.zeros(m, dtype=bool)
    y = np.asarray(y)
    pos, neg = cov[y == 1], cov[y == 0]
    pos_both, neg_both = pos.T @ pos, neg.T @ neg  # [a, b]: patterns covered by both
    pos_size, neg_size = np.diag(pos_both), np.diag(neg_both)
    rates = {r.rate for r in fairness}
    # dom[a, b]: b dominates a
    dom = pos_both == pos_size[:, None]                # P_a ⊆ P_b
    dom &= neg_both == neg_size[None, :]               # Z_b ⊆ Z_a
    if "fnr" in rates:
        dom &= pos_size[None, :] == pos_size[:, None]  # with ⊆: P_a = P_b
    if "fpr" in rates:
        dom &= neg_size[None, :] == neg_size[:, None]
    c = np.asarray(complexities, dtype=float)
    dom &= c[None, :] <= c[:, None]
    np.fill_diagonal(dom, False)
    index = np.arange(m)
    dom &= ~dom.T | (index[None, :] < index[:, None])  # mutual: the earlier column stays
    return dom.any(axis=1)


def row_bounds(problem: MasterProblem, key: tuple) -> tuple[float, float]:
    """(lower, upper) of the master row ``key`` (see :func:`column_entries`)."""
    if key[0] == "cover":
        return 1.0, np.inf
    if key[0] == "complexity":
        return -np.inf, float(problem.max_complexity)
    row = next(r for r in problem.fairness if r.name == key[1])
    return -np.inf, row.bound


def selected_rules(model: pyo.ConcreteModel, threshold: float = 0.5) -> list[int]:
    """Indices of the rules with ``w_k`` above ``threshold`` in the loaded solution."""
    return [k for k in model.rules if model.w[k].value is not None and model.w[k].value > threshold]
