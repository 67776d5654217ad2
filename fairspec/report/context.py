"""What the audit report shows, already formatted: the templates only lay it out.

:func:`build_context` reads a ``model.json`` and a ``metrics.json`` document (see
docs/ARTIFACTS.md) and, for a sweep, every point's pair of documents, and returns a
:class:`ReportContext`: one dataclass per section, each built by its own module under
:mod:`fairspec.report.sections` and read by its own template partial (as model-card-toolkit
pairs its dataclasses with its template).  Every number is turned into text in those modules
(rounding, ``—`` for undefined rates, thousands separators) and every judgement too (the
three-state verdict, which group a gap disadvantages), so the templates hold no arithmetic and
the same documents always render the same page.  Strings stay raw: escaping them is the
template engine's job (autoescape is on for every template), and the figures' SVG is checked
(:mod:`fairspec.report.figures`).

The page, in order: header; summary (verdict first); model card and sign-off; the model's
sections (groups, figures, model; each sweep point's in turn); data; spec; definitions; and the
folded appendix (each model's training log).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from fairspec.report.sections import RunDocuments, build_run_sections
from fairspec.report.sections import card as card_section
from fairspec.report.sections import data as data_section
from fairspec.report.sections import header as header_section
from fairspec.report.sections import summary as summary_section
from fairspec.report.sections import sweep as sweep_section
from fairspec.report.sections.base import BuiltSection
from fairspec.report.sections.card import ModelCardView
from fairspec.report.sections.data import DataView
from fairspec.report.sections.definitions import SPEC_NORMALISED_NOTE, reading_notes, spec_warning
from fairspec.report.sections.groups import GROUP_COLUMNS
from fairspec.report.sections.header import HeaderView
from fairspec.report.sections.summary import SummaryView
from fairspec.report.sections.sweep import SweepView
from fairspec.report.verdict import FairnessView, run_fairness
from fairspec.report.words import EvaluationWords, OutcomeWords, evaluation_words, outcome_words

# names other modules and tests import from here, where they lived before the sections
from fairspec.report.format import fmt_gap_against, fmt_number, fmt_rate, fmt_value, key_value  # noqa: F401
from fairspec.report.verdict import clock_caveat, constant_prediction, fairness_view, verdict_state  # noqa: F401
from fairspec.report.sections.data import _filter_text  # noqa: F401

__all__ = ["GROUP_COLUMNS", "ReportContext", "RunView", "build_context"]


@dataclass(frozen=True)
class RunView:
    """Everything about one trained model: a plain run, or one point of a sweep."""

    anchor: str
    title: str
    fairness: FairnessView
    #: which group is on the worse side of the criterion's gap, in words ("" when not measured)
    direction: str
    #: the sections shown under the model, in order (groups, figures, model, ...)
    sections: tuple[BuiltSection, ...]
    #: the sections shown in the appendix (the training log)
    appendix: tuple[BuiltSection, ...]
    note: str = ""  # e.g. "no held-out evaluation"

    def section(self, key: str):
        """The view of the section ``key`` (main or appendix), or None."""
        return next((s.view for s in self.sections + self.appendix if s.key == key), None)

    @property
    def groups(self):
        return self.section("groups")

    @property
    def model(self):
        return self.section("model")

    @property
    def training(self):
        return self.section("training")

    @property
    def figures(self):
        return self.section("figures")

    @property
    def splits(self):
        return self.groups.splits

    @property
    def gaps(self):
        return self.groups.gaps

    @property
    def interval_title(self) -> str:
        return self.groups.interval_title


@dataclass(frozen=True)
class ReportContext:
    header: HeaderView
    spec_text: str
    data: DataView
    runs: tuple[RunView, ...]  # one for a plain run, one per point for a sweep
    evaluated: EvaluationWords
    card: ModelCardView
    outcome: OutcomeWords
    #: the checker's warnings, "line 7, column 31: message. Hint: ..."
    spec_warnings: tuple[str, ...] = ()
    sweep: SweepView | None = None
    #: one run's summary (a sweep's is its table and chart)
    summary: SummaryView | None = None
    reading_notes: tuple[str, ...] = field(default_factory=tuple)
    #: said under the spec when its text is not the file's bytes as they are
    spec_note: str = ""


def _run(model_doc: dict, metrics_doc: dict, anchor: str, title: str, outcome: OutcomeWords) -> RunView:
    docs = RunDocuments(model_doc, metrics_doc, anchor if anchor != "model" else "")
    has_test = bool(metrics_doc.get("test"))
    note = "" if has_test else "No held-out evaluation: every metric below is measured on the training rows."
    verdict_key = "test" if has_test else "train"
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    rows = "training rows" if not has_test else ("out-of-fold rows" if kind == "cv" else "test rows")
    criterion = (metrics_doc.get("fairness") or {}).get("criterion")
    found = summary_section.direction(metrics_doc.get(verdict_key), criterion, outcome, rows,
                                      (metrics_doc.get("data_summary") or {}).get("group_labels"))
    return RunView(anchor=anchor, title=title, fairness=run_fairness(metrics_doc),
                   direction=found.sentence if found else "",
                   sections=build_run_sections(docs, "main"), appendix=build_run_sections(docs, "appendix"),
                   note=note)


def build_context(model_doc: dict, metrics_doc: dict, sweep: list[tuple[dict, dict]] | None = None,
                  failed: list[dict] | None = None) -> ReportContext:
    """Format one run, or a sweep, for :func:`fairspec.report.render.render_report`.

    ``model_doc`` and ``metrics_doc`` are the parsed ``model.json`` and ``metrics.json``.
    For a sweep pass every point's ``(model_doc, metrics_doc)`` in order as ``sweep``; the
    header, spec and data summary then come from ``model_doc``/``metrics_doc`` (usually the
    first point: the data and spec are the same for all points) and each point gets its own
    section.  ``failed`` lists a sweep's settings that gave no model (sweep.json's ``failed``).
    """
    outcome = outcome_words(model_doc, metrics_doc)
    if sweep:
        runs = [_run(m, d, f"point-{i}", f"Point {i}: {run_fairness(d).setting}", outcome)
                for i, (m, d) in enumerate(sweep)]
        sweep_view = sweep_section.build(sweep, runs, failed)
        summary = None
    else:
        runs = [_run(model_doc, metrics_doc, "model", "Model", outcome)]
        sweep_view = None
        summary = summary_section.build(model_doc, metrics_doc, runs[0].fairness, outcome)
    spec = model_doc.get("spec") or {}
    words = evaluation_words(sweep[0][1] if sweep else metrics_doc)
    documents = sweep or [(model_doc, metrics_doc)]
    card = card_section.build(model_doc, metrics_doc)
    hashes = ((("model.json", card.model_sha256),) if not sweep else
              tuple((f"point-{i}/model.json", card_section.model_sha256(m, d)) for i, (m, d) in enumerate(sweep)))
    return ReportContext(
        header=header_section.build(model_doc, hashes),
        spec_text=str(spec.get("text") or ""),
        spec_note=SPEC_NORMALISED_NOTE if spec.get("normalised") is True else "",
        spec_warnings=tuple(spec_warning(w) for w in spec.get("warnings") or ()),
        data=data_section.build(model_doc, metrics_doc, outcome.statement),
        runs=tuple(runs),
        sweep=sweep_view,
        summary=summary,
        card=card,
        outcome=outcome,
        evaluated=words,
        reading_notes=reading_notes(words.kind, documents),
    )

