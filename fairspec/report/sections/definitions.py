"""The definitions ("How to read this report"): what each number means and the thresholds chosen.

Some notes depend on the runs (the verdict's on the evaluation, ABROCA's on the scores, the
training log's on the statuses); they stand in :data:`READING_NOTES` as markers that
:func:`reading_notes` replaces.
"""
from __future__ import annotations

from fairspec.metrics.disparity import FOUR_FIFTHS
from fairspec.metrics.proxies import PROXY_AUC
from fairspec.report.verdict import _STOPPED_WITH_SOLUTION

SPEC_NORMALISED_NOTE = ("The text above is the spec as fairspec read it: the file has a byte-order mark, "
                        "a line ending in a carriage return alone, or characters in decomposed Unicode, "
                        "which reading drops, turns into a newline or composes (NFC). The SHA-256 in the "
                        "header is of the file's bytes, as sha256sum prints it, so fairspec cannot check "
                        "this text against it: compare it with the spec file itself.")


#: stand in READING_NOTES for the notes that depend on the runs: the verdict's (on the
#: evaluation), ABROCA's (on the scores) and the training log's (on the statuses)
VERDICT_NOTE, ABROCA_NOTE, TRAINING_NOTE = object(), object(), object()
#: stands for the four-fifths note, which names the rate the rule read
FOUR_FIFTHS_NOTE = object()
#: how a test gap's interval is made (fairspec.metrics.intervals), in a reviewer's words
INTERVAL_HOW = ("each group's rates (TPR, FPR, selection rate or accuracy, as the criterion compares them) as "
                "Jeffreys posteriors; with two or three groups (two under equalized odds) their differences "
                "bounded together by simulation, with more each group's exact interval, all holding at once; its "
                "level is close to how often it holds, not a guarantee: with 5 to 10 rows per rate it covered a true "
                "gap of 0 only 91 to 94 times in 100 at 95%")
#: the three states of a verdict, said once for every evaluation
VERDICT_STATES = ("A bound's verdict has three states: MET when the whole interval of the gap lies within the bound, "
                  "NOT MET when it lies wholly above it, and INCONCLUSIVE when the interval crosses the bound: the "
                  "rows "
                  "cannot tell on which side the gap on new data lies, whichever side the measured gap is on. ")
VERDICT_NOTES = {
    "holdout":
        VERDICT_STATES +
        "The fairness verdict is read on the test rows, which training never saw: a bound met on the training rows "
        "can still be missed on new data. Small groups make test gaps noisy, so each test gap comes with an "
        "interval: the range of gaps, on unlimited new data of the same kind, that the test rows are consistent "
        f"with for this model ({INTERVAL_HOW}). It always holds the measured gap; when a group has no test row "
        "of the kind the criterion compares, its high end is 1, as the gap over every group can only be wider. "
        "A gap near its bound whose interval includes the bound is not settled by the test rows; a group with few "
        "rows widens every interval it takes part in, and many groups widen it too: the region must hold every "
        "group's rate at once.",
    "cv":
        VERDICT_STATES +
        "The fairness verdict is read on out-of-fold predictions (cross-validation): every row is scored once, by "
        "a model trained on the other folds, never by one that saw it. Those fold models are not the kept model, "
        "which is trained on all rows, so the verdict says how well this spec's training generalises, not how "
        "one fixed model does. A bound met on the training rows can still be missed on new data. Each "
        "out-of-fold gap comes with an interval: the range of gaps, on unlimited new data of the same kind, that "
        f"the out-of-fold rows are consistent with ({INTERVAL_HOW}). It always holds the measured gap. A gap near "
        "its bound whose interval includes the bound is not settled; a group with few rows widens every interval "
        "it takes part in.",
    "none":
        "There are no test rows (evaluate none): every gap, and the verdict, is measured on the rows the model was "
        "trained on. A bound enforced in training holds there by construction, so the verdict says nothing about "
        "new data; evaluate on held-out rows (a hold-out or cross-validation) to learn that.",
}

READING_NOTES = (
    "Each group is one value (or one combination of values) of the protected attribute(s). "
    "Rates are shares of that group's rows: base rate = P(y = positive), selection rate = P(prediction = positive), "
    "TPR = P(prediction positive | truly positive), FPR = P(prediction positive | truly negative), FNR = 1 − TPR.",
    "Precision = P(truly positive | prediction positive); accuracy = P(prediction = truth). TP, FP, FN and TN count "
    "a group's true positives, false positives, false negatives and true negatives. Each group's rate comes with "
    "its own 95% interval (Jeffreys): how well that group's rows measure it.",
    "A gap is the largest difference of a rate between any two groups (0 is perfect parity). "
    "A group with no positives has no TPR (shown as —) and is left out of that gap; with fewer than two "
    "groups left the gap cannot be measured (—).",
    "Every group is also compared with one reference group, the spec's (reference \"...\") or else the group with "
    "the most rows: the difference (group minus reference) and the ratio (group over reference) of each rate. "
    "Which side of a difference is worse depends on whether the positive class is favourable (a loan: fewer "
    "selections disadvantage a group) or adverse (a recidivism flag: more selections do); the spec says which on "
    "its target line, and the summary names the disadvantaged group only when it does.",
    FOUR_FIFTHS_NOTE,
    VERDICT_NOTE,
    f"Proxies: for each feature, the AUC of a model that predicts the protected group from that feature alone "
    f"(its category, or its decile, each scored by the share of the group among the other folds' rows; 5 folds). "
    f"0.5 says nothing of the group, 1 is a copy of it. A feature at or above {PROXY_AUC:g} is flagged: alone it "
    "sorts a random member of a group above a random non-member at least 7 times in 10, so it can carry the "
    "protected attribute into a model that does not read it. A flag asks for a look, not a removal.",
    ABROCA_NOTE,
    "A criterion that is audited but not enforced, or enforced by a penalty, has no bound: judge its gap "
    "against what is acceptable for the application.",
    TRAINING_NOTE,
)

