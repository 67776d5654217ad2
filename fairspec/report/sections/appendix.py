"""The training log, shown in the folded appendix after the definitions.

How the fit ended (status, MIP gap, whether the same spec, data and seed give the model again),
each cross-validation fold's fit, every other fit-log entry with its meaning
(:mod:`fairspec.report.fit_log_terms`), and the pipeline's timings.  A reviewer reads it to
check the verdict's caveats; it is solver detail, so it comes after the definitions, folded.
"""
from __future__ import annotations

from dataclasses import dataclass

from fairspec.report.fit_log_terms import FIT_LOG_RECORD_TERMS, FIT_LOG_TERMS
from fairspec.report.format import UNDEFINED, KeyValue, fmt_number, fmt_seconds, key_value
from fairspec.report.sections.base import RunDocuments
from fairspec.report.verdict import _STOPPED_WITH_SOLUTION, _cut_stages, _fold_cuts, _fold_fits_text


@dataclass(frozen=True)
class TrainingView:
    status: str
    seconds: str
    mip_gap: str
    seed: str
    #: "yes" when every stage stopped by a work limit; otherwise which stages the clock cut
    reproducible: str
    other: tuple[KeyValue, ...]
    timing: tuple[KeyValue, ...]
    #: which stages the time limit stopped, said beside the status ("" when none)
    status_note: str = ""
    #: under cross-validation, how each fold's fit ended ("" otherwise)
    folds: str = ""

#: the order the timing rows are shown in (the steps of a run)
TIMING_ORDER = ("startup_seconds", "read_seconds", "check_seconds", "load_seconds", "fit_seconds", "evaluate_seconds",
                "unconstrained_seconds", "total_seconds")
#: what each timing covers (fairspec.pipeline.train): "fit" is more than the estimator's own
#: fit time in the training log, and a sweep point's total counts from the start of the run
TIMING_LABELS = {
    "startup_seconds": "start-up (importing the modules and reading the spec; the command line's, once per run)",
    "read_seconds": "read (parse the data file; once per run)",
    "check_seconds": "check (the spec against the data; once per run)",
    "load_seconds": "load (filters, target, groups and the split, and reading the file when not read before; "
                    "once per run)",
    "fit_seconds": "fit (encoding, imputation and the estimator; under cross-validation every fold's too)",
    "evaluate_seconds": "evaluate (predictions and metrics)",
    "unconstrained_seconds": "the comparison model without the fairness criterion (fitted, or taken from the "
                             "fit's growth, and evaluated; once per run)",
    "total_seconds": "since the run started (a sweep's earlier points included)",
}


def _mip_gap_text(mip_gap, mip_gap_of, status, returned_from=None, cut=()) -> str:
    """The gap as a percentage; for a MIP stopped early with no gap recorded (HiGHS reports an
    infinite gap before it has a bound, which JSON writes as null), that it is not known — "—"
    reads as "no MIP was solved".  ``returned_from`` is the rule set's ``selected_from``: when the
    model returned is another candidate than the integer program's solution (a refinement of it,
    the local search's), the gap measures that solution, not the model, and the text says so."""
    of = f" (of {mip_gap_of})" if mip_gap_of else ""
    if mip_gap is None:
        if status in _STOPPED_WITH_SOLUTION:
            return "not known: the solver stopped before it had a bound to measure its solution against" + of
        if cut:
            # "—" reads as "no MIP was solved"; here the clock may have stopped one before it had a solution
            return (f"none: the time limit stopped {', '.join(cut)} before a solver returned a solution it could "
                    "measure")
        return UNDEFINED
    text = f"{float(mip_gap):.2%}" + of
    if returned_from is not None and returned_from != "final_ip":
        text += (f"; it measures that program's own solution, and the model returned is another candidate "
                 f"(selected_from {returned_from}), which the gap does not measure")
    return text


def _training(model_doc: dict, metrics_doc: dict) -> TrainingView:
    training = model_doc.get("training") or {}
    log = dict(metrics_doc.get("training_log") or training.get("fit_log") or {})
    status = log.pop("status", None)
    seconds = log.pop("seconds", None)
    mip_gap = log.pop("mip_gap", None)
    mip_gap_of = log.pop("mip_gap_of", None)
    reproducible = log.pop("reproducible", None)
    cut = _cut_stages(log)
    log.pop("cut_by_clock", None)
    clock_cap = log.pop("clock_cap", True)
    if reproducible is None:
        reproducible_text = UNDEFINED
    elif reproducible and training.get("no_clock_cap_flag") is True:
        reproducible_text = ("yes: the clock stopped no stage and could stop none (clock_cap false, set by "
                             "compile-and-train --no-clock-cap: the spec shown does not say it); the same spec, "
                             "data and seed, run with --no-clock-cap, give this model again under the same "
                             "software (in the header), on any x86-64 processor")
    elif reproducible and (model_doc.get("model") or {}).get("family") == "baseline":
        reproducible_text = ("yes: this learner never looks at the clock; the same spec, data and seed give "
                             "this model again under the same software (in the header)"
                             + ("; on another processor its coefficients may differ in their last digits (about "
                                "1e-12, from the linear algebra library)"
                                if ((model_doc.get("model") or {}).get("params") or {}).get("learner") == "logistic"
                                else ", on any x86-64 processor"))
    elif reproducible:
        reproducible_text = ("yes: the clock stopped no stage"
                             + ("" if clock_cap is not False else " and could stop none (clock_cap false)")
                             + "; the same spec, data and seed give this model again under the same software "
                               "(in the header), on any x86-64 processor")
    else:
        reproducible_text = ("not guaranteed: the time limit stopped " + ", ".join(cut)
                             + "; a faster or idle machine may give another model")
    fold_cuts = _fold_cuts(metrics_doc)
    if fold_cuts:
        reproducible_text = (f"the kept model: {reproducible_text}. The out-of-fold metrics and the verdict: not "
                             f"guaranteed, the time limit stopped the fit of {', '.join(fold_cuts)}; a faster or "
                             "idle machine may give other fold models")
    timing = metrics_doc.get("timing") or {}
    return TrainingView(
        status=str(status) if status is not None else UNDEFINED,
        status_note=f"(the time limit stopped {', '.join(cut)})" if cut else "",
        folds=_fold_fits_text(metrics_doc),
        seconds=fmt_seconds(seconds),
        mip_gap=_mip_gap_text(mip_gap, mip_gap_of, status, log.get("selected_from"), cut),
        seed=fmt_number(training.get("seed")),
        reproducible=reproducible_text,
        other=tuple(key_value(k, v, FIT_LOG_TERMS, FIT_LOG_RECORD_TERMS) for k, v in sorted(log.items())),
        timing=tuple(KeyValue(TIMING_LABELS.get(k, str(k).replace("_seconds", "").replace("_", " ")),
                              fmt_seconds(timing[k]))
                     for k in sorted(timing, key=lambda k: (TIMING_ORDER.index(k) if k in TIMING_ORDER
                                                            else len(TIMING_ORDER), k))),
    )




def build(docs: RunDocuments) -> TrainingView:
    return _training(docs.model_doc, docs.metrics_doc)
