"""The HiGHS wrapper reports what happened: optimum, infeasibility, time limits, thread changes."""
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest

from fairspec.solvers import highs


def knapsack(n=12, capacity=40):
    values = [(7 * i) % 11 + 3 for i in range(n)]
    weights = [(5 * i) % 9 + 4 for i in range(n)]
    m = pyo.ConcreteModel()
    m.goods = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.goods, domain=pyo.Binary)
    m.capacity = pyo.Constraint(expr=sum(weights[i] * m.x[i] for i in m.goods) <= capacity)
    m.total_value = pyo.Objective(expr=sum(values[i] * m.x[i] for i in m.goods), sense=pyo.maximize)
    return m, values, weights


def brute_force(values, weights, capacity=40):
    best = 0
    n = len(values)
    for mask in range(1 << n):
        w = sum(weights[i] for i in range(n) if mask >> i & 1)
        if w <= capacity:
            best = max(best, sum(values[i] for i in range(n) if mask >> i & 1))
    return best


def test_optimum_equals_brute_force_and_solution_is_loaded():
    m, values, weights = knapsack()
    res = highs.solve(m, time_limit=10)
    assert res.status == highs.OPTIMAL and res.has_solution and res.mip_gap == 0.0
    assert res.objective == brute_force(values, weights)
    assert sum(values[i] * round(pyo.value(m.x[i])) for i in m.goods) == res.objective


def test_a_change_of_thread_count_between_runs_still_solves():
    for threads in (2, 1, 2):
        m, values, weights = knapsack()
        res = highs.solve(m, time_limit=10, threads=threads)
        assert res.status == highs.OPTIMAL and res.objective == brute_force(values, weights)


def _their_mip(lp_file, threads: int) -> None:
    """The caller's own highspy run of ``lp_file`` on a pool ``threads`` wide, reset as HiGHS
    asks before a run of another size."""
    import highspy

    highspy.Highs.resetGlobalScheduler(True)
    theirs = highspy.Highs()
    theirs.setOptionValue("output_flag", False)
    theirs.setOptionValue("threads", threads)
    theirs.readModel(str(lp_file))
    theirs.run()
    assert theirs.getModelStatus() == highspy.HighsModelStatus.kOptimal


def test_a_mip_the_caller_solved_first_with_its_own_highs_does_not_break_ours(tmp_path, monkeypatch):
    m, values, weights = knapsack()
    m.write(str(tmp_path / "k.lp"), io_options={"symbolic_solver_labels": True})
    monkeypatch.setattr(highs, "_scheduler_threads", None)  # as in a process fairspec has not solved in
    _their_mip(tmp_path / "k.lp", threads=2)  # their pool is two wide; our runs ask for one
    m, values, weights = knapsack()
    res = highs.solve(m, time_limit=10, threads=1)
    assert res.status == highs.OPTIMAL and res.objective == brute_force(values, weights)


def test_a_mip_the_caller_solves_between_two_of_our_runs_does_not_break_the_second(tmp_path):
    # fairspec had cached the pool's size: the caller's 1-thread MIP after a 2-thread fit left
    # every LP and IP of the next 2-thread fit failing, and that fit returned another model
    m, values, weights = knapsack()
    m.write(str(tmp_path / "k.lp"), io_options={"symbolic_solver_labels": True})
    assert highs.solve(m, time_limit=10, threads=2).status == highs.OPTIMAL
    _their_mip(tmp_path / "k.lp", threads=1)
    m, values, weights = knapsack()
    res = highs.solve(m, time_limit=10, threads=2)
    assert res.status == highs.OPTIMAL and res.objective == brute_force(values, weights)


def test_a_run_highs_fails_raises_instead_of_passing_for_a_result(monkeypatch):
    # an 'error' status had been returned like a limit: the fit carried on without the model
    from pyomo.contrib.appsi.base import TerminationCondition

    m, _, _ = knapsack()
    session = highs.HighsSession(time_limit=10)
    real = session._opt.solve

    def failing(model):
        res = real(model)
        res.termination_condition = TerminationCondition.error
        return res

    monkeypatch.setattr(session._opt, "solve", failing)
    with pytest.raises(highs.SolverFailure, match="HiGHS failed to solve"):
        session.solve(m)


