"""Column generation on the master LP, and the pool of rules it leaves for the final IP.

The master LP is built once from the Pyomo formulation (:func:`.master.build_master`) and
loaded into HiGHS through the persistent interface (on large data handed to HiGHS as arrays
instead, :class:`MasterLP`); each round then appends the new columns
straight to the loaded HiGHS model with the coefficients :func:`.master.column_parts`
gives (the same function the Pyomo rows are assembled from) and re-solves from the previous
basis.  Rewriting the Pyomo rows each round cost 0.1–0.5 s per round at a thousand columns
here; appending columns costs milliseconds.

Phases (see :class:`ColumnGenerator`):

1. the paper's fair master (eq. 10–18) — its duals price columns for the relaxed problem;
2. *tilted* masters (only when a bound is enforced): the fairness rows are switched off and
   the cost of a missed positive (an uncovered negative, for FPR) of one group is raised or
   lowered.  For the exact problem ``min loss s.t. |r_a − r_b| ≤ ε`` the Lagrangian with a
   multiplier ``λ`` on ``r_a − r_b`` is exactly such a re-weighted loss (a positive of group
   ``a`` costs ``1 + λ·n/|P_a|`` per row), so these passes price the columns the exact
   problem's Lagrangian relaxation would want — rules that raise one group's TPR without
   the other's, which the relaxed master never needs because it can meet its fairness rows by
   inflating ζ (see :mod:`.master`).  The final exact IP combines them.  When the bound is
   slack (λ = 0) there is nothing to tilt for: the estimator then skips these phases.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import highspy
import numpy as np

from fairspec.models.exact_sums import grid_step, on_grid
from fairspec.models.rule_set.master import MasterProblem, build_master, column_parts, master_lp_arrays, row_bounds
from fairspec.models.rule_set.pricing import beam_search, solve_pricing_ip
from fairspec.solvers.highs import (HighsSession, SolverFailure, lp_from_arrays, stopped_by_clock, time_limit_from_now,
                                   use_threads)

_INF = highspy.kHighsInf
#: largest pricing IP (rows of eq. 21) worth running as a certifier.  Compas's has about
#: 33,000 rows: HiGHS took 3–7 s on it, ended by its limit every time, and neither certified a
#: phase nor found a column in the fits measured here, while the phase's rounds took 1 s
MAX_PRICING_IP_ROWS = 20000
#: HiGHS work limit of one certifying pricing IP (see fairspec.solvers.highs); the clock cap
PRICING_CHECKPOINTS = 3
PRICING_SECONDS = 5.0
#: patterns above which the master LP goes to HiGHS as arrays (:class:`MasterLP`); below it the
#: Pyomo model, as every other model here (it can be written out and read).  Every bundled example
#: and benchmark data set has fewer, so their fits load the master exactly as before
ARRAY_MASTER_PATTERNS = 50_000


@dataclass
class RulePool:
    """Every rule generated, with its coverage of the patterns."""

    rules: list = field(default_factory=list)
    coverage: list = field(default_factory=list)  # bool arrays (n_patterns,)
    origin: list = field(default_factory=list)  # "warm_start" | "beam" | "pricing_ip"
    best_reduced_cost: list = field(default_factory=list)
    used: list = field(default_factory=list)  # positive in some LP solution
    index: dict = field(default_factory=dict)

    def add(self, rule, covered, origin, reduced_cost=0.0, literals=None) -> bool:
        """Add a rule unless present; with ``literals`` (the pattern literal matrix), first drop
        every literal whose removal leaves the coverage unchanged (``x > 2 AND x > 6`` → ``x > 6``)."""
        if literals is not None and len(rule) > 1:
            rule = minimal_rule(rule, covered, literals)
        if rule in self.index:
            k = self.index[rule]
            self.best_reduced_cost[k] = min(self.best_reduced_cost[k], reduced_cost)
            return False
        self.index[rule] = len(self.rules)
        self.rules.append(rule)
        self.coverage.append(covered)
        self.origin.append(origin)
        self.best_reduced_cost.append(reduced_cost)
        self.used.append(False)
        return True

    def matrix(self, ks=None) -> np.ndarray:
        ks = range(len(self.rules)) if ks is None else ks
        if not len(ks):
            return np.zeros((0, 0), dtype=bool)
        return np.column_stack([self.coverage[k] for k in ks])

    def complexities(self, ks=None) -> list:
        ks = range(len(self.rules)) if ks is None else ks
        return [1 + len(self.rules[k]) for k in ks]


def minimal_rule(rule, covered, literals) -> tuple:
    rule = list(rule)
    for j in sorted(rule, reverse=True):
        rest = [r for r in rule if r != j]
        if rest and np.array_equal(literals[:, rest].all(axis=1), covered):
            rule = rest
    return tuple(sorted(rule))


class MasterLP:
    """The master LP (10–18) living in HiGHS; columns are appended in place.

    Built from the Pyomo formulation (:func:`.master.build_master`) and loaded through APPSI,
    or, with ``arrays`` (by default when there are more than :data:`ARRAY_MASTER_PATTERNS`
    patterns), handed to HiGHS as arrays (:func:`.master.master_lp_arrays`): the same LP,
    without the Pyomo objects whose build and load took minutes on a million rows.  The Pyomo
    form is solved once when loaded (APPSI loads by solving), with ``session``'s time limit;
    the array form is not solved until :meth:`solve`, so its first solve is the first
    round's, under that round's deadline.
    """

    def __init__(self, problem: MasterProblem, pool: RulePool, session: HighsSession, *, arrays: bool | None = None):
        self.problem = problem
        self.session = session
        if arrays is None:
            arrays = len(problem.patterns.y) > ARRAY_MASTER_PATTERNS
        self.arrays = bool(arrays)
        if self.arrays:
            lp = master_lp_arrays(problem, pool.matrix(), pool.complexities())
            self.h = lp_from_arrays(costs=lp.costs, col_lower=lp.col_lower, col_upper=lp.col_upper,
                                    row_lower=lp.row_lower, row_upper=lp.row_upper, matrix=lp.matrix,
                                    threads=session.threads, seed=session.seed)
            self.first_status = None
            self.rows = {key: r for r, key in enumerate(lp.row_keys)}
            self.zeta_cols = lp.zeta_cols.astype(np.int32)
            self.zeta_patterns = lp.zeta_patterns.astype(int)
            self.w_cols = [int(c) for c in lp.w_cols]
        else:
            model = build_master(problem, pool.matrix(), pool.complexities(), integer=False)
            result = session.solve(model)
            self.first_status = result.status
            self.h = session.highs
            self.rows = {("cover", i): session.row_index(model.cover[i]) for i in model.cover}
            try:  # a complexity row exists once some column exists (see build_master)
                self.rows[("complexity",)] = session.row_index(model.complexity)
            except KeyError:
                pass
            for name in model.fairness:
                self.rows[("fairness", name)] = session.row_index(model.fairness[name])
            self.zeta_cols = np.array([session.col_index(model.zeta[i]) for i in model.positives], dtype=np.int32)
            self.zeta_patterns = np.array(list(model.positives), dtype=int)
            self.w_cols = [session.col_index(model.w[k]) for k in model.rules]
        # every positive pattern has its cover row from the start: as arrays, for the duals
        cover = [(key[1], row) for key, row in self.rows.items() if key[0] == "cover"]
        self.cover_patterns = np.array([i for i, _ in cover], dtype=int)
        self.cover_rows = np.array([row for _, row in cover], dtype=int)
        self.cover_row_of = np.full(len(problem.patterns.y), -1, dtype=np.int64)
        self.cover_row_of[self.cover_patterns] = self.cover_rows
        self.fairness_active = True
        self.fairness_dual = 0.0

    def _row(self, key) -> int:
        if key not in self.rows:
            lower, upper = row_bounds(self.problem, key)
            if key[0] == "fairness" and not self.fairness_active:
                upper = _INF
            self.h.addRow(lower if np.isfinite(lower) else -_INF, upper if np.isfinite(upper) else _INF,
                          0, np.array([], dtype=np.int32), np.array([], dtype=float))
            self.rows[key] = self.h.getNumRow() - 1
        return self.rows[key]

    def add_columns(self, pool: RulePool, ks) -> None:
        for k in ks:
            objective, positives, complexity, fairness = column_parts(self.problem, pool.coverage[k],
                                                                      1 + len(pool.rules[k]))
            # the rows in column_entries' order: covers, complexity, fairness (created so, if new)
            idx = np.concatenate([self.cover_row_of[positives], [self._row(("complexity",))],
                                  [self._row(("fairness", name)) for name, _ in fairness]]).astype(np.int32)
            vals = np.concatenate([np.ones(len(positives)), [complexity], [v for _, v in fairness]]).astype(float)
            self.h.addCol(objective, 0.0, _INF, len(idx), idx, vals)
            self.w_cols.append(self.h.getNumCol() - 1)

    def set_costs(self, pool: RulePool, positive_cost: np.ndarray, negative_cost: np.ndarray) -> None:
        """Re-weight the loss (a tilt): ζ costs and every column's negative cost."""
        self.problem.positive_cost = positive_cost
        self.problem.negative_cost = negative_cost
        self.h.changeColsCost(len(self.zeta_cols), self.zeta_cols, positive_cost[self.zeta_patterns].astype(float))
        if self.w_cols:
            cov = pool.matrix(range(len(self.w_cols)))
            neg = np.where(self.problem.patterns.y == 0, negative_cost, 0.0)
            complexity = np.asarray(pool.complexities(range(len(self.w_cols))), dtype=float)
            costs = neg @ cov + self.problem.complexity_cost * complexity
            self.h.changeColsCost(len(self.w_cols), np.array(self.w_cols, dtype=np.int32), costs.astype(float))

    def set_fairness_active(self, active: bool) -> None:
        self.fairness_active = active
        for key, row in self.rows.items():
            if key[0] == "fairness":
                _, upper = row_bounds(self.problem, key)
                self.h.changeRowBounds(row, -_INF, upper if active else _INF)

    def solve(self, time_limit: float):
        """Re-solve; return (status, objective, w values, pattern weights v, penalty λ)."""
        self.h.setOptionValue("time_limit", time_limit_from_now(self.h, time_limit))
        use_threads(self.session.threads)  # another fit may have resized HiGHS's thread pool since
        self.h.run()
        status = self.h.getModelStatus()
        if status == highspy.HighsModelStatus.kTimeLimit:
            return str(status), None, None, None, None
        if status != highspy.HighsModelStatus.kOptimal:
            # the master LP is always feasible (every ζ_i = 1) and bounded below by 0: any other
            # status is HiGHS failing, and a phase that ended on it would change the rule set
            raise SolverFailure(f"HiGHS failed on the master LP: model status {self.h.modelStatusToString(status)}")
        sol = self.h.getSolution()
        row_dual = np.asarray(sol.row_dual)
        col_value = np.asarray(sol.col_value)
        pats = self.problem.patterns
        v = np.where(pats.y == 0, self.problem.negative_cost, 0.0).astype(float)
        #: largest |dual| of a fairness row: 0 when no fairness row shapes this LP solution
        self.fairness_dual = 0.0
        v[self.cover_patterns] -= row_dual[self.cover_rows]
        for key, row in self.rows.items():
            if key[0] == "fairness":
                self.fairness_dual = max(self.fairness_dual, abs(row_dual[row]))
                fr = next(r for r in self.problem.fairness if r.name == key[1])
                if fr.rate == "fpr":
                    v -= row_dual[row] * fr.coef
        penalty = -row_dual[self.rows[("complexity",)]] if ("complexity",) in self.rows else 0.0
        w = col_value[np.array(self.w_cols, dtype=int)] if self.w_cols else np.zeros(0)
        # a column's complexity costs its dual price plus its cost in the objective
        penalty = max(penalty, 0.0) + self.problem.complexity_cost
        v, penalty = pricing_weights(v, penalty, self.problem.max_complexity)
        return "optimal", float(self.h.getInfo().objective_function_value), w, v, penalty


