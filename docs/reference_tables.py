"""Write the parameter tables of docs/LANGUAGE.md from the tables the checker reads.

Run ``python docs/reference_tables.py`` after adding or changing a family, a family parameter,
a solver or evaluate setting, a fairness criterion or a missing-value strategy: it rewrites
the part of docs/LANGUAGE.md between each ``<!-- generated: NAME -->`` and
``<!-- end generated -->``.  ``tests/test_docs.py`` fails, naming each row that differs,
while the file is not what this script would write.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

LANGUAGE = Path(__file__).resolve().parent / "LANGUAGE.md"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def _number(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value >= 86400 and value % 86400 == 0:
        return f"{value / 86400:g} days"
    if isinstance(value, float) and 0 < abs(value) < 1e-3:
        return f"{value:.0e}".replace("e-0", "e-")
    if isinstance(value, int) and value >= 2**20:
        return f"2^{value.bit_length() - 1} − 1" if (value + 1) & value == 0 else str(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _default(param) -> str:
    if param.kind == "block":
        return "none (`{ }` takes the defaults below)"
    if param.default is None:
        return "—"
    if param.kind == "duration":
        return f"{_number(param.default)}s"
    return f"`{_number(param.default)}`" if not isinstance(param.default, str) else f"`{param.default}`"


def _values(param) -> str:
    if param.kind == "choice":
        return " \\| ".join(f"`{c}`" for c in param.choices)
    if param.kind == "bool":
        return "`true` \\| `false` (a bare name is true)"
    if param.kind == "block":
        return "a block"
    kind = {"int": "whole number", "float": "number",
            "duration": "duration (`s`, `m`, `h`)"}.get(param.kind, param.kind)
    if param.low is not None and param.high is not None:
        return f"{kind}, {_number(param.low)} to {_number(param.high)}"
    if param.low is not None:
        return f"{kind}, at least {_number(param.low)}"
    return kind


def _condition(param) -> str:
    parts = []
    if param.only_with:
        parts.append(f"only with `{param.only_with[0]} {param.only_with[1]}`")
    if param.only_with_missing:
        parts.append("only with missing " + " or ".join(f"`{m}`" for m in param.only_with_missing))
    return f" ({'; '.join(parts)})" if parts else ""


def param_rows(params, prefix: str = "") -> list[str]:
    """One Markdown table row per parameter (a block's own parameters after it)."""
    rows = []
    for p in params:
        name = f"{prefix}{p.name}"
        rows.append(f"| `{name}` | {_default(p)} | {_values(p)} | {p.doc}{_condition(p)} |")
        if p.kind == "block":
            rows += param_rows(p.params, prefix=f"{name}.")
    return rows


HEADER = ["| parameter | default | values | meaning |", "| --- | --- | --- | --- |"]


def blocks() -> dict[str, str]:
    """Each generated block's text, by name."""
    from fairspec.dsl.check import EVALUATE_PARAMS, SOLVER_PARAMS
    from fairspec.registry.criteria import CRITERIA
    from fairspec.registry.families import FAMILIES

    out = {}
    for family in FAMILIES.values():
        if not family.implemented:
            continue
        enforces = "; ".join(f"as a {form}: " + ", ".join(f"`{c}`" for c in sorted(names))
                             for form, names in sorted(family.enforces.items())) or "nothing (audit only)"
        missing = ", ".join(f"`{m}`" for m in sorted(family.missing))
        lines = [f"{family.doc}.", "",
                 f"Enforces {enforces}. Missing values: {missing} (default `{family.default_missing}`).", ""]
        lines += HEADER + param_rows(family.params) if family.params else ["No parameters."]
        out[f"family-{family.name}"] = "\n".join(lines) + "\n"
    planned = [f for f in FAMILIES.values() if not f.implemented]
    out["families-planned"] = "".join(f"- `{f.name}`: {f.doc} — named by the language, not implemented yet; "
                                      f"the checker says so.\n" for f in planned) or "None.\n"
    out["solver"] = "\n".join(HEADER + param_rows(SOLVER_PARAMS)) + "\n"
    out["evaluate"] = "\n".join(HEADER + param_rows(EVALUATE_PARAMS)) + "\n"
    out["criteria"] = "".join(f"- `{name}`: {' and '.join(c.rates)}\n" for name, c in sorted(CRITERIA.items()))
    return out


def rewritten(text: str) -> str:
    """``text`` with every generated block as :func:`blocks` gives it (a block the tables no
    longer give is left out, so a removed family goes with its section's table)."""
    made = blocks()
    return BLOCK.sub(lambda m: m.group(1) + made.get(m.group("name"), "") + m.group(4), text)


def missing_blocks(text: str) -> list[str]:
    """The generated blocks the tables give that ``text`` has no place for."""
    present = {m.group("name") for m in BLOCK.finditer(text)}
    return sorted(set(blocks()) - present)


if __name__ == "__main__":
    sys.path.insert(0, str(LANGUAGE.parents[1]))
    text = LANGUAGE.read_text(encoding="utf-8")
    absent = missing_blocks(text)
    LANGUAGE.write_text(rewritten(text), encoding="utf-8")
    for name in absent:
        print(f"docs/LANGUAGE.md has no '<!-- generated: {name} -->' block: add a section with one", file=sys.stderr)
    raise SystemExit(1 if absent else 0)
