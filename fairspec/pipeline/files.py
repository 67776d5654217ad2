"""Canonical JSON for output files, the one reader of them (:func:`read_json`, with
:func:`number_problem`), and :class:`FileSet`: the files of one run written together."""
from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import secrets
import signal
import sys
import threading
from pathlib import Path

from fairspec.errors import FairspecError, ModelFileError
from fairspec.files import write_beside


def _json_safe(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _json_safe(value.item())
    return value


def dumps(doc) -> str:
    """Canonical JSON: sorted keys, 2-space indent, no NaN (``null`` instead)."""
    return json.dumps(_json_safe(doc), sort_keys=True, indent=2, allow_nan=False) + "\n"


# --- reading a file fairspec wrote ---------------------------------------------------------
#
# `fairspec report` reads every file of a run through these two functions, and `fairspec
# predict` (fairspec.load_model) its model.json: a defect in model.json is described alike by both.


def json_place(kind: str, steps) -> str:
    """``metrics.test.groups.Caucasian.tpr``, ``sweep.points[1].dir``."""
    return kind + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in steps)


def _parse_int(text: str):
    # int() refuses more than sys.get_int_max_str_digits() digits (4,300 by default) with a
    # ValueError that is no JSON error and says nowhere where the number stands.  An integer of
    # more than 400 digits is far beyond a float, so it is read as one (an infinity), and
    # number_problem names its place like any other number out of range.
    return int(text) if len(text) <= 400 else float(text)


def read_json(path, kind: str, not_found_hint: str = ""):
    """The JSON value in ``path``, which should be fairspec's ``kind`` file (model, metrics or
    sweep); a :class:`ModelFileError` naming ``path`` when it cannot be read or is no JSON.
    ``not_found_hint`` follows "file not found" (where the caller knows what to suggest).

    NaN, Infinity and integers of any length are read (one of more than 400 digits as an
    infinity): :func:`number_problem` refuses them once the caller has checked that the
    document is a ``kind`` file at all (a file of another kind is named as that, not as a
    damaged one).  A text holding a lone surrogate is refused here, whatever the file: no
    message or report could print it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(f"{path}: error: {kind} file not found{not_found_hint}") from None
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: error: not valid JSON (not UTF-8 text)") from None
    except OSError as exc:
        raise ModelFileError(f"{path}: error: cannot read the {kind} file ({exc.strerror or exc})") from None
    try:
        doc = json.loads(text, parse_int=_parse_int, object_pairs_hook=_one_value_per_key)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}: error: not valid JSON ({exc})") from None
    except _RepeatedKey as exc:
        raise ModelFileError(f"{path}: error: damaged {kind} file (the key {exc.key!r} appears twice in one "
                             f"object; no file fairspec writes repeats one)") from None
    except RecursionError:  # the decoder recurses once per nesting level
        raise ModelFileError(f"{path}: error: damaged {kind} file (JSON nested too deeply)") from None
    # JSON's \uXXXX escapes can spell half of a UTF-16 pair alone, which Python reads as a str no
    # UTF-8 can encode: printed in a report or a message it had stopped `fairspec report` with an
    # internal error (exit 70).  Only an escape of U+D800..U+DFFF makes one (the text was read as
    # UTF-8), so the document is walked only when the text holds such an escape.
    if _SURROGATE_ESCAPE.search(text):
        problem = _lone_surrogate(doc, kind)
        if problem is not None:
            raise ModelFileError(f"{path}: error: damaged {kind} file ({problem}; no file fairspec writes "
                                 f"holds one)")
    return doc


#: an escape that may spell a lone surrogate; an escaped backslash before "ud800" matches too,
#: and the walk of the document then finds nothing
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_surrogate(text: str) -> bool:
    # a pair of escapes that make one character is read as that character: what is left is alone
    return _SURROGATE.search(text) is not None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(doc, kind: str) -> str | None:
    """Where the first key or text of ``doc`` holding a lone surrogate stands, and that text
    with its surrogates escaped (``ascii``: the message must itself be printable); None when
    there is none.  Walked as :func:`number_problem` walks, places linked, not spelt out."""
    if not isinstance(doc, (dict, list)):
        return f"{kind} is the text {ascii(doc)}, which holds a lone surrogate" if _has_surrogate(doc) else None
    for place, key, value, _ in _entries(doc):
        if isinstance(key, str) and _has_surrogate(key):  # an array's keys are its indices
            return f"{json_place(kind, _steps(place))} has the key {ascii(key)}, which holds a lone surrogate"
        if isinstance(value, str) and _has_surrogate(value):
            return f"{json_place(kind, _steps((place, key)))} is the text {ascii(value)}, which holds a lone surrogate"
    return None


def _entries(doc):
    """``(place, key, value, depth)`` of every entry of the containers of ``doc``, depth first
    in the document's order; ``place`` links to the parent's place (:func:`_steps` spells it
    out), ``depth`` counts the containers open.  Not recursive: a document nested as deep as the
    reader allows is no crash.  A container is entered after it is yielded, so a caller that
    stops at it never opens it."""
    # one iterator per open container
    stack = [(None, iter(doc.items() if isinstance(doc, dict) else enumerate(doc)))]
    while stack:
        place, items = stack[-1]
        step = next(items, None)
        if step is None:
            stack.pop()
            continue
        key, value = step
        yield place, key, value, len(stack)
        if isinstance(value, (dict, list)):
            stack.append(((place, key), iter(value.items() if isinstance(value, dict) else enumerate(value))))


class _RepeatedKey(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _one_value_per_key(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object as a dict, refusing a key given twice: Python keeps the last value, a
    viewer may show the first, so ``"classes": [1, 0], "classes": [0, 1]`` would read as one
    model here and another there (found in review)."""
    doc = dict(pairs)
    if len(doc) != len(pairs):
        seen = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return doc


