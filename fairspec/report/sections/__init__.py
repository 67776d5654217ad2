"""The report's sections: each a small module that builds one dataclass its template partial reads.

A section is a :class:`Section`: a key (its anchor), a title, the template partial that lays it
out (under ``fairspec/report/templates``) and a ``build`` function from the run's documents
(:class:`RunDocuments`) to the partial's dataclass, or None when the section has nothing to
show for this run.  The report is built in two tiers:

* :data:`RUN_SECTIONS` are built once per model (the single model of a run, or each point of
  a sweep) and shown in order: the groups, the figures, the model;  each has a ``part``:
  ``main`` sections are shown under the model, ``appendix`` ones in the folded appendix after
  the definitions (the fit log);
* the page's own sections (summary, model card, data, spec, definitions) are built once in
  :func:`fairspec.report.context.build_context`.

A model family or a new metrics block adds a section by appending a :class:`Section` to
:data:`RUN_SECTIONS` (with its partial), without touching the others; a family changes how its
model reads through :data:`fairspec.report.sections.model.MODEL_VIEWS`.
"""
from __future__ import annotations

from fairspec.report.sections.base import BuiltSection, RunDocuments, Section


def _run_sections() -> list[Section]:
    from fairspec.report.sections import appendix, figures, groups, model

    return [
        Section("groups", "Groups compared", "_groups.html.jinja", groups.build),
        Section("figures", "Figures", "_figures.html.jinja", figures.build),
        Section("model", "Model", "_model.html.jinja", model.build),
        Section("training", "Training log", "_training.html.jinja", appendix.build, part="appendix"),
    ]


#: the sections built for every model, in page order (see the module docstring)
RUN_SECTIONS: list[Section] = _run_sections()


def build_run_sections(docs: RunDocuments, part: str) -> tuple[BuiltSection, ...]:
    """Every section of ``part`` that has something to show for ``docs``, in order."""
    built = []
    for section in RUN_SECTIONS:
        if section.part != part:
            continue
        view = section.build(docs)
        if view is not None:
            anchor = f"{docs.anchor}-{section.key}" if docs.anchor else section.key
            built.append(BuiltSection(section.key, section.title, section.template, view, anchor))
    return tuple(built)
