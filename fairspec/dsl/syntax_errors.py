"""Turn Lark's parse errors into one readable :class:`~fairspec.errors.Diagnostic`.

Lark reports terminals by their grammar names (``__ANON_2``, ``RBRACE``, ``$END``); a user
should read what was found and what would have been accepted in their own words, and get
the closest keyword when they misspelled one (``protectd`` -> ``protected``).
"""
from __future__ import annotations

import difflib
import unicodedata

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from fairspec.dsl.grammar import STATEMENT_KEYWORDS, keyword_terminals
from fairspec.errors import Diagnostic, Span

SYNTAX_FOUND_EXPECTED = "found {found}, expected {expected}"
SYNTAX_BAD_CHARACTER = "unexpected character {char!r}, expected {expected}"
SYNTAX_UNTERMINATED_STRING = "unterminated string: a text value must end with a double quote on the same line"
SYNTAX_UNTERMINATED_NAME = "unterminated `quoted name`: it must end with a backquote on the same line"
SYNTAX_EMPTY_NAME = "empty quoted name ``: a name in backquotes needs at least one character"
HINT_NAME_CHARACTERS = ("a bare name is letters, digits and _: write a column name with other characters in "
                        "backquotes ({quoted})")
HINT_SPEC_NAME_CHARACTERS = "a spec's name is letters, digits and _, e.g. spec {underscored}"

NUMBER_RUNS_ON = "number '{number}' runs into '{next}' with no space between them"
NUMBER_RUNS_ON_DURATION_HINT = ("a duration is a number of seconds, minutes or hours with a lowercase s, m or h "
                                "(120s, 2m, 1.5h), in plain digits: never negative, with no exponent (1e3s) and "
                                "no leading point (.5h)")
KEYWORD_RUNS_ON = "keyword '{keyword}' runs into '{next}' with no space between them"
KEYWORD_RUNS_ON_HINT = "write '{keyword} {next}' (or, if '{keyword}{next}' was meant as one word, it is not valid here)"
HINT_DID_YOU_MEAN = "did you mean '{keyword}'?"
HINT_QUOTE_TEXT = 'text values are written in double quotes, e.g. "{word}"'
HINT_INTERSECTION = "join protected attributes with '*' for intersectional groups, e.g. protected {prev} * {word}"
HINT_SPEC_HEADER = "a spec starts with its name, e.g.: spec compas_rules"
HINT_UNCLOSED_BLOCK = "the '{{' of '{opener}' on line {line} is never closed: is a '}}' missing before '{word}' on line {word_line}?"
HINT_UNCLOSED_AT_END = "the '{{' of '{opener}' on line {line} is never closed"
HINT_KEYWORD_READ_AS_NAME = ("'{word}' on line {line} was read as the name that '{last}' on line {previous} needs "
                             "next, not as the start of a statement: is something missing at the end of line "
                             "{previous}?")
HINT_STATEMENT_CUT_SHORT = "line {previous} ends too soon: '{last}' there needs {expected} after it"
HINT_EQUALS = "write == to compare"
#: `depth: 4`, `depth=4`: a block pairs a name with the value after it, with nothing between
HINT_NO_SEPARATOR = "a value follows its name after a space, with no '{char}' between them: write {fixed}"
#: `time_limit 30sec`: a duration's unit is one letter
HINT_DURATION_UNIT = "a duration's unit is s, m or h (seconds, minutes, hours), right after the number: write {fixed}"
#: unit words a duration may be written with elsewhere, and the letter this language writes
DURATION_UNIT_WORDS = {**dict.fromkeys(("sec", "secs", "second", "seconds"), "s"),
                       **dict.fromkeys(("min", "mins", "minute", "minutes"), "m"),
                       **dict.fromkeys(("hr", "hrs", "hour", "hours"), "h")}
