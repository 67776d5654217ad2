"""The statements the report reads: ``target ... favourable|adverse``, ``reference`` and ``model_card``:
parsed into the AST, checked with located errors, carried through the plan into model.json."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairspec.dsl import ast, check_spec, parse_spec
from fairspec.dsl.check_report import (CARD_FIELD_NOT_TEXT, CARD_FIELD_TWICE, REFERENCE_ARITY, REFERENCE_UNKNOWN,
                                       UNKNOWN_CARD_FIELD, model_card_fields, reference_label)
from fairspec.errors import SpecSemanticError, SpecSyntaxError


def spec(*lines: str, target: str = "target label positive 1", protected: str = "protected sex") -> str:
    return "\n".join(["spec t", 'data "t.csv"', target, protected, "features { age numeric  city categorical }",
                      "model baseline", *lines]) + "\n"


def table() -> pd.DataFrame:
    return pd.DataFrame({"age": [25, 32, 47, 51, 19, 38], "sex": ["F", "M", "F", "M", "F", "M"],
                         "race": ["a", "b", "a", "b", "c", "a"], "city": ["x", "y", "x", "z", "y", "x"],
                         "label": [1, 0, 1, 0, 0, 1]})


def problems(text: str, data=None):
    try:
        check_spec(parse_spec(text, "t.fair"), data)
    except SpecSemanticError as error:
        return error.diagnostics
    return []


@pytest.mark.parametrize("word, outcome", [("adverse", "adverse"), ("favourable", "favourable"),
                                           ("favorable", "favourable"), ("", None)])
def test_the_target_line_says_whether_the_positive_class_is_favourable_or_adverse(word, outcome):
    parsed = parse_spec(spec(target=f"target label positive 1 {word}"), "t.fair").spec
    assert parsed.target == ast.Target(ast.Name("label"), 1, outcome=outcome)


def test_another_word_after_the_positive_class_is_a_located_syntax_error():
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(spec(target="target label positive 1 harmful"), "t.fair")
    rendered = info.value.render()
    assert rendered.startswith("t.fair:3:25: error: found name 'harmful', expected 'favourable' or 'adverse', "
                               "a new statement (")


def test_reference_names_a_group_by_its_value_or_values():
    parsed = parse_spec(spec('reference "F"'), "t.fair").spec
    assert parsed.reference == ast.Reference(("F",))
    parsed = parse_spec(spec('reference ["a", "F"]', protected="protected race * sex"), "t.fair").spec
    assert parsed.reference == ast.Reference(("a", "F"))
    assert reference_label(("a", "F")) == "a & F" and reference_label((1.0,)) == "1" and reference_label((2,)) == "2"
    assert problems(spec('reference "F"'), table()) == []
    assert problems(spec('reference ["a", "F"]', protected="protected race * sex"), table()) == []


def test_a_reference_the_data_has_no_group_for_is_an_error_at_the_statement():
    (diag,) = problems(spec('reference "Female"'), table())
    assert diag.message == REFERENCE_UNKNOWN.format(label="Female", count=2)
    assert (diag.span.line, diag.span.column) == (7, 1) and diag.hint == "the groups are: 'F', 'M'"
    (diag,) = problems(spec('reference "f"'), table().assign(sex=["f1", "M", "f1", "M", "f1", "M"]))
    assert diag.hint == "did you mean 'f1'?"
    # one value per protected attribute, checked without data too
    (diag,) = problems(spec('reference "a"', protected="protected race * sex"))
    assert diag.message == REFERENCE_ARITY.format(given=1, s="", needed=2, attributes="race * sex")
    assert diag.hint == 'e.g. reference ["race-value", "sex-value"]'


def test_the_model_card_block_takes_its_fields_as_texts():
    text = spec('model_card { intended_use "Pretrial screening"  owner "Court analytics"',
                '  limitations "Two groups only"  limitations "2013-2014 data" }')
    card = parse_spec(text, "t.fair").spec.model_card
    assert model_card_fields(card) == {"intended_use": "Pretrial screening", "owner": "Court analytics",
                                       "limitations": ["Two groups only", "2013-2014 data"]}
    assert problems(text, table()) == []


def test_model_card_errors_are_located_at_their_field():
    text = spec('model_card { intended_us "x"  owner 3  data_source "a"', '  data_source "b"  data_period "" }')
    found = problems(text)
    assert [d.message for d in found] == [
        UNKNOWN_CARD_FIELD.format(name="intended_us"),
        CARD_FIELD_NOT_TEXT.format(name="owner", got="int 3"),
        CARD_FIELD_TWICE.format(name="data_source"),
        "model_card field 'data_period' is empty"]
    assert found[0].hint == "did you mean 'intended_use'?"
    assert [(d.span.line, d.span.column) for d in found] == [(7, 14), (7, 31), (8, 3), (8, 20)]


def test_the_plan_and_the_model_file_carry_the_statements(tmp_path):
    from fairspec.dsl import load_spec
    from fairspec.plan.compile import compile_spec

    rng = np.random.default_rng(0)
    n = 60
    pd.DataFrame({"age": rng.integers(18, 70, n), "sex": rng.choice(["F", "M"], n), "city": rng.choice(["x", "y"], n),
                  "label": rng.integers(0, 2, n)}).to_csv(tmp_path / "t.csv", index=False)
    path = tmp_path / "t.fair"
    path.write_text(spec('reference "M"', 'model_card { owner "Jo" }', target="target label positive 1 adverse"),
                    encoding="utf-8")
    plan = compile_spec(load_spec(path))
    assert (plan.data.outcome, plan.data.reference, plan.model_card) == ("adverse", "M", {"owner": "Jo"})
    described = plan.describe()
    assert "target      label (positive class 1, adverse)" in described and "(reference group 'M')" in described
    from fairspec.pipeline.train import train

    point = train(plan).points[0]
    assert point.model_doc["schema"]["target"]["outcome"] == "adverse"
    assert point.model_doc["schema"]["reference_group"] == "M" and point.model_doc["model_card"] == {"owner": "Jo"}
    assert point.metrics_doc["test"]["disparities"]["reference"] == "M"
    assert point.metrics_doc["test"]["disparities"]["reference_from"] == "spec"


def test_a_reference_may_name_a_derived_group_or_a_group_by_its_label():
    from fairspec.dsl.check_report import reference_key
    from fairspec.dsl.groups import group_column

    data = table()
    text = spec('labels sex { "F" as "female" }', 'reference "female"')
    doc = parse_spec(text, "t.fair")
    assert problems(text, data) == []
    columns = [group_column(doc.spec, "sex", data)]
    assert reference_key(("female",), data, columns) == "F" and reference_key(("F",), data, columns) == "F"
    binned = spec('reference "≥ 40"', protected="protected age bins [40]")
    assert problems(binned, data) == []
    (diag,) = problems(spec('reference "≥ 41"', protected="protected age bins [40]"), data)
    assert diag.message == REFERENCE_UNKNOWN.format(label="≥ 41", count=2) and diag.hint == "did you mean '≥ 40'?"
