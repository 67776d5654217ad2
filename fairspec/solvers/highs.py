"""Solve Pyomo models with HiGHS through Pyomo's persistent APPSI interface.

The persistent interface keeps the HiGHS model alive between calls, so a column-generation
loop that adds variables and re-solves pays only for the change (Pyomo re-writes nothing
that did not change) and HiGHS warm-starts from the previous basis.

Status is mapped, not guessed: a time limit with an incumbent is ``time_limit`` and keeps
that incumbent; a time limit without one is ``time_limit_no_solution`` (the caller turns it
into exit code 3); a work limit (``max_checkpoints``, below) is ``work_limit`` or
``work_limit_no_solution``; limits fairspec does not set itself keep their own names
(``iteration_limit``, ``objective_limit``, ``interrupted``), so only the clock counts as
the clock; the MIP gap reported is the one HiGHS computed.

Work limits.  A MIP stopped by the clock returns whatever incumbent it had at that instant,
so the same model solved twice on a busy machine can give two answers.  HiGHS has no
deterministic work limit (its node limit does not bound the root node, where the rule-set
IPs spend nearly all their time), but single-threaded HiGHS calls its MIP interrupt
callback at the same points of the same search on every run: stopping after the
``max_checkpoints``-th call stops at the same place every time (the tests solve one MIP
several times so); how long a checkpoint takes varies by problem.

The clock can still reach a run that our count ends.  HiGHS asks the interrupt callback
*before* it compares its clock with the time limit, and an LP or heuristic inside the MIP
stops early once the limit has passed; so a run whose time ran out just before its last
checkpoint comes back "interrupted", with whatever the truncated work gave (a weaker dual
bound than every run with more time returned; ``benchmarks/README.md``).  So the checkpoint that stops the run also reads HiGHS's clock (the callback's
``running_time``; on the test MIPs, a run whose first checkpoint read at least the limit was
stopped by HiGHS's own clock check there whenever our count let it): when the limit had
already passed there, the status is ``time_limit``, not ``work_limit``, and the fit is not
called reproducible.

Ctrl-C.  The checkpoint counter is Python code that HiGHS calls from C++, and a Ctrl-C that
arrives while HiGHS runs is raised as ``KeyboardInterrupt`` inside it, where highspy cannot
pass it on: HiGHS ended the run with an error status and the fit carried on as if the MIP had
failed (measured: Ctrl-C during the compas example's certifying pricing IP let the run finish
and exit 0).  So while a MIP runs, Ctrl-C only raises a flag (:func:`_ctrl_c_deferred`), the
next checkpoint stops HiGHS, and ``KeyboardInterrupt`` is raised once HiGHS has returned.
"""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from dataclasses import dataclass, field

import highspy
import numpy as np
# pyomo.core holds the modelling classes; pyomo.environ adds every plugin (GDP, DAE, the
# file writers, ...), half a second of imports a solve through appsi's Highs does not use:
# write_model imports it for its writers
import pyomo.core as pyo
from pyomo.contrib.appsi.base import TerminationCondition as TC
from pyomo.contrib.appsi.solvers.highs import Highs

#: statuses, and whether each leaves a usable solution loaded in the model
OPTIMAL = "optimal"
TIME_LIMIT = "time_limit"  # stopped at the limit, best incumbent kept
TIME_LIMIT_NO_SOLUTION = TIME_LIMIT + "_no_solution"
WORK_LIMIT = "work_limit"  # stopped at max_checkpoints, best incumbent kept
WORK_LIMIT_NO_SOLUTION = "work_limit_no_solution"
#: limits fairspec does not set but a HiGHS option can: an iteration, node or solution-count
#: limit (APPSI's maxIterations), an objective bound or target, an interrupt from elsewhere.
#: Each keeps its incumbent; without one the status gets NO_SOLUTION_SUFFIX, as time_limit does
ITERATION_LIMIT = "iteration_limit"
OBJECTIVE_LIMIT = "objective_limit"
INTERRUPTED = "interrupted"
NO_SOLUTION_SUFFIX = "_no_solution"
INFEASIBLE = "infeasible"
UNBOUNDED = "unbounded"
#: HiGHS's presolve may find only that a MIP has no optimum, not why; a model whose variables
#: are all bounded cannot be unbounded, so it is INFEASIBLE then (every model fairspec builds)
INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
ERROR = "error"

