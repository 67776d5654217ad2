"""The types every section module shares (see :mod:`fairspec.report.sections`)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RunDocuments:
    """One model's files as read: ``model.json`` and ``metrics.json``, parsed; ``anchor`` prefixes
    the ids of its tables ("" for a single run, ``point-2`` in a sweep)."""

    model_doc: dict
    metrics_doc: dict
    anchor: str = ""

    @property
    def suffix(self) -> str:
        """``-point-2`` in a sweep, "" otherwise: appended to table ids, unique on the page."""
        return f"-{self.anchor}" if self.anchor else ""


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    template: str
    build: Callable[[RunDocuments], object | None]
    part: str = "main"  # main | appendix


@dataclass(frozen=True)
class BuiltSection:
    """A section with what its build gave: the template reads ``view``."""

    key: str
    title: str
    template: str
    view: object
    anchor: str
