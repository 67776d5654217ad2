"""The README shows what the repository holds: its spec is the bundled example's, and the
numbers under its picture of that example's report are the committed report's."""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_spec_is_the_bundled_example():
    shown = re.search(r"## A spec\n\n```text\n(.*?)```", README, re.S).group(1)
    spec = (ROOT / "specs" / "compas_rules.fair").read_text(encoding="utf-8")
    statements = "\n".join(line for line in spec.splitlines() if not line.startswith("#")).strip()
    assert shown.strip() == statements


def test_the_screenshot_caption_quotes_the_committed_report():
    caption = re.search(r"\*The top of `reports/compas_rules/report\.html`.*?\*", README, re.S).group(0)
    train, bound, test = (float(x) for x in re.search(
        r"training rows \(([\d.]+) ≤ ([\d.]+)\) but not on\s+the test rows \(([\d.]+)\)", caption).groups())
    fairness = json.loads((ROOT / "reports" / "compas_rules" / "metrics.json").read_text())["fairness"]
    assert bound == fairness["bound"]
    assert train == round(fairness["achieved_train"], 3) and fairness["met_train"] is True
    assert test == round(fairness["achieved_test"], 3) and fairness["met_test"] is False


def test_the_timings_quoted_are_the_committed_examples():
    """A time the README gives for the bundled example is the one its committed metrics.json holds."""
    metrics = json.loads((ROOT / "reports" / "compas_rules" / "metrics.json").read_text())
    fit = re.search(r"the committed report's\s+fit\s+took\s+(\d+) s", README).group(1)
    assert int(fit) == round(metrics["timing"]["fit_seconds"])
    setup = re.search(r"`setup_seconds`:\s+([\d.]+) s\s+in\s+the\s+committed\s+compas\s+report", README).group(1)
    assert float(setup) == round(metrics["training_log"]["setup_seconds"], 2)


def _limit(value: float) -> str:
    return f"{value:.0e}".replace("e-0", "e-") if 0 < value < 1e-3 else f"{value:g}"


def test_the_family_table_gives_every_declared_parameter_its_default_and_range():
    from fairspec.registry.families import FAMILIES

    for family in (f for f in FAMILIES.values() if f.implemented):
        row = re.search(rf"^\| `{family.name}` \|(.*)$", README, re.M).group(1)
        for param in family.params:
            assert re.search(rf"`{param.name}[` ]", row), (family.name, param.name)
            if param.kind == "block":
                for inner in param.params:
                    assert re.search(rf"\b{inner.name} {str(inner.default).lower()}\b", row), (param.name, inner.name)
                continue
            default = "true" if param.default is True else _limit(param.default) if isinstance(
                param.default, (int, float)) else str(param.default)
            shown = re.search(rf"`{param.name}`[^(]*\(([^;)]*)", row).group(1)
            assert shown.split(" ")[0] in (default, str(param.default)), (family.name, param.name, shown)
            if param.low is not None:
                expected = (f"{_limit(param.low)}–{_limit(param.high)}" if param.high is not None
                            else f"≥ {_limit(param.low)}")
                assert expected in row.split(f"`{param.name}`")[1].split("`")[0], (family.name, param.name)


def _keys(value, path=()):
    """Every key of a JSON document but those below a place whose keys are data (group, feature
    and criterion names) or another document (the estimator, the fit log)."""
    opaque = {("model", "estimator"), ("model", "params"), ("training", "fit_log"), ("training_log",),
              ("groups",), ("missing",), ("gaps",)}
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            if not any(path[-len(o):] + (key,) == o or (key,) == o for o in opaque):
                yield from _keys(inner, path + (key,))
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner, path)


def test_artifacts_names_every_field_the_bundled_runs_write():
    artifacts = (ROOT / "docs" / "ARTIFACTS.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "reports").rglob("*.json")):
        for key in set(_keys(json.loads(path.read_text()))):
            assert f'"{key}"' in artifacts, (path.relative_to(ROOT), key)
