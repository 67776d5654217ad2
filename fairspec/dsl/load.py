"""Read a ``.fair`` file into a :class:`SpecDocument`: the typed spec plus its source text.

The text travels with the tree so every later error can quote the offending line, and the
path so the ``data`` file can be found next to the spec.
"""
from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re
import unicodedata
from dataclasses import dataclass, field

from lark.exceptions import UnexpectedInput

from fairspec.dsl import ast
from fairspec.dsl.grammar import get_parser
from fairspec.dsl.syntax_errors import diagnostic_from_lark, word_run_on
from fairspec.dsl.transform import SpecTransformer, too_deep_block
from fairspec.errors import Diagnostic, Span, SpecError, SpecSemanticError, SpecSyntaxError

SPEC_UNREADABLE = "cannot read the spec file: {reason}"
SPEC_NOT_UTF8_AT = ("the spec file is not UTF-8 text: byte 0x{byte:02x} here is not UTF-8 (a Latin-1 or "
                    "Windows-1252 accent, say)")
SPEC_UTF16 = "the spec file is UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8"
SPEC_ENCODING_HINT = "save the spec as UTF-8 (most editors offer it under 'Save as' or 'Encoding')"
_LONE_CR = re.compile(r"\r(?!\n)")
DATA_NOT_FOUND = "data file '{path}' not found: tried {first} and {second}"
DATA_IS_A_DIRECTORY = "data path {path} is a directory, not a CSV file"
DATA_NOT_REGULAR = "data path {path} is not a regular file (a device or a pipe): name a CSV file"
DATA_PATH_UNUSABLE = "data path '{path}' cannot be used: {reason}"
#: the largest spec file read: a spec is a page of text, and a file past this is not one
MAX_SPEC_BYTES = 1_000_000
DATA_NOT_FOUND_ABSOLUTE = "data file '{path}' not found"
DATA_NOT_FOUND_HINT = "a relative data path is read from the spec file's folder first, then from the current directory"
DATA_PATH_EMPTY = "data path is empty: name the CSV file (.csv or .csv.gz) to read"
#: ``~name/...`` is the home folder of the user ``name``; pathlib raises a bare RuntimeError for
#: a name no account has, which reached the user as an internal error
HOME_UNKNOWN = ("{what} '{path}' starts with '{prefix}', but there is no user '{user}' on this machine whose "
                "home folder it could be")
HINT_HOME_UNKNOWN = "'~/' alone is your own home folder; write the path in full otherwise"


@dataclass(frozen=True)
class SpecDocument:
    """A parsed spec with its source.

    ``locations`` maps value positions the AST does not carry itself to their spans, for
    precise carets: ``("data.path",)``, ``("target.positive",)``, ``("filter.value", i, j)``,
    ``("fairness.criterion",)``, ``("fairness.bound", i)``, ``("fairness.penalty", i)``,
    ``("missing.strategy",)``, ``("missing.method",)``, ``("missing.k",)``, ``("output",)``,
    ``("features",)`` / ``("privileged",)`` (the statement keyword) and
    ``("param.value", param.span)`` (the value of a block parameter; absent for a bare flag).
    """

    spec: ast.Spec
    text: str
    path: pathlib.Path | None = None
    locations: dict = field(default_factory=dict, compare=False, repr=False, hash=False)
    display_name: str | None = field(default=None, compare=False, repr=False)
    #: SHA-256 of the file's bytes (None for text that came from no file): what ``sha256sum``
    #: prints, which the text's own hash is not when reading it dropped a byte-order mark,
    #: turned lone carriage returns into newlines or composed Unicode (NFC)
    file_sha256: str | None = field(default=None, compare=False, repr=False)
    #: whether :attr:`text` differs from the file's bytes decoded (one of those three changes)
    normalised: bool = field(default=False, compare=False, repr=False)
    #: problems found while reading that did not keep the spec from being built (a duplicate
    #: statement: the first one is read); :func:`fairspec.dsl.check.check_spec` reports them
    #: with its own, so that one round shows all of them
    problems: tuple[Diagnostic, ...] = field(default=(), compare=False, repr=False)

    @property
    def sha256(self) -> str:
        """The spec's identity: the file's SHA-256, else that of the text (UTF-8)."""
        return self.file_sha256 or hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def filename(self) -> str:
        """The spec's path as given (``<spec>`` for text that came from no file)."""
        if self.display_name is not None:
            return self.display_name
        return str(self.path) if self.path is not None else "<spec>"


