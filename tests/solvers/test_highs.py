"""The HiGHS wrapper reports what happened: optimum, infeasibility, time limits, thread changes."""
import pyomo.environ as pyo

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
