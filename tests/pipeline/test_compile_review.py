"""`fairspec compile`: the plan says what the spec says, --emit-model says what it wrote, and the
HiGHS wrapper reports only what HiGHS established (found in review)."""
import stat

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest

from fairspec.cli import main
from fairspec.dsl.load import parse_spec
from fairspec.plan.compile import compile_spec
from fairspec.solvers import highs
from tests.conftest import sample_csv

RULES = """spec rules
data "{data}" where race in ["African-American", "Caucasian"]
target two_year_recid positive 1
protected race
features {{ age numeric  priors_count numeric  c_charge_degree categorical }}
fairness equal_opportunity <= {bound}
model rule_set {{ max_complexity 10  max_conditions 2 }}
solver {{ time_limit 10s  threads 1 }}
"""


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"age": rng.integers(18, 70, n), "sex": rng.choice(["F", "M"], n),
                          "flag": rng.choice(["true", "false"], n), "y": rng.choice(["true", "false"], n)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    return frame


def plan_text(tmp_path, table, body):
    head = f'spec s\ndata "{tmp_path / "d.csv"}"\ntarget y positive "true"\nprotected sex\nfeatures {{ age }}\n'
    return compile_spec(parse_spec(head + body, "t.fair"), table).describe()


def test_the_plan_prints_every_digit_the_spec_wrote(tmp_path, table):
    # :g kept six digits: a sweep over two bounds printed "<= 0.05" twice, and a time limit of
    # 1234567 s read "1.23457e+06s"
    text = plan_text(tmp_path, table, "fairness equal_opportunity <= [0.05000001, 0.05]\nmodel tree\n"
                                      "solver { time_limit 1234567s  mip_gap 0.00012345678 }\n"
                                      "evaluate { holdout 0.123456789 }\n")
    assert "fairness[0] equal_opportunity <= 0.05000001\n" in text
    assert "fairness[1] equal_opportunity <= 0.05\n" in text
    assert "time_limit=1234567s threads=1* mip_gap=0.00012345678 " in text
    assert "holdout     0.123456789 of rows" in text


def test_the_plan_writes_true_as_the_spec_does(tmp_path, table):
    # "positive class True" and "flag in [True, False]": Python's spelling, not the spec's
    table["y"] = table["y"] == "true"
    table["flag"] = table["flag"] == "true"
    table.to_csv(tmp_path / "d.csv", index=False)
    head = (f'spec s\ndata "{tmp_path / "d.csv"}" where flag in [true, false]\ntarget y positive true\n'
            "protected sex\nfeatures { age }\nmodel tree\n")
    text = compile_spec(parse_spec(head, "t.fair"), pd.read_csv(tmp_path / "d.csv")).describe()
    assert "keep rows   flag in [true, false]\n" in text and "(positive class true)" in text


@pytest.mark.parametrize("fairness, note", [("fairness equal_opportunity penalty 0.5\n", True),
                                            ("", True), ("fairness equal_opportunity <= 0.1\n", False)])
def test_a_tree_without_a_bound_says_its_solver_limits_act_on_nothing(tmp_path, table, fairness, note):
    # specs/adult_tree.fair printed "time_limit=60s ... mip_gap=0.0001" for a tree that runs no MIP
    text = plan_text(tmp_path, table, fairness + "model tree\n")
    assert "time_limit=60s" in text
    assert ("no leaf-relabelling MIP runs: time_limit and mip_gap act on nothing" in text) == note


def test_the_help_of_emit_model_names_the_pricing_file_and_the_family(capsys):
    # it said "write the optimisation model": one file, for any family
    assert main(["compile", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "rule_set only" in text and "NAME.pricing.SUFFIX" in text


def test_a_sweep_says_which_settings_problem_was_written(tmp_path, capsys):
    data = sample_csv("compas", 300, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(RULES.format(data=data, bound="[0.2, 0.05]"))
    assert main(["compile", str(spec), "--emit-model", str(tmp_path / "m.lp"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "sweeps 2 fairness settings; the model files hold the problem under the first alone" in err


def test_a_replaced_model_file_keeps_its_mode(tmp_path, capsys):
    # a private m.lp (0600) came back readable by everyone, as a new file in the staging directory
    data = sample_csv("compas", 300, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(RULES.format(data=data, bound="0.1"))
    target = tmp_path / "m.mps"
    target.write_text("")
    target.chmod(0o600)
    assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.stat().st_size > 0
    capsys.readouterr()


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
