"""Parse tree -> typed :class:`~fairspec.dsl.ast.Spec`.

Two things the LALR grammar leaves to this stage, on purpose:

* **statement structure** — statements may come in any order, each at most once (``labels``
  once per column), and
  ``data``, ``target``, ``protected``, ``features`` and ``model`` are required.  Checking
  that here gives "duplicate 'model' statement" instead of a bare unexpected token;
* **block items** — a block is a run of words and values, paired here into parameters.
  ``name value`` is a parameter; ``name { ... }`` a nested block; a bare ``name`` is a flag
  (value ``True``).  A word followed by a word is ambiguous (``learner logistic`` vs
  ``stratify seed 7``), which LALR(1) cannot decide; the rule is: the second word is the
  first one's value *unless* the second word is itself followed by a value.  So
  ``stratify seed 7`` is a flag then ``seed 7``, and ``learner logistic depth 3`` is
  ``learner = "logistic"`` then ``depth 3``.  (A flag right before a word-valued
  parameter needs ``true``: ``stratify true learner logistic``.)

Besides the tree, the transformer records where individual values stand
(``locations``), so the checker can put its caret on the offending number rather than at
the start of the statement.
"""
from __future__ import annotations

import json
import math
import re
import sys
import unicodedata
from dataclasses import dataclass

from lark import Token, Transformer, v_args

from fairspec.dsl import ast
from fairspec.errors import Diagnostic, Span, written_number

REQUIRED_STATEMENTS = ("data", "target", "protected", "features", "model")

BLOCK_VALUE_WITHOUT_NAME = "found {found} without a parameter name before it, expected a parameter name"
DUPLICATE_STATEMENT = "duplicate '{keyword}' statement: each statement may appear only once"
DUPLICATE_STATEMENT_HINT = "the first '{keyword}' statement is on line {line}"
MISSING_STATEMENT = "the spec has no '{keyword}' statement, which is required"
MISSING_STATEMENT_HINTS = {
    "data": 'add a line such as: data "data/compas.csv.gz"',
    "target": "add a line such as: target two_year_recid positive 1",
    "protected": "add a line such as: protected race",
    "features": "add a line such as: features { age numeric  priors_count numeric }",
    "model": "add a line such as: model baseline",
}

_DURATION_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
NUMBER_TOO_LONG = "number {start}... has {digits:,} digits, more than the {limit:,} a number may have"
#: a float literal past the largest double reads as infinity; said at the number, not later as
#: "bound inf" or a time limit of inf seconds
NUMBER_TOO_LARGE = ("{what} {text} is too large: it reads as infinity (the largest number a spec may "
                    "hold is about 1.8e308)")
#: JSON's escapes are the only ones a string may hold: another backslash used to leave every
#: escape of the string undecoded (``"a\\d \\"q\\""`` read as typed, quotes and all)
UNKNOWN_ESCAPE = ("unknown escape {escape} in this string: a string takes the escapes \\\" \\\\ \\/ "
                  "\\b \\f \\n \\r \\t \\uXXXX; write \\\\ for a backslash (a path may use / instead)")
_ESCAPE = re.compile(r'\\(u[0-9A-Fa-f]{4}|["\\/bfnrt]|u|.)')
#: what an escape may spell but no path, column value or name can hold: the NUL character
#: (an operating system ends a name there) and lone UTF-16 surrogates (not characters at all;
#: they cannot be printed or encoded)
STRING_CANNOT_HOLD = ("this string holds {what}, which no file name or data value can hold; "
                      "check the escapes (\\u....) in it")
#: a float literal below the smallest normal double reads as 0 (or loses its digits): said at the number
NUMBER_TOO_SMALL = ("{text} is too small: it reads as {read} (the smallest number a spec may hold is about "
                    "2.2e-308); write 0 if 0 is meant")
BLOCKS_TOO_DEEP = ("blocks nested more than {limit} deep: a parameter block holds at most one more "
                   "(as in model tree {{ forest {{ trees 50 }} }})")
#: deeper nesting is never valid, and the transformer recurses once per level
MAX_BLOCK_DEPTH = 32