_FLOAT_MAX = int(sys.float_info.max)


#: deepest nesting a fairspec file may have: what fairspec writes is under 10 deep, and the
#: recursive steps after this check (the model's digest) failed near 600 as an internal error
MAX_DEPTH = 100


def number_problem(doc, kind: str) -> str | None:
    """The first number of ``doc`` that no file fairspec writes holds, and why: NaN and
    Infinity (JSON has neither; Python's reader takes them, and 1e999 reads as Infinity) and
    integers beyond a float, which the report's arithmetic cannot take and no model holds.
    A JSON Schema cannot say "finite", so this walk is the rule, over the whole document (keys
    a schema does not name included: the report shows them too).  Nesting deeper than
    :data:`MAX_DEPTH` is refused here too.

    Each value's place is kept as a link to its parent's, and spelt out only for the value
    named: a path per value had made a 5 MB model file take 6 s and 560 MB (found in review)."""
    def problem(node) -> str | None:
        if isinstance(node, float) and not math.isfinite(node):
            return "NaN" if math.isnan(node) else "out of range"
        if isinstance(node, int) and not isinstance(node, bool) and abs(node) > _FLOAT_MAX:
            return "out of range"
        return None

    if not isinstance(doc, (dict, list)):
        why = problem(doc)
        return None if why is None else f"{kind} is {why}"
    for place, key, value, depth in _entries(doc):
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                return f"{json_place(kind, _steps((place, key))[:3])}... is nested more than {MAX_DEPTH} deep"
        else:
            why = problem(value)
            if why is not None:
                return f"{json_place(kind, _steps((place, key)))} is {why}"
    return None


def _steps(place) -> list:
    """The keys from the document's top to ``place`` (a ``(parent place, key)`` link)."""
    steps = []
    while place is not None:
        place, key = place
        steps.append(key)
    return steps[::-1]


# --- writing a set of files ---------------------------------------------------------------
#
# write_atomic makes each file atomic, not the set: a run whose third file fails to write
# would leave a new model.json beside an old report.html.  FileSet writes every file under a
# temporary name first and renames them into place only once all were written.


class OutputError(FairspecError):
    """An output location that cannot be written: a file where a directory must be, no
    permission, a name too long.  The place is wrong, not fairspec (exit code 1)."""


