"""The audit report: one self-contained HTML page per run or sweep.

``build_context(model_doc, metrics_doc, sweep=None)`` formats the parsed model.json and
metrics.json; ``render_report(context)`` returns the HTML; ``write_report(path, context)``
writes it atomically.
"""
from fairspec.report.context import ReportContext, build_context
from fairspec.report.render import render_report, write_report

__all__ = ["ReportContext", "build_context", "render_report", "write_report"]