def test_infeasible_is_reported_without_a_solution():
    m, _, _ = knapsack()
    m.too_much = pyo.Constraint(expr=sum(m.x[i] for i in m.goods) >= 13)
    res = highs.solve(m, time_limit=10)
    assert res.status == highs.INFEASIBLE and not res.has_solution


def test_written_lp_and_mps_files_solve_to_the_same_optimum(tmp_path):
    import highspy

    m, values, weights = knapsack()
    expected = highs.solve(m, time_limit=10).objective
    for name in ("k.lp", "k.mps"):
        highs.write_model(m, str(tmp_path / name))
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.readModel(str(tmp_path / name))
        h.setOptionValue("threads", 1)
        highs.use_threads(1)
        h.run()
        assert abs(abs(h.getInfo().objective_function_value) - expected) < 1e-6


def test_a_written_model_file_is_on_disk_before_it_takes_its_name(tmp_path, monkeypatch):
    import os

    m, _, _ = knapsack()
    events = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: events.append(("fsync", os.fstat(fd).st_size)) or fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: events.append(("replace", Path(b).name)) or replace(a, b))
    highs.write_model(m, str(tmp_path / "k.lp"))
    # the whole file synced, then renamed: a crash cannot leave k.lp empty
    assert [e[0] for e in events] == ["fsync", "replace"] and events[0][1] == (tmp_path / "k.lp").stat().st_size > 0
    assert events[1][1] == "k.lp"


