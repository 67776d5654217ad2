"""The scale benchmark's cluster job (benchmarks/scale.py): its sweep's bounds hold on the training
rows (55 fits, not 55 calibrated ones), and its "same" check compares what must be byte-identical.
No fit is run."""
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from fairspec.dsl.load import parse_spec
from fairspec.plan.compile import compile_spec

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "benchmarks" / "scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sweep_list_holds_on_train_so_each_point_is_one_fit(bench):
    text = bench.SWEEP_SPEC.format(data=ROOT / "data" / "compas.csv.gz", limit=1)
    plan = compile_spec(parse_spec(text, "sweep.fair"))
    assert [c.bound for c in plan.fairness] == [0.02, 0.05, 0.1, 0.15, 0.2]
    assert plan.fairness_on_train and not plan.calibrates
    # without `on train` the same list is calibrated: about ten fits a point for a rule set
    calibrated = compile_spec(parse_spec(text.replace(" on train", ""), "sweep.fair"))
    assert calibrated.calibrates and not calibrated.fairness_on_train


def fit(doc, scores=(0.25, 0.75), seconds=1.0):
    estimator = SimpleNamespace(to_json=lambda: {"rules": doc, "fit_log": {"seconds": seconds, "rounds": 3}})
    return (SimpleNamespace(estimator=estimator), np.array([3, 4]), np.array([0, 1]), np.array(scores), seconds)


def test_same_fits_ignores_timings_only(bench):
    a = [fit(["r"]), fit(["s"], seconds=2.0), ValueError("no rows")]
    b = [fit(["r"], seconds=9.0), fit(["s"]), ValueError("no rows")]
    assert bench.same_fits(a, b)
    assert not bench.same_fits(a, [fit(["r"]), fit(["t"]), ValueError("no rows")])  # another model
    nudged = np.nextafter(0.75, 1.0)
    assert not bench.same_fits(a, [fit(["r"], scores=(0.25, nudged)), a[1], a[2]])  # one score's last bit
    assert not bench.same_fits(a, [a[0], a[1], ValueError("another")])
    assert not bench.same_fits(a, a[:2])
