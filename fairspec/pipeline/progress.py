"""Progress on stderr: a bar on a terminal, plain lines otherwise (logs, CI, pipes)."""
from __future__ import annotations

import sys
import time

from fairspec.errors import visible


class Progress:
    """Reports steps of a long run; ``quiet`` silences it (tests, library use)."""

    def __init__(self, stream=None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._start = time.perf_counter()

    def step(self, message: str, done: int | None = None, total: int | None = None) -> None:
        if self.quiet:
            return
        try:
            self._write(message, done, total)
        except (OSError, ValueError, AttributeError):
            # progress only informs: a standard error that is full (2>/dev/full), closed (2>&-,
            # None here) or gone had ended a run that would have written its outputs, exit 1
            # (found in review); the run goes on without it
            self.quiet = True

    def _write(self, message: str, done: int | None, total: int | None) -> None:
        elapsed = time.perf_counter() - self._start
        if self.tty and total:
            width = 24
            filled = int(width * done / total)
            bar = "#" * filled + "-" * (width - filled)
            # the bar's own controls go to the terminal as they are; the message, which can
            # quote a path from the spec, is shown with its controls visible
            raw = getattr(self.stream, "raw", self.stream)
            raw.write(f"\r[{bar}] {done}/{total} {visible(message)} ({elapsed:.0f}s)\033[K")
            if done >= total:
                raw.write("\n")
        else:
            count = f" [{done}/{total}]" if total else ""
            self.stream.write(f"fairspec: {message}{count} ({elapsed:.1f}s)\n")
        self.stream.flush()


SILENT = Progress(quiet=True)
