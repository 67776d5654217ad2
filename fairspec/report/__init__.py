"""The audit report: one self-contained HTML page per run or sweep, or several runs compared.

``build_context(model_doc, metrics_doc, sweep=None)`` formats the parsed model.json and
metrics.json section by section (:mod:`fairspec.report.sections`); ``render_report(context)``
returns the HTML; ``write_report(path, context)`` writes it atomically.
``build_comparison(runs)`` and ``render_comparison(context)`` do the same for several runs on
the same data and split (:mod:`fairspec.report.compare`).  docs/REPORT.md says what each part
of the page means.
"""
from fairspec.report.compare import build_comparison, render_comparison
from fairspec.report.context import ReportContext, build_context
from fairspec.report.render import render_report, write_report

__all__ = ["ReportContext", "build_comparison", "build_context", "render_comparison", "render_report",
           "write_report"]
