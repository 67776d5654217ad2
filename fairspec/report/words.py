"""The words the report uses for the rows a verdict is read on, the gaps, and the positive class.

The same page says "test rows" under a hold-out, "out-of-fold rows" under cross-validation and
"training rows" without either (:class:`EvaluationWords`), and, where the spec says whether the
positive class is favourable (a loan granted) or adverse (a recidivism flag), which side of a
gap is the disadvantaged one (:class:`OutcomeWords`).
"""
from __future__ import annotations

from dataclasses import dataclass

GAP_TITLES = {
    "demographic_parity": "Demographic parity (selection rate gap)",
    "equal_opportunity": "Equal opportunity (TPR gap = FNR gap)",
    "fpr_parity": "FPR parity (false-positive rate gap)",
    "equalized_odds": "Equalized odds (larger of TPR and FPR gaps)",
    "accuracy_parity": "Accuracy parity (accuracy gap)",
    "abroca": "ABROCA (area between the groups' ROC curves)",
}
#: how AUC and ABROCA are named when a model scores every row 0 or 1 (its own labels, as a tree
#: relabelled for a bound does): its ROC curve is one point, so its AUC is its balanced accuracy
AUC_OF_LABELS = "AUC of 0/1 scores (= balanced accuracy)"
ABROCA_OF_LABELS = "ABROCA of 0/1 scores (one-point ROC curves)"

@dataclass(frozen=True)
class EvaluationWords:
    """What the report calls the rows its verdict is read on, by the spec's ``evaluate``: a
    hold-out's test rows, cross-validation's out-of-fold predictions (each row scored by a model
    trained on the other folds, not by the kept model), or, with no test rows, the training rows."""

    kind: str  # holdout | cv | none
    rows: str  # "test rows"
    gap: str  # "test gap"
    accuracy: str  # "Test accuracy"
    verdict_title: str  # the summary card over the verdict
    verdict_column: str  # the sweep table's verdict column
    sweep_sentence: str


EVALUATION_WORDS = {
    "holdout": EvaluationWords(
        "holdout", "test rows", "test gap", "Test accuracy", "Fairness on test rows", "On test",
        "one model per setting, each trained on the same rows and evaluated on the same test rows"),
    "cv": EvaluationWords(
        "cv", "out-of-fold rows", "out-of-fold gap", "Out-of-fold accuracy",
        "Fairness out of fold (cross-validation)", "Out of fold",
        "one model per setting, each evaluated by cross-validation on the same folds"),
    "none": EvaluationWords(
        "none", "training rows", "training gap", "Training accuracy", "Fairness on training rows (no test rows)",
        "On train", "one model per setting, each trained and measured on the same rows (there are no test rows)"),
}


def evaluation_words(metrics_doc: dict) -> EvaluationWords:
    """The words for a run's ``metrics.json``: no test block means no test rows, whatever it says."""
    if not metrics_doc.get("test"):
        return EVALUATION_WORDS["none"]
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    return EVALUATION_WORDS["cv" if kind == "cv" else "holdout"]


#: a rate's name in a sentence
RATE_NAMES = {"selection_rate": "selection rate", "tpr": "true-positive rate (TPR)",
              "fpr": "false-positive rate (FPR)", "fnr": "false-negative rate (FNR)",
              "precision": "precision", "accuracy": "accuracy", "base_rate": "base rate"}
#: a rate's short name in a table heading
RATE_HEADINGS = {"selection_rate": "Selection rate", "tpr": "TPR", "fpr": "FPR", "fnr": "FNR",
                 "precision": "Precision", "accuracy": "Accuracy", "base_rate": "Base rate"}


@dataclass(frozen=True)
class OutcomeWords:
    """How the report speaks of the positive class: ``outcome`` is the spec's ``favourable``,
    ``adverse`` or None (not said), ``target`` and ``positive`` the column and class as the
    data spells them, ``negative`` the other class when model.json names it."""

    outcome: str | None
    target: str
    positive: str
    negative: str = ""

    @property
    def positive_class(self) -> str:
        """``two_year_recid = 1``."""
        return f"{self.target} = {self.positive}"

    @property
    def negative_class(self) -> str:
        """``two_year_recid = 0``, or ``two_year_recid ≠ 1`` when the other class is not named."""
        return f"{self.target} = {self.negative}" if self.negative else f"{self.target} ≠ {self.positive}"

    @property
    def statement(self) -> str:
        """What a selection means, said once beside every use of "selection rate"."""
        if self.outcome == "adverse":
            return (f"The positive class ({self.positive_class}) is adverse to whom it is predicted (the spec says "
                    "so): a group selected more often, or with a higher TPR or FPR, is the disadvantaged one.")
        if self.outcome == "favourable":
            return (f"The positive class ({self.positive_class}) is favourable to whom it is predicted (the spec "
                    "says so): a group selected less often, or with a lower TPR or FPR, is the disadvantaged one.")
        return (f"The spec does not say whether the positive class ({self.positive_class}) is favourable or adverse "
                "to whom it is predicted, so the report does not say which side of a gap is disadvantaged; add "
                "favourable or adverse to its target line.")

    def worse_is_higher(self, rate: str) -> bool | None:
        """Whether a higher ``rate`` is the worse side of a gap (None: the report cannot say)."""
        if rate == "accuracy":
            return False
        if self.outcome is None or rate not in ("selection_rate", "tpr", "fpr", "fnr"):
            return None
        higher_selects = rate != "fnr"  # a higher FNR is a lower TPR: fewer selected
        return higher_selects == (self.outcome == "adverse")


def outcome_words(model_doc: dict, metrics_doc: dict) -> OutcomeWords:
    """The positive class of a run as its files spell it."""
    target = (model_doc.get("schema") or {}).get("target") or {}
    summary = metrics_doc.get("data_summary") or {}
    positive = summary.get("positive", target.get("positive"))
    names = (model_doc.get("model") or {}).get("class_names")
    negative = str(names[0]) if isinstance(names, list) and len(names) == 2 else ""
    outcome = target.get("outcome")
    return OutcomeWords(outcome if outcome in ("favourable", "adverse") else None,
                        str(summary.get("target") or target.get("name") or "target"),
                        str(positive), negative)