#: characters that look like ones the language uses (pasted from a word processor or a web
#: page): the caret sits under what looks like a space or a quote, so the hint names them
HINT_LOOKALIKE_SPACE = "this is {name} (U+{code:04X}), not a plain space: retype it as a space"
HINT_INVISIBLE = "there is an invisible character here, {name} (U+{code:04X}): delete it"
HINT_CURLY_DOUBLE_QUOTE = 'this is a typographic quote ({char}): text values are in straight double quotes, "..."'
HINT_SINGLE_QUOTE_TEXT = 'text values are in straight double quotes ("..."), not in single quotes ({char})'
HINT_SINGLE_QUOTE_NAME = "a column name with other characters than letters, digits and _ goes in backquotes, `...`"
HINT_LOOKALIKE_OPERATOR = "write {ascii} for {char}"
_LOOKALIKE_OPERATORS = {"≤": "<=", "≥": ">=", "≠": "!=", "×": "*", "∗": "*", "−": "-", "–": "-"}

#: named (non-keyword) terminals in user words
TERMINAL_WORDS = {
    "NAME": "a name",
    "QUOTED_NAME": "a `quoted name`",
    "NUMBER": "a number",
    "STRING": 'a quoted string',
    "DURATION": "a duration such as 120s",
    "OUTCOME": "'favourable' or 'adverse'",
    "$END": "end of file",
}
#: the order alternatives are listed in (lower first); punctuation and keywords come first
_ORDER = {"NAME": 20, "QUOTED_NAME": 21, "NUMBER": 22, "STRING": 23, "DURATION": 24}


def _terminal_text(parser: Lark, name: str) -> str:
    """A terminal as a user would write it: ``'{'``, ``'model'``, ``a number`` ..."""
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    try:
        pattern = parser.get_terminal(name).pattern
    except KeyError:
        return name.lower()
    if pattern.type == "str":
        return f"'{pattern.value}'"
    return name.lower()


def describe_expected(parser: Lark, expected: set[str]) -> str:
    """The accepted terminals as one phrase; every statement keyword collapses to 'a statement'."""
    expected = set(expected)
    statement_terms = {t for t, kw in keyword_terminals().items() if kw in STATEMENT_KEYWORDS}
    parts = []
    if statement_terms and statement_terms <= expected:
        expected -= statement_terms
        parts_tail = ["a new statement (" + ", ".join(STATEMENT_KEYWORDS) + ")"]
    else:
        parts_tail = []
    end = "$END" in expected
    expected.discard("$END")
    if {"TRUE", "FALSE"} <= expected:
        expected -= {"TRUE", "FALSE"}
        booleans = ["true/false"]
    else:
        booleans = []
    # in a block (the one place a duration is a value) '[' opens a model parameter's list of values:
    # named after the values, so the block's own '}' still comes first
    values_list = []
    if {"LSQB", "DURATION"} <= expected:
        expected.discard("LSQB")
        values_list = ["a list of values [...]"]
    ordered = sorted(expected, key=lambda t: (_ORDER.get(t, 0), _terminal_text(parser, t)))
    parts = [_terminal_text(parser, t) for t in ordered] + booleans + values_list + parts_tail
    if end:
        parts.append("end of file")
    if not parts:
        return "nothing more"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def describe_found(token) -> str:
    kind = token.type
    if kind == "$END":
        return "end of file"
    if kind == "NAME":
        return f"name '{token.value}'"
    if kind == "QUOTED_NAME":
        return f"name {token.value}"
    if kind == "NUMBER":
        return f"number {token.value}"
    if kind == "STRING":
        return f"string {token.value}"
    if kind == "DURATION":
        return f"duration {token.value}"
    if kind in keyword_terminals():
        return f"keyword '{token.value}'"
    return f"'{token.value}'"


def _keyword_hint(word: str, expected: set[str]) -> str | None:
    """The closest keyword the parser would have accepted here, as a hint."""
    if word.lower() in ("true", "false"):
        return None  # a stray value: "did you mean 'target'?" for a true after a statement misled
    keywords = keyword_terminals()
    # true/false are values, not statement words: 'Female' should get the quoting hint
    candidates = [keywords[t] for t in expected if t in keywords and t not in ("TRUE", "FALSE")]
    close = difflib.get_close_matches(word.lower(), candidates, n=1, cutoff=0.6)
    return HINT_DID_YOU_MEAN.format(keyword=close[0]) if close else None


