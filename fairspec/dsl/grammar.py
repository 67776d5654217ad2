"""The Lark parser of the ``.fair`` language, built once from ``grammars/fairspec.lark``.

The grammar ships inside the package (``fairspec/grammars`` points at the top-level
``grammars/`` folder and is package data), so it is read through
:mod:`importlib.resources`: that works from a source checkout and from an installed wheel.
"""
from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from lark import Lark

GRAMMAR_RESOURCE = ("grammars", "fairspec.lark")

#: the statement keywords, in the order the README presents them (``labels`` last: it may
#: appear once per column)
STATEMENT_KEYWORDS = (
    "data", "target", "protected", "features", "privileged", "missing",
    "fairness", "model", "solver", "evaluate", "output", "labels", "reference", "model_card",
)


def grammar_text() -> str:
    """The grammar source as shipped with the package."""
    try:
        ref = resources.files("fairspec").joinpath(*GRAMMAR_RESOURCE)
        return ref.read_text(encoding="utf-8")
    except (NotADirectoryError, TypeError, ModuleNotFoundError):
        # a namespace-package checkout (no fairspec/__init__.py) has no resource reader
        return Path(__file__).resolve().parent.parent.joinpath(*GRAMMAR_RESOURCE).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def get_parser() -> Lark:
    """The LALR parser (contextual lexer), built on first use and cached.

    ``maybe_placeholders`` makes an absent ``[optional]`` part a ``None`` child, so the
    transformer sees a fixed number of children per rule.
    """
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
    )


@functools.lru_cache(maxsize=1)
def keyword_terminals() -> dict[str, str]:
    """Terminal name -> keyword text for every keyword the grammar defines (``MODEL`` -> ``model``)."""
    parser = get_parser()
    out = {}
    for term in parser.terminals:
        pattern = term.pattern
        if pattern.type == "str" and pattern.value.isidentifier():
            out[term.name] = pattern.value
    return out