def multi_knapsack(n=30, rows=5, seed=0):
    """A MIP HiGHS needs a few hundred checkpoints to solve (not closed at the root)."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(10, 100, (rows, n))
    values = rng.integers(10, 100, n) + weights.sum(axis=0) // rows
    m = pyo.ConcreteModel()
    m.goods = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.goods, domain=pyo.Binary)
    m.capacity = pyo.Constraint(pyo.RangeSet(0, rows - 1), rule=lambda m, k: sum(
        int(weights[k, i]) * m.x[i] for i in m.goods) <= int(weights[k].sum() // 2))
    m.total_value = pyo.Objective(expr=sum(int(values[i]) * m.x[i] for i in m.goods), sense=pyo.maximize)
    return m, values


def test_work_limit_keeps_the_incumbent_and_stops_at_the_same_point_every_run():
    m, _ = multi_knapsack()
    optimum = highs.solve(m, time_limit=30, mip_gap=0.0)
    assert optimum.status == highs.OPTIMAL and optimum.details["checkpoints"] > 20
    runs = []
    for _ in range(3):
        m, values = multi_knapsack()
        res = highs.solve(m, time_limit=30, mip_gap=0.0, max_checkpoints=5)
        assert res.status == highs.WORK_LIMIT and res.has_solution
        assert res.details["checkpoints"] == 5
        # the incumbent is loaded and is what the objective says; the bound brackets the optimum
        chosen = tuple(round(pyo.value(m.x[i])) for i in m.goods)
        assert sum(int(values[i]) * chosen[i] for i in m.goods) == pytest.approx(res.objective)
        assert res.objective <= optimum.objective + 1e-6 <= res.bound + 2e-6
        runs.append((res.objective, res.bound, chosen))
    assert runs[0] == runs[1] == runs[2]


def test_a_work_limit_reached_in_the_tree_search_reports_exactly_its_checkpoints():
    # HiGHS asks the callback again on its way out of an interrupted tree search; those calls
    # were counted (63 reported at a limit of 60)
    m, _ = multi_knapsack(n=40, rows=6)
    res = highs.solve(m, time_limit=60, mip_gap=0.0, max_checkpoints=60)
    assert res.status == highs.WORK_LIMIT and res.details["nodes"] > 0
    assert res.details["checkpoints"] == 60


def _lp_instance(n=300, seed=0):
    import highspy

    rng = np.random.default_rng(seed)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for _ in range(n):
        h.addCol(rng.random(), 0, highspy.kHighsInf, 0, np.array([], dtype=np.int32), np.array([]))
    for _ in range(n):
        h.addRow(1, highspy.kHighsInf, n, np.arange(n, dtype=np.int32), rng.random(n))
    return h, rng


def test_highs_time_limit_counts_every_earlier_run_so_re_solves_need_an_offset():
    import highspy

    h, rng = _lp_instance()
    h.run()
    spent = h.getRunTime()
    assert spent > 0
    # the fact the offset exists for: a limit below the time already spent stops a re-solve at once
    h.setOptionValue("time_limit", spent * 0.9)
    h.changeColsCost(300, np.arange(300, dtype=np.int32), rng.random(300))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit
    # with the offset, the same re-solve has its own time and finishes
    h.setOptionValue("time_limit", highs.time_limit_from_now(h, 30.0))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert highs.time_limit_from_now(h, 2.0) == pytest.approx(h.getRunTime() + 2.0)


@pytest.mark.parametrize("options, status", [
    ({"mip_max_nodes": 1}, highs.ITERATION_LIMIT),  # a node limit: the root's incumbent is kept
    ({"mip_max_leaves": 1}, highs.ITERATION_LIMIT),
])
def test_limits_other_than_the_clock_keep_their_own_name(options, status):
    m, _ = multi_knapsack()
    res = highs.HighsSession(time_limit=30.0, mip_gap=0.0, options=options).solve(m)
    assert res.status == status and res.has_solution and res.mip_gap > 0
    assert not highs.stopped_by_clock(res.status)


def test_an_iteration_limit_without_a_solution_says_so():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(30), bounds=(0, 1))
    m.rows = pyo.Constraint(range(30), rule=lambda m, i: sum((i * j % 7 + 1) * m.x[j] for j in range(30)) <= 10 + i)
    m.value = pyo.Objective(expr=sum((j % 5 + 1) * m.x[j] for j in range(30)), sense=pyo.maximize)
    res = highs.HighsSession(time_limit=30.0, options={"simplex_iteration_limit": 1}).solve(m)
    assert res.status == highs.ITERATION_LIMIT + highs.NO_SOLUTION_SUFFIX and not res.has_solution
    assert not highs.stopped_by_clock(res.status)


@pytest.mark.slow
def test_a_checkpoint_stop_after_the_clock_ran_out_is_reported_as_the_clock():
    # HiGHS asks our interrupt callback before it looks at its clock, so a run whose time ran
    # out before the last checkpoint used to come back as a work limit, and "reproducible",
    # though the clock had cut the work before it. Building and presolving this MIP takes HiGHS
    # about 0.05 s before its first checkpoint: five times the 0.01 s limit.
    m, values = multi_knapsack(n=2000, rows=100)
    for i in m.goods:
        m.x[i].value = 0  # a feasible start, so there is an incumbent to keep
    res = highs.HighsSession(time_limit=0.01, mip_gap=0.0, max_checkpoints=1).solve(m, warmstart=True)
    assert res.details["checkpoints"] == 1
    assert res.status == highs.TIME_LIMIT and highs.stopped_by_clock(res.status)
    assert res.has_solution and res.objective == pytest.approx(
        sum(int(values[i]) * round(pyo.value(m.x[i])) for i in m.goods))
    # without the start there is nothing to keep
    m, _ = multi_knapsack(n=2000, rows=100)
    res = highs.HighsSession(time_limit=0.01, mip_gap=0.0, max_checkpoints=1).solve(m)
    assert res.status == highs.TIME_LIMIT_NO_SOLUTION and not res.has_solution


def test_a_session_re_solves_after_a_work_limit():
    # the same MIP re-solved in one session gets its full work limit again, and HiGHS's MIP
    # starts over, so it stops where the first run did
    m, _ = multi_knapsack()
    session = highs.HighsSession(time_limit=30, mip_gap=0.0, max_checkpoints=5)
    first = session.solve(m)
    again = session.solve(m)
    assert first.status == again.status == highs.WORK_LIMIT
    assert again.details["checkpoints"] == 5
    assert (again.objective, again.bound) == (first.objective, first.bound)


def _signal_during_a_long_mip(sig, raised):
    """A MIP that runs to its 30 s limit uninterrupted, sent ``sig`` 2.5 s in (building it
    takes about a second, so the signal comes while HiGHS runs): ``raised`` must come out, at
    a checkpoint, not at the clock."""
    import os
    import threading
    import time

    m, _ = multi_knapsack(n=2000, rows=100)
    session = highs.HighsSession(time_limit=30.0, mip_gap=0.0, max_checkpoints=10**6)
    threading.Timer(2.5, os.kill, (os.getpid(), sig)).start()
    start = time.perf_counter()
    with pytest.raises(raised):
        session.solve(m)
    assert time.perf_counter() - start < 15  # stopped at a checkpoint, not by the clock


def test_ctrl_c_during_a_mip_reaches_the_caller_once_highs_has_stopped(ctrl_c_raises):
    # Ctrl-C is raised inside whatever Python code runs next: during a MIP, our checkpoint
    # callback, called from HiGHS's C++, where the exception was lost and the run came back as
    # an 'error' status (the fit then carried on).
    import signal

    _signal_during_a_long_mip(signal.SIGINT, KeyboardInterrupt)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C works as before


@pytest.mark.slow
def test_sigterm_during_a_mip_reaches_the_callers_handler_once_highs_has_stopped():
    # the command line raises on SIGTERM as on Ctrl-C; raised inside HiGHS's callback it would
    # be lost the same way and the fit carry on, so it is held like Ctrl-C
    import signal

    class Terminated(Exception):
        pass

    def raise_terminated(signum, frame):
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        _signal_during_a_long_mip(signal.SIGTERM, Terminated)
        assert signal.getsignal(signal.SIGTERM) is raise_terminated
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_an_lp_left_at_a_limit_with_values_that_break_its_rows_has_no_solution():
    # APPSI counts any values as a solution: the dual simplex stopped after one iteration
    # returned "iteration_limit" with a point violating a row by 128 and an objective below the optimum
    rng = np.random.default_rng(1)
    a, c = rng.integers(1, 20, (40, 60)), rng.integers(1, 30, 60)
    b = a.sum(axis=1) // 4
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(60), bounds=(0, 10))
    m.rows = pyo.Constraint(range(40), rule=lambda m, i: sum(int(a[i, j]) * m.x[j] for j in range(60)) >= int(b[i]))
    m.cost = pyo.Objective(expr=sum(int(c[j]) * m.x[j] for j in range(60)))
    res = highs.HighsSession(time_limit=30.0, options={"simplex_iteration_limit": 1}).solve(m)
    assert res.status == highs.ITERATION_LIMIT + highs.NO_SOLUTION_SUFFIX
    assert not res.has_solution and res.objective is None and res.bound is None


def test_an_unbounded_mip_is_not_called_infeasible():
    # HiGHS's presolve says "infeasible or unbounded"; the wrapper said "infeasible" of a MIP
    # that x = 0 satisfies
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), domain=pyo.NonNegativeIntegers)
    m.row = pyo.Constraint(expr=m.x[0] - m.x[1] <= 3)
    m.value = pyo.Objective(expr=m.x[0] + m.x[1], sense=pyo.maximize)
    res = highs.solve(m, time_limit=10)
    assert res.status == "infeasible_or_unbounded" and not res.has_solution
    assert res.status == highs.INFEASIBLE_OR_UNBOUNDED
    # with every variable bounded it cannot be unbounded: infeasible, as before
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), domain=pyo.Binary)
    m.row = pyo.Constraint(expr=m.x[0] + m.x[1] >= 3)
    m.value = pyo.Objective(expr=m.x[0] + m.x[1], sense=pyo.maximize)
    assert highs.solve(m, time_limit=10).status == highs.INFEASIBLE
