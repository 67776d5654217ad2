"""`fairspec compile --emit-model` writes the rule-set master and pricing problems that HiGHS reads."""
import highspy
import numpy as np
import pytest

from fairspec.cli import main
from fairspec.solvers.highs import use_threads
from tests.conftest import sample_csv
import stat

SPEC = """spec compas_rules_small
data "{data}" where race in ["African-American", "Caucasian"]
target two_year_recid positive 1
protected race
features {{ age numeric  priors_count numeric  c_charge_degree categorical }}
fairness equal_opportunity <= 0.05
model rule_set {{ max_complexity 10  max_conditions 2 }}
solver {{ time_limit 10s  threads 1 }}
"""


def test_emit_model_writes_lp_and_mps_that_highs_reads(tmp_path, capsys):
    data = sample_csv("compas", 400, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=data))
    for suffix in ("lp", "mps"):
        target = tmp_path / f"master.{suffix}"
        assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 0
        out = capsys.readouterr().out
        pricing = tmp_path / f"master.pricing.{suffix}"
        assert f"wrote {target}" in out and f"wrote {pricing}" in out
        for path in (target, pricing):
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("threads", 1)
            assert h.readModel(str(path)) == highspy.HighsStatus.kOk
            assert h.getNumCol() > 0 and h.getNumRow() > 0
            use_threads(1)
            h.run()
            assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal


def _emitted_and_pool(tmp_path, capsys, evaluate=""):
    """Emit the master of a small compas spec; return (HiGHS solved on the file, the warm-start
    pool and patterns the kept model's rows give, the number of rows the spec keeps)."""
    import fairspec
    from fairspec.pipeline.train import prepare_data, training_matrix
    from fairspec.plan.compile import compile_with_table

    data = sample_csv("compas", 400, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=data) + evaluate)
    target = tmp_path / "master.lp"
    assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 0
    capsys.readouterr()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    use_threads(1)
    h.setOptionValue("threads", 1)
    h.readModel(str(target))
    h.run()
    plan, table = compile_with_table(fairspec.load_spec(spec))
    prepared = prepare_data(plan, table=table)
    _, _, est, X, y, g = training_matrix(plan, prepared, plan.fairness[0])
    *_, patterns, _ = est._prepare(X, y, g)
    return h, est._warm_start_pool(patterns), patterns, len(prepared.y)


def test_the_emitted_masters_optimum_is_the_training_error_of_the_rule_set_it_selects(tmp_path, capsys):
    # small data: the fit's final IP counts covered negatives exactly, and so must the file
    h, pool, patterns, _ = _emitted_and_pool(tmp_path, capsys)
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    values = h.getSolution().col_value
    chosen = [int(h.getColName(j)[1].split("(")[1].rstrip(")")) for j in range(h.getNumCol())
              if h.getColName(j)[1].startswith("w(") and values[j] > 0.5]
    covered = pool.matrix(chosen).any(axis=1) if chosen else np.zeros(len(patterns.y), dtype=bool)
    errors = patterns.count[covered.astype(int) != patterns.y].sum()
    assert chosen and h.getInfo().objective_function_value == pytest.approx(errors)


def test_a_cv_spec_emits_the_problem_of_the_model_it_keeps_on_all_rows(tmp_path, capsys):
    h, _, patterns, rows = _emitted_and_pool(tmp_path, capsys, "evaluate { cv 3 seed 1 }\n")
    assert patterns.count.sum() == rows  # every row the spec keeps, not fold 1's two thirds
    positives = sum(1 for j in range(h.getNumCol()) if h.getColName(j)[1].startswith("zeta("))
    assert positives == int((patterns.y == 1).sum())