def pricing_weights(v: np.ndarray, penalty: float, max_complexity: float) -> tuple[np.ndarray, float]:
    """The pricing weights ``v`` and complexity price ``λ`` on one grid (:mod:`fairspec.models.exact_sums`),
    so that every reduced cost ``Σ_i v_i a_ik + λ c_k`` is an exact sum: the beam search's
    matrix products and the pool's per-rule sums then agree to the bit, on every processor,
    and the pricing IP gets the same coefficients.  The bound counts a complexity of up to
    ``max_complexity`` (at least 64, past any rule the beam scores)."""
    step = grid_step(float(np.abs(v).sum()) + abs(penalty) * (max(float(max_complexity), 64.0) + 1.0))
    return on_grid(v, step), on_grid(penalty, step)


@dataclass
class PhaseLog:
    name: str
    rounds: int = 0
    columns: int = 0
    lp_objective: float | None = None
    converged: bool = False
    certified: bool = False
    #: the wall clock, not the round limit or convergence, ended the phase (or its certifier)
    cut_by_clock: bool = False
    #: the phase's work limit (cells, :meth:`ColumnGenerator.round_cells`) ended it
    work_limit: bool = False
    #: the work it did, in cells
    cells: int = 0
    #: the certifying pricing IP's HiGHS status and seconds, when it ran
    certifier: str | None = None
    certifier_seconds: float | None = None
    seconds: float = 0.0


