"""`fairspec compile --emit-model` writes the rule-set master and pricing problems that HiGHS reads."""
import highspy

from fairspec.cli import main
from fairspec.solvers.highs import use_threads
from tests.conftest import sample_csv

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