#: the training log's statuses in a reviewer's words (the rule set's from HiGHS through
#: fairspec.solvers.highs; the trees' and the baseline's their own), in the order listed
STATUS_MEANINGS = {
    "optimal": "optimal means the solver proved its solution best (within the MIP gap asked for)",
    "work_limit": "work_limit means the solver stopped at its work limit (a count of its own steps, the same on "
                  "any machine) and kept the best solution found so far",
    "time_limit": "time_limit means the solver stopped at its time limit and kept the best solution found so far",
    "iteration_limit": "iteration_limit means the solver stopped at its iteration limit and kept the best solution "
                       "found so far",
    "objective_limit": "objective_limit means the solver stopped at the objective asked for",
    "interrupted": "interrupted means the solver was interrupted and kept the best solution found so far",
    "heuristic": "heuristic means no solver proved the model best: a greedy algorithm grew it (a tree one split at "
                 "a time), or its final solution came from a heuristic rather than the integer program",
    "fitted": "fitted means a scikit-learn learner was fitted (no integer program, so no MIP gap)",
}
MIP_GAP_NOTE = ("The MIP gap is how far that solution's objective may be from the best possible one, relative to it "
                "(0% = proven optimal), for the problem named beside it. A large gap says optimality was not proven, "
                "not that the model is inaccurate: the measured accuracy and gaps above are what the model does.")


def four_fifths_note(favourable: bool) -> str:
    """The four-fifths note: on selection rates (the positive class is favourable, or the spec does
    not say), or, when the positive class is adverse, on each group's rate of favourable
    predictions; one text, the rate it names being the difference."""
    if favourable:
        reads = (f"a rate of the favourable decision (being hired, approved) below {FOUR_FIFTHS:g} of the highest "
                 "group's as evidence of adverse impact. Here the spec says the positive class is adverse, so the "
                 "favourable decision is the negative prediction and the rule reads each group's rate of favourable "
                 "predictions, 1 − selection rate.")
        lowest, flagged = "rate of favourable predictions", "ratio of that rate to the reference's"
    else:
        reads = f"a selection rate below {FOUR_FIFTHS:g} of the highest group's as evidence of adverse impact."
        lowest, flagged = "selection rate", "selection-rate ratio to the reference"
    return (f"The four-fifths rule (US EEOC Uniform Guidelines, 29 CFR 1607.4(D)) reads {reads} It is checked "
            f"whatever criterion the spec declares: the summary gives the lowest {lowest} over the highest, and the "
            f"comparison table flags each group whose {flagged} is below {FOUR_FIFTHS:g} or above "
            f"{1 / FOUR_FIFTHS:g}. It is a screen, not a test: with small groups a ratio moves a lot by chance.")


def _four_fifths_note(documents: list[tuple[dict, dict]]) -> str:
    """The four-fifths note for the rate the runs' rule read (metrics.json's ``four_fifths.rate``)."""
    favourable = any(((((d.get(k) or {}).get("disparities") or {}).get("four_fifths") or {}).get("rate")
                      == "favourable_rate") for _, d in documents for k in ("train", "test"))
    return four_fifths_note(favourable)


def _training_note(statuses: list[str], has_mip_gap: bool) -> str:
    """The note on the training log, for the statuses this report shows."""
    known = [meaning for status, meaning in STATUS_MEANINGS.items() if status in statuses]
    if not known:
        return MIP_GAP_NOTE if has_mip_gap else ""
    sentence = "Training log: a status of " + "; ".join(known) + "."
    return sentence + (" " + MIP_GAP_NOTE if has_mip_gap else "")


def _abroca_note(scores_are_labels: bool) -> str:
    note = "ABROCA compares the groups' ROC curves over every threshold, not just the one used for the predictions."
    if scores_are_labels:
        note += (" A model that scores every row 0 or 1 (a tree relabelled for a bound) has one threshold: its "
                 "curves are one point each, and its ABROCA compares those.")
    return note


def reading_notes(kind: str, documents: list[tuple[dict, dict]]) -> tuple[str, ...]:
    """The notes for runs evaluated by ``kind`` (holdout, cv, none) whose files are ``documents``."""
    logs = [d.get("training_log") or (m.get("training") or {}).get("fit_log") or {} for m, d in documents]
    notes = {
        VERDICT_NOTE: VERDICT_NOTES[kind],
        FOUR_FIFTHS_NOTE: _four_fifths_note(documents),
        ABROCA_NOTE: _abroca_note(any((d.get(k) or {}).get("scores_are_labels") for _, d in documents
                                      for k in ("train", "test"))),
        TRAINING_NOTE: _training_note([str(log.get("status")) for log in logs],
                                      any(log.get("mip_gap") is not None or log.get("status") in _STOPPED_WITH_SOLUTION
                                          for log in logs)),
    }
    return tuple(text for text in (notes.get(note, note) for note in READING_NOTES) if text)


def spec_warning(warning: dict) -> str:
    where = (f"line {warning['line']}, column {warning['column']}: " if warning.get("line") is not None
             and warning.get("column") is not None else "")
    hint = f" Hint: {warning['hint']}" if warning.get("hint") else ""
    return f"{where}{warning.get('message', '')}.{hint}"