def parse_spec(text: str, filename: str = "<spec>", path: str | pathlib.Path | None = None) -> SpecDocument:
    """Parse spec text into a :class:`SpecDocument`.

    Raises :class:`SpecSyntaxError` (one diagnostic, at the offending token) when the text
    does not follow the grammar, and :class:`SpecSemanticError` (every problem at once)
    when required statements are missing: without those the ``ast.Spec`` cannot be built,
    so that check happens here rather than in :func:`fairspec.dsl.check.check_spec`.  A
    duplicated statement does not stop the build (the first one is read): it is kept in
    :attr:`SpecDocument.problems` and reported by ``check_spec`` with the other problems,
    instead of hiding them until the duplicate is fixed.
    """
    path = pathlib.Path(path) if path is not None else None
    # a line that ends in a carriage return alone (classic Mac OS) is a line: the grammar's
    # comments and the error messages break lines at "\n" only, and a comment on the first
    # line swallowed the whole file
    text = _LONE_CR.sub("\n", text)
    # one spelling per text: "é" typed as "e" and a combining accent (NFD, as macOS may save
    # it) is not a name character for the grammar, and would not equal the data's "é"
    # (read_table normalises the data's header and cells the same way)
    text = unicodedata.normalize("NFC", text)
    if filename == "<spec>" and path is not None:
        filename = str(path)
    parser = get_parser()
    try:
        tree = parser.parse(text)
    except UnexpectedInput as error:
        # "specs base" fails at "base" after reading a spec named "s": the run-on is the cause
        run_on = word_run_on(parser, text)
        raise SpecSyntaxError([run_on or diagnostic_from_lark(error, parser, text)], text, filename) from None
    run_on = word_run_on(parser, text)
    if run_on is not None:
        raise SpecSyntaxError([run_on], text, filename)
    deep = too_deep_block(tree)
    if deep is not None:
        raise SpecSyntaxError([deep], text, filename)
    transformer = SpecTransformer()
    spec = transformer.transform(tree)
    if transformer.syntax_problems:
        raise SpecSyntaxError(transformer.syntax_problems[:1], text, filename)
    if spec is None:  # a required statement is missing
        raise SpecSemanticError(transformer.structure_problems, text, filename)
    return SpecDocument(spec, text, path, transformer.locations, filename,
                        problems=tuple(transformer.structure_problems))


def load_spec(path: str | pathlib.Path) -> SpecDocument:
    """Read and parse a spec file.

    A file that cannot be read raises :class:`fairspec.errors.SpecError` (the common base of
    the syntax and semantic errors, exit code 1) with one diagnostic naming the file.
    """
    path = pathlib.Path(path)
    try:
        # a named pipe had blocked the read for ever, /dev/zero filled the memory (found in review)
        if path.exists() and not path.is_dir() and not path.is_file():
            raise SpecError([Diagnostic(SPEC_UNREADABLE.format(reason="not a regular file"))], None, str(path))
        size = path.stat().st_size if path.is_file() else 0
        if size > MAX_SPEC_BYTES:
            raise SpecError([Diagnostic(SPEC_UNREADABLE.format(
                reason=f"{size:,} bytes, more than a spec's {MAX_SPEC_BYTES:,}"))], None, str(path))
        raw = path.read_bytes()
    except OSError as error:
        raise SpecError([Diagnostic(SPEC_UNREADABLE.format(reason=error.strerror or error))], None, str(path)) from None
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SpecError([Diagnostic(SPEC_UTF16, None, SPEC_ENCODING_HINT)], None, str(path))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SpecError([_not_utf8(raw, error)], raw.decode("utf-8-sig", errors="replace"), str(path)) from None
    doc = parse_spec(text, str(path), path)
    return dataclasses.replace(doc, file_sha256=hashlib.sha256(raw).hexdigest(), normalised=doc.text.encode() != raw)


_LINE_ENDS = re.compile(rb"\r\n|\r|\n")


