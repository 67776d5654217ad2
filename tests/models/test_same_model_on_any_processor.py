"""The same spec, data and seed give the same model on processors with other instruction sets.

Each fit runs twice in a subprocess: once as this machine is, once with numpy's SIMD loops
above its baseline switched off (``NPY_DISABLE_CPU_FEATURES``) and OpenBLAS told to use the
kernels of an SSE-era core (``OPENBLAS_CORETYPE=Prescott``), which is what another processor
changes in a fit (``docs/REPRODUCIBILITY.md``).  Before the sums of the rule-set fit were put on
a grid (:mod:`fairspec.models.exact_sums`), the rule-set case below gave another rule set in
the second environment (seeds 2 and 3 of this sample, measured 2026-11-27).
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from tests.conftest import DATA

pytestmark = pytest.mark.slow

FIT = r"""
import json, sys
import numpy as np, pandas as pd, threadpoolctl
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
from fairspec.models.missing_tree import MissingAwareForestClassifier
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.registry.criteria import make_criterion

seed = int(sys.argv[2])
frame = pd.read_csv(sys.argv[1])
frame = frame[frame.race.isin(["African-American", "Caucasian"])].sample(n=800, random_state=seed)
X = np.column_stack([frame[["age", "priors_count", "juv_fel_count", "juv_misd_count", "juv_other_count"]]
                     .to_numpy(float), (frame.c_charge_degree == "F").to_numpy(float),
                     (frame.sex == "Male").to_numpy(float)])
y, g = frame.two_year_recid.to_numpy(), frame.race.to_numpy()
rules = FairRuleSetClassifier(max_complexity=12, max_conditions=3, criterion=make_criterion("equal_opportunity", 0.05),
                              categorical_features=(5, 6), time_limit=2.0, mip_gap=0.01, random_state=seed,
                              clock_cap=False, search_cells=2_000_000, ip_checkpoints=3).fit(X, y, g)
X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
forest = MissingAwareForestClassifier(n_estimators=3, max_depth=4, missing="fractional", criterion="entropy",
                                      categorical_features=(5, 6), random_state=seed, clock_cap=False,
                                      fairness=make_criterion("equal_opportunity", 0.05), time_limit=5).fit(X, y, g)
print(json.dumps({
    "simd": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
    "blas": sorted(str(i.get("architecture")) for i in threadpoolctl.threadpool_info()
                   if i["internal_api"] == "openblas"),
    "rules": rules.to_json(), "forest": forest.to_json()}, sort_keys=True, default=str))
"""


def _fit(seed: int, env: dict) -> dict:
    result = subprocess.run([sys.executable, "-c", FIT, str(DATA / "compas.csv.gz"), str(seed)],
                            env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def _without_timings(doc):
    if isinstance(doc, dict):
        return {k: _without_timings(v) for k, v in doc.items() if "seconds" not in k}
    if isinstance(doc, list):
        return [_without_timings(v) for v in doc]
    return doc


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the emulated cores are x86-64 ones")
@pytest.mark.parametrize("seed", [2, 3])
def test_a_rule_set_and_a_forest_are_the_same_under_other_simd_and_blas_kernels(seed):
    from numpy._core._multiarray_umath import __cpu_dispatch__

    native = _fit(seed, {})
    other = _fit(seed, {"NPY_DISABLE_CPU_FEATURES": " ".join(__cpu_dispatch__), "OPENBLAS_CORETYPE": "Prescott"})
    # the two runs did differ in what a processor changes, or the comparison would prove nothing
    # (OpenBLAS names Prescott's kernels "Katmai"; numpy and scipy each load an OpenBLAS)
    assert other["simd"] == [] and set(other["blas"]) <= {"Prescott", "Katmai"}, other
    if native["simd"] == other["simd"] and native["blas"] == other["blas"]:
        pytest.skip("this processor already runs numpy's baseline loops and OpenBLAS's Prescott kernels")
    assert _without_timings(native["rules"]) == _without_timings(other["rules"])
    assert _without_timings(native["forest"]) == _without_timings(other["forest"])
