"""The ``.fair`` language front end: grammar, parse tree -> typed spec, semantic check.

    doc = load_spec("specs/compas_rules.fair")   # SpecSyntaxError on bad syntax
    check_spec(doc, table)                       # SpecSemanticError listing every problem
    path = resolve_data_path(doc)                # the data file, next to the spec or in the cwd
"""
from fairspec.dsl.check import check_spec
from fairspec.dsl.load import SpecDocument, load_spec, parse_spec, resolve_data_path

__all__ = [
    "SpecDocument",
    "check_spec",
    "load_spec",
    "parse_spec",
    "resolve_data_path",
]
