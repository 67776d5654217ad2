"""The one atomic file writer every output goes through: a reader never sees half a file."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def new_file_mode(path: Path) -> int:
    """The mode ``open(path, "w")`` would give: the old file's when replacing one, otherwise
    0666 less the umask.  ``mkstemp`` creates 0600, and a report or model file is handed to
    reviewers like any other output."""
    if path.exists():
        return path.stat().st_mode & 0o777
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_beside(path: Path, text: str) -> Path:
    """Write ``text`` to a new temporary file beside ``path``, synced to disk and with the mode
    ``path`` would get; returns the temporary file.  A failure removes it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, new_file_mode(path))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def write_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place.

    A failure while writing removes the temporary file and leaves an existing ``path`` as it
    was; readers see either the old file or the new one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = write_beside(path, text)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path