def _not_utf8(raw: bytes, error: UnicodeDecodeError) -> Diagnostic:
    """The decoding error at the line and column of the first byte that is not UTF-8 (columns
    counted in characters, as the parser counts them; the byte offset alone sent the user
    counting bytes)."""
    # every line end counts, as the parser's: a file with lone "\r" ends (old Mac) had put the
    # byte on line 1, at a column past every line (found in review)
    ends = list(_LINE_ENDS.finditer(raw, 0, error.start))
    start = ends[-1].end() if ends else 0
    line = len(ends) + 1
    before = raw[start:error.start].decode("utf-8-sig", errors="replace")
    byte = raw[error.start]
    return Diagnostic(SPEC_NOT_UTF8_AT.format(byte=byte), Span(line, len(before) + 1, line, len(before) + 2),
                      SPEC_ENCODING_HINT)


def resolve_data_path(doc: SpecDocument) -> pathlib.Path:
    """The spec's ``data`` file: relative to the spec file's folder, else to the current directory.

    Raises :class:`SpecSemanticError` at the data string, naming every place tried.
    """
    span = doc.locations.get(("data.path",), doc.spec.data.span)
    if not doc.spec.data.path.strip():
        # an empty path is the spec's own folder, which was then reported as "a directory"
        raise SpecSemanticError([Diagnostic(DATA_PATH_EMPTY, span)], doc.text, doc.filename)
    home_problem = unknown_home(doc.spec.data.path, "data path")
    if home_problem is not None:
        raise SpecSemanticError([Diagnostic(home_problem, span, HINT_HOME_UNKNOWN)], doc.text, doc.filename)
    written = pathlib.Path(doc.spec.data.path).expanduser()
    places = [written] if written.is_absolute() else [doc.path.parent / written] if doc.path is not None else []
    places += [] if written.is_absolute() else [pathlib.Path.cwd() / written]
    try:
        folders = [p for p in places if p.is_dir()]
        others = [p for p in places if p.exists() and not p.is_dir() and not p.is_file()]
        any_file = any(p.is_file() for p in places)
    except OSError as error:
        # a name too long, a folder the user may not enter: Path.is_dir() raises these, which had
        # ended as an internal error (found in review)
        raise SpecSemanticError([Diagnostic(DATA_PATH_UNUSABLE.format(path=doc.spec.data.path,
                                                                      reason=error.strerror or error), span)],
                                doc.text, doc.filename) from None
    if folders and not any_file:
        # "not found" would send the user looking for a file that is there, as a folder
        raise SpecSemanticError([Diagnostic(DATA_IS_A_DIRECTORY.format(path=folders[0]), span,
                                            "name the CSV file inside it")], doc.text, doc.filename)
    if others and not any_file:
        raise SpecSemanticError([Diagnostic(DATA_NOT_REGULAR.format(path=others[0]), span)], doc.text, doc.filename)
    if written.is_absolute():
        if written.is_file():
            return written
        raise SpecSemanticError([Diagnostic(DATA_NOT_FOUND_ABSOLUTE.format(path=doc.spec.data.path), span)],
                                doc.text, doc.filename)
    tried = []
    if doc.path is not None:
        next_to_spec = doc.path.parent / written
        if next_to_spec.is_file():
            return next_to_spec
        tried.append(next_to_spec)
    from_cwd = pathlib.Path.cwd() / written
    if from_cwd.is_file():
        return written
    tried.append(from_cwd)
    if len(tried) == 1:
        message = DATA_NOT_FOUND_ABSOLUTE.format(path=doc.spec.data.path) + f": tried {tried[0]}"
    else:
        message = DATA_NOT_FOUND.format(path=doc.spec.data.path, first=tried[0], second=tried[1])
    raise SpecSemanticError([Diagnostic(message, span, DATA_NOT_FOUND_HINT)], doc.text, doc.filename)


def unknown_home(path: str, what: str) -> str | None:
    """Why ``path`` cannot be expanded as ``~user/...`` (no such user), as a message naming it
    as ``what``; None when it expands (or does not start with ``~``)."""
    if not path.startswith("~"):
        return None
    try:
        pathlib.Path(path).expanduser()
    except RuntimeError:
        prefix = path.split("/", 1)[0]
        return HOME_UNKNOWN.format(what=what, path=path, prefix=prefix, user=prefix[1:])
    return None