_STATUS_MAP = {
    TC.optimal: OPTIMAL,
    TC.maxTimeLimit: TIME_LIMIT,
    TC.maxIterations: ITERATION_LIMIT,
    TC.objectiveLimit: OBJECTIVE_LIMIT,
    TC.interrupted: INTERRUPTED,
    TC.infeasible: INFEASIBLE,
    TC.unbounded: UNBOUNDED,
    TC.infeasibleOrUnbounded: INFEASIBLE,
}
_STOPPED_EARLY = (TIME_LIMIT, ITERATION_LIMIT, OBJECTIVE_LIMIT, INTERRUPTED)


# HiGHS runs MIPs on one process-wide thread pool whose size is fixed when it is first
# created; a later run asking for another size fails with an unmapped "not set" status
# (seen when a 2-thread rule-set fit was followed by a 1-thread tree relabelling). Every
# run therefore goes through `use_threads`, which rebuilds the pool when the size changes.
# The first run rebuilds it too: a pool may exist already, of another size, when the caller's own
# highspy or Pyomo code solved a MIP earlier in the process (then every fairspec MIP failed).
# So does the first run of every session (:class:`HighsSession`, one or more per fit): the
# caller's code may have resized the pool between two fits (a review saw every LP of the
# second fit fail, and the fit return another rule set without a word).
_scheduler_threads: int | None = None


class SolverFailure(RuntimeError):
    """HiGHS ended a run with neither an answer nor a limit (an ``error`` status: a failed
    solve, a thread pool of the wrong size).  A fit must not carry on as if the model had been
    solved: it would return another model than the same data, parameters and seed give."""


def use_threads(threads: int) -> None:
    """Make HiGHS's global thread pool ``threads`` wide before a run (no-op if fairspec already did)."""
    global _scheduler_threads
    threads = int(threads)
    if _scheduler_threads != threads:
        highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads = threads


def stopped_by_clock(status: str) -> bool:
    """Whether a solve with this status ended because its time limit passed."""
    return status in (TIME_LIMIT, TIME_LIMIT_NO_SOLUTION)


@contextlib.contextmanager
def _ctrl_c_deferred():
    """Within the block, Ctrl-C appends to the yielded list instead of raising; on leaving it,
    ``KeyboardInterrupt`` is raised when Ctrl-C was pressed (module docstring, "Ctrl-C").

    Only Python's own SIGINT handler is replaced, and only in the main thread (the only one
    that receives signals): an ignored SIGINT or an application's own handler is left alone.
    SIGTERM and SIGHUP are held back alike where a Python handler is set for them (the command
    line's raises as Ctrl-C does, and inside HiGHS's callback it would be lost the same way),
    and that handler is called on leaving.
    """
    pressed: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield pressed
        return
    held: list[int] = []
    previous = {}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous[signal.SIGINT] = signal.default_int_handler
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and callable(signal.getsignal(sig)):
            previous[sig] = signal.getsignal(sig)
    if not previous:
        yield pressed
        return

    def hold(signum, frame):
        held.append(signum)
        pressed.append(True)  # the next checkpoint stops HiGHS

    for sig in previous:
        signal.signal(sig, hold)
    try:
        yield pressed
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if held:
        previous[held[0]](held[0], None)  # raises (Ctrl-C: KeyboardInterrupt)


#: loading a built Pyomo model into HiGHS through APPSI takes about this many times as long as
#: building it (measured on the rule-set IP on adult: 25 s against 8 s)
APPSI_LOAD_PER_BUILD = 3.0


def seconds_to_solve(seconds_left: float, build_seconds: float) -> float:
    """What HiGHS's own time limit may be when ``seconds_left`` remain of a caller's budget and
    the model took ``build_seconds`` to build: loading it comes out of the budget first."""
    return seconds_left - APPSI_LOAD_PER_BUILD * build_seconds


def time_limit_from_now(h: highspy.Highs, seconds: float) -> float:
    """The ``time_limit`` option that gives the next ``h.run()`` ``seconds`` of its own.

    HiGHS compares its time limit with the instance's run time summed over every ``run()``
    so far (for LPs; measured in the tests), so a re-solve handed the seconds it has left
    stops at once when earlier runs already took longer — as late column-generation rounds
    on adult and default did, 20 s of LP solves in.
    """
    return float(h.getRunTime() + max(seconds, 0.01))


