"""The docs say what the repository holds, and cannot fall behind it unnoticed.

README: its spec is the bundled example's, the numbers under its picture are the committed
report's (``reports/``, never a run made here), and it stays an entrance. docs/LANGUAGE.md:
every statement and keyword of the grammar, and every family, parameter, default and range of
the tables the checker reads; a failure names what is undocumented. docs/CLI.md: every command
and option of the parser. docs/ARTIFACTS.md: every field the bundled runs write.
"""
import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LANGUAGE_PATH = ROOT / "docs" / "LANGUAGE.md"
LANGUAGE = LANGUAGE_PATH.read_text(encoding="utf-8")


def test_the_readme_spec_is_the_bundled_example():
    shown = re.search(r"## A spec\n\n```text\n(.*?)```", README, re.S).group(1)
    spec = (ROOT / "specs" / "compas_rules.fair").read_text(encoding="utf-8")
    statements = "\n".join(line for line in spec.splitlines() if not line.startswith("#")).strip()
    assert shown.strip() == statements


def test_the_screenshot_caption_quotes_the_committed_report():
    caption = re.search(r"\*The top of `reports/compas_rules/report\.html`.*?\*", README, re.S).group(0)
    caption = " ".join(caption.split())
    train, bound, rows, test, low, high = re.search(
        r"training rows \(([\d.]+) ≤ ([\d.]+)\).*?on the ([\d,]+) test rows it is ([\d.]+), 95% interval ([\d.]+) to "
        r"([\d.]+)", caption).groups()
    metrics = json.loads((ROOT / "reports" / "compas_rules" / "metrics.json").read_text())
    fairness = metrics["fairness"]
    assert float(bound) == fairness["bound"] and fairness["holds_on"] == "unseen"
    assert float(train) == round(fairness["achieved_train"], 3) and fairness["met_train"] is True
    assert int(rows.replace(",", "")) == metrics["test"]["n"]
    assert float(test) == round(fairness["achieved_test"], 3)
    low, high = float(low), float(high)
    assert [low, high] == [round(x, 3) for x in fairness["interval_test"]]
    # the verdict the caption names is the committed report's badge
    verdict = re.search(r"report says ((?:NOT )?[A-Z]+)\b", caption).group(1)
    html = (ROOT / "reports" / "compas_rules" / "report.html").read_text(encoding="utf-8")
    assert re.search(rf">\s*{verdict}\s*<", html), verdict


def test_the_readme_is_an_entrance():
    lines = README.splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines: move the detail to docs/"
    paragraphs = [p for p in re.split(r"\n\s*\n", README) if not p.lstrip().startswith(("```", "|", "!"))]
    longest = max(paragraphs, key=lambda p: len(p.split()))
    assert len(longest.split()) <= 120, longest[:200]


def test_every_file_the_readme_sends_a_reader_to_exists():
    named = set(re.findall(r"`((?:docs|benchmarks|data|reports|specs)/[\w./-]+\.(?:md|py|fair|png))`", README))
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing


def _reference_tables():
    spec = importlib.util.spec_from_file_location("reference_tables", ROOT / "docs" / "reference_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_language_reference_tables_are_the_ones_the_checker_reads():
    tables = _reference_tables()
    problems = [f"{name}: undocumented: no '<!-- generated: {name} -->' block (add a section with one)"
                for name in tables.missing_blocks(LANGUAGE)]
    expected = tables.blocks()
    for match in tables.BLOCK.finditer(LANGUAGE):
        name, have = match.group("name"), match.group("body").splitlines()
        want = expected.get(name, "").splitlines()
        problems += [f"{name}: undocumented: {line}" for line in want if line not in have]
        problems += [f"{name}: no longer so: {line}" for line in have if line not in want]
    assert not problems, ("docs/LANGUAGE.md is behind the checker's tables (run python docs/reference_tables.py):\n"
                          + "\n".join(problems))


def _grammar_statements() -> list[str]:
    """The keyword of every statement the grammar's ``_statement`` rule lists, and ``spec``."""
    from fairspec.dsl.grammar import grammar_text

    grammar = grammar_text()
    alternatives = re.search(r"^_statement:(.*?)\n\n", grammar, re.S | re.M).group(1)
    keywords = ["spec"]
    for rule in re.findall(r"\b(\w+_stmt)\b", alternatives):
        keywords.append(re.search(rf'^{rule}:\s*"(\w+)"', grammar, re.M).group(1))
    return keywords


def test_every_statement_of_the_grammar_has_a_section_with_an_example():
    problems = []
    for keyword in _grammar_statements():
        section = re.search(rf"^### `{keyword}`\n(.*?)(?=^##)", LANGUAGE + "\n##", re.S | re.M)
        if section is None:
            problems.append(f"statement '{keyword}': no '### `{keyword}`' section")
        elif not re.search(rf"```text\n{keyword}\b", section.group(1)):
            problems.append(f"statement '{keyword}': no example (a ```text block starting with '{keyword}')")
    assert not problems, "docs/LANGUAGE.md:\n" + "\n".join(problems)


def test_every_implemented_family_has_a_section_with_an_example():
    from fairspec.registry.families import FAMILIES

    problems = []
    for family in (f for f in FAMILIES.values() if f.implemented):
        section = re.search(rf"^### `{family.name}`\n(.*?)(?=^##)", LANGUAGE + "\n##", re.S | re.M)
        if section is None or not re.search(rf"```text\nmodel {family.name}\b", section.group(1)):
            problems.append(f"family '{family.name}': no '### `{family.name}`' section with a 'model {family.name}' "
                            f"example")
    assert not problems, "docs/LANGUAGE.md:\n" + "\n".join(problems)


def test_every_keyword_of_the_grammar_is_written_in_the_reference():
    from fairspec.dsl.grammar import keyword_terminals

    code = " ".join(re.findall(r"```text\n(.*?)```", LANGUAGE, re.S) + re.findall(r"`([^`\n]+)`", LANGUAGE))
    missing = sorted(k for k in set(keyword_terminals().values()) if not re.search(rf"\b{re.escape(k)}\b", code))
    assert not missing, f"docs/LANGUAGE.md never writes these keywords of the grammar: {missing}"


def test_every_example_of_the_reference_parses():
    from fairspec.dsl.grammar import get_parser

    for example in re.findall(r"```text\n(.*?)```", LANGUAGE, re.S):
        text = example if example.startswith("spec ") else f"spec example\n{example}"
        get_parser().parse(text)  # a syntax error names the example's line


def test_every_command_and_option_is_in_the_cli_reference():
    import argparse

    from fairspec.cli import build_parser

    cli = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    problems = []
    for name, sub in commands.items():
        if not re.search(rf"^## `fairspec {re.escape(name)}\b", cli, re.M):
            problems.append(f"command '{name}': no '## `fairspec {name} ...`' section")
        if f"`fairspec {name}" not in README:
            problems.append(f"command '{name}': not in the README's list of commands")
        for action in sub._actions:
            for option in action.option_strings:
                if action.help != argparse.SUPPRESS and option not in ("-h", "--help") and f"`{option}" not in cli \
                        and f"{option}`" not in cli and f"/{option}" not in cli:
                    problems.append(f"command '{name}': option {option} is not in docs/CLI.md")
    assert not problems, "\n".join(problems)


def _keys(value, path=()):
    """Every key of a JSON document but those below a place whose keys are data (group, feature,
    criterion and labelled value names) or another document (the estimator, the fit log)."""
    opaque = {("model", "estimator"), ("model", "params"), ("training", "fit_log"), ("training_log",),
              ("groups",), ("missing",), ("gaps",), ("labels",), ("group_labels",)}
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