def _accepted(error: UnexpectedToken) -> set[str]:
    """What the parser really accepts here.

    LALR merges look-ahead sets, so ``error.expected`` may list terminals that are only
    valid in another context (after ``target NAME`` it would offer ``==``); the
    interactive parser tries each terminal through the pending reductions instead.
    """
    interactive = getattr(error, "interactive_parser", None)
    if interactive is None:  # pragma: no cover - Lark >= 1.1 always provides it for LALR
        return set(error.expected)
    try:
        return set(interactive.accepts())
    except Exception:  # pragma: no cover - fall back to Lark's own (wider) set
        return set(error.expected)


def _expected_at_failure(parser: Lark, text: str) -> set[str]:
    """Terminals the parser accepts where the lexer gave up (Lark's own set is the lexer's)."""
    interactive = parser.parse_interactive(text)
    try:
        for _ in interactive.iter_parse():
            pass
    except UnexpectedInput:
        pass
    return set(interactive.accepts())


def _lookalike_hint(char: str, expected: set[str]) -> str | None:
    """What a character that looks like a space, a quote or an operator of the language is,
    and what to write instead; None for any other character."""
    if not char:
        return None
    category = unicodedata.category(char)
    name = "a " + unicodedata.name(char, "character with no name").lower()
    if category == "Zs":
        return HINT_LOOKALIKE_SPACE.format(name=name, code=ord(char))
    if category == "Cf":  # format characters: zero-width spaces and joiners, a byte-order mark inside the text
        return HINT_INVISIBLE.format(name=name, code=ord(char))
    if char in "“”„‟″":
        return HINT_CURLY_DOUBLE_QUOTE.format(char=char)
    if char in "'‘’‚‛′":
        if "STRING" in expected:
            return HINT_SINGLE_QUOTE_TEXT.format(char=char)
        if "QUOTED_NAME" in expected:
            return HINT_SINGLE_QUOTE_NAME
        return None
    if char in _LOOKALIKE_OPERATORS:
        return HINT_LOOKALIKE_OPERATOR.format(ascii=_LOOKALIKE_OPERATORS[char], char=char)
    return None


def _separator_hint(text: str, pos: int) -> str | None:
    """When the character at ``pos`` is a ``:`` or ``=`` between a word and a value (``depth: 4``,
    ``depth=4``, ``month: numeric``), that the language writes the two apart, with nothing
    between; None otherwise.  (The hint had been to backquote ``depth:`` as a column name.)"""
    char = text[pos]
    if char not in ":=" or text.startswith("==", pos):
        return None
    before = text[:pos].rstrip()
    words_before = before.split()
    after = text[pos + 1:].split("\n", 1)[0].split()
    if not words_before or not after or not (words_before[-1][-1].isalnum() or words_before[-1][-1] == "_"):
        return None
    name, value = words_before[-1].lstrip("{"), after[0].rstrip("},")
    if not name or not value:
        return None
    return HINT_NO_SEPARATOR.format(char=char, fixed=f"{name} {value}")


def _name_characters_hint(text: str, pos: int) -> str | None:
    """When the bad character continues a word (``compas-rules``, ``c-charge``), what a name
    may hold; None when it stands apart, or when the word is a number (``10%``), which is no
    name to put in backquotes."""
    start = pos
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    if start == pos or text[pos].isspace() or text[start].isdigit():
        return None
    end = pos
    while end < len(text) and not text[end].isspace() and text[end] not in '{}[],"`#':
        end += 1
    word = text[start:end]
    if text[:start].split()[-1:] == ["spec"]:
        return HINT_SPEC_NAME_CHARACTERS.format(underscored="".join(c if c.isalnum() else "_" for c in word))
    return HINT_NAME_CHARACTERS.format(quoted=f"`{word}`")