@dataclass
class SolveResult:
    """What one HiGHS solve returned, in fairspec's words."""

    status: str
    has_solution: bool
    objective: float | None = None
    bound: float | None = None
    mip_gap: float | None = None
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"status": self.status, "has_solution": self.has_solution, "objective": self.objective,
                "bound": self.bound, "mip_gap": self.mip_gap, "seconds": round(self.seconds, 3)}


class HighsSession:
    """A persistent HiGHS solver for one Pyomo model (re-solve after edits is incremental)."""

    def __init__(self, *, time_limit: float = 60.0, mip_gap: float = 1e-4, threads: int = 1, seed: int = 0,
                 max_checkpoints: int | None = None, options: dict | None = None):
        """``options``: further HiGHS options by name (e.g. ``{"mip_max_nodes": 100}``)."""
        self._opt = Highs()
        self._opt.config.load_solution = False
        self._opt.highs_options = dict(options or {})
        self.max_checkpoints = max_checkpoints
        self._checkpoints = 0
        self._hooked = None  # the highspy object whose interrupt callback counts checkpoints
        self._run_time_limit = None  # the limit HiGHS compares its clock with, this run
        self._clock_passed = False  # HiGHS's time limit had passed at the checkpoint that stopped it
        self._ctrl_c: list[bool] = []  # non-empty once Ctrl-C was pressed during this run
        global _scheduler_threads
        _scheduler_threads = None  # rebuild the pool on this session's first run (see the note at _scheduler_threads)
        self.configure(time_limit=time_limit, mip_gap=mip_gap, threads=threads, seed=seed)

    def configure(self, *, time_limit: float, mip_gap: float | None = None, threads: int | None = None,
                  seed: int | None = None) -> None:
        # HiGHS rejects an integer time limit through some interfaces: always hand it a float.
        self.time_limit = float(max(time_limit, 0.01))
        self._opt.config.time_limit = self.time_limit
        if mip_gap is not None:
            self._opt.config.mip_gap = float(mip_gap)
        opts = dict(self._opt.highs_options or {})
        if threads is not None:
            opts["threads"] = int(threads)
            self.threads = int(threads)
        if seed is not None:
            opts["random_seed"] = int(seed)
            self.seed = int(seed)
        opts.setdefault("output_flag", False)
        self._opt.highs_options = opts

    @property
    def highs(self):
        """The underlying ``highspy.Highs`` object (duals, basis, info).

        This and :meth:`row_index` / :meth:`col_index` read private attributes of APPSI's
        ``Highs``: APPSI has no public way to them, and pyproject.toml keeps Pyomo below 7."""
        return self._opt._solver_model

    def solve(self, model: pyo.ConcreteModel, *, warmstart: bool = False) -> SolveResult:
        """Solve; load the incumbent into ``model`` when there is one.

        ``warmstart=True`` hands the variables' current values to HiGHS as a MIP start.
        """
        use_threads(self.threads)
        start = time.perf_counter()
        self._opt.config.warmstart = bool(warmstart)
        if model is not getattr(self._opt, "_model", None):
            self._opt.set_instance(model)  # so the checkpoint counter can hook the new HiGHS object
        self._hook_checkpoints()
        self._checkpoints = 0
        self._clock_passed = False
        self._run_time_limit = time_limit_from_now(self.highs, self.time_limit)
        self._opt.config.time_limit = self._run_time_limit
        # APPSI does not know HiGHS's "interrupted" status and logs a warning for it; it is ours
        appsi_log = logging.getLogger("pyomo.contrib.appsi.solvers.highs")
        level = appsi_log.level
        appsi_log.setLevel(logging.ERROR)
        try:
            with _ctrl_c_deferred() as self._ctrl_c:
                res = self._opt.solve(model)
        finally:
            appsi_log.setLevel(level)
        seconds = time.perf_counter() - start
        h = self.highs
        mip = _is_mip(model)
        details = {"checkpoints": self._checkpoints} if mip else {}
        if h.getModelStatus() == highspy.HighsModelStatus.kInterrupt and self._reached_work_limit():
            return self._work_limit_result(model, res, seconds, details)
        status = _STATUS_MAP.get(res.termination_condition, ERROR)
        if status == ERROR:
            raise SolverFailure(f"HiGHS failed to solve {model.name!r}: model status "
                                f"{h.modelStatusToString(h.getModelStatus())}, termination "
                                f"{res.termination_condition.name}")
        if res.termination_condition == TC.infeasibleOrUnbounded and not _all_bounded(model):
            status = INFEASIBLE_OR_UNBOUNDED  # an unbounded MIP came back as "infeasible"
        objective = res.best_feasible_objective
        # APPSI counts any values HiGHS holds as a solution: an LP the dual simplex left at a
        # limit has values that break the constraints, with an objective beyond the optimum
        has_solution = (objective is not None and status not in (INFEASIBLE, UNBOUNDED, ERROR)
                        and h.getInfo().primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible)
        if status in _STOPPED_EARLY and not has_solution:
            status += NO_SOLUTION_SUFFIX
        if has_solution:
            res.solution_loader.load_vars()
        else:
            objective = None
        bound = res.best_objective_bound
        if not mip and status != OPTIMAL:
            bound = None  # APPSI's is the objective of the values left: from the primal simplex, no bound
        gap = None
        if mip:
            details["nodes"] = int(h.getInfo().mip_node_count)
        if has_solution and mip:
            gap = float(h.getInfo().mip_gap)
        elif has_solution:
            gap = 0.0 if status == OPTIMAL else None
        return SolveResult(status=status, has_solution=has_solution,
                           objective=None if objective is None else float(objective),
                           bound=None if bound is None else float(bound), mip_gap=gap, seconds=seconds,
                           details=details)

    def _reached_work_limit(self) -> bool:
        return self.max_checkpoints is not None and self._checkpoints >= self.max_checkpoints

    def _hook_checkpoints(self) -> None:
        h = self.highs
        if h is None or h is self._hooked:
            return

        def count(event):
            if self._ctrl_c:
                event.interrupt()
                return
            if self._reached_work_limit():
                # HiGHS asks again on its way out of an interrupted search: those calls are no
                # work, and counting them reported 32 checkpoints at a limit of 30
                event.interrupt()
                return
            self._checkpoints += 1
            if self._reached_work_limit():
                self._clock_passed = event.data_out.running_time >= self._run_time_limit
                event.interrupt()
            else:
                # HiGHS keeps the interrupt flag between runs: without this, a re-solve after a
                # work limit stopped at its first checkpoint with a status APPSI calls an error
                event.data_in.user_interrupt = False

        h.cbMipInterrupt.subscribe(count)
        self._hooked = h

    def _work_limit_result(self, model, res, seconds: float, details: dict) -> SolveResult:
        """Our checkpoint limit interrupted the MIP: keep its incumbent, as a time limit would.

        When HiGHS's clock had passed its limit at that checkpoint, the clock shaped the run
        (module docstring) and the status says ``time_limit``.
        """
        h = self.highs
        info = h.getInfo()
        details["nodes"] = int(info.mip_node_count)
        has_solution = bool(h.getSolution().value_valid)
        if has_solution:
            res.solution_loader.load_vars()
        bound = float(info.mip_dual_bound)
        status = TIME_LIMIT if self._clock_passed else WORK_LIMIT
        return SolveResult(status=status if has_solution else status + NO_SOLUTION_SUFFIX,
                           has_solution=has_solution,
                           objective=float(info.objective_function_value) if has_solution else None,
                           bound=bound if abs(bound) < highspy.kHighsInf else None,
                           mip_gap=float(info.mip_gap) if has_solution else None, seconds=seconds,
                           details=details)

    def duals(self, model: pyo.ConcreteModel) -> dict:
        """Constraint → dual value, after an LP solve."""
        return self._opt.get_duals()

    def row_index(self, constraint) -> int:
        """The HiGHS row of a Pyomo constraint loaded by the last :meth:`solve`.

        Column generation uses it to append columns straight to the loaded HiGHS model
        (``self.highs.addCol``) with coefficients taken from the Pyomo formulation, instead of
        rewriting every touched Pyomo constraint each round.  After that the Pyomo model and
        the HiGHS model differ: keep re-solving through ``self.highs`` only.
        """
        return self._opt._pyomo_con_to_solver_con_map[constraint]

    def col_index(self, var) -> int:
        """The HiGHS column of a Pyomo variable loaded by the last :meth:`solve`."""
        return self._opt._pyomo_var_to_solver_var_map[id(var)]