def too_deep_block(tree) -> Diagnostic | None:
    """The first ``nested_block`` more than :data:`MAX_BLOCK_DEPTH` levels deep, as a
    diagnostic at that block; found without recursion, before the transformer (which
    recurses once per level) would overflow the stack on it."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if getattr(node, "data", None) == "nested_block":
            depth += 1
            if depth > MAX_BLOCK_DEPTH:
                return Diagnostic(BLOCKS_TOO_DEEP.format(limit=MAX_BLOCK_DEPTH), span_of(node.meta))
        stack.extend((child, depth) for child in getattr(node, "children", ()) if hasattr(child, "children"))
    return None


def span_of(meta) -> Span | None:
    if meta is None or getattr(meta, "empty", True):
        return None
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def token_span(token: Token) -> Span:
    return Span(token.line, token.column, token.end_line, token.end_column)


def _join(start: Span, end: Span) -> Span:
    return Span(start.line, start.column, end.end_line, end.end_column)


@dataclass(frozen=True)
class _Value:
    """A literal with where it was written (the AST keeps plain Python values)."""

    value: object
    span: Span
    text: str


@dataclass(frozen=True)
class _Nested:
    name: ast.Name
    params: tuple
    span: Span


def parse_number(text: str) -> int | float:
    """``12`` -> 12 (int); ``0.5``, ``1e-4``, ``3.`` -> float."""
    if any(c in text for c in ".eE"):
        return float(text)
    return int(text)


def unknown_escape(text: str) -> tuple[int, str] | None:
    """The offset in ``text`` (a quoted literal) and spelling of its first escape JSON does
    not know (``\\d``, or ``\\u`` without four hex digits), or None."""
    for match in _ESCAPE.finditer(text, 1, len(text) - 1):
        escape = match.group(1)
        if escape == "u" or (len(escape) == 1 and escape not in '"\\/bfnrt'):
            shown = match.group(0) + (text[match.end():len(text) - 1][:4] if escape == "u" else "")
            return match.start(), shown
    return None


def parse_string(text: str) -> str:
    """A double-quoted literal with JSON's escapes (``\\"``, ``\\\\``, ``\\n``, ``\\u00e9``);
    :func:`unknown_escape` finds the others, which are errors, before this is called."""
    # strict=False: a tab typed inside the quotes is text like any other character.  NFC, as the
    # spec's text and the data are (load_spec, read_table): "Orle\u0301ans" had matched no
    # "Orléans" of the data, and the hint "did you mean 'Orléans'?" looked like the value itself
    # (found in review)
    return unicodedata.normalize("NFC", json.loads(text, strict=False))


def _unholdable(value: str) -> str | None:
    """How to name the first character of ``value`` that no name can hold, or None."""
    for c in value:
        if c == "\0":
            return "the NUL character (U+0000)"
        if "\ud800" <= c <= "\udfff":
            return f"a lone surrogate (U+{ord(c):04X}), not a character"
    return None


def _past_double(number: int) -> bool:
    """Whether a whole number is too large for a double (every setting is read as one)."""
    try:
        float(number)
    except OverflowError:
        return True
    return False


def _underflows(text: str, value: float) -> bool:
    """Whether a number written with a non-zero digit reads as 0 or as a subnormal double (below
    about 2.2e-308, where digits are lost): ``positive 1e-400`` had been read as ``positive 0``,
    the other class."""
    mantissa = re.split(r"[eE]", text, maxsplit=1)[0]
    return any(c in "123456789" for c in mantissa) and abs(value) < sys.float_info.min


def _shortened(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...{text[-6:]}"


def parse_duration(text: str) -> ast.Duration:
    return ast.Duration(float(text[:-1]) * _DURATION_UNITS[text[-1]])


@v_args(meta=True)
class SpecTransformer(Transformer):
    """Builds the :class:`ast.Spec`; problems are collected, never raised from a callback
    (Lark would wrap them in ``VisitError``).  After ``transform`` read ``syntax_problems``
    (block values without a name) and ``structure_problems`` (duplicate/missing statements).
    """

    def __init__(self):
        super().__init__(visit_tokens=False)
        self.locations: dict[tuple, Span] = {}
        self.syntax_problems: list[Diagnostic] = []
        self.structure_problems: list[Diagnostic] = []

    # ---- tokens (the grammar uses them directly; see the note in the grammar) ----------------
    @staticmethod
    def _name(tok: Token) -> ast.Name:
        value = str(tok)
        if tok.type == "QUOTED_NAME":
            value = value[1:-1]
        return ast.Name(value, token_span(tok))

    def _value(self, tok: Token) -> _Value:
        text = str(tok)
        if tok.type == "NUMBER":
            try:
                value = parse_number(text)
            except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
                digits = sum(c.isdigit() for c in text)
                self.syntax_problems.append(Diagnostic(NUMBER_TOO_LONG.format(
                    start=text[:12], digits=digits, limit=sys.get_int_max_str_digits()), token_span(tok)))
                value = 0
            if (isinstance(value, float) and math.isinf(value)) or (isinstance(value, int) and _past_double(value)):
                self.syntax_problems.append(Diagnostic(NUMBER_TOO_LARGE.format(what="number", text=_shortened(text)),
                                                       token_span(tok)))
                value = 0
            elif isinstance(value, float) and _underflows(text, value):
                self.syntax_problems.append(Diagnostic(NUMBER_TOO_SMALL.format(text="number " + _shortened(text),
                                                                               read=written_number(value)),
                                                       token_span(tok)))
                value = 0
        elif tok.type == "STRING":
            bad = unknown_escape(text)
            if bad:
                offset, escape = bad
                # a string never spans lines (the grammar refuses a line break in one)
                at = Span(tok.line, tok.column + offset, tok.line, tok.column + offset + len(escape))
                self.syntax_problems.append(Diagnostic(UNKNOWN_ESCAPE.format(escape=escape), at))
                value = text[1:-1]
            else:
                value = parse_string(text)
            what = None if bad else _unholdable(value)
            if what:
                self.syntax_problems.append(Diagnostic(STRING_CANNOT_HOLD.format(what=what), token_span(tok)))
        elif tok.type == "DURATION":
            value = parse_duration(text)
            if math.isinf(value.seconds):
                self.syntax_problems.append(Diagnostic(NUMBER_TOO_LARGE.format(what="duration", text=_shortened(text)),
                                                       token_span(tok)))
                value = ast.Duration(0.0)
            elif _underflows(text[:-1], value.seconds):
                self.syntax_problems.append(Diagnostic(NUMBER_TOO_SMALL.format(
                    text="duration " + _shortened(text), read=f"{written_number(value.seconds)}s"), token_span(tok)))
        elif tok.type in ("TRUE", "FALSE"):
            value = tok.type == "TRUE"
        else:  # pragma: no cover - the grammar passes only the literal tokens above
            raise ValueError(f"not a literal: {tok!r}")
        return _Value(value, token_span(tok), text)

    def compare_op(self, meta, children):
        return str(children[0])

    def feature_kind(self, meta, children):
        return str(children[0])

    # ---- data ---------------------------------------------------------------------------
    def value_list(self, meta, children):
        return [self._value(tok) for tok in children]

    def filter_in(self, meta, children):
        column, values = children
        return self._name(column), "in", values, span_of(meta)

    def filter_not_in(self, meta, children):
        column, values = children
        return self._name(column), "not in", values, span_of(meta)

    def filter_compare(self, meta, children):
        column, op, value = children
        return self._name(column), op, [self._value(value)], span_of(meta)

    def data_stmt(self, meta, children):
        path_token, *filters = children
        path = self._value(path_token)
        self.locations[("data.path",)] = path.span
        built = []
        for i, (column, op, values, span) in enumerate(filters):
            for j, v in enumerate(values):
                self.locations[("filter.value", i, j)] = v.span
            built.append(ast.Filter(column, op, tuple(v.value for v in values), span))
        return "data", ast.DataSource(path.value, tuple(built), span_of(meta)), meta

    # ---- target, groups, columns -----------------------------------------------------------
    def target_stmt(self, meta, children):
        column, positive, outcome = self._name(children[0]), self._value(children[1]), children[2]
        self.locations[("target.positive",)] = positive.span
        if outcome is not None:
            self.locations[("target.outcome",)] = token_span(outcome)
        # the two spellings are one statement; the report writes the spec's own word nowhere else
        word = None if outcome is None else {"favorable": "favourable"}.get(str(outcome), str(outcome))
        return "target", ast.Target(column, positive.value, span_of(meta), word), meta

    def reference_stmt(self, meta, children):
        given = children[0]
        values = given if isinstance(given, list) else [self._value(given)]
        for i, v in enumerate(values):
            self.locations[("reference.value", i)] = v.span
        return "reference", ast.Reference(tuple(v.value for v in values), span_of(meta)), meta

    def model_card_stmt(self, meta, children):
        self.locations[("model_card",)] = _keyword_span(meta, "model_card")
        return "model_card", ast.ModelCard(children[0], span_of(meta)), meta

    def group_column(self, meta, children):
        return self._name(children[0]), None

    def bin_edges(self, meta, children):
        return [self._value(tok) for tok in children]

    def group_bins(self, meta, children):
        name, edges = self._name(children[0]), children[1]
        return name, ast.DerivedGroups(name, name, tuple(e.value for e in edges), span=span_of(meta),
                                       edge_spans=tuple(e.span for e in edges))

    def group_bins_from(self, meta, children):
        name, column, edges = self._name(children[0]), self._name(children[1]), children[2]
        return name, ast.DerivedGroups(name, column, tuple(e.value for e in edges), span=span_of(meta),
                                       edge_spans=tuple(e.span for e in edges))

    def merged_group(self, meta, children):
        values, label = children
        values = values if isinstance(values, list) else [self._value(values)]
        text = self._value(label)
        return ast.MergedGroup(text.value, tuple(v.value for v in values), text.span,
                               tuple(v.span for v in values))

    def merged_groups(self, meta, children):
        return tuple(children)

    def group_merged(self, meta, children):
        name, column, merged = self._name(children[0]), self._name(children[1]), children[2]
        return name, ast.DerivedGroups(name, column, merged=merged, span=span_of(meta))

    def protected_stmt(self, meta, children):
        names = tuple(name for name, _ in children)
        derived = tuple(rule for _, rule in children if rule is not None)
        return "protected", ast.Protected(names, derived, span_of(meta)), meta

    def label(self, meta, children):
        value, text = self._value(children[0]), self._value(children[1])
        return ast.Label(value.value, text.value, value.span, text.span)

    def labels_stmt(self, meta, children):
        column, *entries = children
        return "labels", ast.Labels(self._name(column), tuple(entries), span_of(meta)), meta

    def feature(self, meta, children):
        name, kind = children
        return ast.Feature(self._name(name), kind, span_of(meta))

    def feature_list(self, meta, children):
        return tuple(children)

    def features_stmt(self, meta, children):
        self.locations[("features",)] = _keyword_span(meta, "features")
        return "features", children[0], meta

    def privileged_stmt(self, meta, children):
        self.locations[("privileged",)] = _keyword_span(meta, "privileged")
        return "privileged", children[0], meta

    # ---- missing, fairness ----------------------------------------------------------------------
    def missing_named(self, meta, children):
        strategy = self._name(children[0])
        self.locations[("missing.strategy",)] = strategy.span
        return "missing", ast.Missing(strategy.value, span=span_of(meta)), meta

    def missing_impute(self, meta, children):
        method, k = self._name(children[0]), None if children[1] is None else self._value(children[1])
        self.locations[("missing.method",)] = method.span
        if k is not None:
            self.locations[("missing.k",)] = k.span
        return "missing", ast.Missing("impute", method.value, None if k is None else k.value, span_of(meta)), meta

    def number_or_list(self, meta, children):
        return [self._value(tok) for tok in children]

    def bound(self, meta, children):
        return "bound", children[0]

    def penalty(self, meta, children):
        return "penalty", children[0]

    def on_train(self, meta, children):
        self.locations[("fairness.on_train",)] = span_of(meta)
        return True

    def fairness_stmt(self, meta, children):
        criterion, form, on_train = self._name(children[0]), children[1], bool(children[2])
        self.locations[("fairness.criterion",)] = criterion.span
        bounds, penalties = (), ()
        if form is not None:
            kind, values = form
            for i, v in enumerate(values):
                self.locations[(f"fairness.{kind}", i)] = v.span
            numbers = tuple(float(v.value) for v in values)
            if kind == "bound":
                bounds = numbers
            else:
                penalties = numbers
        return "fairness", ast.Fairness(criterion, bounds, penalties, span_of(meta), on_train), meta

    # ---- blocks -----------------------------------------------------------------------------------
    def nested_block(self, meta, children):
        name, params = children
        return _Nested(self._name(name), params, span_of(meta))

    def param_values(self, meta, children):
        """``[4, 5, 6]`` in a block: one value (``ast.ValueList``) whose items keep their spans; a
        bare word in it (``[gini, entropy]``) is a value, as it is after a parameter's name."""
        items = [_Value(str(tok), token_span(tok), str(tok)) if tok.type == "NAME" else self._value(tok)
                 for tok in children]
        return _Value(ast.ValueList(tuple(v.value for v in items), tuple(v.span for v in items)),
                      span_of(meta), "[...]")

    def block(self, meta, children):
        """Pair words and values into parameters (see the module docstring for the rule)."""
        items = [c if isinstance(c, (_Nested, _Value)) else self._name(c) if c.type == "NAME" else self._value(c)
                 for c in children]
        params = []
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, _Nested):
                params.append(ast.Param(item.name.value, item.params, item.span))
                i += 1
                continue
            if isinstance(item, _Value):
                self.syntax_problems.append(Diagnostic(
                    BLOCK_VALUE_WITHOUT_NAME.format(found=_describe_value(item)), item.span))
                i += 1
                continue
            name: ast.Name = item
            following = items[i + 1] if i + 1 < len(items) else None
            after = items[i + 2] if i + 2 < len(items) else None
            if isinstance(following, _Value):
                value, value_span, i = following.value, following.span, i + 2
            elif isinstance(following, ast.Name) and not isinstance(after, _Value):
                value, value_span, i = following.value, following.span, i + 2
            else:
                value, value_span, i = True, None, i + 1
            span = _join(name.span, value_span) if value_span else name.span
            params.append(ast.Param(name.value, value, span))
            if value_span is not None:
                self.locations[("param.value", span)] = value_span
        return tuple(params)

    def model_stmt(self, meta, children):
        family, params = children
        return "model", ast.Model(self._name(family), params or (), span_of(meta)), meta

    def solver_stmt(self, meta, children):
        return "solver", ast.Solver(children[0], span_of(meta)), meta

    def evaluate_stmt(self, meta, children):
        return "evaluate", ast.Evaluate(children[0], span_of(meta)), meta

    def evaluate_none(self, meta, children):
        # `evaluate none` is the same as the block `evaluate { none }`
        span = span_of(meta)
        none_span = Span(span.end_line, span.end_column - 4, span.end_line, span.end_column)
        return "evaluate", ast.Evaluate((ast.Param("none", True, none_span),), span), meta

    def output_stmt(self, meta, children):
        path = self._value(children[0])
        self.locations[("output",)] = path.span
        return "output", path.value, meta

    # ---- the whole spec -----------------------------------------------------------------------
    def spec_header(self, meta, children):
        return self._name(children[0]), span_of(meta)

    def start(self, meta, children):
        (name, header_span), *statements = children
        seen: dict[str, tuple[object, object]] = {}
        labels = []
        for keyword, node, stmt_meta in statements:
            if keyword == "labels":  # one per column: the checker refuses a column labelled twice
                labels.append(node)
                continue
            if keyword in seen:
                first_line = seen[keyword][1].line
                self.structure_problems.append(Diagnostic(
                    DUPLICATE_STATEMENT.format(keyword=keyword),
                    _keyword_span(stmt_meta, keyword),
                    DUPLICATE_STATEMENT_HINT.format(keyword=keyword, line=first_line)))
                continue
            seen[keyword] = (node, stmt_meta)
        header_caret = Span(header_span.line, header_span.column, header_span.line, header_span.column + len("spec"))
        for keyword in REQUIRED_STATEMENTS:
            if keyword not in seen:
                self.structure_problems.append(Diagnostic(
                    MISSING_STATEMENT.format(keyword=keyword), header_caret, MISSING_STATEMENT_HINTS[keyword]))
        if any(k not in seen for k in REQUIRED_STATEMENTS):
            return None
        node = {k: v[0] for k, v in seen.items()}
        return ast.Spec(
            name=name,
            data=node["data"],
            target=node["target"],
            protected=node["protected"],
            features=node["features"],
            model=node["model"],
            privileged=node.get("privileged", ()),
            missing=node.get("missing"),
            fairness=node.get("fairness"),
            solver=node.get("solver"),
            evaluate=node.get("evaluate"),
            output=node.get("output"),
            labels=tuple(labels),
            span=span_of(meta),
            reference=node.get("reference"),
            model_card=node.get("model_card"),
        )


def _keyword_span(meta, keyword: str) -> Span:
    return Span(meta.line, meta.column, meta.line, meta.column + len(keyword))


def _describe_value(value: _Value) -> str:
    if isinstance(value.value, ast.ValueList):
        return "a list [...]"
    if isinstance(value.value, bool):
        return f"'{value.text}'"
    if isinstance(value.value, ast.Duration):
        return f"duration {value.text}"
    if isinstance(value.value, str):
        return f"string {value.text}"
    return f"number {value.text}"