def cannot_write(path, exc: OSError) -> OutputError:
    """The error a user sees for ``exc`` raised while writing ``path``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(f"{path}: error: cannot write ({reason})")


#: a file is first written as .NAME.XXXXXXXX.tmp, so its name must leave room for these bytes
_TEMP_EXTRA = len(".") + len(".XXXXXXXX.tmp")


def check_writable_dir(path, file_names=()) -> None:
    """Raise :class:`OutputError` when directory ``path`` could not be created or written, or
    one of ``file_names`` in it is a directory.  Creates nothing: it runs before the work, and
    a run that then fails must not leave an empty directory behind."""
    path = Path(path)
    try:
        existing, missing = path, []
        while not os.path.lexists(existing):  # lexists: False, not an error, for a too-long name
            missing.append(existing.name)
            if existing.parent == existing:
                break
            existing = existing.parent
        if existing.is_symlink() and not existing.exists():
            raise OutputError(f"{path}: error: cannot create the directory ({existing} is a broken symbolic link)")
        if not existing.is_dir():
            if existing == path:
                raise OutputError(f"{path}: error: cannot write there: it is a file, not a directory")
            raise OutputError(f"{path}: error: cannot create the directory: {existing} is not a directory")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise OutputError(f"{path}: error: cannot write in {existing} (permission denied)")
        if existing == path and not os.access(path, os.R_OK):
            # writing the outputs lists the directory (files of an earlier run) and opens it
            # (the lock): a directory one may write in but not read had failed only then, after
            # the whole fit (found in review)
            raise OutputError(f"{path}: error: cannot read the directory (permission denied), which writing the "
                              f"outputs needs")
        try:
            name_max = os.pathconf(existing, "PC_NAME_MAX")
        except (OSError, ValueError, AttributeError):
            name_max = 255
        try:
            path_max = os.pathconf(existing, "PC_PATH_MAX")
        except (OSError, ValueError, AttributeError):
            path_max = 4096
        longest = max([len(os.fsencode(str(path / name))) for name in file_names] or [len(os.fsencode(str(path)))])
        if longest + _TEMP_EXTRA >= path_max:
            # each name may be short enough and the whole path not: found only at the end
            raise OutputError(f"{path}: error: cannot write there: the path is {longest:,} bytes long, and the "
                              f"system takes at most {path_max - 1 - _TEMP_EXTRA:,} here")
        for name in missing:
            if len(os.fsencode(name)) > name_max:
                raise OutputError(f"{path}: error: cannot create the directory: the name {name[:20]}... is longer "
                                  f"than {name_max} bytes")
        for name in file_names:
            if len(os.fsencode(Path(name).name)) + _TEMP_EXTRA > name_max:
                raise OutputError(f"{path / name}: error: cannot write: the file name is longer than "
                                  f"{name_max - _TEMP_EXTRA} bytes")
            if os.path.isdir(path / name):
                raise OutputError(f"{path / name}: error: cannot write (a directory is in the way)")
            # a sweep writes point-<i>/model.json: a file named point-<i> would stop that only
            # at the end, after every point was trained
            for parent in reversed(Path(name).parents[:-1]):
                if os.path.lexists(path / parent) and not os.path.isdir(path / parent):
                    raise OutputError(f"{path / name}: error: cannot write: {path / parent} is a file, "
                                      f"not a directory")
    except OSError as exc:  # a component that cannot even be looked at
        raise cannot_write(exc.filename or path, exc) from None


def _free_name(path: Path, suffix: str) -> Path:
    """A name beside ``path`` that nothing uses yet (the caller creates it without replacing)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}{suffix}")


def _same_file(a: Path, b: Path) -> bool:
    sa, sb = os.lstat(a), os.lstat(b)
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