def lp_from_arrays(*, costs, col_lower, col_upper, row_lower, row_upper, matrix, threads: int = 1,
                   seed: int = 0) -> highspy.Highs:
    """A HiGHS instance holding ``min costs·x  s.t.  row_lower ≤ A x ≤ row_upper,
    col_lower ≤ x ≤ col_upper``, ``A`` given column-wise (``matrix``, a SciPy sparse matrix),
    with fairspec's options (no output, ``threads``, ``random_seed``) and no time limit yet.

    For an LP whose rows are numbers already: a Pyomo model builds one expression object per
    nonzero and APPSI walks them all again to load it, which for millions of nonzeros takes
    minutes before HiGHS starts (the rule-set master on a million rows).  Models that are read,
    written (:func:`write_model`) or solved as MIPs stay in Pyomo; this path is for a large LP
    that is only re-solved through the returned object.  Infinite bounds are ``±inf``."""
    from pyomo.common.tee import capture_output

    csc = matrix.tocsc()
    csc.sort_indices()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = int(csc.shape[1]), int(csc.shape[0])
    lp.col_cost_ = np.asarray(costs, dtype=np.float64)
    lp.col_lower_ = np.asarray(col_lower, dtype=np.float64)
    lp.col_upper_ = np.asarray(col_upper, dtype=np.float64)
    lp.row_lower_ = np.asarray(row_lower, dtype=np.float64)
    lp.row_upper_ = np.asarray(row_upper, dtype=np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = csc.indptr.astype(np.int32)
    lp.a_matrix_.index_ = csc.indices.astype(np.int32)
    lp.a_matrix_.value_ = csc.data.astype(np.float64)
    with capture_output(capture_fd=True):  # HiGHS prints its banner on a process's first instance
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("random_seed", int(seed))
    status = h.passModel(lp)
    if status == highspy.HighsStatus.kError:
        raise SolverFailure("HiGHS refused the LP handed to it as arrays")
    return h


def _all_bounded(model: pyo.ConcreteModel) -> bool:
    return all(v.fixed or (v.has_lb() and v.has_ub()) for v in model.component_data_objects(pyo.Var, active=True))


def _is_mip(model: pyo.ConcreteModel) -> bool:
    return any(v.is_integer() or v.is_binary() for v in model.component_data_objects(pyo.Var, active=True))


def solve(model: pyo.ConcreteModel, *, time_limit: float = 60.0, mip_gap: float = 1e-4, threads: int = 1,
          seed: int = 0, max_checkpoints: int | None = None, warmstart: bool = False) -> SolveResult:
    """Solve ``model`` once with HiGHS; see :class:`HighsSession` for repeated solves.

    ``warmstart=True`` hands the variables' current values to HiGHS as a MIP start; a variable
    without a value counts as 0 there, so set every one.
    """
    return HighsSession(time_limit=time_limit, mip_gap=mip_gap, threads=threads, seed=seed,
                        max_checkpoints=max_checkpoints).solve(model, warmstart=warmstart)


def write_model(model: pyo.ConcreteModel, path: str) -> None:
    """Write ``model`` as LP or MPS, chosen by the file's suffix (``.lp`` / ``.mps``, in any case).

    The file is written under a temporary name and renamed into place: a failed write leaves
    no half model file, and an existing file as it was.
    """
    import contextlib
    import os
    import tempfile
    from pathlib import Path

    import pyomo.environ  # noqa: F401  (registers the LP and MPS writers)

    from fairspec.files import new_file_mode

    path = Path(path)
    # Pyomo infers the format from a lower-case suffix only, and would infer none from the
    # temporary name: the format is passed explicitly
    fmt = {".lp": "lp", ".mps": "mps"}.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: a model file is written as LP or MPS, so its name must end in .lp or .mps")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        model.write(tmp, format=fmt, io_options={"symbolic_solver_labels": True})
        # on disk before the rename, as every other output (fairspec.files.write_beside): a
        # crash must not leave the new name on an empty file
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, new_file_mode(path))  # mkstemp's 0600 would hide the file from others
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
