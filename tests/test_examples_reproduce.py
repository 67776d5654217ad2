"""Every committed example whose report says "Reproducible: yes" is what its spec trains today.

Each bundled spec is trained again (``compile-and-train SPEC --output TMP``, under
``--no-clock-cap`` where the family has work limits, so a slow machine gives the same model,
later) and its ``model.json`` and ``metrics.json`` are compared with the committed ones under
``reports/<name>/``, field by field, leaving out only what differs from run to run by design:
the creation time, wall-clock seconds and the model file's digest (which covers the creation
time).  A stale example (a spec, the code or the data changed, and ``python
reports/regenerate.py`` was not run) fails here.  The guarantee holds under the package
versions the examples were made with (their ``software`` block; ``.ci/run`` installs those,
from ``reports/versions.txt``): under others this test fails, naming them, instead of comparing.
"""
from __future__ import annotations

import json
import math
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from fairspec.cli import main
from tests.conftest import ROOT, SPECS

#: keys whose values differ between two runs of the same fit, wherever they appear
VOLATILE = ("created", "model_sha256", "timing")
#: the families whose stages a clock can cut (the others refuse --no-clock-cap)
CLOCKED = ("rule_set", "tree")
NUMBER = r"[+-]?\d+\.\d+(?:e[+-]?\d+)?"


def _stable(doc, leave_out=VOLATILE):
    if isinstance(doc, dict):
        return {k: _stable(v, leave_out) for k, v in doc.items() if k not in leave_out and "seconds" not in k}
    if isinstance(doc, list):
        return [_stable(v, leave_out) for v in doc]
    return doc


def _runs(directory: Path) -> list[Path]:
    return sorted(directory.glob("point-*")) or [directory]


def _differences(committed, fresh, place="") -> list[str]:
    """Every place where ``fresh`` is not ``committed``: exactly, but for a logistic model's
    coefficients (``/linear/``), which the linear algebra library's kernel for the processor
    moves in their last digits (about 1e-12 relative, measured under an emulated SSE-era core;
    docs/REPRODUCIBILITY.md), and are compared to 1e-9 relative."""
    if isinstance(committed, dict) and isinstance(fresh, dict):
        return [d for k in sorted(set(committed) | set(fresh))
                for d in _differences(committed.get(k), fresh.get(k), f"{place}/{k}")]
    if isinstance(committed, list) and isinstance(fresh, list) and len(committed) == len(fresh):
        return [d for i, (a, b) in enumerate(zip(committed, fresh)) for d in _differences(a, b, f"{place}[{i}]")]
    if ("/linear/" in place and isinstance(committed, float) and isinstance(fresh, float)
            and math.isclose(committed, fresh, rel_tol=1e-9, abs_tol=1e-12)):
        return []
    if place.startswith("/model/text") and isinstance(committed, str) and isinstance(fresh, str):
        # a logistic model's text prints those coefficients with every digit
        numbers = [re.findall(NUMBER, t) for t in (committed, fresh)]
        if (re.sub(NUMBER, "#", committed) == re.sub(NUMBER, "#", fresh) and len(numbers[0]) == len(numbers[1])
                and all(math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(*numbers))):
            return []
    return [] if committed == fresh else [f"{place}: committed {committed!r}, now {fresh!r}"]


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_a_reproducible_committed_example_is_what_its_spec_trains(spec, tmp_path, capsys, monkeypatch):
    committed = ROOT / "reports" / spec.stem
    assert (committed / "report.html").is_file(), \
        f"{spec.name} has no committed report: run python reports/regenerate.py"
    models = [json.loads((run / "model.json").read_text(encoding="utf-8")) for run in _runs(committed)]
    if not all(m["training"]["fit_log"].get("reproducible", True) for m in models):
        pytest.skip(f"the committed report of {spec.name} says the clock cut its fit: not reproducible, "
                    "so there is nothing to compare (regenerate it on an idle machine)")
    software = models[0]["software"]
    other = {name: (made, version(name)) for name, made in software.items()
             if name != "python" and version(name) != made}
    assert not other, (f"{spec.name}'s committed example was made under other package versions (committed, "
                       f"installed): {other}; install reports/versions.txt or run python reports/regenerate.py")
    family = models[0]["model"]["family"]
    monkeypatch.chdir(ROOT)  # the spec's paths, as regenerate.py gives them
    argv = ["compile-and-train", str(spec.relative_to(ROOT)), "--output", str(tmp_path / "run"), "-q"]
    assert main(argv + (["--no-clock-cap"] if family in CLOCKED else [])) == 0, capsys.readouterr().err
    fresh_runs = _runs(tmp_path / "run")
    assert len(fresh_runs) == len(models)
    # --no-clock-cap is recorded as such (clock_cap false, no_clock_cap_flag); the committed run
    # read clock_cap from its spec, and a fit the clock cut none of is the same either way
    leave_out = VOLATILE + (("clock_cap", "no_clock_cap_flag") if family in CLOCKED else ())
    problems = []
    for old_run, new_run in zip(_runs(committed), fresh_runs):
        for name in ("model.json", "metrics.json"):
            old = _stable(json.loads((old_run / name).read_text(encoding="utf-8")), leave_out)
            new = _stable(json.loads((new_run / name).read_text(encoding="utf-8")), leave_out)
            problems += [f"{old_run.relative_to(ROOT)}/{name}{d}" for d in _differences(old, new)]
    assert not problems, (f"{spec.name} trains another model than the committed one ({len(problems)} fields; "
                          f"run python reports/regenerate.py if the change is meant):\n" + "\n".join(problems[:20]))
    capsys.readouterr()


def test_the_versions_file_is_the_committed_examples_software():
    """reports/versions.txt pins what the examples were made with, so CI can install it."""
    pinned = dict(line.split("==") for line in (ROOT / "reports" / "versions.txt").read_text().split()
                  if "==" in line)
    for path in sorted((ROOT / "reports").rglob("model.json")):
        software = json.loads(path.read_text(encoding="utf-8"))["software"]
        assert {k: v for k, v in software.items() if k != "python"} == pinned, path