@contextlib.contextmanager
def _signals_deferred():
    """Hold SIGINT, SIGTERM and SIGHUP back while the block runs, then act on the first one held.

    A Ctrl-C lands between any two bytecodes, so no bookkeeping inside ``FileSet.commit``
    can by itself make its renames all-or-nothing: one landing after a rename but before the
    rename is recorded leaves a new report beside the old model.  Held back, the signal arrives
    once the set is complete (or put back).  Only the main thread can change signal handlers;
    elsewhere the block runs as it is, and the rollback in ``commit`` still covers an
    exception.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, object]] = []
    previous = {}
    for sig in HELD_SIGNALS:
        handler = signal.getsignal(sig)
        if handler is None:  # set from C, not Python: leave it alone
            continue
        previous[sig] = handler
        signal.signal(sig, lambda signum, frame: held.append((signum, frame)))
    done = False
    try:
        yield
        done = True
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if held:
            signum, frame = held[0]
            handler = previous.get(signum)
            try:
                if callable(handler):
                    handler(signum, frame)
                elif handler == signal.SIG_DFL:
                    os.kill(os.getpid(), signum)
            except KeyboardInterrupt as exc:
                # the block finished first: whoever reports the interruption must not say
                # that nothing was written (found in review: the new set was in place)
                exc.after_commit = done
                raise


#: the signals held back while a set of files is renamed into place: Ctrl-C, ``kill`` and a
#: closed terminal (SIGHUP had mixed a new model with the previous run's report; found in review)
HELD_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def directory_lock(directory):
    """Hold an exclusive advisory lock on ``directory`` while a run replaces its files.

    Two runs writing one output directory at once (a sweep and a single fit naming the same
    ``output``) each renamed their own set into place, and the renames could interleave:
    ``model.json`` of one run beside ``metrics.json`` of the other, which ``predict`` then
    refuses as two runs' files.  With the lock the later run waits for the earlier one's commit
    (milliseconds), then finds and replaces all of it.  The lock is ``flock`` on the directory
    itself, so no lock file is left behind, and the kernel drops it when a process dies.  Where
    there is no ``fcntl`` (Windows) or the file system has no locks, runs are not serialised."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise cannot_write(directory, exc) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            # a file system without locks (some network mounts: ENOLCK, EOPNOTSUPP) writes as
            # before the lock existed rather than failing a run that has its model
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOTSUP):
                raise cannot_write(directory, exc) from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class FileSet:
    """Files that appear together or not at all.

    ``add_text`` writes each file under a temporary name beside its final one; ``remove``
    schedules a file (an earlier run's) to go; ``commit`` then renames everything into place,
    and on a failure part-way puts back what it had replaced or removed.  Used as a context
    manager, an exception before ``commit`` removes the temporaries.
    """

    def __init__(self):
        self._staged: list[tuple[Path, Path]] = []  # (temporary, final)
        self._remove: list[Path] = []
        self._remove_dirs: list[Path] = []
        self._made_dirs: list[Path] = []
        self.written: list[Path] = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.discard()
        return False

    def make_parents(self, path: Path) -> None:
        """Create the missing directories above ``path``; a discarded set removes them again."""
        todo = []
        parent = path.parent
        while not parent.exists() and parent.parent != parent:
            todo.append(parent)
            parent = parent.parent
        for d in reversed(todo):
            if d.exists():  # "new/.." exists once "new" is made, as under mkdir -p
                continue
            try:
                d.mkdir()
            except OSError as exc:
                raise cannot_write(d, exc) from None
            self._made_dirs.append(d)

    def add_text(self, path, text: str) -> None:
        path = Path(path)
        self.make_parents(path)
        try:
            tmp = write_beside(path, text)
        except OSError as exc:
            raise cannot_write(path, exc) from None
        self._staged.append((tmp, path))

    def add_file(self, tmp, path) -> None:
        """Take a file already written at ``tmp`` (same file system as ``path``) into the set."""
        self._staged.append((Path(tmp), Path(path)))

    def remove(self, path, rmdir_after: bool = False) -> None:
        """Remove file ``path`` on commit; with ``rmdir_after``, ``path`` is a directory to
        remove once the files scheduled in it are gone (kept if anything else is left)."""
        (self._remove_dirs if rmdir_after else self._remove).append(Path(path))

    def discard(self) -> None:
        for tmp, _ in self._staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        for d in reversed(self._made_dirs):
            with contextlib.suppress(OSError):
                d.rmdir()  # only when empty: someone else may have put a file there meanwhile
        self._staged.clear()

    def commit(self) -> list[Path]:
        """Rename every file into place; returns the final paths."""
        for _, final in self._staged:
            if final.is_dir():  # checked first: os.replace would fail on it half-way through the set
                self.discard()
                raise cannot_write(final, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))
        with _signals_deferred():
            return self._commit_renames()

    def _commit_renames(self) -> list[Path]:
        removed: list[tuple[Path, Path]] = []  # (path, where it waits until the commit is done)
        replaced: list[tuple[Path, Path | None, bool]] = []  # (final, backup, existed)
        current = None
        try:
            for current in self._remove:
                aside = _free_name(current, ".old")
                removed.append((current, aside))  # before the rename: undoing one not done is harmless
                os.rename(current, aside)
            for tmp, current in self._staged:
                existed, backup = os.path.lexists(current), None
                if existed:
                    backup = _free_name(current, ".old")
                    try:
                        os.link(current, backup, follow_symlinks=False)
                    except OSError:  # no hard links here: that one file cannot be put back
                        backup = None
                # recorded before the rename, for the same reason: the rollback tells a file not
                # yet replaced by its backup being the same file
                replaced.append((current, backup, existed))
                os.replace(tmp, current)
        except BaseException as exc:  # Ctrl-C too: half a set renamed is what this class prevents
            for final, backup, existed in reversed(replaced):
                with contextlib.suppress(OSError):
                    if backup is not None and _same_file(backup, final):
                        backup.unlink()  # not replaced yet; renaming a link over itself would keep both
                    elif backup is not None:
                        os.replace(backup, final)
                    elif not existed:
                        final.unlink()
            for path, aside in reversed(removed):
                with contextlib.suppress(OSError):
                    if os.path.lexists(aside) and not os.path.lexists(path):
                        os.rename(aside, path)
            self.discard()
            if isinstance(exc, OSError):
                raise cannot_write(current, exc) from None
            raise
        for _, backup, _ in replaced:
            if backup is not None:
                with contextlib.suppress(OSError):
                    backup.unlink()
        for _, aside in removed:
            with contextlib.suppress(OSError):
                aside.unlink()
        for d in self._remove_dirs:
            with contextlib.suppress(OSError):
                d.rmdir()
        self.written = [final for _, final in self._staged]
        self._staged, self._made_dirs = [], []
        return self.written