class ColumnGenerator:
    """Runs the phases of the module docstring.

    A phase ends when pricing finds no column, after its round limit, or when its work limit
    (``cells``) is spent; all three are the same on every run.  Its ``deadline`` is a cap: a
    phase the clock ends is logged ``cut_by_clock``.
    """

    def __init__(self, problem: MasterProblem, pool: RulePool, *, max_conditions: int, beam_width: int,
                 columns_per_round: int, max_rounds: int, pricing_patterns: np.ndarray | None,
                 threads: int, seed: int, tol: float = 1e-6, clock_cap: bool = True,
                 first_solve_seconds: float = 60.0, arrays: bool | None = None):
        self.problem = problem
        #: False: the certifying pricing IP stops by its checkpoints alone, not after PRICING_SECONDS
        self.clock_cap = clock_cap
        self.pool = pool
        self.max_conditions = max_conditions
        self.beam_width = beam_width
        self.columns_per_round = columns_per_round
        self.max_rounds = max_rounds
        self.pricing_patterns = pricing_patterns
        self.threads = threads
        self.seed = seed
        self.tol = tol
        self.lp_solutions: list[np.ndarray] = []
        self.phases: list[PhaseLog] = []
        self.lp_bound: float | None = None
        pats = problem.patterns
        sub = pricing_patterns if pricing_patterns is not None else np.arange(len(pats.y))
        self._sub = sub
        self._sub_literals = pats.literals[sub]
        self._sub_literals_f = self._sub_literals.astype(np.float64)
        # pricing on a subsample: scale its weights so reduced costs stay on the full scale
        self._sub_scale = pats.count.sum() / pats.count[sub].sum()
        # the Pyomo master is solved once as it is loaded (:class:`MasterLP`): the caller's stage
        # budget bounds that solve, not a fixed cap (``math.inf``: no clock)
        self.session = HighsSession(time_limit=first_solve_seconds, threads=threads, seed=seed)
        self.lp = MasterLP(problem, pool, self.session, arrays=arrays)

    def round_cells(self) -> int:
        """The work of one round, counted in cells, the same on every machine: the master LP's
        coverage matrix (patterns x columns, which the simplex re-solves from its basis), the
        beam search's scoring (pricing patterns x literals x beam width x conditions) and the
        exact reduced costs of the columns it returns (patterns x columns per round).  The
        phases' work limits (and so ``time_limit`` under ``clock_cap false``) are in these
        cells; the rate a machine does them at is measured in benchmarks/README.md."""
        n_patterns = len(self.problem.patterns.y)
        return int(n_patterns * (len(self.pool.rules) + self.columns_per_round)
                   + len(self._sub) * self._sub_literals.shape[1] * self.beam_width * self.max_conditions)

    def run_phase(self, name: str, deadline: float, *, certify: bool, max_rounds: int | None = None,
                  cells: float = np.inf) -> PhaseLog:
        log = PhaseLog(name)
        start = time.perf_counter()
        pats = self.problem.patterns
        max_rounds = self.max_rounds if max_rounds is None else max_rounds
        while log.rounds < max_rounds:
            if log.cells >= cells:
                log.work_limit = True
                break
            log.cells += self.round_cells()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                log.cut_by_clock = True
                break
            status, objective, w, v, penalty = self.lp.solve(remaining)
            if status != "optimal":
                log.cut_by_clock = log.cut_by_clock or "TimeLimit" in status
                break
            log.lp_objective = objective
            log.rounds += 1
            self.lp_solutions.append(w)
            for k in np.flatnonzero(w > 1e-6):
                self.pool.used[k] = True
            if self.pricing_patterns is not None:
                # scaled, the subsample's weights leave the grid: put back on one (λ with them)
                v_sub, penalty = pricing_weights(v[self._sub] * self._sub_scale, penalty, self.problem.max_complexity)
            else:
                v_sub = v
            found = beam_search(self._sub_literals_f, v_sub, penalty, max_conditions=self.max_conditions,
                                beam_width=self.beam_width, max_rules=self.columns_per_round, tol=self.tol,
                                exclude=self.pool.index.keys())
            new = []
            for rule, _ in found:
                covered = pats.coverage(rule)
                rc = float(v[covered].sum() + penalty * (1 + len(rule)))  # exact, on all patterns
                if rc < -self.tol and self.pool.add(rule, covered, "beam", rc, pats.literals):
                    new.append(len(self.pool.rules) - 1)
            if not new and certify:
                budget = min(PRICING_SECONDS if self.clock_cap else np.inf, deadline - time.perf_counter())
                # rows (21) of the pricing IP: building a model of millions of rows in Pyomo would
                # take longer than the whole fit, so large problems stay uncertified
                ip_rows = int((~self._sub_literals[v_sub < -self.tol]).sum())
                if ip_rows <= MAX_PRICING_IP_ROWS and budget <= 0.2:
                    log.cut_by_clock = True  # the certifier would run, but no time is left for it
                elif ip_rows <= MAX_PRICING_IP_ROWS:
                    ip_start = time.perf_counter()
                    rule, rc, ip_status = solve_pricing_ip(self._sub_literals, v_sub, penalty,
                                                           max_conditions=self.max_conditions, time_limit=budget,
                                                           threads=self.threads, seed=self.seed,
                                                           max_checkpoints=PRICING_CHECKPOINTS)
                    log.cut_by_clock = log.cut_by_clock or stopped_by_clock(ip_status)
                    log.certifier = ip_status
                    log.certifier_seconds = round(time.perf_counter() - ip_start, 3)
                    if rule is not None:
                        covered = pats.coverage(rule)
                        rc = float(v[covered].sum() + penalty * (1 + len(rule)))
                        if rc < -self.tol and self.pool.add(rule, covered, "pricing_ip", rc, pats.literals):
                            new.append(len(self.pool.rules) - 1)
                        elif ip_status == "optimal" and self.pricing_patterns is None:
                            log.certified = True
            if not new:
                log.converged = True
                break
            self.lp.add_columns(self.pool, new)
            log.columns += len(new)
        log.seconds = time.perf_counter() - start
        self.phases.append(log)
        return log
