"""One process that loads compas and fits a family ``REPS`` times: the unit of a whole-process
cost measurement of calibration (issue 43).

    python benchmarks/calibration_fit_process.py tree calib 10        # 10 calibrated fits
    python benchmarks/calibration_fit_process.py tree plain 10        # 10 fits 'on train'
    python benchmarks/calibration_fit_process.py tree none 0          # loading only (the baseline)
    python benchmarks/calibration_fit_process.py rule_set calib 1 2   # a rule set, time_limit 2 s
    python benchmarks/calibration_fit_process.py forest calib 2       # a 10-tree forest

Time each with ``/usr/bin/time -v`` (user + system seconds), several runs alternating the
modes; the cost of one fit is (median - baseline median) / REPS, and the ratio calibrated /
plain is taken of those.  ``calibration_cost.py`` measures the same in one process.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from calibration_cost import family  # noqa: E402
from fairness_holds import load  # noqa: E402
from fairspec.calibration import CalibratedFairClassifier  # noqa: E402


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    name, mode, reps = argv[0], argv[1], int(argv[2])
    time_limit = float(argv[3]) if len(argv) > 3 else None
    X, y, g, cat = load("compas")
    for _ in range(reps):
        est = family(name, cat, 4, 0.05)
        if time_limit is not None:
            est.set_params(time_limit=time_limit)
        if mode == "calib":
            est = CalibratedFairClassifier(est)
        if mode != "none":
            est.fit(X, y, sensitive_features=g)


if __name__ == "__main__":
    main()
