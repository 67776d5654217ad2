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