def word_run_on(parser: Lark, text: str) -> Diagnostic | None:
    """The first keyword (or number) run into the next word, up to where the parse stops;
    None if none.

    The contextual lexer offers only the terminals the grammar expects next, so where a
    keyword is expected it matches the keyword's letters even when more letters follow:
    ``specbase`` read as ``spec base`` and ``positive1`` as ``positive 1``.  A keyword must end
    where a word does; the tokens are read again one at a time to check that (a second pass:
    the interactive parser's errors describe its state less well than ``parse``'s)."""
    keywords = keyword_terminals()
    previous = None
    try:
        for token in parser.parse_interactive(text).iter_parse():
            if (previous is not None and token.start_pos == previous.end_pos
                    and (text[token.start_pos].isalnum() or text[token.start_pos] == "_")):
                span = Span(previous.line, previous.column, token.end_line, token.end_column)
                if previous.type in keywords:
                    return Diagnostic(KEYWORD_RUNS_ON.format(keyword=previous, next=token), span,
                                      KEYWORD_RUNS_ON_HINT.format(keyword=previous, next=token))
                if previous.type == "NUMBER":
                    # "2M" or "-5s": a duration with a capital letter or a sign, read as the number
                    # and then a parameter named "M"; "30sec": a unit spelled out
                    unit = DURATION_UNIT_WORDS.get(str(token).lower()) if token.type == "NAME" else None
                    hint = (HINT_DURATION_UNIT.format(fixed=f"{previous.lstrip('+')}{unit}") if unit
                            else NUMBER_RUNS_ON_DURATION_HINT if token.type == "NAME" and len(token) <= 3
                            and str(token).isalpha() else None)
                    return Diagnostic(NUMBER_RUNS_ON.format(number=previous, next=token), span, hint)
            previous = token
    except UnexpectedInput:
        pass
    return None


def diagnostic_from_lark(error: UnexpectedInput, parser: Lark, text: str) -> Diagnostic:
    """One diagnostic at the offending token, saying what was found and what was expected."""
    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        span = Span(error.line, error.column, error.line, error.column + 1)
        if char == '"':
            return Diagnostic(SYNTAX_UNTERMINATED_STRING, span)
        if char == "`":
            if text.startswith("``", error.pos_in_stream):
                return Diagnostic(SYNTAX_EMPTY_NAME, Span(error.line, error.column, error.line, error.column + 2))
            return Diagnostic(SYNTAX_UNTERMINATED_NAME, span)
        expected = _expected_at_failure(parser, text)
        return Diagnostic(SYNTAX_BAD_CHARACTER.format(char=char, expected=describe_expected(parser, expected)), span,
                          _lookalike_hint(char, expected) or _separator_hint(text, error.pos_in_stream)
                          or _name_characters_hint(text, error.pos_in_stream))

    if isinstance(error, UnexpectedToken):
        token = error.token
        expected = _accepted(error)
    elif isinstance(error, UnexpectedEOF):  # pragma: no cover - LALR reports end of input as a $END token
        token = None
        expected = set(error.expected)
    else:  # pragma: no cover - the three kinds above are all Lark raises for LALR
        return Diagnostic(str(error), Span(getattr(error, "line", 1), getattr(error, "column", 1)))

    header_hint = HINT_SPEC_HEADER if expected == {"SPEC"} else None
    if token is None or token.type == "$END":
        span = _end_span(token, text)
        message = SYNTAX_FOUND_EXPECTED.format(found="end of file", expected=describe_expected(parser, expected))
        return Diagnostic(message, span, _unclosed_block_hint(parser, text, token)
                          or _cut_short_hint(parser, text, token, expected) or header_hint)

    span = Span(token.line, token.column, token.end_line, token.end_column)
    message = SYNTAX_FOUND_EXPECTED.format(found=describe_found(token), expected=describe_expected(parser, expected))
    hint = None
    if token.type in ("NAME",) or token.type in keyword_terminals():
        hint = _keyword_hint(str(token.value), expected)
        if hint is None and token.type == "NAME":
            if "STAR" in expected:
                prev = _previous_word(text, token)
                hint = HINT_INTERSECTION.format(prev=prev or "race", word=token.value)
            elif "STRING" in expected:
                hint = HINT_QUOTE_TEXT.format(word=token.value)
    if hint is None and token.value == "=" and "'=='" in {_terminal_text(parser, t) for t in expected}:
        hint = HINT_EQUALS
    if hint is None and token.value == "=":
        hint = _separator_hint(text, token.start_pos)
    if hint is None and token.type == "LPAR":
        # `missing imput(knn)`: the misspelled keyword is the word before the parenthesis
        prev = _previous_word(text, token)
        if prev and prev.lower() != "impute" and difflib.get_close_matches(prev.lower(), ["impute"], n=1, cutoff=0.6):
            hint = HINT_DID_YOU_MEAN.format(keyword="impute")
    # the cause, when a block was left open or a statement cut short, lies lines above where
    # the parser gives up; a hint about the token itself would send the user the wrong way
    return Diagnostic(message, span, _unclosed_block_hint(parser, text, token)
                      or _cut_short_hint(parser, text, token, expected) or hint or header_hint)