def test_features_that_give_no_condition_are_a_clear_error_not_a_crash(tmp_path, capsys):
    data = sample_csv("compas", 400, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=data).replace('where race in ["African-American", "Caucasian"]',
                                                   "where juv_fel_count == 0").replace(
        "features {{ age numeric  priors_count numeric  c_charge_degree categorical }}".format(),
        "features { juv_fel_count numeric }"))
    code = main(["compile", str(spec), "--emit-model", str(tmp_path / "m.lp"), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and f"{spec}: error: the features give no condition" in err
    assert not list(tmp_path.glob("m*.lp"))


def test_the_named_path_replaces_only_an_earlier_model_file_never_the_spec_or_its_data(tmp_path, capsys):
    # --emit-model over the spec, its data or notes under a .lp name replaced them, exit 0 (found in review)
    data = sample_csv("compas", 400, tmp_path / "compas.lp")
    spec = tmp_path / "s.lp"
    spec.write_text(SPEC.format(data=data))
    notes = tmp_path / "notes.lp"
    notes.write_text("important notes\n")
    kept = {p: p.read_bytes() for p in (data, spec, notes)}
    for target in kept:
        assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 2
        assert f"--emit-model: {target} exists and is not a model file fairspec wrote" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in kept} == kept
    assert not list(tmp_path.glob("*.pricing.lp"))
    emitted = tmp_path / "m.lp"
    for _ in range(2):  # an earlier emitted model file is replaced
        assert main(["compile", str(spec), "--emit-model", str(emitted), "-q"]) == 0
    assert emitted.read_text().startswith("\\* Source Pyomo model name=faircg_master")


def test_the_pricing_file_beside_the_named_one_replaces_only_an_earlier_model_file(tmp_path, capsys):
    # --emit-model m.lp wrote m.pricing.lp over whatever file had that name, though the user
    # never named it (found in review)
    data = sample_csv("compas", 400, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=data))
    target, pricing = tmp_path / "m.lp", tmp_path / "m.pricing.lp"
    pricing.write_text("my notes on pricing\n")
    assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 2
    assert "m.pricing.lp, which exists and is not a model file fairspec wrote" in capsys.readouterr().err
    assert pricing.read_text() == "my notes on pricing\n" and not target.exists()
    pricing.unlink()
    for _ in range(2):  # an earlier emitted pricing file is replaced
        assert main(["compile", str(spec), "--emit-model", str(target), "-q"]) == 0
    assert pricing.read_text().startswith("\\* Source Pyomo model name=faircg_pricing")
    mps = tmp_path / "m.mps"
    for _ in range(2):
        assert main(["compile", str(spec), "--emit-model", str(mps), "-q"]) == 0
    capsys.readouterr()


def test_the_pricing_problem_emitted_on_a_subsample_is_scaled_as_the_fit_prices_it(tmp_path, monkeypatch):
    # the subsample's weights had not been scaled up to the whole while the complexity price λ
    # was: the file's optimum was +10.6 where the pricing IP over every row reaches −55, so a
    # reader would conclude no improving column exists (found in review)
    import fairspec.models.rule_set as rule_set
    from fairspec.models.rule_set.column_generation import MasterLP
    from fairspec.models.rule_set.pricing import solve_pricing_ip
    from fairspec.registry.criteria import make_criterion
    from fairspec.solvers.highs import HighsSession

    rng = np.random.default_rng(1)
    n = 600
    g = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * X[:, 0] - X[:, 1] + 0.5 * g)))).astype(int)
    est = rule_set.FairRuleSetClassifier(criterion=make_criterion("equal_opportunity", 0.05), max_complexity=4,
                                         max_conditions=3, thresholds=6)
    _, _, _, _, _, patterns, problem = est._prepare(X, y, g)
    _, _, _, v, price = MasterLP(problem, est._warm_start_pool(patterns), HighsSession(time_limit=30.0)).solve(30.0)
    rows = int((~patterns.literals[v < 0]).sum())
    _, whole, _ = solve_pricing_ip(patterns.literals, v, price, max_conditions=3, time_limit=60)
    monkeypatch.setattr(rule_set, "MAX_EMITTED_PRICING_ROWS", rows // 3)  # a subsample on small data
    rule_set.emit_model(est, X, y, g, tmp_path / "m.lp")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.readModel(str(tmp_path / "m.pricing.lp"))
    h.run()
    emitted = h.getInfo().objective_function_value
    assert whole < 0 and emitted == pytest.approx(whole, rel=0.25)


RULES = """spec rules
data "{data}" where race in ["African-American", "Caucasian"]
target two_year_recid positive 1
protected race
features {{ age numeric  priors_count numeric  c_charge_degree categorical }}
fairness equal_opportunity <= {bound}
model rule_set {{ max_complexity 10  max_conditions 2 }}
solver {{ time_limit 10s  threads 1 }}
"""


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


def test_a_listed_parameter_emits_the_problem_at_its_first_value_and_says_so(tmp_path, capsys):
    # the calibration chooses in training: before it, the files can only hold one value's problem
    data = sample_csv("compas", 400, tmp_path / "compas.csv")
    spec = tmp_path / "s.fair"
    spec.write_text(SPEC.format(data=data).replace("max_complexity 10", "max_complexity [8, 10]"))
    assert main(["compile", str(spec), "--emit-model", str(tmp_path / "m.lp"), "-q"]) == 0
    captured = capsys.readouterr()
    assert "max_complexity: chosen among 8, 10 by the calibration" in captured.out
    assert ("note: the calibration chooses max_complexity among 2 values in training; the model files hold the "
            "problem at the first, max_complexity 8") in captured.err
