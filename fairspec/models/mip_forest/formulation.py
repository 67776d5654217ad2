r"""The MIP of one fair tree of fixed depth (Pyomo; solved by HiGHS in :mod:`.tree_fit`).

Notation: route classes :math:`r \in R` with counts :math:`n_{r,y,g}` (:mod:`.candidates`),
the cells :math:`(y, g)` with rows, candidate splits :math:`s \in S` with :math:`b_{r,s} = 1`
when split :math:`s` sends class :math:`r` left (:math:`L_r = \{s : b_{r,s} = 1\}`),
branching nodes :math:`v \in V` and leaves :math:`l \in L` in heap order (:mod:`.structure`;
node :math:`i`'s children are :math:`2i+1`, :math:`2i+2`, leaf :math:`l` is node
:math:`|V| + l`), :math:`N = \sum n` and :math:`n_{y,g} = \sum_r n_{r,y,g}`.

Variables: :math:`u_{v,s} \in \{0,1\}` (node :math:`v` tests split :math:`s`),
:math:`c_l \in \{0,1\}` (leaf :math:`l` predicts 1), :math:`w_{r,v} \in [0,1]` (node
:math:`v`'s split sends class :math:`r` left), flows :math:`f_{r,i} \in [0,1]` of class
:math:`r` into node :math:`i`, the rows of each cell in each leaf :math:`m_{l,y,g}` and those
predicted 1 there, :math:`q_{l,y,g}`, and for each compared rate :math:`k` the largest and
smallest group rate :math:`\overline{\rho}_k, \underline{\rho}_k`.

.. math::

    \sum_s u_{v,s} = 1                                       \qquad (1)\ \text{one split per node}

    f_{r,1} + f_{r,2} = 1, \quad f_{r,v} = f_{r,2v+1} + f_{r,2v+2}\ (v \ge 1)
                                                             \qquad (2)\ \text{flow conservation}

    w_{r,v} = \sum_{s \in L_r} u_{v,s}, \quad f_{r,2v+1} \le w_{r,v}, \quad
    f_{r,2v+2} \le 1 - w_{r,v}                               \qquad (3)\ \text{routing}

    m_{l,y,g} = \sum_r n_{r,y,g}\, f_{r,|V|+l}                \qquad (4)\ \text{leaf counts}

    q_{l,y,g} \le m_{l,y,g}, \quad q_{l,y,g} \le n_{y,g}\, c_l, \quad
    q_{l,y,g} \ge m_{l,y,g} - n_{y,g} (1 - c_l)              \qquad (5)\ q = c \cdot m

    \underline{\rho}_k \le \frac{\sum_l \big(\alpha_{k,0}\, q_{l,0,g} + \alpha_{k,1}\, q_{l,1,g}\big)
    + b_{k,g}}{den_{k,g}} \le \overline{\rho}_k             \qquad (6)\ \text{every group's rate}

(:math:`\alpha_k` = (1, 1) selection, (0, 1) TPR, (1, 0) FPR, (-1, 1) accuracy;
:mod:`.objective`), and the objective (the paper's eq. 8)

.. math::

    \min\ \frac{1}{N}\sum_{l,g} \big(q_{l,0,g} + m_{l,1,g} - q_{l,1,g}\big) + \lambda\, \gamma,
    \qquad \gamma \ge \overline{\rho}_k - \underline{\rho}_k \ \ \forall k     \qquad (7)

under ``penalty λ``; under ``gap <= ε``, :math:`\lambda = 0` and :math:`\overline{\rho}_k -
\underline{\rho}_k \le \varepsilon` (8).  With integral :math:`u`, (2)-(3) send each class down
exactly one path, so the flows are 0/1, (4) counts each leaf's rows exactly, and (5), the
McCormick envelope of :math:`c_l \cdot m_{l,y,g}` with :math:`m \in [0, n_{y,g}]`, is exact.

What this replaces in the paper.  There, node :math:`v` picks a feature by a one-hot row of a
matrix :math:`P` and a continuous threshold :math:`q_v`, and a binary :math:`c_v` says where a
missing value goes; the branching decision :math:`w_{i,v}` of every *row* is tied to them by
big-M constraints (:math:`M = 10^4` in the authors' code, which also leaves the threshold
:math:`\ge 0`, so a negative cut is out of reach), and each row's leaf is a binary
:math:`z_{i,l}`.  Here the threshold and the missing direction are chosen together, as one
candidate :math:`s` (the missing direction is part of the candidate, :mod:`.candidates`), so
the routing rows (3) need no big-M and the flows need not be integer; rows are merged into
route classes; and the paper's fairness regulariser (its Appendix B: per-leaf big-M products
of a leaf's label and each group's counts, then the absolute difference of two groups' rates)
becomes (5)-(8) with the tight bounds :math:`n_{y,g}`: rates are linear in the leaf counts
because their denominators are data, and :math:`\overline{\rho} - \underline{\rho}` is the
largest pairwise gap for any number of groups.  The thresholds are the quantile cuts.

Size.  Written out, each :math:`w_{r,v}` sums half the candidates, and per-row products of
flow and label would add :math:`3 \cdot 2^D` rows per class; loading rows into HiGHS through
APPSI costs Python time per row and per nonzero, the larger part of a tree's time (measured:
29 of 52 s for a depth-3 tree on 1,000 compas rows on a busy machine).  So the products are
taken per leaf and cell (5), and every class but the first writes :math:`w` from its *parent*,
the nearest earlier class (fewest differing candidates, ties to the first):
:math:`w_{r,v} = w_{p,v} + \sum_{s \in L_r \setminus L_p} u_{v,s} - \sum_{s \in L_p
\setminus L_r} u_{v,s}`, which is (3) by induction along the parents; the LP is unchanged.

Bound cut (9): :math:`\text{objective} \ge \underline{J}`, where :math:`\underline{J}` is the
Lagrangian dual bound the dynamic programme proved (:mod:`.dynamic_programme`); valid for every
tree over the candidates, it lets HiGHS certify a start that reaches it, which its LP
relaxation (routing fractional flows to whichever leaf suits them) alone almost never can.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from fairspec.models.mip_forest.objective import Objective
from fairspec.models.mip_forest.structure import HeapTree


def nearest_earlier(left: np.ndarray) -> np.ndarray:
    """Per class, the earlier class (lower index) whose split vector differs from its own in the
    fewest candidates (ties: the first), or -1 for class 0."""
    n = left.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    bits = left.astype(np.int8)
    for r in range(1, n):
        parent[r] = int(np.argmin((bits[:r] != bits[r]).sum(axis=1)))
    return parent


def build_tree_mip(left: np.ndarray, objective: Objective, depth: int, *, lower_bound: float | None = None,
                   name: str = "fair_mip_tree") -> pyo.ConcreteModel:
    """The MIP of the module docstring on the class x candidate split matrix ``left``."""
    n_classes, n_splits = left.shape
    n_branch = 2 ** depth - 1
    count = objective.count
    m = pyo.ConcreteModel(name=name)
    m.Classes = pyo.RangeSet(0, n_classes - 1)
    m.Splits = pyo.RangeSet(0, n_splits - 1)
    m.Branch = pyo.RangeSet(0, n_branch - 1)
    m.Leaves = pyo.RangeSet(0, n_branch)
    m.Below = pyo.RangeSet(1, 2 * n_branch)  # every node but the root: branching nodes, then leaves
    cells = [(y, g) for g in range(count.shape[2]) for y in (0, 1) if count[:, y, g].sum() > 0]
    m.Cells = pyo.Set(initialize=cells, dimen=2, ordered=True)
    m.Rates = pyo.Set(initialize=list(objective.compared), ordered=True)
    m.RateGroups = pyo.Set(initialize=[(k, t.group) for k, terms in objective.compared.items() for t in terms],
                           dimen=2, ordered=True)
    term = {(k, t.group): t for k, terms in objective.compared.items() for t in terms}
    total = {(y, g): float(count[:, y, g].sum()) for y, g in cells}
    parent = nearest_earlier(left)

    m.choose = pyo.Var(m.Branch, m.Splits, domain=pyo.Binary)
    m.label = pyo.Var(m.Leaves, domain=pyo.Binary)
    m.sent_left = pyo.Var(m.Classes, m.Branch, bounds=(0.0, 1.0))
    m.flow = pyo.Var(m.Classes, m.Below, bounds=(0.0, 1.0))
    m.leaf_rows = pyo.Var(m.Leaves, m.Cells, bounds=lambda m, l, y, g: (0.0, total[(y, g)]))
    m.leaf_positive = pyo.Var(m.Leaves, m.Cells, bounds=lambda m, l, y, g: (0.0, total[(y, g)]))
    m.rate_max = pyo.Var(m.Rates, bounds=(0.0, 1.0))
    m.rate_min = pyo.Var(m.Rates, bounds=(0.0, 1.0))
    m.gap = pyo.Var(bounds=(0.0, 1.0))

    def one_split(m, v):  # (1)
        return pyo.quicksum(m.choose[v, s] for s in m.Splits) == 1
    m.one_split = pyo.Constraint(m.Branch, rule=one_split)

    def conservation(m, r, v):  # (2): all of a class enters the root
        inflow = 1.0 if v == 0 else m.flow[r, v]
        return inflow == m.flow[r, 2 * v + 1] + m.flow[r, 2 * v + 2]
    m.conservation = pyo.Constraint(m.Classes, m.Branch, rule=conservation)

    def split_sends_left(m, r, v):  # (3), written from the parent class (module docstring)
        p = parent[r]
        if p < 0:
            return m.sent_left[r, v] == pyo.quicksum(m.choose[v, s] for s in np.flatnonzero(left[r]))
        gained = np.flatnonzero(left[r] & ~left[p])
        lost = np.flatnonzero(left[p] & ~left[r])
        return m.sent_left[r, v] == (m.sent_left[p, v] + pyo.quicksum(m.choose[v, s] for s in gained)
                                     - pyo.quicksum(m.choose[v, s] for s in lost))
    m.split_sends_left = pyo.Constraint(m.Classes, m.Branch, rule=split_sends_left)

    def left_arc(m, r, v):  # (3)
        return m.flow[r, 2 * v + 1] <= m.sent_left[r, v]
    m.left_arc = pyo.Constraint(m.Classes, m.Branch, rule=left_arc)

    def right_arc(m, r, v):  # (3)
        return m.flow[r, 2 * v + 2] <= 1 - m.sent_left[r, v]
    m.right_arc = pyo.Constraint(m.Classes, m.Branch, rule=right_arc)

    def leaf_count(m, l, y, g):  # (4)
        rows = np.flatnonzero(count[:, y, g])
        return m.leaf_rows[l, y, g] == pyo.quicksum(float(count[r, y, g]) * m.flow[r, n_branch + l] for r in rows)
    m.leaf_count = pyo.Constraint(m.Leaves, m.Cells, rule=leaf_count)

    def positive_in_leaf(m, l, y, g):  # (5) q <= m
        return m.leaf_positive[l, y, g] <= m.leaf_rows[l, y, g]
    m.positive_in_leaf = pyo.Constraint(m.Leaves, m.Cells, rule=positive_in_leaf)

    def positive_if_labelled(m, l, y, g):  # (5) q <= n c
        return m.leaf_positive[l, y, g] <= total[(y, g)] * m.label[l]
    m.positive_if_labelled = pyo.Constraint(m.Leaves, m.Cells, rule=positive_if_labelled)

    def all_if_labelled(m, l, y, g):  # (5) q >= m - n (1 - c)
        return m.leaf_positive[l, y, g] >= m.leaf_rows[l, y, g] - total[(y, g)] * (1 - m.label[l])
    m.all_if_labelled = pyo.Constraint(m.Leaves, m.Cells, rule=all_if_labelled)

    def group_rate(k, g):
        t = term[(k, g)]
        numerator = pyo.quicksum(t.coef[y] * m.leaf_positive[l, y, g] for l in m.Leaves for y in (0, 1)
                                 if t.coef[y] != 0 and (y, g) in total)
        return (numerator + t.b) / t.den

    def below_max(m, k, g):  # (6)
        return group_rate(k, g) <= m.rate_max[k]
    m.rate_below_max = pyo.Constraint(m.RateGroups, rule=below_max)

    def above_min(m, k, g):  # (6)
        return group_rate(k, g) >= m.rate_min[k]
    m.rate_above_min = pyo.Constraint(m.RateGroups, rule=above_min)

    def gap_of_rate(m, k):  # (7) under a penalty, (8) under a bound
        if objective.form == "bound":
            return m.rate_max[k] - m.rate_min[k] <= objective.eps
        if objective.form == "penalty":
            return m.gap >= m.rate_max[k] - m.rate_min[k]
        return pyo.Constraint.Skip
    m.gap_of_rate = pyo.Constraint(m.Rates, rule=gap_of_rate)

    errors = pyo.quicksum(m.leaf_positive[l, y, g] if y == 0 else m.leaf_rows[l, y, g] - m.leaf_positive[l, y, g]
                          for l in m.Leaves for (y, g) in cells)
    lam = objective.lam if objective.form == "penalty" and objective.compared else 0.0
    m.objective_value = pyo.Expression(expr=errors / max(objective.n, 1.0) + lam * m.gap)
    m.objective = pyo.Objective(expr=m.objective_value, sense=pyo.minimize)

    def dual_bound(m):  # (9)
        return pyo.Constraint.Skip if lower_bound is None else m.objective_value >= float(lower_bound)
    m.dual_bound = pyo.Constraint(rule=dual_bound)
    return m


def set_start(m: pyo.ConcreteModel, left: np.ndarray, objective: Objective, tree: HeapTree) -> None:
    """Give every variable its value in ``tree`` (HiGHS reads a variable without one as 0)."""
    n_classes = left.shape[0]
    for v in m.Branch:
        for s in m.Splits:
            m.choose[v, s].set_value(int(s == tree.splits[v]))
    for l in m.Leaves:
        m.label[l].set_value(int(tree.labels[l]))
    leaf = tree.leaf_of(left)
    for r in range(n_classes):
        node, path = 0, set()
        for _ in range(tree.depth):
            node = 2 * node + 1 if left[r, tree.splits[node]] else 2 * node + 2
            path.add(node)
        for i in m.Below:
            m.flow[r, i].set_value(1.0 if i in path else 0.0)
        for v in m.Branch:
            m.sent_left[r, v].set_value(float(left[r, tree.splits[v]]))
    count = objective.count
    for l in m.Leaves:
        here = leaf == l
        for y, g in m.Cells:
            rows = float(count[here, y, g].sum())
            m.leaf_rows[l, y, g].set_value(rows)
            m.leaf_positive[l, y, g].set_value(rows if tree.labels[l] == 1 else 0.0)
    values = objective.rate_values(tree.predict(left))
    gap = 0.0
    for k in m.Rates:
        m.rate_max[k].set_value(max(values[k]))
        m.rate_min[k].set_value(min(values[k]))
        gap = max(gap, max(values[k]) - min(values[k]))
    m.gap.set_value(gap)


def tree_of(m: pyo.ConcreteModel) -> HeapTree:
    """The tree of the solution loaded in ``m``."""
    splits = [max(m.Splits, key=lambda s: (pyo.value(m.choose[v, s], exception=False) or 0.0, -s))
              for v in m.Branch]
    labels = [int((pyo.value(m.label[l], exception=False) or 0.0) > 0.5) for l in m.Leaves]
    return HeapTree(np.asarray(splits, dtype=np.int64), np.asarray(labels, dtype=np.int64))