def _cut_short_hint(parser: Lark, text: str, token, expected: set[str]) -> str | None:
    """A hint when a line ended before its statement did, and the error shows only on the
    next line.  Either that line's statement keyword is the token that failed (``where age >``
    then ``target ...``: the caret is on ``target``), or, where the statement still needed a
    name (``fairness``, ``protected sex *``, ``where``), the contextual lexer took the keyword
    for that name (``model`` as the criterion) and the error surfaced at the token after it
    (``tree``, with "did you mean 'target'?"); None otherwise."""
    failed_at = len(text) if token is None or token.type == "$END" else token.start_pos
    read = []
    try:
        for t in parser.parse_interactive(text).iter_parse():
            if t.start_pos >= failed_at:
                break
            read.append(t)
    except UnexpectedInput:
        pass
    if (read and token is not None and token.type != "$END" and token.value in STATEMENT_KEYWORDS
            and read[-1].end_line < token.line):
        return HINT_STATEMENT_CUT_SHORT.format(previous=read[-1].end_line, last=read[-1].value,
                                               expected=describe_expected(parser, expected))
    if len(read) < 2:
        return None
    before, word = read[-2], read[-1]
    if word.type != "NAME" or word.value not in STATEMENT_KEYWORDS or before.end_line >= word.line:
        return None
    return HINT_KEYWORD_READ_AS_NAME.format(word=word.value, line=word.line, last=before.value,
                                            previous=before.end_line)


def _unclosed_block_hint(parser: Lark, text: str, token) -> str | None:
    """A hint naming the innermost ``{`` still open where the parse failed, when a later line
    starts with a statement keyword: that line is most likely where the block should have
    ended.  A column may be called ``missing`` or ``model``, so inside a block such a line
    parses as more column names and the error surfaces at the first token that cannot
    (``impute(`` of ``missing impute(median)``), lines below the ``{`` it comes from."""
    end = len(text) if token is None or token.type == "$END" else token.start_pos
    try:
        tokens = list(parser.lex(text[:end]))
    except UnexpectedInput:  # pragma: no cover - the parser lexed this far already
        return None
    open_braces, statement = [], None  # (brace token, the statement keyword before it)
    for t in tokens:
        if t.value in STATEMENT_KEYWORDS:
            statement = t.value
        elif t.value == "{":
            open_braces.append((t, statement))
        elif t.value == "}" and open_braces:
            open_braces.pop()
    if not open_braces:
        return None
    brace, opener = open_braces[-1]
    lines = text.split("\n")
    at_end = token is None or token.type == "$END"
    last = len(lines) if at_end or not token.line else token.line
    for number in range(brace.line + 1, min(last, len(lines)) + 1):
        words = lines[number - 1].split("#")[0].split()
        if words and words[0] in STATEMENT_KEYWORDS:
            return HINT_UNCLOSED_BLOCK.format(opener=opener or "{", line=brace.line, word=words[0],
                                              word_line=number)
    return HINT_UNCLOSED_AT_END.format(opener=opener or "{", line=brace.line) if at_end else None


def _previous_word(text: str, token) -> str | None:
    before = text[: token.start_pos].split()
    return before[-1] if before else None


def _end_span(token, text: str) -> Span:
    """Just after the last token (Lark puts ``$END`` on the last token itself)."""
    if token is not None and token.end_line is not None and token.end_column is not None and token.value == "":
        # Lark borrows the position of the last real token; point one past its end
        return Span(token.end_line, token.end_column)
    lines = text.removesuffix("\n").split("\n")  # lines as the parser counts them (see render_diagnostic)
    return Span(len(lines), len(lines[-1]) + 1)
