"""``FairRuleSetClassifier``: a fair Boolean rule set (OR of ANDs) learned by FairCG.

Fit, end to end (Lawless and Günlük 2021, with the changes the module docstrings derive):

1. binarize ``X`` (:mod:`.binarize`) and merge identical training rows into patterns;
2. seed the pool with tree rules (:mod:`.warm_start`) — or, when the rule space is small
   (at most ``max_enumerated_rules`` rules), with every rule, so the final IP is exact over
   all rule sets (``fit_log_["enumerated"]``);
3. column generation (:mod:`.column_generation`): the paper's fair master LP, then — when a
   bound is enforced and binds — the tilted masters that price rules for the exact problem
   (skipped when the bound is slack, see :meth:`FairRuleSetClassifier._bound_slack`);
4. exact iterated local search (:mod:`.local_search`) over up to ``max_search_columns``
   pooled rules, from the best few LP roundings; its best result is the IP's MIP start;
5. the final restricted master IP over (at most ``max_ip_columns`` of) the pool, in its
   *exact* form (:mod:`.master`): its fairness rows are the classifier's real train gaps.
   Steps 4 and 5 work on the training patterns merged by the columns they choose from
   (:meth:`.master.Patterns.merged_by`): same objective and rows, far fewer variables;
6. the candidate pool: the IP's incumbent, the local-search results, every LP solution of
   step 3 rounded at 1/2 (when it fits the complexity limit), the empty rule set and the
   all-positive one (:meth:`FairRuleSetClassifier._cover_all`) are
   re-measured on the training rows with :meth:`Criterion.gap`; the candidate with the lowest
   0-1 loss among those meeting the bound is chosen (HiGHS has no solution pool; this is
   ours);
7. refinement (:meth:`FairRuleSetClassifier._refine`): the chosen rule set loses every
   condition and rule it can lose without a training error more or a larger fairness excess
   (:func:`.local_search.simplify`: a rule is minimal on its own, not within the set), one
   hill-climb spends the complexity that frees, and the choice of step 6 is made again over
   these two more candidates; the winner is simplified once more and returned (what it buys:
   ``benchmarks/README.md``, "Rule-set fit: the measurements behind its design").

The empty rule set predicts every row negative: all TPRs and FPRs are 0, so it meets any
equal-opportunity or equalized-odds bound (as the all-positive one does, with rates 1).  The
fit therefore always returns a rule set that meets the bound on the training data; when
nothing better was found, it is one of these two and ``fit_log_["selected_from"]`` says so
(``empty`` or ``all_positive``).

Time and work.  Every stage stops by a *work* limit, counted the same way on every run, so
the same data, parameters and seed give the same rule set on any machine; the wall clock is
only a cap:

* column generation: the paper's phase ends when pricing finds nothing, after ``max_rounds``
  rounds, or when its share of the work limit is spent; the tilted phases share ``tilt_rounds``
  rounds and what the first phase left of the work.  The work is counted in cells per round
  (:meth:`.ColumnGenerator.round_cells`), ``cg_fraction`` of ``time_limit`` at
  :data:`CG_CELLS_PER_SECOND`.  Cap: ``cg_fraction`` of ``time_limit``;
* the local search: ``search_cells`` scored (pattern, candidate) cells, by default
  ``SEARCH_SHARE`` of ``time_limit`` at ``SEARCH_CELLS_PER_SECOND`` (the rate measured here on
  fair problems), and at most ``search_iterations`` kicks.  Cap: all but ``IP_CLOCK_SHARE`` of
  ``time_limit``;
* the final IP: ``ip_checkpoints`` HiGHS checkpoints (:mod:`fairspec.solvers.highs`), by
  default ``IP_SHARE`` of ``time_limit`` at ``IP_CHECKPOINTS_PER_SECOND``.  Cap: what is left
  of ``time_limit`` less a small reserve for re-measuring and the measured cost of the work
  after it that reads every pattern (:func:`final_ip_deadline`).

So ``time_limit`` sizes the work of every stage and bounds the wall clock of each; under
``clock_cap=False`` a stage ends by its work limit, near the time its share of the limit
gives on an idle core (column generation's rounds alone had run to several times the limit
on a large problem before its work was counted).  The set-up
before them (binarizing, the warm start, building the master LP and loading it into HiGHS, as
arrays on large data: :class:`.column_generation.MasterLP`) has no work to cut and is not capped; ``fit_log_["setup_seconds"]`` records it, and the
stages' clock starts when it ends, so a fit takes its set-up plus about ``time_limit`` (a set-up
counted against the limit had left a large problem's stages no time at all: every one was cut at
once and the empty rule set came back; what still overruns it on a million rows:
``benchmarks/README.md``, "A rule set on 1M rows").  On more than :data:`SETUP_ROWS` training rows the
set-up's choices (the literals, the warm start's rules) are learned from a seeded sample of that
many rows (:func:`setup_sample`), so their cost is bounded; what remains grows with the rows
(evaluating the literals, merging rows into patterns, the master over every pattern), since the
master and the audit count every row.  The master's first solve gets the paper's phase's share of
the limit, not a cap of its own.  After column generation the work reads the patterns merged by the
columns in play (the local search's, the final IP's, the refinement's, and the chosen rules'
literals for simplifying), each merge made from an earlier merged set where it can, so it grows with
the merged patterns rather than with the rows.  A stage the clock stopped
is named in ``fit_log_["cut_by_clock"]`` and ``fit_log_["reproducible"]`` is then false: a
faster or idle machine may return another rule set.  With ``clock_cap=False`` the clock caps
nothing (HiGHS gets no time limit, the certifying pricing IP no seconds of its own): every stage
ends by its work limit, so the same data, parameters, seed and software give the same rule set
on any machine, however slow or loaded, and a slow one simply takes longer.  A fit the clock did
not cut returns the same rule set either way: the caps only ever stop work early.  The work
budgets assume this machine's usual speed; ``fit_log_["reproducible"]`` says when they did not
hold (how often they do: ``benchmarks/README.md``).  Sums whose order a processor's BLAS
kernel chooses are made exact (:mod:`fairspec.models.exact_sums`), so "any machine" includes
processors with other instruction sets (``docs/REPRODUCIBILITY.md``).
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pyomo.environ as pyo
from sklearn.base import BaseEstimator, ClassifierMixin

from fairspec.errors import DataError
from fairspec.models.exact_sums import grid_step, on_grid
from fairspec.models.inputs import (binary_labels, categorical_indices, feature_matrix, fit_or_keep, group_labels,
                                   require_finite, require_flag, require_whole, seed_of)
from fairspec.models.model_file import (check_header, class_labels, feature_indices, feature_names_to_json, integer,
                                        json_values, labels_to_json, number, params_at_fit, record_params,
                                        restore_feature_names, show)
from fairspec.models.readout import column_names, shown_classes
from fairspec.models.rule_set.binarize import Binarizer, Literal
from fairspec.models.rule_set.column_generation import PRICING_SECONDS, ColumnGenerator, RulePool
from fairspec.models.rule_set.master import (MasterProblem, Patterns, build_master, distinct_rows, dominated_columns,
                                             fairness_rows, needs_exact_positives, selected_rules)
from fairspec.models.rule_set.local_search import RuleSetScorer, improve, iterated_local_search, simplify
from fairspec.models.rule_set.warm_start import tree_rules
from fairspec.registry.criteria import Criterion
from fairspec.solvers.highs import APPSI_LOAD_PER_BUILD, HighsSession, seconds_to_solve, stopped_by_clock

FORMAT_VERSION = 1
#: cost multipliers (1 + τ) of the tilted pricing phases
TILTS = (0.3, 1.0, 3.0)
#: the negatives get exactness rows (0-1 loss instead of Hamming) below this many
#: (negative pattern, covering rule) pairs, or whenever FPRs are compared
EXACT_NEGATIVE_PAIRS = 30000
#: most exactness rows in the final IP (HiGHS's branch and bound slows down well before that)
MAX_EXACT_PAIRS = 60000
#: work budgets (see "Time and work" in the module docstring): the local search's share of
#: ``time_limit`` and its speed in scored cells per second on fair problems; the final IP's share
#: and its speed in HiGHS checkpoints per second (the slowest IPs' rate, so the clock rarely cuts
#: them; the rates measured: ``benchmarks/README.md``); the IP's minimum share of the wall clock
SEARCH_SHARE = 0.3
SEARCH_CELLS_PER_SECOND = 2.0e8
IP_SHARE = 0.2
IP_CHECKPOINTS_PER_SECOND = 0.25
#: fewest checkpoints of the final IP: its presolve, root LP and first cut rounds
MIN_IP_CHECKPOINTS = 3
IP_CLOCK_SHARE = 0.1


#: column generation's speed in cells (:meth:`.ColumnGenerator.round_cells`) per second, measured
#: here (benchmarks/README.md, "Scale"): what sizes its work limit from ``time_limit``
CG_CELLS_PER_SECOND = 9.0e6


#: the work after the final IP that reads every pattern (the simplification's merge by the chosen
#: rules' literals, the new rules' coverage, the candidates' measurement), in units of the local
#: search's merge of every pattern by its columns, which is timed just before: 2.3 of them on a
#: million rows (benchmarks/README.md, "A rule set on 1M rows"), rounded up
POST_IP_MERGES = 2.5


def final_ip_deadline(stages_end: float, reserve: float, merge_seconds: float) -> float:
    """When the final IP must stop so the stages after it end by ``stages_end``: ``reserve``
    for building the IP, and :data:`POST_IP_MERGES` times ``merge_seconds`` (one merge of
    every pattern, as measured in this fit) for the work after it.  On small data the merge
    takes milliseconds and this is the plain reserve; on a million rows it is seconds that
    the IP, cut by the clock there anyway, gives up so the fit keeps its limit."""
    return stages_end - reserve - POST_IP_MERGES * max(merge_seconds, 0.0)


def clock_reserve(time_limit: float) -> float:
    """Seconds kept back from the local search's and the final IP's clock caps for building the
    IP and re-measuring the candidates: 5 % of ``time_limit``, at least 0.5 s, but never more
    than 10 % of it.  Without that last cap a limit under 1.25 s put the local search's cap
    (all but ``IP_CLOCK_SHARE`` of the limit, less the reserve) before column generation's share
    had ended, and one under 0.55 s before the fit began: every such fit skipped both stages
    and returned the empty rule set, on any machine (found in review)."""
    t = float(time_limit)
    return min(max(0.5, 0.05 * t), 0.1 * t)
#: HiGHS options of the final IP: presolve without probing (bit 15 of ``presolve_rule_off``).
#: The exactness rows ζ_i + w_k ≤ 1 are tens of thousands of two-variable rows, and probing
#: them built a clique table that took most of the IP's time without ever looking at the
#: clock (HiGHS issue #2860 names ``runProbing`` as taking "a very long time"; its fix budgets
#: probing by a share of the time limit, which would make the work, and so the result, depend
#: on the clock).  Without it, presolve took most of a compas IP's time; with it, the same rule
#: sets came out, sooner (``benchmarks/README.md``).
FINAL_IP_OPTIONS = {"presolve_rule_off": 1 << 15}
#: the final IP's status when HiGHS never ran it: the time left could not load it (a clock cut), or
#: the pool held no column (:data:`EMPTY_POOL_REASON`)
IP_NOT_RUN = "not_run"
#: why the final IP is not run over an empty pool.  The warm start adds a rule whenever the data
#: has a literal, so the pool is empty only when no feature splits the training rows; the rule sets
#: left are then the empty one and the all-positive one (a rule with no condition), which the
#: final choice compares directly
EMPTY_POOL_REASON = ("the pool held no rule to choose from (no feature has a condition that splits the training "
                     "rows): the only rule sets are the empty one and the all-positive one, compared directly")
#: shortest time limit whose fit certifies column generation with the pricing IP.  The
#: certifier's work limit (PRICING_CHECKPOINTS) cannot be made smaller, and HiGHS can take many
#: seconds to reach its first checkpoint (18 s on a 3,000-row adult sample at equal opportunity
#: <= 0): under clock_cap false a 0.01 s and a 3 s limit both took 20 s, though the limit is to
#: size the work.  Twice the certifier's own clock cap; every spec and benchmark here gives more.
CERTIFIER_MIN_TIME_LIMIT = 2 * PRICING_SECONDS
#: training rows above which the set-up binarizes and warm-starts on a seeded sample of this many
#: (:func:`setup_sample`); the master, the search, the final IP and the audit use every row.  A
#: constant, not a parameter: a parameter is written to every model file, and the bundled examples'
#: files (which no sample touches) must stay as they are
SETUP_ROWS = 200_000
#: patterns × columns² of the dominance check in ``_merged_columns`` (about a second)
MAX_DOMINANCE_WORK = 1e10


class FairRuleSetClassifier(ClassifierMixin, BaseEstimator):
    """Boolean rule set under an equal-opportunity or equalized-odds bound (FairCG).

    After ``fit``, ``fit_log_`` holds: ``status`` (the final IP's HiGHS status mapped by
    :mod:`fairspec.solvers.highs` — ``optimal``, ``work_limit`` or ``time_limit`` with its
    incumbent — when the rule set returned decides every training row as the IP's solution
    does, else ``heuristic``: it came from local search, LP rounding, the refinement or a
    fallback; ``ip_status`` is the IP's own either way, ``not_run`` when HiGHS never ran it, with
    ``ip_not_run_because`` saying why: no time was left, or the pool held no rule), ``mip_gap`` (of
    the final IP, relative to the *restricted* master over the pooled columns, not to the full
    problem; None when it did not run), ``lp_bound`` (the paper's
    relaxed master LP objective at the end of its phase — a lower bound on the paper's
    Hamming-loss IP only when that phase is ``certified``), ``columns_generated``, ``rounds``,
    ``phases``, ``tilts_skipped`` (present when the bound was slack after the paper's phase),
    ``seconds``, ``selected_from`` (which candidate won), ``train_gap`` /
    ``train_accuracy`` re-measured on the returned classifier with ``Criterion.gap`` (the gap
    and ``bound_met_on_train`` None for a single group, which has no gap), and
    ``reproducible`` / ``cut_by_clock`` (module docstring, "Time and work").

    Parameters
    ----------
    max_complexity : int, the bound C on Σ_k (1 + conditions of rule k)
    max_conditions : int, conditions per rule
    thresholds : int, quantile bins per numeric feature (10 = deciles)
    missing : "mia" or "none" (see :mod:`.binarize`)
    criterion : fairspec Criterion or None; enforced when it has a ``bound`` and compares TPR
        and/or FPR (equal_opportunity, equalized_odds); otherwise the fit is unconstrained
    categorical_features : column indices holding integer category codes
    time_limit : float seconds for the whole fit
    threads, mip_gap, random_state : HiGHS settings and the seed of every random choice
        (``random_state``: an int, None for the seed 0, or a numpy ``RandomState``, drawn from
        once per fit; ``seed_`` is the integer used, and the model file records it)
    beam_width, columns_per_round, max_rounds : column-generation settings
    max_ip_columns : most columns handed to the final IP
    max_search_columns : most columns the iterated local search chooses from
    pricing_rows : price on a seeded subsample of this many patterns when there are more
    cg_fraction : share of ``time_limit`` that caps column generation
    search_iterations : most kicks of the iterated local search
    tilt_rounds : column-generation rounds shared by the tilted phases
    search_cells, ip_checkpoints : work limits of the local search and the final IP (module
        docstring); None derives them from ``time_limit``
    complexity_cost : cost of one unit of complexity (1 + conditions of a rule) in the objective,
        as a share of the training rows: a rule must remove more than
        ``complexity_cost · n · (1 + conditions)`` training errors to enter (aix360's BRCG
        regulariser with λ0 = λ1).  0, the paper's objective, bounds complexity only by
        ``max_complexity``.  It buys a simpler rule set at the same accuracy, not a more accurate
        one (``benchmarks/README.md``)
    max_enumerated_rules : when there are at most this many rules of up to ``max_conditions``
        literals, every one enters the pool: column generation has nothing left to price and
        the final IP (with at most ``max_ip_columns`` columns, so keep this no larger) is exact
        over all rule sets.  LP pricing alone can miss a column the IP optimum needs (measured:
        a 60-row, three-group problem with 36 possible rules, where it returned the empty rule
        set with 27 errors while the fair optimum has 22).  0 turns it off
    fairness_folds : when ≥ 2, the bound is also imposed on each of this many disjoint, seeded,
        label-and-group-stratified folds of the training rows (see :func:`.master.fairness_rows`),
        dealt so that the order of the rows does not matter (:func:`_stratified_folds`); 0 (the
        default) or 1 imposes it on the whole training set only, as the paper does: the folds
        no longer bought a smaller test gap and cost accuracy (``benchmarks/README.md``)
    clock_cap : True (default) stops a stage when its share of ``time_limit`` has passed on the
        wall clock; False lets only the work limits stop the stages ("Time and work" in the
        module docstring), so the fit is reproducible on any machine and may take longer than
        ``time_limit``
    """

    def __init__(self, max_complexity=30, max_conditions=4, thresholds=10, missing="mia", criterion=None,
                 categorical_features=(), time_limit=60.0, threads=1, mip_gap=1e-4, random_state=0,
                 beam_width=10, columns_per_round=100, max_rounds=30, max_ip_columns=300, pricing_rows=20000,
                 cg_fraction=0.5, fairness_folds=0, max_search_columns=2000, search_iterations=400,
                 tilt_rounds=12, search_cells=None, ip_checkpoints=None, complexity_cost=0.0,
                 max_enumerated_rules=300, clock_cap=True):
        self.max_complexity = max_complexity
        self.max_conditions = max_conditions
        self.thresholds = thresholds
        self.missing = missing
        self.criterion = criterion
        self.categorical_features = categorical_features
        self.time_limit = time_limit
        self.threads = threads
        self.mip_gap = mip_gap
        self.random_state = random_state
        self.beam_width = beam_width
        self.columns_per_round = columns_per_round
        self.max_rounds = max_rounds
        self.max_ip_columns = max_ip_columns
        self.pricing_rows = pricing_rows
        self.cg_fraction = cg_fraction
        self.fairness_folds = fairness_folds
        self.max_search_columns = max_search_columns
        self.search_iterations = search_iterations
        self.tilt_rounds = tilt_rounds
        self.search_cells = search_cells
        self.ip_checkpoints = ip_checkpoints
        self.complexity_cost = complexity_cost
        self.max_enumerated_rules = max_enumerated_rules
        self.clock_cap = clock_cap

    # ------------------------------------------------------------------ fit
    def _enforced_criterion(self):
        """The criterion the fit enforces, or None when it only audits one (no bound given).

        A bound this family cannot enforce is an error, not a silent audit: the spec checker
        says the same for specs, and a Python caller deserves it too."""
        c = self.criterion
        if c is not None and not isinstance(c, Criterion):
            raise TypeError(f"criterion must be a fairspec criterion such as EqualOpportunity(bound=0.05) "
                            f"(fairspec.registry.criteria), got {c!r}")
        if c is None or (c.bound is None and c.penalty is None):
            return None
        if c.bound is None or not set(c.rates) <= {"tpr", "fpr"}:
            raise ValueError(f"FairRuleSetClassifier enforces a bound on true- and false-positive-rate gaps "
                             f"(equal_opportunity, equalized_odds); it cannot enforce {c.label()}")
        return c

    def _prepare(self, X, y, sensitive_features):
        """Validate, binarize, merge patterns; shared by :meth:`fit` and ``emit_model``.  Sets
        ``seed_``, the integer seed of ``random_state`` every random choice of the fit uses."""
        X = feature_matrix(X, self, reset=True)
        self.classes_, y = binary_labels(y, X.shape[0], self)
        self.seed_ = seed_of(self.random_state)
        criterion = self._enforced_criterion()
        # a rule needs a condition, and one bin has no cut: either left every rule out silently
        for name, least in (("max_conditions", 1), ("thresholds", 2), ("max_complexity", 1)):
            require_whole(self, name, least)
        # the advanced settings: none of them has a meaning below these
        for name, least in (("threads", 1), ("beam_width", 1), ("columns_per_round", 1), ("max_rounds", 0),
                            ("max_ip_columns", 1), ("max_search_columns", 1), ("pricing_rows", 1),
                            ("fairness_folds", 0), ("search_iterations", 0), ("tilt_rounds", 0),
                            ("max_enumerated_rules", 0)):
            require_whole(self, name, least)
        require_whole(self, "search_cells", 0, optional=True)
        require_whole(self, "ip_checkpoints", 1, optional=True)
        for name in ("time_limit", "mip_gap", "complexity_cost"):
            require_finite(self, name)
        require_finite(self, "cg_fraction", most=1.0)
        require_flag(self, "clock_cap")
        categorical = categorical_indices(self.categorical_features, self, X.shape[1])
        if sensitive_features is None:
            if criterion is not None:
                raise DataError(f"{criterion.label()} is enforced but no sensitive_features were given to fit")
            groups = np.zeros(len(y), dtype=int)
        else:
            groups = group_labels(sensitive_features, len(y))
            if criterion is not None:
                criterion.require_every_rate(y, groups)
        self.setup_sample_ = setup_sample(len(y), SETUP_ROWS, self.seed_)
        binarizer = Binarizer(self.thresholds, self.missing, categorical).fit(
            X if self.setup_sample_ is None else X[self.setup_sample_])
        literal_matrix = binarizer.transform(X)
        folds = None
        if criterion is not None and self.fairness_folds and self.fairness_folds >= 2:
            folds = _stratified_folds(literal_matrix, y, groups, int(self.fairness_folds), self.seed_)
        # unenforced, the groups only measure train_gap: merged into the patterns they split
        # rows the search should treat alike, and the same data gave another rule set with
        # sensitive_features than without (found in review)
        pattern_groups = groups if criterion is not None else np.zeros(len(y), dtype=int)
        patterns = Patterns.from_rows(literal_matrix, y, pattern_groups, folds)
        problem = MasterProblem(patterns, fairness_rows(patterns, criterion), float(self.max_complexity),
                                complexity_cost=float(self.complexity_cost) * len(y))
        return X, y, groups, criterion, binarizer, patterns, problem

    def _warm_start_pool(self, patterns: Patterns) -> RulePool:
        """The pool seeded with tree rules (:mod:`.warm_start`), mined from the trees fitted on
        the set-up sample's rows when there is one (:func:`setup_sample`), each rule's coverage
        then taken on every pattern."""
        pool = RulePool()
        sample = getattr(self, "setup_sample_", None)
        if sample is None:
            literals, labels, weights = patterns.literals, patterns.y, patterns.count
        else:
            # the sampled rows, as the patterns they fall in, weighted by how many were drawn
            kept, drawn = np.unique(patterns.row_pattern[sample], return_counts=True)
            literals, labels, weights = patterns.literals[kept], patterns.y[kept], drawn.astype(float)
        rules = tree_rules(literals, labels, weights, max_conditions=self.max_conditions, seed=self.seed_)
        for rule in rules:
            if 1 + len(rule) <= self.max_complexity:
                pool.add(rule, patterns.coverage(rule), "warm_start", literals=patterns.literals)
        if not pool.rules and patterns.literals.shape[1]:
            # no tree path: seed with the single literal of best precision so every row exists
            pos = (patterns.literals * (patterns.count * patterns.y)[:, None]).sum(0)
            tot = (patterns.literals * patterns.count[:, None]).sum(0)
            j = int(np.argmax(pos / np.maximum(tot, 1)))
            pool.add((j,), patterns.coverage((j,)), "warm_start")
        return pool

    def _enumerate_rules(self, pool: RulePool, patterns: Patterns) -> bool:
        """Every rule of up to ``max_conditions`` literals into the pool, when there are at
        most ``max_enumerated_rules`` of them (constructor docstring); whether it did."""
        n_literals = patterns.literals.shape[1]
        longest = min(int(self.max_conditions), int(self.max_complexity) - 1)
        n_rules = sum(math.comb(n_literals, d) for d in range(1, longest + 1))
        if not n_literals or n_rules > int(self.max_enumerated_rules or 0):
            return False
        for d in range(1, longest + 1):
            for rule in itertools.combinations(range(n_literals), d):
                covered = patterns.coverage(rule)
                if covered.any():
                    pool.add(rule, covered, "enumerated", literals=patterns.literals)
        return True

    @fit_or_keep
    def fit(self, X, y, sensitive_features=None):
        start = time.perf_counter()
        X, y, groups, criterion, binarizer, patterns, problem = self._prepare(X, y, sensitive_features)
        # the wall clock each stage may use; the work limits are sized from time_limit either way
        budget = float(self.time_limit) if self.clock_cap else math.inf
        rng = np.random.default_rng(self.seed_)
        pool = self._warm_start_pool(patterns)
        n_warm = len(pool.rules)
        enumerated = self._enumerate_rules(pool, patterns)
        n_initial = len(pool.rules)
        candidates = [((), "empty")]
        log = {"criterion": None if self.criterion is None else self.criterion.label(),
               "enforced": criterion is not None, "bound": None if criterion is None else criterion.bound,
               "n_rows": int(len(y)), "n_patterns": int(len(patterns.y)),
               "n_literals": int(patterns.literals.shape[1]), "warm_start_columns": n_warm,
               "enumerated": enumerated}
        if self.setup_sample_ is not None:
            # only then: a fit without a sample writes the model file it wrote before
            log["setup_sample_rows"] = int(len(self.setup_sample_))

        generator = None
        tilts = self._tilts(problem) if criterion is not None else []
        # the paper's phase's share of the stages' clock, which also bounds the master's first solve
        first_share = self.cg_fraction * budget * (0.6 if tilts else 1.0) if math.isfinite(budget) else math.inf
        if pool.rules:
            pricing = None
            if len(patterns.y) > self.pricing_rows:
                pricing = np.sort(rng.choice(len(patterns.y), size=int(self.pricing_rows), replace=False))
            generator = ColumnGenerator(problem, pool, max_conditions=self.max_conditions,
                                        beam_width=self.beam_width, columns_per_round=self.columns_per_round,
                                        max_rounds=self.max_rounds, pricing_patterns=pricing,
                                        threads=self.threads, seed=self.seed_,
                                        clock_cap=bool(self.clock_cap), first_solve_seconds=first_share)
            if generator.lp.arrays:
                # only then: a fit through the Pyomo master writes the model file it wrote before
                log["master_lp"] = "arrays"
        # binarizing, the warm start and the master LP built and loaded into HiGHS: no stage can
        # start without them, so the clock cannot cap them (module docstring)
        log["setup_seconds"] = round(time.perf_counter() - start, 3)
        # the stages' clock starts here: ``time_limit`` is theirs, the set-up comes on top of it
        clock = time.perf_counter()
        if generator is not None:
            cg_end = clock + self.cg_fraction * budget
            now = time.perf_counter()
            certify = float(self.time_limit) >= CERTIFIER_MIN_TIME_LIMIT
            if not certify:
                log["certifier_skipped"] = (f"the time limit is under {CERTIFIER_MIN_TIME_LIMIT:g} s: column generation "
                                            f"ends when the beam search finds no column, uncertified")
            cg_cells = self._cg_cells()
            log["cg_cells_limit"] = cg_cells
            main = generator.run_phase("fair_master" if criterion is not None else "master",
                                       now + (cg_end - now) * (0.6 if tilts else 1.0), certify=certify,
                                       cells=cg_cells * (0.6 if tilts else 1.0))
            generator.lp_bound = main.lp_objective
            if tilts and self._bound_slack(generator, pool, problem):
                log["tilts_skipped"] = "bound slack"
                tilts = []
            if tilts:
                generator.lp.set_fairness_active(False)
                rounds = _share(int(self.tilt_rounds), len(tilts))
                for t, (n_rounds, (name, pos_cost, neg_cost)) in enumerate(zip(rounds, tilts)):
                    # what the earlier phases left of the work, shared by the tilted ones still to run
                    left = max(cg_cells - sum(p.cells for p in generator.phases), 0)
                    if left > 0:
                        # re-costing reads every pattern; a phase with no work left runs no round,
                        # so its costs would never be read (nine re-costings took 22 s on 1M rows)
                        generator.lp.set_costs(pool, pos_cost, neg_cost)
                    generator.run_phase(name, cg_end, certify=False, max_rounds=n_rounds, cells=left / (len(tilts) - t))
            for w in generator.lp_solutions:
                chosen = tuple(int(k) for k in np.flatnonzero(w >= 0.5))
                if chosen and sum(pool.complexities(chosen)) <= self.max_complexity:
                    candidates.append((chosen, "lp_rounding"))
        log["cg_seconds"] = round(time.perf_counter() - start, 3)
        log["cg_cells"] = 0 if generator is None else int(sum(p.cells for p in generator.phases))
        cut_by_clock = [] if generator is None else [p.name for p in generator.phases if p.cut_by_clock]

        exact_negatives = any(r.rate == "fpr" for r in problem.fairness)
        reserve = clock_reserve(self.time_limit)
        ls_deadline = clock + (1.0 - IP_CLOCK_SHARE) * budget - reserve
        # the local search and the IP see the patterns only through their columns: merged by them
        tick = time.perf_counter()
        ls_ks, ls_merged = self._merged_columns(pool, candidates, patterns, problem.fairness, exact_negatives,
                                                self.max_search_columns, max_pairs=None)
        # where the time after column generation goes (model.json leaves timings out)
        after_cg = {"search_merge": time.perf_counter() - tick}
        ls_problem = MasterProblem(ls_merged, fairness_rows(ls_merged, criterion), problem.max_complexity,
                                   complexity_cost=problem.complexity_cost)
        searched, search_log = self._local_search(ls_ks, pool, ls_problem, candidates, ls_deadline)
        log["local_search_iterations"] = search_log.get("iterations", 0)
        log["local_search_cells"] = search_log.get("cells", 0)
        if search_log.get("cut_by_clock"):
            cut_by_clock.append("local_search")
        candidates += searched
        log["local_search_seconds"] = round(time.perf_counter() - start - log["cg_seconds"], 3)
        log["local_search_columns"] = len(ls_ks)
        tick = time.perf_counter()
        ks, merged = self._merged_columns(pool, candidates, patterns, problem.fairness, exact_negatives,
                                          self.max_ip_columns, base=(ls_ks, ls_merged))
        after_cg["ip_merge"] = time.perf_counter() - tick
        tick = time.perf_counter()
        merged_problem = MasterProblem(merged, fairness_rows(merged, criterion), problem.max_complexity,
                                       complexity_cost=problem.complexity_cost)
        exact_negatives = final_ip_exact_negatives(merged, problem.fairness)
        log["ip_patterns"] = int(len(merged.y))
        ip_info = self._final_ip(merged_problem, pool, ks, searched[0][0] if searched else (),
                                 final_ip_deadline(clock + budget, reserve, after_cg["search_merge"]),
                                 exact_negatives)
        if ip_info.get("rules") is not None:
            candidates.insert(0, (tuple(ip_info["rules"]), "final_ip"))
        if stopped_by_clock(ip_info["status"]) or ip_info.get("cut_by_clock"):
            cut_by_clock.append("final_ip")
        after_cg["final_ip"] = time.perf_counter() - tick
        tick = time.perf_counter()
        n_columns = len(pool.rules)  # the all-positive rule below is no generated column
        candidates += self._cover_all(pool, patterns)
        chosen, source = self._select(candidates, pool, patterns, criterion, problem)
        after_cg["select"] = time.perf_counter() - tick
        tick = time.perf_counter()
        refined = self._refine(chosen, ks, pool, patterns, problem, criterion, clock + budget, base=(ks, merged))
        log["refine"] = refined.pop("log")
        if log["refine"].get("cut_by_clock"):
            cut_by_clock.append("refine")
        if refined["candidates"]:
            candidates += refined["candidates"]
            chosen, source = self._select(candidates, pool, patterns, criterion, problem)
            # whichever won, no condition or rule of it can go without a loss (simplify's contract)
            simpler = self._simplified(chosen, pool, patterns, problem, criterion)
            if set(simpler) != set(chosen):
                # the log names the rule set returned: a report reads "final_ip" as "the MIP gap
                # measures this model"
                source = "simplified"
            chosen = simpler
        after_cg["refine"] = time.perf_counter() - tick
        tick = time.perf_counter()
        if not chosen:
            # the IP's solution, inserted first, wins a tie with the empty candidate; named
            # "final_ip", the empty rule set had lost the note below (found in review)
            source = "empty"

        self.binarizer_ = binarizer
        self.rules_ = [[binarizer.literals_[j] for j in pool.rules[k]] for k in chosen]
        self._fit_scores(X, y)
        yhat = self._covered(X).astype(int)
        # None with a single group, which has no gap (as metrics.json says): neither met nor missed
        train_gap = None
        if self.criterion is not None and sensitive_features is not None:
            train_gap = self.criterion.gap(y, yhat, groups)
        # the IP's own status when the rule set returned decides every training row as the IP's
        # solution does (it is that solution, or one the refinement simplified without changing a
        # decision); otherwise it came from the heuristics (local search, LP rounding, the hill
        # climb, a fallback).  The IP's status had been given whenever the IP found anything: a
        # returned "ALWAYS 1" read "optimal" (found in review)
        from_ip = ip_info.get("rules") is not None and np.array_equal(
            _pool_coverage(chosen, pool, len(patterns.y)), _pool_coverage(ip_info["rules"], pool, len(patterns.y)))
        log.update({
            "status": ip_info["status"] if from_ip else "heuristic",
            "ip_status": ip_info["status"], "mip_gap": ip_info.get("mip_gap"),
            "lp_bound": None if generator is None else generator.lp_bound,
            "ip_objective": ip_info.get("objective"), "ip_bound": ip_info.get("bound"),
            "ip_seconds": ip_info.get("seconds"), "ip_columns": ip_info.get("columns"),
            "ip_nodes": ip_info.get("nodes"), "ip_checkpoints": ip_info.get("checkpoints"),
            "ip_start_objective": ip_info.get("start_objective"),
            "ip_build_seconds": ip_info.get("build_seconds"),
            **({"ip_not_run_because": ip_info["not_run_because"]} if "not_run_because" in ip_info else {}),
            "exact_negatives": ip_info.get("exact_negatives"),
            "columns_generated": n_columns - n_initial, "columns_total": n_columns,
            "rounds": 0 if generator is None else sum(p.rounds for p in generator.phases),
            "phases": [] if generator is None else [p.__dict__ for p in generator.phases],
            "selected_from": source, "candidates": len(candidates),
            "train_accuracy": float((yhat == y).mean()), "train_gap": train_gap,
            "bound_met_on_train": None if criterion is None or train_gap is None else criterion.meets(train_gap),
            "n_rules": len(self.rules_), "complexity": int(sum(1 + len(r) for r in self.rules_)),
            "seconds": round(time.perf_counter() - start, 3),
            "after_cg_seconds": {**{k: round(v, 3) for k, v in after_cg.items()},
                                 "measure": round(time.perf_counter() - tick, 3)},
            # every stage stopped by its work limit or by converging: the same data, parameters
            # and seed give the same rule set on any machine
            "reproducible": not cut_by_clock, "cut_by_clock": cut_by_clock, "clock_cap": bool(self.clock_cap),
        })
        if ip_info.get("mip_gap") is not None:
            # a reviewer reads "MIP gap" as a verdict on the model; say which problem it is about
            log["mip_gap_of"] = (f"the final integer program over the {ip_info['columns']} pooled rules, "
                                 f"not over every rule set")
        if criterion is not None and source == "empty":
            log["note"] = ("no non-empty rule set found meets the bound on the training data; "
                           "returned the empty rule set (all negative, gap 0)")
        self.fit_log_ = log
        record_params(self)
        return self

    @staticmethod
    def _bound_slack(generator: ColumnGenerator, pool: RulePool, problem: MasterProblem) -> bool:
        """Whether the bound is slack after the paper's phase: no fairness row of the relaxed
        master has a nonzero dual at its last LP solution, *and* that solution rounded at 1/2
        meets every exact fairness row (the whole training set and each fold).

        The tilted phases price columns for the Lagrangian of the exact problem with a multiplier
        λ ≠ 0 on its fairness row (module docstring of :mod:`.column_generation`).  When the
        relaxed master's fairness rows are inactive (λ_LP = 0) and its near-optimal rule set is
        also fair on the exact rows, the bound is slack and λ = 0: the tilts would price for
        multipliers the problem does not have, and only search further for training loss.
        Both tests are needed: a rounded solution can meet the exact rows while the fairness
        duals are positive (the bound shapes the LP).  Skipping the tilts when the bound is slack
        cost no accuracy and kept the fits within their limits (``benchmarks/README.md``)."""
        if not generator.lp_solutions or generator.lp.fairness_dual > 1e-9:
            return False
        chosen = np.flatnonzero(generator.lp_solutions[-1] >= 0.5)
        if not len(chosen):
            return False
        cover = pool.matrix(chosen).any(axis=1)
        patterns = problem.patterns
        excess, _ = RuleSetScorer(patterns.y, patterns.count, problem.fairness).score(cover[:, None])
        return bool(excess[0] <= 0)

    def _search_cells(self) -> int:
        if self.search_cells is not None:
            return int(self.search_cells)
        return int(SEARCH_SHARE * float(self.time_limit) * SEARCH_CELLS_PER_SECOND)

    def _cg_cells(self) -> int:
        """Column generation's work limit in cells (:meth:`.ColumnGenerator.round_cells`):
        ``cg_fraction`` of ``time_limit`` at :data:`CG_CELLS_PER_SECOND`, so that the limit
        sizes this stage's work as it does the search's and the IP's, and ``clock_cap false``
        changes what stops it, not how long it takes (its rounds alone had taken 59 s of a 12 s
        limit on law).  At least one round of the first phase always runs."""
        return max(1, int(float(self.cg_fraction) * float(self.time_limit) * CG_CELLS_PER_SECOND))

    def _ip_checkpoints(self) -> int:
        if self.ip_checkpoints is not None:
            return int(self.ip_checkpoints)
        return max(MIN_IP_CHECKPOINTS, int(IP_SHARE * float(self.time_limit) * IP_CHECKPOINTS_PER_SECOND))

    def _tilts(self, problem: MasterProblem):
        """(name, positive cost, negative cost) of each tilted phase (module docstring of CG)."""
        pats = problem.patterns
        out = []
        rates = {r.rate for r in problem.fairness}
        for rate in ("fnr", "fpr"):
            if rate not in rates:
                continue
            label = 1 if rate == "fnr" else 0
            for g in np.unique(pats.group):
                sel = (pats.y == label) & (pats.group == g)
                if not sel.any():
                    continue
                for tau in TILTS:
                    pos, neg = pats.count.copy(), pats.count.copy()
                    (pos if label == 1 else neg)[sel] *= 1 + tau
                    # on a grid, so a column's cost, a sum of them, is the same whichever way it
                    # is summed (:mod:`fairspec.models.exact_sums`)
                    step = grid_step(float(pats.count.sum()) * (1 + max(TILTS)))
                    out.append((f"tilt_{rate}_{pats.group_labels[g]}_{tau:g}", on_grid(pos, step), on_grid(neg, step)))
        return out

    def _merged_columns(self, pool: RulePool, candidates, patterns: Patterns, fairness, exact_negatives: bool,
                    limit: int, max_pairs: int | None = MAX_EXACT_PAIRS, base=None):
        """Columns for the local search or the final IP, and the patterns merged by them
        (:meth:`Patterns.merged_by`).

        Columns are taken in this order: those of the candidates so far (local search results
        best first, then LP roundings), then ones used by some LP solution, then by reduced
        cost, leaving out the columns another one dominates (:func:`.master.dominated_columns`); at most
        ``limit``, cut back by a fifth at a time until the merged patterns give no more than
        ``max_pairs`` exactness rows (one per covered positive — and negative, in the
        exact-negative form — per column).

        ``base``: columns and the patterns merged by them (an earlier call's result).  When the
        columns chosen are among them, the patterns are merged from ``base``'s: merging is by
        classes of equal key, so merging the merged patterns again gives the same patterns, counts
        and order as merging every pattern, at the cost of the fewer merged ones.
        """
        # candidates' columns first, the local search's best rule set foremost: it is the IP's
        # MIP start, which must not lose a rule when the candidates hold more columns than fit
        rank = {}
        for i in sorted(range(len(candidates)), key=lambda i: (candidates[i][1] != "local_search", i)):
            for k in candidates[i][0]:
                rank.setdefault(k, i)
        in_candidates = set(rank)
        order = sorted(range(len(pool.rules)),
                       key=lambda k: (rank.get(k, len(candidates)), not pool.used[k], pool.origin[k] != "warm_start",
                                      pool.best_reduced_cost[k], k))
        # dominated columns would only take places: drop them from a window of twice the limit;
        # candidates' own columns stay so their rule sets stay whole
        # the check costs patterns · window² (MAX_DOMINANCE_WORK caps it near a second)
        width = min(2 * int(limit), int(np.sqrt(MAX_DOMINANCE_WORK / max(len(patterns.y), 1))))
        window = order[:width]
        # the patterns merged by the window's columns: dominance is set inclusion over patterns a
        # column covers, and every column covers all of a merged class or none of it, so the check
        # on the merged patterns is the check on every pattern, over far fewer rows
        window_cols = sorted(window)
        window_merged = _merged_from(base, window_cols, pool, patterns) if window_cols else None
        if len(window) > 1:
            at = {k: p for p, k in enumerate(window_cols)}
            dominated = dominated_columns(window_merged.literals[:, [at[k] for k in window]], window_merged.y,
                                          pool.complexities(window), fairness)
            window = [k for k, d in zip(window, dominated) if not d or k in in_candidates]
        order = window + order[width:]
        exact_positives = needs_exact_positives(fairness)
        n = min(len(order), int(limit))
        while True:
            chosen = sorted(order[:n])
            if chosen:
                merged = _merged_from((window_cols, window_merged), chosen, pool, patterns)
            else:
                merged = patterns.merged_by(np.zeros((len(patterns.y), 0), bool))
            rows_of = (merged.y == 1) & exact_positives
            if exact_negatives:
                rows_of |= merged.y == 0
            if n <= 1 or max_pairs is None or int(merged.literals[rows_of].sum()) <= max_pairs:
                return chosen, merged
            n = max(1, int(n * 0.8))

    def _local_search(self, ks, pool: RulePool, problem: MasterProblem, candidates, deadline, n_starts: int = 5):
        """Improve the best few candidates by exact local search (:mod:`.local_search`) over the
        columns ``ks``; ``problem`` is on the patterns merged by them.  Returns the results and
        the search's log (iterations, scored cells, whether the clock cut it)."""
        if not ks:
            return [], {}
        patterns = problem.patterns
        position = {k: p for p, k in enumerate(ks)}
        cov = patterns.literals
        complexity = np.array(pool.complexities(ks), dtype=float)
        scorer = RuleSetScorer(patterns.y, patterns.count, problem.fairness, problem.complexity_cost)
        starts = {tuple(sorted(position[k] for k in c)) for c, _ in candidates if all(k in position for k in c)}
        starts = sorted(starts)
        if len(starts) > n_starts:
            cover = np.column_stack([cov[:, list(s)].any(axis=1) if s else np.zeros(len(patterns.y), bool)
                                     for s in starts])
            excess, loss = scorer.score(cover, [complexity[list(s)].sum() for s in starts])
            keep = np.lexsort((loss, excess))[:n_starts]
            starts = [starts[i] for i in sorted(keep)] + ([()] if () not in [starts[i] for i in keep] else [])
        search_log = {}
        found = iterated_local_search(cov, complexity, scorer, self.max_complexity, starts, deadline=deadline,
                                      seed=self.seed_, max_iterations=int(self.search_iterations),
                                      max_cells=self._search_cells(), log=search_log)
        search_log["cells"] = scorer.cells
        return [(tuple(ks[p] for p in rules), "local_search") for rules, excess, _ in found if excess <= 0], search_log

    def _final_ip(self, problem: MasterProblem, pool: RulePool, ks, mip_start, deadline: float,
                  exact_negatives: bool) -> dict:
        """The exact restricted master IP over the columns ``ks``; ``problem`` is on the patterns
        merged by them (its ``literals`` are the columns' coverage)."""
        if not ks:
            # nothing to choose from, so nothing to solve: no HiGHS status and no MIP gap.  An
            # "optimal" with a gap of 0 had been reported for this IP that never ran (found in review)
            return {"status": IP_NOT_RUN, "rules": None, "mip_gap": None, "seconds": 0.0, "columns": 0,
                    "cut_by_clock": False, "not_run_because": EMPTY_POOL_REASON}
        build_start = time.perf_counter()
        info = {"start_objective": None, "build_seconds": 0.0, "columns": len(ks),
                "exact_negatives": exact_negatives, "rules": None}
        # not run when no time is left, so the fit keeps to its time limit (the search's results
        # are still candidates); a clock cut like any other, but said as what it is: HiGHS never
        # ran, so no HiGHS status (a review read "time_limit_no_solution" with 0 s of IP)
        not_run = {"status": IP_NOT_RUN, "mip_gap": None, "seconds": 0.0, "cut_by_clock": True}
        if build_start >= deadline:  # building alone takes seconds on adult
            return {**info, **not_run, "not_run_because": "the time limit had passed before it was built"}
        patterns = problem.patterns
        cov = patterns.literals
        model = build_master(problem, cov, pool.complexities(ks), integer=True, exact=True,
                             exact_negatives=exact_negatives)
        start_set = set(mip_start)
        covered = np.zeros(len(patterns.y), dtype=bool)
        for p, k in enumerate(ks):
            model.w[p].value = 1.0 if k in start_set else 0.0
            if k in start_set:
                covered |= cov[:, p]
        for i in model.positives:
            model.zeta[i].value = 0.0 if covered[i] else 1.0
        for i in model.negatives:
            model.delta[i].value = 1.0 if covered[i] else 0.0
        built = time.perf_counter()
        info.update(start_objective=float(pyo.value(model.loss)) if mip_start else None,
                    build_seconds=round(built - build_start, 3))
        seconds = seconds_to_solve(deadline - built, built - build_start)
        if seconds <= 0:
            return {**info, **not_run, "not_run_because": (
                f"{max(deadline - built, 0.0):.2f} s were left of the time limit, less than loading the "
                f"built model into HiGHS takes (about {APPSI_LOAD_PER_BUILD:g} times the "
                f"{built - build_start:.2f} s of building it)")}
        session = HighsSession(time_limit=seconds, mip_gap=self.mip_gap, threads=self.threads,
                               seed=self.seed_, max_checkpoints=self._ip_checkpoints(), options=FINAL_IP_OPTIONS)
        result = session.solve(model, warmstart=True)
        info.update({"status": result.status, "mip_gap": result.mip_gap, "objective": result.objective,
                     "bound": result.bound, "seconds": round(result.seconds, 3),
                     "nodes": result.details.get("nodes"), "checkpoints": result.details.get("checkpoints")})
        if result.has_solution:
            info["rules"] = [ks[k] for k in selected_rules(model)]
        return info

    def _refine(self, chosen, ks, pool: RulePool, patterns: Patterns, problem: MasterProblem, criterion,
                deadline: float, base=None) -> dict:
        """The chosen rule set simplified within the set (:func:`.local_search.simplify`), and
        the complexity that frees spent by one hill-climb (:func:`.local_search.improve`) over
        the final IP's columns and the simplified rules.  Both are candidates for the final
        choice; the climb stops at a local optimum or after its moves (a work limit), so the
        result does not depend on the machine."""
        log = {"complexity_before": int(sum(pool.complexities(chosen))), "cut_by_clock": False}
        if not chosen:
            return {"candidates": [], "log": log}
        simpler = self._simplified(chosen, pool, patterns, problem, criterion)
        log["complexity_simplified"] = int(sum(pool.complexities(simpler)))
        found = [(simpler, "simplified")]
        if time.perf_counter() > deadline:
            # the climb would stop before its first move and return its start, which meets the
            # bound (:meth:`_simplified`): so that, without merging every pattern by its columns
            # first (seconds on a million rows, all past the limit)
            log["cut_by_clock"] = True
            log["complexity_climbed"] = log["complexity_simplified"]
            found.append((simpler, "refined"))
            return {"candidates": found, "log": log}
        columns = sorted(set(ks) | set(simpler))
        merged = _merged_from(base, columns, pool, patterns)
        position = {k: p for p, k in enumerate(columns)}
        climbed, excess, _ = improve(merged.literals, np.array(pool.complexities(columns), dtype=float),
                                     RuleSetScorer(merged.y, merged.count, fairness_rows(merged, criterion),
                                                   problem.complexity_cost),
                                     self.max_complexity, [position[k] for k in simpler], deadline=deadline,
                                     log=log)
        if excess <= 0:
            climbed = tuple(sorted(columns[p] for p in climbed))
            log["complexity_climbed"] = int(sum(pool.complexities(climbed)))
            found.append((climbed, "refined"))
        return {"candidates": found, "log": log}

    @staticmethod
    def _simplified(chosen, pool: RulePool, patterns: Patterns, problem: MasterProblem, criterion) -> tuple:
        """``chosen`` (pool indices) through :func:`.local_search.simplify`, its new rules pooled;
        ``chosen`` itself if the simpler set fails the bound as :meth:`_select` measures it (the
        scorer's tolerance is a hair wider than ``Criterion.gap``'s).

        Dropping conditions reads only the literals ``chosen``'s rules use, so the descent runs
        on the patterns merged by those literals (:meth:`.master.Patterns.merged_by`): the same
        counts in each class, so the same scores, over a few thousand patterns where a million
        rows give hundreds of thousands."""
        used = sorted({j for k in chosen for j in pool.rules[k]})
        sub = patterns.merged_by(patterns.literals[:, used]) if used else patterns
        position = {j: p for p, j in enumerate(used)} if used else None
        fairness = fairness_rows(sub, criterion) if used else problem.fairness
        scorer = RuleSetScorer(sub.y, sub.count, fairness, problem.complexity_cost)
        local = [tuple(position[j] for j in pool.rules[k]) if used else pool.rules[k] for k in chosen]
        local = simplify(local, sub.literals, scorer)
        covered = np.zeros(len(sub.y), dtype=bool)
        for rule in local:
            covered |= sub.coverage(rule)
        if not _meets_bound(covered, sub, criterion, scorer):
            return tuple(chosen)
        rules = [tuple(used[p] for p in rule) for rule in local] if used else local
        simpler = []
        for rule in rules:
            pool.add(rule, patterns.coverage(rule), "simplified")
            simpler.append(pool.index[rule])
        return tuple(sorted(set(simpler)))

    def _cover_all(self, pool: RulePool, patterns: Patterns) -> list:
        """The all-positive rule set as a candidate, the mirror of the all-negative empty one.

        Predicting every row positive makes every TPR and FPR 1, so it meets any
        equal-opportunity or equalized-odds bound; when most rows are positive it can beat
        every fair rule set the search found (seen on a 240-row, three-group problem at
        equalized odds ≤ 0.05: 0.600 train accuracy against the search's 0.537).  It is one rule
        with no condition (complexity 1), which covers every row, a row with missing values and
        a category never seen in training too, and exists when no feature has a usable
        condition (a constant column).  A pair of complementary literals, ``x <= t`` OR
        ``x > t``, had said "always" before: complexity 4, none when there was no such pair,
        and false on a row missing ``x``.  It is added after the search and the IP, so it cannot
        change what they do, only be chosen when it is best."""
        if self.max_complexity < 1:
            return []
        pool.add((), patterns.coverage(()), "cover_all")
        return [((pool.index[()],), "all_positive")]

    def _select(self, candidates, pool: RulePool, patterns: Patterns, criterion, problem):
        """Lowest training 0-1 loss (plus the complexity cost, when there is one) among
        candidates meeting the bound (re-measured with ``Criterion.gap``) and, with fairness
        folds, the fold rows too: ``(pool columns, source)`` of the winner."""
        scorer = RuleSetScorer(patterns.y, patterns.count, problem.fairness)
        best = None
        for order, (ks, source) in enumerate(candidates):
            complexity = sum(pool.complexities(ks))
            if complexity > self.max_complexity:
                continue
            covered = _pool_coverage(ks, pool, len(patterns.y))
            loss = float(patterns.count[covered.astype(int) != patterns.y].sum())
            if not _meets_bound(covered, patterns, criterion, scorer):
                continue
            key = (loss + problem.complexity_cost * complexity, complexity, order)
            if best is None or key < best[0]:
                best = (key, ks, source)
        return best[1], best[2]

    def _fit_scores(self, X, y):
        covers = self._rule_coverage(X)
        self.rule_precision_ = [float(y[c].mean()) if c.any() else 0.0 for c in covers.T]
        self.rule_support_ = [int(c.sum()) for c in covers.T]
        uncovered = ~covers.any(axis=1) if covers.size else np.ones(len(y), dtype=bool)
        self.uncovered_positive_rate_ = float(y[uncovered].mean()) if uncovered.any() else 0.0

    # -------------------------------------------------------------- predict
    def _rule_coverage(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        out = np.ones((X.shape[0], len(self.rules_)), dtype=bool)
        for k, rule in enumerate(self.rules_):
            for lit in rule:
                out[:, k] &= lit.evaluate(X)
        return out

    def _check_fitted(self):
        if not hasattr(self, "rules_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError("this FairRuleSetClassifier is not fitted yet")

    def _check_X(self, X):
        self._check_fitted()
        return feature_matrix(X, self, reset=False)

    def _covered(self, X: np.ndarray) -> np.ndarray:
        """Whether some rule covers each row: the positive class, ``classes_[1]``."""
        return self._rule_coverage(X).any(axis=1)

    def predict(self, X) -> np.ndarray:
        X = self._check_X(X)
        return self.classes_[self._covered(X).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # a rule covers the positive class, classes_[1]
        # both strategies have a rule for a missing value (issue 4, "Binarize"): "mia" learns
        # literals for it, "none" reads every condition on it as false (see binarize.py)
        tags.input_tags.allow_nan = True
        return tags

    def predict_proba(self, X) -> np.ndarray:
        """A ranking score, not a calibrated probability: ``0.5 + precision/2`` of the most
        precise covering rule for a covered row, ``rate/2`` for an uncovered one (``rate`` the
        training positive rate of uncovered rows, held just below 1/2 when it is 1: every
        uncovered training row positive happens when no condition can pick them out), so
        ``predict == (score > 0.5)`` and ``predict == classes_[argmax(predict_proba)]``.  A
        covered row's score is held just above 1/2 likewise when its rules' precision is 0: an
        equalized-odds bound can keep a rule that covers only negatives (to raise a group's FPR),
        and its rows had scored exactly 1/2, which ``argmax`` reads as the negative class."""
        X = self._check_X(X)
        cov = self._rule_coverage(X)
        prec = np.asarray(self.rule_precision_, dtype=float)
        best = np.where(cov, prec[None, :], -1.0).max(axis=1) if cov.shape[1] else np.full(len(X), -1.0)
        p1 = np.where(best >= 0, np.maximum(0.5 + best / 2, np.nextafter(0.5, 1)),
                      min(self.uncovered_positive_rate_ / 2, np.nextafter(0.5, 0)))
        return np.column_stack([1 - p1, p1])

    # ------------------------------------------------------------ read out
    def describe(self, feature_names=None, categories=None, class_names=None, imputed=False) -> list[str]:
        """``IF age <= 25 AND priors_count > 3 THEN 1`` ... ``ELSE 0``: the labels ``predict``
        returns (``classes_``), as the trees' leaves show them, or ``class_names`` (negative,
        positive).  ``imputed`` is accepted as every family's read-out takes it: a rule says
        "(or missing)" only when it was learned under ``missing="mia"``, which never imputes.
        Columns are named by ``feature_names``, else by the DataFrame ``fit`` saw,
        else ``x0``, ``x1``, ..."""
        self._check_fitted()
        feature_names = column_names(self, feature_names)
        negative, positive = shown_classes(self, class_names)
        if not self.rules_:
            return [f"ALWAYS {negative} (empty rule set)"]
        if not all(self.rules_):
            # a rule with no condition covers every row, whatever the other rules say
            return [f"ALWAYS {positive} (a rule with no condition)"]
        lines = []
        for k, rule in enumerate(self.rules_):
            cond = " AND ".join(lit.describe(feature_names, categories) for lit in rule)
            prefix = "IF" if k == 0 else "ELSE IF"
            lines.append(f"{prefix} {cond} THEN {positive}")
        lines.append(f"ELSE {negative}")
        return lines

    def to_json(self) -> dict:
        self._check_fitted()
        params = json_values(params_at_fit(self))
        params["random_state"] = getattr(self, "seed_", params["random_state"])  # a RandomState is no JSON
        crit = params.pop("criterion")
        params["categorical_features"] = list(categorical_indices(params["categorical_features"], self,
                                                                  self.n_features_in_))
        return {
            "kind": "rule_set",
            "format_version": FORMAT_VERSION,
            "params": params,
            "criterion": None if crit is None else {"name": crit.name, "bound": crit.bound, "penalty": crit.penalty},
            "n_features_in": int(self.n_features_in_),
            **feature_names_to_json(self),
            "classes": labels_to_json(self.classes_),
            "rules": [{"conditions": [lit.to_json() for lit in rule], "precision": p, "support": s}
                      for rule, p, s in zip(self.rules_, self.rule_precision_, self.rule_support_)],
            "uncovered_positive_rate": self.uncovered_positive_rate_,
            "fit_log": json_values(getattr(self, "fit_log_", {})),
        }

    @classmethod
    def from_json(cls, doc: dict) -> "FairRuleSetClassifier":
        """The fitted estimator :meth:`to_json` wrote.  A model file comes from outside: a document
        of another kind or version is a ``ModelFileError``, one whose content ``to_json`` could
        not have written a ``ValueError`` saying what is wrong, here at load, never a crash or a
        wrong score at predict time."""
        check_header(doc, ("rule_set",), FORMAT_VERSION, "rule_set")
        # content errors are ValueErrors, as the baseline's loader raises them (the pipeline
        # names either kind as a damaged model file); a missing entry or a value of the wrong
        # type says so instead of surfacing as a KeyError or TypeError from deep inside
        try:
            return cls._from_document(doc)
        except KeyError as exc:
            raise ValueError(f"malformed rule_set model: no {exc.args[0]!r} entry") from None
        except (TypeError, AttributeError, ArithmeticError) as exc:
            raise ValueError(f"malformed rule_set model: {exc}") from None

    @classmethod
    def _from_document(cls, doc: dict) -> "FairRuleSetClassifier":
        from fairspec.errors import FeatureError
        from fairspec.registry.criteria import CRITERIA, make_criterion

        n_features = integer(doc["n_features_in"], "n_features_in", 1)
        params = doc["params"]
        if not isinstance(params, dict):
            raise ValueError("'params' must be an object")
        params = dict(params)
        params["categorical_features"] = feature_indices(params.get("categorical_features", []), "categorical_features",
                                                         n_features)
        crit = doc.get("criterion")
        if crit is not None:
            if not isinstance(crit, dict):
                raise ValueError("'criterion' must be an object or null")
            if not isinstance(crit.get("name"), str) or crit["name"] not in CRITERIA:
                raise ValueError(f"unknown criterion {show(crit.get('name'))}")
            crit = make_criterion(crit["name"], *(None if crit[k] is None else number(crit[k], f"the criterion's {k}")
                                                  for k in ("bound", "penalty")))
        est = cls(**params, criterion=crit)
        rules = doc["rules"]
        if not (isinstance(rules, list) and all(isinstance(r, dict) and isinstance(r.get("conditions"), list)
                                                and all(isinstance(c, dict) for c in r["conditions"])
                                                for r in rules)):
            raise ValueError("'rules' must be a list of objects, each with a list of 'conditions' (objects)")
        if len(rules) > 1 and any(not r["conditions"] for r in rules):
            # the fit writes a rule with no condition (all positive) only alone
            raise ValueError("a rule without conditions beside other rules")
        est.rules_ = [[Literal.from_json(c) for c in r["conditions"]] for r in rules]
        for lit in (lit for rule in est.rules_ for lit in rule):
            # a tampered index would read another column, or fail only at predict time
            if not 0 <= lit.feature < n_features:
                raise ValueError(f"a rule reads feature {lit.feature}, but the model has {n_features}")
            if lit.op not in ("is_missing", "is_present") and (lit.value is None or not np.isfinite(lit.value)):
                raise ValueError(f"a rule compares feature {lit.feature} with {lit.value!r}, not a number")
            # the binarizer cuts a number by <= and > and tests a category code by == and !=; a
            # `<=` on codes would read their order, which means nothing (the pipeline's loader
            # checks this against its encoder; a file loaded here alone is checked here)
            categorical = lit.feature in est.categorical_features
            if lit.op in (("<=", ">") if categorical else ("==", "!=")):
                kind = "categorical" if categorical else "numeric"
                raise FeatureError(f"a rule compares {kind} feature {{feature}} by {lit.op!r}, which training never "
                                   f"does (it compares a category by == and !=, and cuts a number by <= and >)",
                                   lit.feature)
        # what predict_proba returns is read from these: a score outside [0, 1] must not come out
        est.rule_precision_ = [number(r["precision"], "a rule's precision", 0.0, 1.0) for r in rules]
        est.rule_support_ = [integer(r["support"], "a rule's support", 0) for r in rules]
        est.uncovered_positive_rate_ = number(doc["uncovered_positive_rate"], "uncovered_positive_rate", 0.0, 1.0)
        est.n_features_in_ = n_features
        restore_feature_names(est, doc, n_features)
        est.classes_ = class_labels(doc.get("classes"))
        fit_log = doc.get("fit_log", {})
        if not isinstance(fit_log, dict):
            raise ValueError("'fit_log' must be an object")
        est.fit_log_ = dict(fit_log)
        record_params(est)
        return est


def setup_sample(n_rows: int, setup_rows: int, seed: int) -> np.ndarray | None:
    """The rows (sorted positions) the set-up learns from when there are more than ``setup_rows``:
    a seeded draw without replacement, or None (every row) when there are not so many.

    Issue 48: on a million rows the set-up had no work limit and grew with the rows (binarizing
    every column, and the warm start's trees fitted on every pattern), so a ``time_limit`` of
    60 s took minutes.  Two of its steps only *choose* — the cut points and literals of
    :class:`.Binarizer`, and the warm start's tree rules — and a sample of a few hundred thousand
    rows chooses them nearly as well as all of them (a sample quantile's rank has standard error
    ``sqrt(p(1-p)/n)``, under 0.0007 at ``n = 200,000``: a decile's cut moves by less than a tenth
    of a percentile); so they learn from ``setup_rows`` rows, and their cost is bounded by that.  Every literal and
    rule is then evaluated on every row: the patterns, the master LP, the search, the final IP and
    the training gap and accuracy count all rows.  Below ``setup_rows`` nothing changes.  The draw
    is by row position: the same rows in another order give another sample (and may give another
    rule set), unlike a fit without a sample (:func:`_stratified_folds`)."""
    if n_rows <= setup_rows:
        return None
    return np.sort(np.random.default_rng([int(seed), 48]).choice(n_rows, size=int(setup_rows), replace=False))


def _meets_bound(covered: np.ndarray, patterns: Patterns, criterion, scorer: RuleSetScorer) -> bool:
    """Whether the rule set covering ``covered`` meets the bound (always, without a criterion):
    its training gap measured with ``Criterion.gap`` (:meth:`Criterion.allows`: a single group
    has no gap to exceed) and, with fairness folds, the fold rows too (the scorer's rows)."""
    if criterion is None:
        return True
    gap = criterion.gap(patterns.y, covered.astype(int), patterns.group, sample_weight=patterns.count)
    return criterion.allows(gap) and scorer.score(covered[:, None])[0][0] <= 0


def final_ip_exact_negatives(merged: Patterns, fairness) -> bool:
    """Whether the final IP counts a covered negative exactly (δ_i = 1 when a selected rule
    covers it) rather than once per covering rule (the paper's Hamming loss): always under a
    criterion on FPRs, whose rows need the exact count, and whenever the exactness rows stay
    few (at most ``EXACT_NEGATIVE_PAIRS`` covered (negative, column) pairs of ``merged``, the
    patterns merged by the IP's columns), since then the IP minimises the real 0-1 loss."""
    return any(r.rate == "fpr" for r in fairness) or int(merged.literals[merged.y == 0].sum()) <= EXACT_NEGATIVE_PAIRS


def _merged_from(base, columns, pool: RulePool, patterns: Patterns) -> Patterns:
    """``patterns`` merged by the pool columns ``columns`` (:meth:`.master.Patterns.merged_by`),
    merged from ``base`` — (columns, the patterns merged by them) — when every column is one of
    its columns or covers every pattern (the all-positive rule).  Merging is by classes of equal
    key, so merging merged patterns again gives the same patterns, counts, order and row map as
    merging every pattern, at the cost of the fewer merged ones: after column generation on a
    million rows each merge of every pattern took seconds."""
    if base is not None and base[1] is not None:
        at = {k: p for p, k in enumerate(base[0])}
        merged = base[1]
        if all(k in at or pool.coverage[k].all() for k in columns):
            every = np.ones(len(merged.y), dtype=bool)
            return merged.merged_by(np.column_stack([merged.literals[:, at[k]] if k in at else every
                                                     for k in columns]))
    return patterns.merged_by(pool.matrix(columns))


def _pool_coverage(ks, pool: RulePool, n_patterns: int) -> np.ndarray:
    """Which training patterns the rule set of pool columns ``ks`` covers (predicts positive)."""
    covered = np.zeros(n_patterns, dtype=bool)
    for k in ks:
        covered |= pool.coverage[k]
    return covered


def _share(total: int, parts: int) -> list[int]:
    """``total`` rounds dealt to ``parts`` phases as evenly as possible, each at least one."""
    base, extra = divmod(max(total, parts), parts)
    return [base + (i < extra) for i in range(parts)]


def _stratified_folds(literal_matrix, y, groups, n_folds, seed) -> np.ndarray:
    """Fold of each row: the rows of each (label, group) cell shuffled and dealt round-robin.

    The shuffle starts from the rows sorted by their literal vector, not from the order they
    came in.  Rows alike in literals, label and group are one pattern to the fit, so which of
    them lands in which fold does not matter; with a canonical order, how many of each pattern
    land in each fold does not depend on the order of the rows either.  Everything else in the
    fit works on patterns (sorted by :func:`.master.distinct_rows`), so the same rows in any
    order, with the same seed, give the same rule set."""
    rng = np.random.default_rng(seed)
    group_codes = np.unique(groups, return_inverse=True)[1].ravel()
    _, pattern = distinct_rows(literal_matrix, y, group_codes)
    _, cell = np.unique(np.column_stack([y, group_codes]), axis=0, return_inverse=True)
    cell = cell.ravel()
    folds = np.empty(len(y), dtype=np.int64)
    for c in np.unique(cell):
        rows = np.flatnonzero(cell == c)
        rows = rng.permutation(rows[np.argsort(pattern[rows], kind="stable")])
        folds[rows] = np.arange(len(rows)) % n_folds
    return folds

