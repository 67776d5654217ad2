"""What the audit report shows, already formatted: the template only lays it out.

:func:`build_context` reads a ``model.json`` and a ``metrics.json`` document (see
docs/ARTIFACTS.md) and, for a sweep, every point's pair of documents, and returns a
:class:`ReportContext` of plain strings and lists.  Every number is turned into text here
(rounding, ``—`` for undefined rates, thousands separators) and every judgement too (met or
not met, which gap belongs to the declared criterion), so the template holds no arithmetic
and the same context always renders the same page.  Strings stay raw: escaping them is the
template engine's job (autoescape is on for every template).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

from fairspec.errors import written_name, written_number
from fairspec.metrics.groups import GAP_RATES, MET_TOLERANCE, measurable_part
from fairspec.report.fit_log_terms import FIT_LOG_RECORD_TERMS, FIT_LOG_TERMS

#: shown for a value that does not exist (TPR of a group with no positives, no test split)
UNDEFINED = "—"

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
GROUP_COLUMNS = ("Group", "Rows", "Base rate", "Selection rate", "TPR", "FPR", "FNR", "Accuracy")
GROUP_RATE_KEYS = ("base_rate", "selection_rate", "tpr", "fpr", "fnr", "accuracy")
#: group columns per missing-values table: more make it wider than a printed page
MISSING_GROUPS_PER_TABLE = 6


# --------------------------------------------------------------------------- dataclasses

@dataclass(frozen=True)
class RecordTable:
    """A list of uniform records (say, the phases of a solver run) as a small table."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    #: (column, what it means) for the columns that have a meaning, in column order
    legend: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class KeyValue:
    """One row of a key/value table; long structured values also come as a table or a block."""

    key: str
    value: str
    table: RecordTable | None = None
    block: str | None = None  # indented JSON, shown folded in a <pre>
    #: what the key means, for a reviewer (fit-log entries: fairspec.report.fit_log_terms)
    meaning: str = ""


@dataclass(frozen=True)
class Badge:
    """A verdict: ``css`` is one of ``met``, ``not-met``, ``neutral``."""

    text: str
    css: str
    explanation: str
    #: what the test gap's interval says, in a few words, printed beside the badge where the
    #: explanation has no room (the sweep table): "interval reaches above the bound"
    caveat: str = ""


@dataclass(frozen=True)
class GroupRow:
    name: str
    cells: tuple[str, ...]  # aligned with GROUP_COLUMNS[1:]
    #: the group's readable name from the spec's ``labels`` (metrics.json
    #: ``data_summary.group_labels``), shown beside ``name``; "" when it has none
    label: str = ""


@dataclass(frozen=True)
class GapRow:
    name: str
    title: str
    values: tuple[str, ...]  # one per split, in RunView.splits order
    is_criterion: bool
    interval: str = UNDEFINED  # on the test rows, when metrics.json has intervals


@dataclass(frozen=True)
class SplitMetrics:
    """One split (train or test): overall scores, the per-group table and the gaps."""

    key: str  # "train" | "test"; the table id is f"groups-{key}{suffix}"
    title: str
    table_id: str
    rows: str
    overall: tuple[KeyValue, ...]
    groups: tuple[GroupRow, ...]


@dataclass(frozen=True)
class FairnessView:
    criterion: str
    form: str  # bound | penalty | audit | none
    setting: str  # "gap <= 0.025", "penalty λ = 0.5", "not enforced"
    achieved_train: str
    achieved_test: str
    met_train: str
    badge: Badge
    #: the test gap's interval, "0.0210 to 0.1280 (95%)"; UNDEFINED when not measured
    interval_test: str = UNDEFINED
    #: what the test rows are ("test rows", "out-of-fold rows"; "training rows": there are none)
    test_rows: str = "test rows"
    test_gap: str = "test gap"
    #: where a bound holds ("unseen rows: ..." or "the training rows (`on train`)"); "" without a
    #: bound or in a file written before issue 43
    holds_on: str = ""
    #: the calibration's inner out-of-fold gap at its internal bound, with its interval; "" without one
    inner_gap: str = ""


def calibration_words(fairness: dict) -> tuple[str, str]:
    """(where the bound holds, the inner out-of-fold gap) as the report prints them beside the
    test result, from metrics.json's ``fairness.holds_on`` and ``fairness.calibration``."""
    holds_on, calibration = fairness.get("holds_on"), fairness.get("calibration")
    if holds_on == "train":
        return "the training rows only (`on train`)", ""
    if holds_on != "unseen" or not isinstance(calibration, dict):
        return "", ""
    eps_prime = calibration.get("internal_bound")
    how = (f"{calibration.get('folds')}-fold" if calibration.get("method") == "inner cross-validation"
           else "a single")
    where = (f"unseen rows: the model was fitted at the internal bound ε′ = {fmt_number(eps_prime)}, chosen by "
             f"{how} inner cross-validation on the training rows")
    if calibration.get("met") is False:
        where += "; no internal bound met the bound on the inner held-out rows, so the tightest was taken"
    gap = calibration.get("inner_gap")
    interval = calibration.get("inner_gap_interval")
    level = calibration.get("inner_gap_interval_level")
    inner = "" if gap is None else fmt_gap_against(gap, fairness.get("bound"))
    if inner and interval:
        inner += (f" (interval {fmt_interval(interval, fairness.get('bound'))}"
                  + (f", {level:.0%}" if isinstance(level, (int, float)) else "") + ")")
    return where, inner


@dataclass(frozen=True)
class ModelView:
    family: str
    estimator_kind: str
    params: tuple[KeyValue, ...]
    text: str  # model.text joined by newlines, shown in a <pre>
    missing: str
    impute_values: tuple[KeyValue, ...]
    #: how the text above reads a row with a missing value or an unseen category
    reading: tuple[str, ...] = ()


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


@dataclass(frozen=True)
class RunView:
    """Everything about one trained model: a plain run, or one point of a sweep."""

    anchor: str
    title: str
    model: ModelView
    splits: tuple[SplitMetrics, ...]
    gaps: tuple[GapRow, ...]
    fairness: FairnessView
    training: TrainingView
    note: str  # e.g. "no held-out evaluation"
    #: heading of the gaps table's interval column ("95% interval, test rows"); "" without intervals
    interval_title: str = ""


@dataclass(frozen=True)
class FeatureRow:
    name: str
    kind: str
    categories: str
    role: str


@dataclass(frozen=True)
class MissingTable:
    groups: tuple[str, ...]
    rows: tuple[GroupRow, ...]  # name = feature, cells = one rate per group


@dataclass(frozen=True)
class DataView:
    path: str
    filters: tuple[str, ...]
    rows: str
    rows_train: str
    rows_test: str
    #: how the rows used split into training and test, after the count ("training 700, test 300")
    rows_split: str
    #: rows the spec's ``missing drop`` removed, and test rows left unscored; "" when none
    rows_note: str
    target: str
    positive: str
    protected: str
    protected_note: str
    evaluation: str
    groups: tuple[GroupRow, ...]  # cells: rows, share of rows, base rate[, rows dropped]
    features: tuple[FeatureRow, ...]
    privileged_note: str
    #: the missing rates, in tables of at most MISSING_GROUPS_PER_TABLE groups each (one
    #: column per group: many groups in one table outgrow a printed page); () when none
    missing: tuple[MissingTable, ...]
    #: under ``missing drop``: the groups table has a "dropped" column, and the missing rates
    #: are those of the rows before the drop
    dropped: bool = False


@dataclass(frozen=True)
class HeaderView:
    title: str
    spec_name: str
    spec_path: str
    created: str
    fairspec_version: str
    format_version: str
    #: "python 3.11.7, highspy 1.16.0, ..." from model.json's ``software``; older files lack it
    software: str
    spec_sha256: str
    data_sha256: str
    #: what the spec's hash is of: the file's bytes, or (files written before 2026-11-24, which
    #: have no ``spec.normalised``) the text as read
    spec_sha256_label: str = "Spec file SHA-256"


@dataclass(frozen=True)
class ChartPoint:
    cx: str
    cy: str
    css: str
    label: str
    tooltip: str
    label_x: str
    label_y: str
    label_anchor: str  # "start" right of the point, "end" left of it (near the right edge)


@dataclass(frozen=True)
class ChartTick:
    position: str
    label: str


@dataclass(frozen=True)
class SweepChart:
    """An SVG scatter of test accuracy against the achieved test gap; coordinates in px."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    plot_width: int
    plot_height: int
    x_tick_y: int  # baseline of the x tick labels
    y_tick_x: int  # right edge of the y tick labels
    x_label_x: int
    x_label_y: int
    y_label_x: int
    y_label_y: int
    bound_label_y: int
    x_label: str
    y_label: str
    x_ticks: tuple[ChartTick, ...]
    y_ticks: tuple[ChartTick, ...]
    path: str  # SVG polyline points, in sweep order
    points: tuple[ChartPoint, ...]
    bound_lines: tuple[ChartTick, ...]  # vertical lines at each bound (x positions)
    #: what the chart shows and what its marks mean, for the figure's caption; said of the
    #: chart's own points (a penalty sweep has no bound lines, and a point with no measured gap
    #: is not drawn)
    caption: str = ""
    aria_label: str = ""


@dataclass(frozen=True)
class SweepRow:
    anchor: str
    index: str
    setting: str
    test_accuracy: str
    achieved_train: str
    achieved_test: str
    badge: Badge
    interval_test: str = UNDEFINED


@dataclass(frozen=True)
class SweepView:
    criterion: str
    form: str
    rows: tuple[SweepRow, ...]
    chart: SweepChart | None
    #: settings that gave no usable model: ("≤ 0", the reason), in sweep order
    failed: tuple[tuple[str, str], ...] = ()


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


SPEC_NORMALISED_NOTE = ("The text above is the spec as fairspec read it: the file has a byte-order mark, "
                        "a line ending in a carriage return alone, or characters in decomposed Unicode, "
                        "which reading drops, turns into a newline or composes (NFC). The SHA-256 in the "
                        "header is of the file's bytes, as sha256sum prints it, so fairspec cannot check "
                        "this text against it: compare it with the spec file itself.")


@dataclass(frozen=True)
class ReportContext:
    header: HeaderView
    spec_text: str
    data: DataView
    runs: tuple[RunView, ...]  # one for a plain run, one per point for a sweep
    evaluated: EvaluationWords
    #: the checker's warnings, "line 7, column 31: message. Hint: ..."
    spec_warnings: tuple[str, ...] = ()
    sweep: SweepView | None = None
    reading_notes: tuple[str, ...] = field(default_factory=tuple)
    #: said under the spec when its text is not the file's bytes as they are
    spec_note: str = ""


# --------------------------------------------------------------------------- formatting

#: the order the timing rows are shown in (the steps of a run)
TIMING_ORDER = ("read_seconds", "check_seconds", "load_seconds", "fit_seconds", "evaluate_seconds",
                "total_seconds")
#: what each timing covers (fairspec.pipeline.train): "fit" is more than the estimator's own
#: fit time in the training log, and a sweep point's total counts from the start of the run
TIMING_LABELS = {
    "read_seconds": "read (parse the data file; once per run)",
    "check_seconds": "check (the spec against the data; once per run)",
    "load_seconds": "load (filters, target, groups and the split, and reading the file when not read before; "
                    "once per run)",
    "fit_seconds": "fit (encoding, imputation and the estimator; under cross-validation every fold's too)",
    "evaluate_seconds": "evaluate (predictions and metrics)",
    "total_seconds": "since the run started (a sweep's earlier points included)",
}


def fmt_rate(value, digits: int = 3) -> str:
    """A rate/score in [0, 1] with fixed decimals; ``—`` when undefined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return UNDEFINED
    return f"{float(value):.{digits}f}"


def fmt_share(value) -> str:
    """A share of rows as :func:`fmt_rate`, but a group with rows never reads as 0.000."""
    if isinstance(value, (int, float)) and 0 < value < 0.0005:
        return "<0.001"
    return fmt_rate(value)


def fmt_gap(value) -> str:
    return fmt_rate(value, 4)


def fmt_gap_against(value, bound, digits: int = 4) -> str:
    """:func:`fmt_gap` (``digits`` decimals), with more digits where those would print a gap on
    the wrong side of ``bound``: one that exceeds it as the bound itself ("0.0500 exceeds the
    bound 0.05" for 0.050025), or one within a bound of more than four decimals as above it
    ("0.0013 is within the bound 0.001255" for 0.0012549)."""
    text = fmt_rate(value, digits)
    if bound is None or text == UNDEFINED:
        return text
    exceeds = value > bound + MET_TOLERANCE
    if (exceeds and float(text) <= bound) or (not exceeds and float(text) > bound + MET_TOLERANCE):
        return f"{float(value):.10g}"
    return text


def fmt_interval(interval, bound=None) -> str:
    """``[low, high]`` of a gap as ``low to high``; ``—`` when there is none.  Each end is
    printed against ``bound`` (:func:`fmt_gap_against`): an end of 0.05004 had printed as
    0.0500 in "its interval, 0.0000 to 0.0500, reaches above the bound 0.05" (found in review)."""
    if not interval or any(v is None for v in interval):
        return UNDEFINED
    return f"{fmt_gap_against(interval[0], bound)} to {fmt_gap_against(interval[1], bound)}"


def fmt_count(value) -> str:
    if value is None:
        return UNDEFINED
    return f"{int(value):,}"


def fmt_number(value) -> str:
    """A setting as the user wrote it (0.025, 120, 1e-4)."""
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return written_number(value)
    return str(value)


def fmt_seconds(value) -> str:
    if value is None:
        return UNDEFINED
    return f"{float(value):.2f} s"


def fmt_value(value) -> str:
    """Any JSON value for a key/value table: scalars as text, containers as compact JSON."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    if isinstance(value, float):
        # a measurement to six digits, but a whole number (a count a log stored as a float,
        # 1234567.0) in full: ``.6g`` wrote it as 1.23457e+06
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return fmt_number(value)


def key_value(key, value, terms: dict | None = None, record_terms: dict | None = None) -> KeyValue:
    """A fit-log or parameter entry: lists of records become tables, long JSON a folded block;
    ``terms`` gives the key's meaning, ``record_terms`` those of a records table's columns."""
    key = str(key)
    meaning = (terms or {}).get(key, "")
    if (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
            and all(isinstance(x, (str, int, float, bool, type(None))) for v in value for x in v.values())):
        # the files are written with sorted keys, so a report re-rendered from them sees the
        # records' keys in another order than the run that wrote them: a fixed order (``name``
        # first, it says which record a row is, then alphabetical) keeps the two pages the same
        columns = sorted({str(c) for record in value for c in record}, key=lambda c: (c != "name", c))
        rows = tuple(tuple(fmt_value({str(k): x for k, x in r.items()}.get(c)) for c in columns) for r in value)
        legend = tuple((c, (record_terms or {})[c]) for c in columns if c in (record_terms or {}))
        return KeyValue(key, f"{len(value)} entries", table=RecordTable(tuple(columns), rows, legend),
                        meaning=meaning)
    text = fmt_value(value)
    if isinstance(value, (dict, list, tuple)) and len(text) > 80:
        block = json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2, default=str)
        summary = f"{len(value)} {'keys' if isinstance(value, dict) else 'entries'}"
        return KeyValue(key, summary, block=block, meaning=meaning)
    return KeyValue(key, text, meaning=meaning)


def _group_list(names) -> str:
    """``Group "Asian"`` / ``Groups "Asian" and "Other"`` / ``Groups "a", "b" and 3 more``."""
    quoted = [f'"{n}"' for n in names]
    head = "Group" if len(quoted) == 1 else "Groups"
    if len(quoted) > 4:
        return f"{head} {', '.join(quoted[:3])} and {len(quoted) - 3} more"
    if len(quoted) == 1:
        return f"{head} {quoted[0]}"
    return f"{head} {', '.join(quoted[:-1])} and {quoted[-1]}"


def _met(value, bound, stated):
    """The met verdict: metrics.json's when present, else computed the same way."""
    if stated is not None:
        return bool(stated)
    if value is None or bound is None:
        return None
    return value <= bound + MET_TOLERANCE


def _met_test(fairness: dict):
    """The test verdict: as :func:`_met`, but never recomputed as met while a group has no
    test rows of the kind the criterion counts (``unmeasured_test``): the file's ``null``
    there means "not measurable", not "not recorded"."""
    stated = fairness.get("met_test")
    if stated is None and fairness.get("unmeasured_test"):
        return None
    return _met(fairness.get("achieved_test"), fairness.get("bound"), stated)


# --------------------------------------------------------------------------- sections

def _header(model_doc: dict) -> HeaderView:
    spec = model_doc.get("spec") or {}
    data = model_doc.get("data") or {}
    name = str(spec.get("name") or "unnamed spec")
    return HeaderView(
        title=f"fairspec audit report: {name}",
        spec_name=name,
        spec_path=str(spec.get("path") or UNDEFINED),
        created=str(model_doc.get("created") or UNDEFINED),
        fairspec_version=str(model_doc.get("fairspec_version") or UNDEFINED),
        format_version=fmt_number(model_doc.get("format_version")),
        software=_software_text(model_doc.get("software")),
        spec_sha256=str(spec.get("sha256") or UNDEFINED),
        data_sha256=str(data.get("sha256") or UNDEFINED),
        spec_sha256_label="Spec file SHA-256" if "normalised" in spec else "Spec SHA-256 (of its text as read)",
    )


def _software_text(software) -> str:
    if not isinstance(software, dict) or not software:
        return "not recorded in model.json"
    # Python, then the packages by name: the same text from the training run's own document
    # and from the file it wrote (whose keys are sorted)
    return ", ".join(f"{name} {version}" for name, version in
                     sorted(software.items(), key=lambda item: (item[0] != "python", item[0])))


def _filter_text(flt) -> str:
    if isinstance(flt, (list, tuple)) and len(flt) == 3:
        column, op, values = flt
        # as the spec writes it: a list after in / not in, one value after a comparison
        one = op not in ("in", "not in") and isinstance(values, list) and len(values) == 1
        shown = json.dumps(values[0] if one else values, ensure_ascii=False, default=str)
        return f"{written_name(str(column))} {op} {shown}"
    return fmt_value(flt)


def _evaluation_text(evaluation: dict | None) -> str:
    if not evaluation:
        return UNDEFINED
    kind = evaluation.get("kind")
    by = evaluation.get("stratified_by")
    if by == "target":
        strat = (", stratified by target only (some target-and-group cell has too few rows to be "
                 + ("split" if kind == "holdout" else "spread over every fold") + ")")
    elif by:
        strat = f", stratified by {by}"
    elif "stratified_by" in evaluation and evaluation.get("stratify"):
        # asked for, but even the target's classes were too few to divide: the README promises
        # the report says so (it had said "stratified"; found in review)
        strat = (", not stratified (a target class has too few rows to "
                 + ("split" if kind == "holdout" else "spread over every fold") + ")")
    else:  # not asked for; or a metrics.json from before stratified_by was recorded
        strat = ", stratified" if evaluation.get("stratify") and "stratified_by" not in evaluation else ""
    seed = evaluation.get("seed")
    if kind == "holdout":
        return f"hold-out: {fmt_number(evaluation.get('test_size'))} of rows kept for testing{strat}, seed {seed}"
    if kind == "cv":
        return f"{evaluation.get('folds')}-fold cross-validation{strat}, seed {seed}"
    if kind == "none":
        return "none: metrics are on the training rows only"
    return str(kind)


def _data(model_doc: dict, metrics_doc: dict) -> DataView:
    summary = metrics_doc.get("data_summary") or {}
    schema = model_doc.get("schema") or {}
    data = model_doc.get("data") or {}
    target = schema.get("target") or {}
    protected = [str(p) for p in (summary.get("protected") or schema.get("protected") or [])]

    total = summary.get("rows")
    dropped = summary.get("dropped")
    dropped_by_group = {str(k): v for k, v in ((dropped or {}).get("groups") or {}).items()}
    groups = []
    for name, g in (summary.get("groups") or {}).items():
        share = None if not total else g.get("count", 0) / total
        cells = (fmt_count(g.get("count")), fmt_share(share), fmt_rate(g.get("base_rate")))
        if dropped is not None:
            cells += (_dropped_cell(dropped_by_group.get(str(name)), g.get("count")),)
        groups.append(GroupRow(str(name), cells, _group_label(summary, name)))
    # a group every row of which was dropped has no row used: it still belongs in the table
    for name, n_dropped in dropped_by_group.items():
        if name not in {row.name for row in groups}:
            groups.append(GroupRow(name, (fmt_count(0), fmt_rate(0.0), UNDEFINED, _dropped_cell(n_dropped, 0)),
                                   _group_label(summary, name)))
    rows_split, rows_note = _rows_text(summary, metrics_doc.get("evaluation") or {})

    features = []
    feature_names = set()
    for f in schema.get("features") or []:
        feature_names.add(f.get("name"))
        role = "protected attribute, used as a model input" if f.get("name") in protected else "model input"
        features.append(FeatureRow(str(f.get("name")), str(f.get("kind")),
                                   _categories(f.get("categories"), (schema.get("labels") or {}).get(f.get("name"))),
                                   role))
    for name in protected:
        if name not in feature_names:
            features.append(FeatureRow(name, "categorical", _group_categories(schema, name),
                                       "protected: defines the groups, not a model input"
                                       + _derived_from(schema, name)))
    privileged = schema.get("privileged") or []
    for f in privileged:
        features.append(FeatureRow(str(f.get("name")), str(f.get("kind")), _categories(f.get("categories")),
                                   "privileged: training only, never read at prediction"))
    if not schema.get("features") and summary.get("features"):
        features += [FeatureRow(str(n), UNDEFINED, "", "model input") for n in summary["features"]]
    if privileged:
        names = ", ".join(str(f.get("name")) for f in privileged)
        privileged_note = (f"Privileged features ({names}) are available while training only; "
                           "the model never reads them at prediction time.")
    else:
        privileged_note = "No privileged features: the model uses only the features listed as model inputs."
    not_inputs = [p for p in protected if p not in feature_names]
    if not protected:
        protected_note = ""
    elif not_inputs and len(not_inputs) == len(protected):
        protected_note = "The protected attribute defines the groups only; it is not a model input."
    elif not_inputs:
        protected_note = ("Some protected attributes are model inputs; "
                          + ", ".join(not_inputs) + " defines the groups only.")
    else:
        protected_note = "The protected attribute is also a model input."

    missing = summary.get("missing") or {}
    missing_table = ()
    if missing:
        group_names = []
        for rates in missing.values():
            for g in rates:
                if str(g) not in group_names:
                    group_names.append(str(g))
        # Spec order, not the order of the JSON keys: a report re-rendered from metrics.json
        # (sorted keys) must read the same as the one written after training.
        declared = list(summary.get("features") or []) + list(summary.get("privileged") or [])
        order = [f for f in declared if f in missing] + sorted(f for f in missing if f not in declared)
        # fmt_share: a group with a missing value never reads as 0.000 (one in 2,500 rows had)
        rows = tuple(GroupRow(str(feat), tuple(fmt_share({str(k): v for k, v in missing[feat].items()}.get(g))
                                               for g in group_names))
                     for feat in order)
        missing_table = tuple(
            MissingTable(tuple(group_names[i:i + MISSING_GROUPS_PER_TABLE]),
                         tuple(GroupRow(row.name, row.cells[i:i + MISSING_GROUPS_PER_TABLE]) for row in rows))
            for i in range(0, len(group_names), MISSING_GROUPS_PER_TABLE))

    positive = summary.get("positive", target.get("positive"))
    return DataView(
        path=str(data.get("path") or UNDEFINED),
        filters=tuple(_filter_text(f) for f in data.get("filters") or []),
        # not model.json's rows_used: the rows the kept model was fitted on, not all rows used
        rows=fmt_count(total),
        rows_train=fmt_count(summary.get("rows_train")),
        rows_test=fmt_count(summary.get("rows_test")),
        rows_split=rows_split,
        rows_note=rows_note,
        target=str(summary.get("target") or target.get("name") or UNDEFINED),
        # as the model's text and class names spell a class ("True"), not fmt_number's "yes"
        positive=str(positive) if isinstance(positive, bool) else fmt_number(positive),
        protected=" × ".join(protected) if protected else UNDEFINED,
        protected_note=protected_note,
        evaluation=_evaluation_text(metrics_doc.get("evaluation")),
        groups=tuple(groups),
        features=tuple(features),
        privileged_note=privileged_note,
        missing=missing_table,
        dropped=dropped is not None,
    )


def _dropped_cell(n_dropped, n_kept) -> str:
    """"192 (8.8%)": rows dropped, and their share of the group's rows before the drop."""
    if not isinstance(n_dropped, (int, float)):
        return UNDEFINED
    before = n_dropped + (n_kept if isinstance(n_kept, (int, float)) else 0)
    return fmt_count(n_dropped) + (f" ({100 * n_dropped / before:.1f}%)" if before else "")


def _rows_text(summary: dict, evaluation: dict) -> tuple[str, str]:
    """How the rows used split (beside their count) and what was left out, for the Data table."""
    kind = evaluation.get("kind")
    if kind == "cv":
        split = (f"each tested once, out of fold, by a model trained on the other folds; the kept model "
                 f"is trained on all {fmt_count(summary.get('rows'))}")
    elif kind == "none":
        split = "all for training; no test rows"
    else:
        split = f"training {fmt_count(summary.get('rows_train'))}, test {fmt_count(summary.get('rows_test'))}"
    notes = []
    dropped = (summary.get("dropped") or {}).get("rows")
    if dropped:
        notes.append(f"{fmt_count(dropped)} more {'row' if dropped == 1 else 'rows'} had a missing feature value "
                     f"and {'was' if dropped == 1 else 'were'} dropped (missing drop)")
    unscored = evaluation.get("unscored_test_rows")
    if unscored:
        notes.append(f"{fmt_count(unscored)} test {'row is' if unscored == 1 else 'rows are'} left out of the "
                     f"test metrics: {'it holds' if unscored == 1 else 'they hold'} a category that never occurred "
                     f"in the training rows, and a model trained with missing drop cannot score "
                     f"{'it' if unscored == 1 else 'them'} (fairspec predict refuses such rows too)")
    return split, "; ".join(notes)


def _group_definition(schema: dict, name: str) -> dict:
    """How protected attribute ``name``'s groups are read (model.json ``schema.groups``), or {}."""
    return next((g for g in schema.get("groups") or [] if isinstance(g, dict) and g.get("name") == name), {})


def _derived_from(schema: dict, name: str) -> str:
    """", derived from COLUMN" for a protected attribute whose groups are bins or merged values."""
    group = _group_definition(schema, name)
    if group.get("kind") == "bins":
        return f"; bins of {group.get('column')}, closed on the left"
    if group.get("kind") == "merged":
        return f"; values of {group.get('column')} merged into groups"
    return ""


def _group_categories(schema: dict, name: str) -> str:
    """The groups of a derived protected attribute, as the features table lists categories."""
    group = _group_definition(schema, name)
    if group.get("kind") == "bins":
        return _categories(group.get("groups"))
    if group.get("kind") == "merged" and isinstance(group.get("groups"), dict):
        return ", ".join(f"{label} ({', '.join(map(str, values))})" for label, values in group["groups"].items()
                         if isinstance(values, list))
    return ""


def _categories(categories, labels=None) -> str:
    """A feature's categories for the features table, each with the label the spec's ``labels``
    give it (model.json ``schema.labels``): ``A14 (no checking account)``."""
    if not categories:
        return ""
    labels = labels if isinstance(labels, dict) else {}
    shown = [f"{c} ({labels[c]})" if isinstance(labels.get(c), str) else str(c) for c in categories[:12]]
    more = f" … (+{len(categories) - 12} more)" if len(categories) > 12 else ""
    return ", ".join(shown) + more


def _model(model_doc: dict) -> ModelView:
    model = model_doc.get("model") or {}
    prep = model_doc.get("preprocessing") or {}
    missing = prep.get("missing") or {}
    strategy = missing.get("strategy")
    if strategy == "impute":
        extra = f" k={missing.get('k')}" if missing.get("k") else ""
        missing_text = f"impute({missing.get('impute_method')}{extra})"
    else:
        missing_text = str(strategy) if strategy else UNDEFINED
    text = model.get("text") or []
    if isinstance(text, str):
        text = [text]
    return ModelView(
        family=str(model.get("family") or UNDEFINED),
        estimator_kind=str((model.get("estimator") or {}).get("kind") or UNDEFINED),
        params=tuple(key_value(k, v) for k, v in sorted((model.get("params") or {}).items())),
        text="\n".join(str(line) for line in text) if text else "(the model family gave no readable form)",
        missing=missing_text,
        impute_values=_impute_values(prep),
        reading=_reading_notes(str(model.get("family")), strategy, model_doc.get("schema") or {}, text,
                               "class_names" in model, _tree_scoring(model.get("estimator")),
                               _bootstrapped(model.get("params"))),
    )


def _bootstrapped(params) -> bool:
    """Whether the model's forest drew a bootstrap sample for each tree (the default)."""
    forest = params.get("forest") if isinstance(params, dict) else None
    return isinstance(forest, dict) and forest.get("bootstrap", True) is not False


def _tree_scoring(estimator) -> str | None:
    """``"forest"``, ``"relabelled"`` (a single tree whose leaves the fairness bound relabelled)
    or None: the trees that score a row by their leaves' labels, not by the ``p`` the text shows.
    Read from the estimator, not the text: a relabelling that changed no leaf marks none, yet
    the tree then scores by labels (found in review: under fractional, two trees with the same
    text scored one row 0.38 and 0.57)."""
    if not isinstance(estimator, dict):
        return None
    if isinstance(estimator.get("trees"), list):
        return "forest"
    return "relabelled" if estimator.get("relabelled") is True else None


def _impute_values(prep: dict) -> tuple[KeyValue, ...]:
    """The value ``impute(...)`` fills each feature with, as the data spells it: the fitted
    imputer's ``fill`` (an encoded number: a category's code) named through the encoder.  The
    report had read a key no run writes, so the section never showed, and a reviewer could not
    score a row with a missing value by hand.  Numbers print exactly; under kNN a numeric
    feature has no one value."""
    imputer, encoder = prep.get("imputer"), prep.get("encoder")
    if not (isinstance(imputer, dict) and isinstance(encoder, dict)):
        return ()
    fill, names, categories = imputer.get("fill"), encoder.get("names"), encoder.get("categories")
    if not (isinstance(fill, list) and isinstance(names, list) and len(fill) == len(names)):
        return ()
    categories = categories if isinstance(categories, list) and len(categories) == len(names) else [None] * len(names)
    rows = []
    for name, value, cats in zip(names, fill, categories):
        if isinstance(cats, list):
            code = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            known = code is not None and float(code).is_integer() and 0 <= code < len(cats)
            text = str(cats[int(code)]) if known else fmt_value(value)
            text += " (the most frequent category)" if known else ""
        elif imputer.get("method") == "knn":
            text = f"the mean of its {fmt_value(imputer.get('k'))} nearest training rows (kNN)"
        elif isinstance(value, float):
            text = repr(value)  # exact: a hand-computed score uses it
        else:
            text = fmt_value(value)
        rows.append(KeyValue(str(name), text))
    reference = imputer.get("reference")
    if imputer.get("method") == "knn" and isinstance(reference, list):
        # kNN keeps its neighbours: handing out the model file hands out these records
        rows.append(KeyValue("kNN reference rows", f"model.json holds the feature values of {len(reference):,} "
                                                   "training rows, which kNN imputes from: whoever has the "
                                                   "model file has those records"))
    return tuple(rows)


#: the tree family's own ways of routing a missing value (fairspec.models.tree.split_search),
#: in a reviewer's words; the model text shows where each split sends one
STRATEGY_MEANINGS = {
    "mia": "Missing values (mia, Missing Incorporated in Attributes): each split also chose, on the training rows, "
           'the branch a row missing its feature takes, marked "(or missing)"; a split may also separate '
           "present from missing values.",
    "trinary": "Missing values (trinary, Trinary trees): a row missing a split's feature goes to that split's third "
               "child, shown after its two branches.",
    "trinary_mia": "Missing values (trinary_mia): each split chose, on the training rows, the better of sending a row "
                   'missing its feature down one branch (marked "(or missing)") or to a third child grown for such '
                   "rows.",
    "majority": "Missing values (majority): a row missing a split's feature takes the branch that more training rows "
                'took, marked "(or missing)".',
    "fractional": "Missing values (fractional cases, C4.5): a row missing a split's feature goes down both branches, "
                  "weighted by the training rows' shares, and its score mixes the leaves it reaches.",
    "impute": "Missing values (impute): every missing value is filled in before the model reads it, with the value "
              "learned on the training rows (listed below), so the model itself never sees one.",
    "drop": "Missing values (drop): training rows with a missing feature were left out, and a row with one cannot "
            "be scored.",
}


def _reading_notes(family: str, strategy, schema: dict, text: list, classes_named: bool = True,
                   tree_scoring: str | None = None, bootstrapped: bool = False) -> tuple[str, ...]:
    """What the model's text leaves unsaid: what a leaf's ``p`` is (over a forest tree's
    bootstrap sample when ``bootstrapped``), and whether the score reads
    it (``tree_scoring``, :func:`_tree_scoring`); a rule's condition on a
    missing value; and a category training never saw, which the encoder reads as missing
    (``fairspec.data.prepare``).  A reviewer evaluating ``color != red`` on ``purple`` by hand
    would otherwise expect the opposite of the score."""
    notes = []
    target = schema.get("target") or {}
    positive = "" if "positive" not in target else f" ({target.get('name')} = {target.get('positive')})"
    if not classes_named and any(("leaf: " in str(line) or "THEN " in str(line) or "predict positive" in str(line))
                                 for line in text):
        # written before 2026-11-24: the text shows the fit's 0/1 coding, whatever the data says
        notes.append(f"This text names the classes 1, the positive class{positive}, and 0, the other "
                     f"(written before fairspec named them as the data spells them).")
    if any("leaf: " in str(line) and "(p=" in str(line) for line in text):
        shows = "shows the class it predicts" if classes_named else "shows 1 when it predicts the positive class"
        leaf = (f"A leaf {shows}; p is the share of the positive class{positive} "
                f"among its training rows, n their number.")
        if tree_scoring == "forest" and bootstrapped:
            # each tree is grown on its own bootstrap sample: a reviewer counting the training
            # rows that reach a leaf could not match p or n (found in review)
            leaf += (" In a forest, those are the rows of the tree's own bootstrap sample: n counts the distinct "
                     "training rows drawn for it, and p weighs each by the number of times it was drawn.")
        notes.append(leaf)
    lines = [str(line) for line in text]
    # under fractional cases a row reaches several leaves, weighted
    mixed = (" (a row missing a split's feature: the weighted share of the leaves it reaches whose label is the "
             "positive class)" if strategy == "fractional" else "")
    if tree_scoring == "relabelled":
        notes.append(f"The leaves were relabelled for the fairness bound: a row is scored by the label of the leaf "
                     f"it reaches, 1 for the positive class or 0{mixed}, not by p.")
    elif tree_scoring == "forest":
        notes.append(f"The forest scores a row by the mean of its trees' votes; a tree votes with the label of the "
                     f"leaf the row reaches, 1 for the positive class or 0{mixed}, not with p.")
    if any("relabelled for the fairness bound" in line for line in lines):
        notes.append('A leaf marked "relabelled for the fairness bound" predicts the class that is not '
                     "the majority of its training rows: the integer program that meets the bound chose it.")
    if any("(third child" in line for line in lines):
        notes.append("A third child takes the rows missing its node's split feature (Trinary, Algorithm 1). It is "
                     "grown on all of its node's rows without that feature, at its node's depth: its leaves' n "
                     "count rows the other children count too, and a path through it can hold more splits than "
                     "the depth.")
    if any("missing: weight " in line for line in lines):
        notes.append("A row missing a split's feature goes down both branches with the weights shown (fractional "
                     "cases), and its score mixes the leaves it reaches; n counts it in each of them.")
    if family == "rule_set" and strategy not in ("impute", "drop"):
        notes.append('A condition on a missing value is false unless it says "(or missing)".')
    elif family != "rule_set" and isinstance(strategy, str) and strategy in STRATEGY_MEANINGS:
        notes.append(STRATEGY_MEANINGS[strategy])
    if any("another category" in line for line in lines):
        notes.append('"(or another category)" marks the branch taken by a category the split does not list: one '
                     "that none of this node's training rows held, or one never seen in training.")
    if any(f.get("kind") == "categorical" for f in schema.get("features") or []):
        unseen = "A category not seen in the training rows is read as a missing value"
        notes.append({"impute": unseen + ", and filled in as one (the imputed values below).",
                      "drop": unseen + ": as a row with a missing value, such a row cannot be scored."}
                     .get(strategy if isinstance(strategy, str) else "", unseen + "."))
    return tuple(notes)


def _balanced_accuracy(value) -> str:
    """Balanced accuracy, said to be below chance when it is: a constant or a random prediction
    scores 0.5, so a model below it does worse on its rows than not looking at them, which a
    reviewer reading 0.48 beside an accuracy of 0.70 (one class common) could miss."""
    text = fmt_rate(value)
    if isinstance(value, (int, float)) and math.isfinite(value) and value < 0.5:
        return f"{text} (below 0.5, what a constant or random prediction scores)"
    return text


def _group_label(summary: dict, name) -> str:
    """The readable name the spec's ``labels`` give group ``name`` ("" when none)."""
    label = (summary.get("group_labels") or {}).get(str(name))
    return str(label) if isinstance(label, str) else ""


def _split(key: str, block: dict, suffix: str, evaluation_kind: str | None,
           summary: dict | None = None) -> SplitMetrics:
    groups = tuple(
        GroupRow(str(name), (fmt_count(g.get("count")),) + tuple(fmt_rate(g.get(r)) for r in GROUP_RATE_KEYS),
                 _group_label(summary or {}, name))
        for name, g in (block.get("groups") or {}).items()
    )
    overall = (KeyValue("Accuracy", fmt_rate(block.get("accuracy"))),
               KeyValue("Balanced accuracy", _balanced_accuracy(block.get("balanced_accuracy"))),
               KeyValue(AUC_OF_LABELS if block.get("scores_are_labels") else "AUC", fmt_rate(block.get("auc"))))
    if key == "train":
        title = "Training rows"
    elif evaluation_kind == "cv":
        title = "Out-of-fold rows (cross-validation)"
    else:
        title = "Test rows"
    return SplitMetrics(key=key, title=title,
                        table_id=f"groups-{key}{suffix}", rows=fmt_count(block.get("n")),
                        overall=overall, groups=groups)


def _gaps(blocks: list[dict], criterion: str | None, intervals: dict | None,
          bound: float | None = None, criterion_interval=None) -> tuple[GapRow, ...]:
    """One row per gap (the known ones first, then any others), one value per split, and the
    test rows' interval of each gap from ``intervals`` (a block's ``gap_intervals``); the
    criterion's gaps are printed against its ``bound`` (:func:`fmt_gap_against`), as the
    fairness block prints them, and its interval is ``criterion_interval`` when given: the
    fairness block's, which reaches 1 when a group has no test rows of the compared kind (the
    row had shown the interval over the measured groups, wholly within the bound, beside the
    block's "not measured on test"; found in review)."""
    names = list(GAP_TITLES)
    for block in blocks:
        names += [g for g in (block.get("gaps") or {}) if g not in names]
    def title(name):
        if name == "abroca" and any(b.get("scores_are_labels") for b in blocks):
            return ABROCA_OF_LABELS
        return GAP_TITLES.get(name, name)

    interval = ((intervals or {}).get("gaps") or {}).get
    def value(block, name):
        gap = (block.get("gaps") or {}).get(name)
        return fmt_gap_against(gap, bound) if name == criterion else fmt_gap(gap)

    def interval_of(name):
        if name == criterion:
            return fmt_interval(criterion_interval if criterion_interval is not None else interval(name), bound)
        return fmt_interval(interval(name), None)

    return tuple(GapRow(name, title(name), tuple(value(b, name) for b in blocks), name == criterion,
                        interval_of(name))
                 for name in names)


def _interval_reading(interval, bound: float, met: bool) -> str:
    """Where the test gap's interval lies against the bound: "within" or "reaches above" for a
    met bound, "above" or "includes" for one not met."""
    low, high = interval
    if met:
        return "within" if high <= bound + MET_TOLERANCE else "reaches above"
    return "above" if low > bound + MET_TOLERANCE else "includes"


def _interval_sentence(interval, bound: float, level: float | None, met: bool, rows: str = "test rows") -> str:
    """What the test gap's interval says about the verdict on the bound ('' without one)."""
    if not interval or level is None:
        return ""
    stated = f"Its {level:.0%} interval, {fmt_interval(interval, bound)},"
    return {
        "within": f" {stated} lies within the bound too.",
        "reaches above": f" {stated} reaches above the bound: the {rows} are too few to show that the gap on new "
                         "data is within it.",
        "above": f" {stated} lies above the bound too.",
        "includes": f" {stated} includes the bound: the {rows} cannot tell whether the gap on new data exceeds it.",
    }[_interval_reading(interval, bound, met)]


def _interval_caveat(interval, bound: float, level: float | None, met: bool) -> str:
    """:func:`_interval_sentence` in a few words, for where only a few fit (the sweep table)."""
    if not interval or level is None:
        return ""
    return {"within": "interval within the bound", "reaches above": "interval reaches above the bound",
            "above": "interval above the bound", "includes": "interval includes the bound"}[
        _interval_reading(interval, bound, met)]


def constant_prediction(block: dict | None) -> str | None:
    """``"negative"`` or ``"positive"`` when ``block`` (a metrics.json split) predicts that class
    for every row (every group's selection rate 0, or every one 1); ``None`` otherwise."""
    rates = [g.get("selection_rate") for g in ((block or {}).get("groups") or {}).values()]
    if not rates or any(r is None for r in rates):
        return None
    if all(r == 0 for r in rates):
        return "negative"
    if all(r == 1 for r in rates):
        return "positive"
    return None


def _constant_sentence(constant: str | None, rows: str, interval: bool = False) -> str:
    """Said beside a verdict on a model that predicts one class for every row: it gives every
    group the same selection rate, TPR and FPR, so a bound on their gaps holds whatever the
    model does to the groups (a bound finer than a small group's rows often leaves such a model).
    The report knows only that these rows got one class, not that every input would: with an
    ``interval`` beside it, which reaches above 0, the sentence says why (a review read "their
    gaps are 0" beside an interval of 0 to 0.446 as a contradiction)."""
    if constant is None:
        return ""
    said = (f" Every one of the {rows} is predicted {constant} (a constant model): a constant prediction gives "
            f"every group the same selection rate, TPR and FPR, so their gaps on these rows are 0 however the "
            f"groups differ.")
    if interval:
        said += (f" The interval reaches above 0 because it is about new data, where the model need not predict "
                 f"{constant} for every row.")
    return said


def fairness_view(fairness: dict | None, has_test: bool, level: float | None = None,
                  words: EvaluationWords = EVALUATION_WORDS["holdout"], test_block: dict | None = None,
                  constant: str | None = None) -> FairnessView:
    """The criterion, its setting, the achieved gaps and the verdict badge on test; ``level``
    is the coverage of the test gap's interval (``fairness["interval_test"]``), if any;
    ``words`` name the test rows (out-of-fold ones under cross-validation); ``constant`` is the
    class the model predicts for every one of those rows, if it predicts one only
    (:func:`constant_prediction`)."""
    view = _fairness_view(fairness, has_test, level, words, test_block)
    if constant is None:
        return view
    interval = fairness.get("interval_test") if fairness and level is not None and has_test else None
    wide = bool(interval) and all(v is not None for v in interval) and max(float(v) for v in interval) > 0
    return _with_note(view, _constant_sentence(constant, words.rows, wide),
                      f"constant model: every row predicted {constant}")


def _with_note(view: FairnessView, sentence: str, caveat: str) -> FairnessView:
    """``view`` with ``sentence`` after its badge's explanation and ``caveat`` among its caveats
    (the few words the sweep table prints beside the badge)."""
    badge = view.badge
    return replace(view, badge=replace(badge, explanation=badge.explanation + sentence,
                                       caveat="; ".join(c for c in (badge.caveat, caveat) if c)))


def _fairness_view(fairness: dict | None, has_test: bool, level: float | None,
                   words: EvaluationWords, test_block: dict | None) -> FairnessView:
    fairness = fairness or {}
    name = fairness.get("criterion")
    bound, penalty = fairness.get("bound"), fairness.get("penalty")
    a_train, a_test = fairness.get("achieved_train"), fairness.get("achieved_test")
    met_train = _met(a_train, bound, fairness.get("met_train"))
    met_test = _met_test(fairness)
    if name is None:
        return FairnessView(
            criterion="none declared", form="none", setting="not enforced",
            achieved_train=UNDEFINED, achieved_test=UNDEFINED, met_train=UNDEFINED,
            badge=Badge("NO CRITERION", "neutral",
                        "The spec declares no fairness criterion; every gap is still measured and listed."),
            test_rows=words.rows, test_gap=words.gap)
    unmeasured = fairness.get("unmeasured_test") or []
    if bound is not None:
        setting = f"gap ≤ {fmt_number(bound)} (hard bound)"
        part, measured = measurable_part(test_block, GAP_RATES.get(str(name), ()))
        if has_test and met_test is False and a_test is None and part is not None:
            missing = [r for r in GAP_RATES.get(str(name), ()) if r not in measured]
            badge = Badge("NOT MET", "not-met",
                          f"Fewer than two groups have a {' or '.join(r.upper() for r in missing)} in the "
                          f"{words.rows}, so the {words.gap} cannot be measured in full; its "
                          f"{' and '.join(r.upper() for r in measured)} part alone, "
                          f"{fmt_gap_against(part, bound)}, exceeds the bound {fmt_number(bound)}, and the whole "
                          "gap is at least that.")
        elif has_test and unmeasured and met_test is None and a_test is not None:
            badge = Badge("NOT MEASURED ON TEST", "neutral",
                          f"{_group_list(unmeasured)} {'has' if len(unmeasured) == 1 else 'have'} the rate this "
                          f"criterion compares on the training rows but not in the {words.rows}, so the "
                          f"{words.gap} over every group cannot be measured. Over the other groups it is "
                          f"{fmt_gap_against(a_test, bound)}, within the bound {fmt_number(bound)}; a group left "
                          "out can only widen it. Read the training gap and the group table.")
        elif has_test and met_test is not None:
            why = _interval_sentence(fairness.get("interval_test"), bound, level, met_test, words.rows)
            caveat = _interval_caveat(fairness.get("interval_test"), bound, level, met_test)
            badge = (Badge("MET", "met",
                           f"The {words.gap} {fmt_gap_against(a_test, bound)} is within the bound "
                           f"{fmt_number(bound)}.{why}",
                           caveat)
                     if met_test else
                     Badge("NOT MET", "not-met",
                           f"The {words.gap} {fmt_gap_against(a_test, bound)} exceeds the bound "
                           f"{fmt_number(bound)}.{why}",
                           caveat))
        elif has_test:
            badge = Badge("NOT MEASURED ON TEST", "neutral",
                          f"Fewer than two groups have, in the {words.rows}, the rate this criterion compares, "
                          f"so the {words.gap} cannot be measured; read the training gap and the group table.")
        elif met_train is not None:
            badge = (Badge("MET ON TRAIN", "met", "There is no test split; the verdict is on the training rows.")
                     if met_train else
                     Badge("NOT MET ON TRAIN", "not-met",
                           "There is no test split, and the training gap exceeds the bound."))
        else:
            badge = Badge("NOT MEASURED", "neutral", "No achieved gap was recorded for this criterion.")
        form = "bound"
    elif penalty is not None:
        setting = f"penalty λ = {fmt_number(penalty)} (soft, no bound)"
        form = "penalty"
        badge = Badge("PENALIZED, NO BOUND", "neutral",
                      "The gap was penalised in training with no bound to meet; read the achieved gaps.")
    else:
        setting = "not enforced"
        form = "audit"
        badge = Badge("AUDITED, NOT ENFORCED", "neutral",
                      "The criterion is measured and reported; training did not constrain it.")
    holds_on, inner_gap = calibration_words(fairness) if bound is not None else ("", "")
    return FairnessView(
        holds_on=holds_on, inner_gap=inner_gap,
        criterion=str(name), form=form, setting=setting,
        achieved_train=fmt_gap_against(a_train, bound),
        achieved_test=fmt_gap_against(a_test, bound) if has_test else UNDEFINED,
        met_train=UNDEFINED if met_train is None else ("met" if met_train else "not met"),
        badge=badge,
        interval_test=(fmt_interval(fairness.get("interval_test"), bound) + f" ({level:.0%})"
                       if has_test and level is not None and fairness.get("interval_test") else UNDEFINED),
        test_rows=words.rows, test_gap=words.gap,
    )


#: statuses of a solver stopped early with a solution in hand: its gap is a number once it has a bound
_STOPPED_WITH_SOLUTION = ("time_limit", "work_limit", "iteration_limit", "objective_limit", "interrupted")


def _cut_stages(log: dict) -> list[str]:
    """The stages of a fit the clock stopped, from its log's ``cut_by_clock``."""
    return [str(stage) for stage in (log.get("cut_by_clock") or [])]


def _fold_fits(metrics_doc: dict) -> list[dict]:
    """metrics.json's ``evaluation.fold_fits``: how each cross-validation fold's fit ended."""
    fits = (metrics_doc.get("evaluation") or {}).get("fold_fits") or []
    return [f for f in fits if isinstance(f, dict)]


def _fold_cuts(metrics_doc: dict) -> list[str]:
    """"fold 2 (relabel_mip)" for each fold whose fit the clock cut."""
    return [f"fold {f.get('fold')} ({', '.join(_cut_stages(f))})" for f in _fold_fits(metrics_doc)
            if _cut_stages(f)]


def _fold_fits_text(metrics_doc: dict) -> str:
    """One line for the training log: each fold's status and MIP gap, and what the clock cut."""
    parts = []
    for f in _fold_fits(metrics_doc):
        text = f"fold {f.get('fold')}: {f.get('status') if f.get('status') is not None else UNDEFINED}"
        if f.get("mip_gap") is not None:
            text += f", MIP gap {float(f['mip_gap']):.2%}"
        if _cut_stages(f):
            text += f", the time limit stopped {', '.join(_cut_stages(f))}"
        parts.append(text)
    return "; ".join(parts)


def clock_caveat(metrics_doc: dict) -> tuple[str, str] | None:
    """(caveat, sentence) for a verdict read on a model the time limit stopped, or None.

    The verdict reads the out-of-fold predictions under cross-validation (so the folds' fits,
    and the kept model handed over), and the kept model otherwise.  A clock-cut fit is the
    best found in time, often the empty rule set or a constant tree: the summary had shown a
    green MET with nothing to say the limit, not the method, chose it (found in review)."""
    cuts = []
    kept = _cut_stages(metrics_doc.get("training_log") or {})
    if kept:
        cuts.append(f"the kept model's fit ({', '.join(kept)})")
    folds = _fold_cuts(metrics_doc) if (metrics_doc.get("evaluation") or {}).get("kind") == "cv" else []
    if folds:
        cuts.append("the fit of " + ", ".join(folds))
    if not cuts:
        return None
    return ("the time limit stopped the fit",
            f" The time limit stopped {' and '.join(cuts)}: each such model is the best found in time, not what "
            "the method would give with its work done, and a faster or idle machine may give another.")


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


def _with_clock_caveat(view: FairnessView, metrics_doc: dict) -> FairnessView:
    """``view`` with :func:`clock_caveat`'s words on its badge, when a fit behind it was cut."""
    said = clock_caveat(metrics_doc)
    if said is None:
        return view
    caveat, sentence = said
    return _with_note(view, sentence, caveat)


def _with_kept_model_caveat(view: FairnessView, metrics_doc: dict) -> FairnessView:
    """``view`` saying so when, under cross-validation, the model kept (fitted on every row) predicts
    one class for every training row while the fold models behind the out-of-fold verdict do not.
    The verdict and the summary read the fold models; a penalty strong enough to flatten the kept
    model had left it looking like them (a review found a tree of 16 leaves, every one 0, under an
    out-of-fold accuracy of 0.782)."""
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    if kind == "none" or not metrics_doc.get("test") or constant_prediction(metrics_doc.get("test")):
        return view  # the verdict's own rows say it (fairness_view)
    kept = (metrics_doc.get("constant_model") or {}).get("predicts") or (
        constant_prediction(metrics_doc.get("train")) if kind == "cv" else None)
    if kept is None:
        return view
    if kind == "cv":
        sentence = (f" The model kept, fitted on every row, predicts {kept} for every one of them (a constant "
                    f"model): the out-of-fold numbers are of the fold models, which do not, so they say little of "
                    f"the model kept.")
    else:
        sentence = (f" The model predicts {kept} for every one of its training rows (a constant model), though not "
                    f"for every test row: its gaps say little of what it does to the groups.")
    return _with_note(view, sentence, f"constant model kept: predicts {kept} for every training row")


def _run(model_doc: dict, metrics_doc: dict, anchor: str, title: str, suffix: str) -> RunView:
    fairness = metrics_doc.get("fairness") or {}
    criterion = fairness.get("criterion")
    blocks = [(key, metrics_doc[key]) for key in ("train", "test") if metrics_doc.get(key)]
    kind = (metrics_doc.get("evaluation") or {}).get("kind")
    splits = [_split(key, block, suffix, kind, metrics_doc.get("data_summary") or {}) for key, block in blocks]
    has_test = bool(metrics_doc.get("test"))
    note = "" if has_test else "No held-out evaluation: every metric below is measured on the training rows."
    intervals = (metrics_doc.get("test") or {}).get("gap_intervals")
    level = intervals.get("level") if intervals else None
    interval_title = ""
    if level is not None:
        interval_title = f"{level:.0%} interval, {splits[-1].title.lower()}"
    return RunView(anchor=anchor, title=title, model=_model(model_doc), splits=tuple(splits),
                   gaps=_gaps([b for _, b in blocks], criterion, intervals, fairness.get("bound"),
                              fairness.get("interval_test") if intervals else None),
                   fairness=_with_kept_model_caveat(_with_clock_caveat(
                       fairness_view(fairness, has_test, level, evaluation_words(metrics_doc), metrics_doc.get("test"),
                                     constant_prediction(metrics_doc.get("test") or metrics_doc.get("train"))),
                       metrics_doc), metrics_doc),
                   training=_training(model_doc, metrics_doc),
                   note=note, interval_title=interval_title)


# --------------------------------------------------------------------------- sweep chart

def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2, 2.5 or 5 × 10^k steps) covering [low, high].

    A single value is widened to a range, but not past 0 or 1: both axes are rates or gaps,
    and an axis reaching −0.01 (every gap 0) showed a value no point can have."""
    if not math.isfinite(low) or not math.isfinite(high):
        return [0.0, 1.0]
    if high - low < 1e-12:
        pad = max(abs(high) * 0.05, 0.01)
        low = low - pad if low - pad >= 0 or low < 0 else 0.0
        high = high + pad if high + pad <= 1 or high > 1 else 1.0
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 12))
        value += step
    return ticks


def _chart(rows: list[tuple[float | None, float | None, bool | None, str, float | None]],
           words: EvaluationWords = EVALUATION_WORDS["holdout"]) -> SweepChart | None:
    """Scatter of (achieved test gap, test accuracy) per point, each row ``(gap, accuracy, met,
    label, bound)``, with a line at each bound; None with < 1 measured point."""
    measured = [row for row in rows if row[0] is not None and row[1] is not None]
    if not measured:
        return None
    bounds = [float(bound) for *_, bound in rows if bound is not None]
    width, height, left, right, top, bottom = 560, 330, 64, 24, 26, 48
    xs = [x for x, *_ in measured] + list(bounds)
    ys = [y for _, y, *_ in measured]
    x_ticks = nice_ticks(min(0.0, min(xs)), max(xs))
    y_ticks = nice_ticks(min(ys), max(ys))
    x0, x1 = x_ticks[0], x_ticks[-1]
    y0, y1 = y_ticks[0], y_ticks[-1]
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(x):
        return left + (x - x0) / (x1 - x0) * plot_w

    def py(y):
        return top + plot_h - (y - y0) / (y1 - y0) * plot_h

    def point(x, y, met, label, bound):
        near_right = px(x) > left + 0.8 * plot_w
        # the mark says met / not met where colour cannot (a black-and-white print)
        mark = " ✓" if met else (" ✗" if met is False else "")
        return ChartPoint(
            f"{px(x):.1f}", f"{py(y):.1f}", "met" if met else ("not-met" if met is False else "neutral"),
            label + mark,
            # against the bound, as the sweep table prints it: 0.05004 had read "0.0500", marked ✗
            f"{label}: {words.gap} {fmt_gap_against(x, bound)}, {words.accuracy.lower()} {fmt_rate(y)}",
            label_x=f"{px(x) + (-8 if near_right else 8):.1f}", label_y=f"{py(y) - 8:.1f}",
            label_anchor="end" if near_right else "start")

    points = _placed_labels([point(*row) for row in measured], low=top + LABEL_HEIGHT, high=height - bottom - 2)
    return SweepChart(
        caption=_chart_caption(rows, measured, bool(bounds), words),
        aria_label=f"{words.accuracy} against the achieved gap on the {words.rows}, one point per sweep setting",
        width=width, height=height, left=left, right=width - right, top=top, bottom=height - bottom,
        plot_width=plot_w, plot_height=plot_h, x_tick_y=height - bottom + 16, y_tick_x=left - 6,
        x_label_x=left + plot_w // 2, x_label_y=height - 8, y_label_x=14, y_label_y=top + plot_h // 2,
        bound_label_y=top - 6,
        x_label=f"achieved gap on {words.rows}", y_label=words.accuracy.lower(),
        x_ticks=tuple(ChartTick(f"{px(t):.1f}", f"{t:g}") for t in x_ticks),
        y_ticks=tuple(ChartTick(f"{py(t):.1f}", f"{t:g}") for t in y_ticks),
        path=" ".join(f"{p.cx},{p.cy}" for p in points),
        points=points,
        bound_lines=tuple(ChartTick(f"{px(b):.1f}", f"≤ {fmt_number(b)}") for b in sorted(set(bounds))),
    )


#: a point label's height and the width of one of its characters, in the chart's pixels
#: (11px text; a generous width, so an estimate never lets two labels touch)
LABEL_HEIGHT, LABEL_CHAR_WIDTH = 12, 7


def _placed_labels(points: list[ChartPoint], low: float, high: float) -> tuple[ChartPoint, ...]:
    """The points with labels that do not overprint one another.

    Points drawn at one spot share one label ("λ = 5 ✓, λ = 1000000000 ✓"): two labels there had
    printed over each other and read as a setting that does not exist (λ = 5000000000).  A label
    that would overlap one placed before it moves down or up a line at a time, to the nearest
    free place between ``low`` and ``high`` (baselines; ``low`` keeps it off the bound labels
    over the plot), and stays where it was if there is none."""
    merged: dict[tuple[str, str], list[ChartPoint]] = {}
    for p in points:
        merged.setdefault((p.cx, p.cy), []).append(p)
    placed, boxes = [], []

    def box(p: ChartPoint, y: float) -> tuple[float, float, float, float]:
        x, width = float(p.label_x), LABEL_CHAR_WIDTH * len(p.label)
        left = x - width if p.label_anchor == "end" else x
        return left, left + width, y - LABEL_HEIGHT, y

    def free(b) -> bool:
        return all(b[1] <= o[0] or o[1] <= b[0] or b[3] <= o[2] or o[3] <= b[2] for o in boxes)

    for p in points:
        same = merged[(p.cx, p.cy)]
        if p is not same[0]:
            placed.append(replace(p, label=""))
            continue
        p = replace(p, label=", ".join(q.label for q in same))
        base = min(max(float(p.label_y), low), high)
        tries = [base + sign * step * LABEL_HEIGHT for step in range(8) for sign in ((1,) if not step else (1, -1))]
        y = next((t for t in tries if low <= t <= high and free(box(p, t))), base)
        boxes.append(box(p, y))
        placed.append(replace(p, label_y=f"{y:.1f}"))
    return tuple(placed)


def _chart_caption(rows: list, measured: list, has_bounds: bool, words: EvaluationWords) -> str:
    """The chart's caption: its axes, then the marks it holds (bound lines and met / not met
    colours only where there are bounds), then the settings it leaves out."""
    text = f"{words.accuracy} against the achieved gap on the {words.rows}."
    if has_bounds:
        text += (f" Dashed lines: the bounds. Green, marked ✓: bound met on the {words.rows}; red, marked ✗: "
                 "not met")
        if any(met is None for _, _, met, *_ in measured):
            text += f"; grey: not measurable on the {words.rows} (a group left out of the gap)"
        text += "."
    else:
        text += " No setting has a bound, so no point is met or not met."
    left_out = [label for x, y, _, label, *_ in rows if x is None or y is None]
    if left_out:
        text += (f" Not drawn, as their gap on the {words.rows} was not measured: "
                 + ", ".join(left_out) + ".")
    return text


def _setting_label(setting: dict, otherwise: str) -> str:
    """A sweep setting, short: ``≤ 0.05`` or ``λ = 2``, from its ``bound`` and ``penalty``."""
    if setting.get("bound") is not None:
        return f"≤ {fmt_number(setting['bound'])}"
    if setting.get("penalty") is not None:
        return f"λ = {fmt_number(setting['penalty'])}"
    return otherwise


def _failed_setting(entry: dict) -> tuple[str, str]:
    """A sweep setting with no model, as the chart names settings, and why."""
    return (_setting_label(entry, f"setting {fmt_value(entry.get('sweep_index'))}"),
            str(entry.get("reason") or UNDEFINED))


def _sweep(sweep: list[tuple[dict, dict]], runs: list[RunView]) -> SweepView:
    rows, chart_rows = [], []
    criterion, form = "none declared", "none"
    for index, ((_, metrics_doc), run) in enumerate(zip(sweep, runs)):
        fairness = metrics_doc.get("fairness") or {}
        criterion = str(fairness.get("criterion") or criterion)
        form = run.fairness.form
        measured_on = metrics_doc.get("test") or metrics_doc.get("train") or {}
        accuracy = measured_on.get("accuracy")
        if metrics_doc.get("test"):
            gap, met = fairness.get("achieved_test"), _met_test(fairness)
        else:  # evaluate none: the chart, as its axis says, is of the training rows
            gap = fairness.get("achieved_train")
            met = _met(gap, fairness.get("bound"), fairness.get("met_train"))
        label = _setting_label(fairness, f"point {index}")
        rows.append(SweepRow(anchor=run.anchor, index=str(index), setting=run.fairness.setting,
                             test_accuracy=fmt_rate(accuracy), achieved_train=run.fairness.achieved_train,
                             achieved_test=run.fairness.achieved_test, badge=run.fairness.badge,
                             interval_test=run.fairness.interval_test))
        chart_rows.append((gap, accuracy, met, label, fairness.get("bound")))
    words = evaluation_words(sweep[0][1])
    return SweepView(criterion=criterion, form=form, rows=tuple(rows), chart=_chart(chart_rows, words))


# --------------------------------------------------------------------------- entry point

#: stand in READING_NOTES for the notes that depend on the runs: the verdict's (on the
#: evaluation), ABROCA's (on the scores) and the training log's (on the statuses)
VERDICT_NOTE, ABROCA_NOTE, TRAINING_NOTE = object(), object(), object()
#: how a test gap's interval is made (fairspec.metrics.intervals), in a reviewer's words
INTERVAL_HOW = ("each group's rates (TPR, FPR, selection rate or accuracy, as the criterion compares them) as "
                "Jeffreys posteriors; with two or three groups (two under equalized odds) their differences "
                "bounded together by simulation, with more each group's exact interval, all holding at once; its "
                "level is close to how often it holds, not a guarantee: with 5 to 10 rows per rate it covered a true "
                "gap of 0 only 91 to 94 times in 100 at 95%")
VERDICT_NOTES = {
    "holdout":
        "The fairness verdict is read on the test rows, which training never saw: a bound met on the training rows "
        "can still be missed on new data. Small groups make test gaps noisy, so each test gap comes with an "
        "interval: the range of gaps, on unlimited new data of the same kind, that the test rows are consistent "
        f"with for this model ({INTERVAL_HOW}). It always holds the measured gap; when a group has no test row "
        "of the kind the criterion compares, its high end is 1, as the gap over every group can only be wider. "
        "A gap near its bound whose interval includes the bound is not settled by the test rows; a group with few "
        "rows widens every interval it takes part in, and many groups widen it too: the region must hold every "
        "group's rate at once.",
    "cv":
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
    "A gap is the largest difference of a rate between any two groups (0 is perfect parity). "
    "A group with no positives has no TPR (shown as —) and is left out of that gap; with fewer than two "
    "groups left the gap cannot be measured (—).",
    VERDICT_NOTE,
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


def _spec_warning(warning: dict) -> str:
    where = (f"line {warning['line']}, column {warning['column']}: " if warning.get("line") is not None
             and warning.get("column") is not None else "")
    hint = f" Hint: {warning['hint']}" if warning.get("hint") else ""
    return f"{where}{warning.get('message', '')}.{hint}"


def build_context(model_doc: dict, metrics_doc: dict, sweep: list[tuple[dict, dict]] | None = None,
                  failed: list[dict] | None = None) -> ReportContext:
    """Format one run, or a sweep, for :func:`fairspec.report.render.render_report`.

    ``model_doc`` and ``metrics_doc`` are the parsed ``model.json`` and ``metrics.json``.
    For a sweep pass every point's ``(model_doc, metrics_doc)`` in order as ``sweep``; the
    header, spec and data summary then come from ``model_doc``/``metrics_doc`` (usually the
    first point: the data and spec are the same for all points) and each point gets its own
    section.
    """
    if sweep:
        runs = [_run(m, d, f"point-{i}", f"Point {i}: {fairness_view(d.get('fairness'), bool(d.get('test'))).setting}",
                     f"-point-{i}")
                for i, (m, d) in enumerate(sweep)]
        sweep_view = _sweep(sweep, runs)
        if failed:
            sweep_view = replace(sweep_view, failed=tuple(_failed_setting(f) for f in failed))
    else:
        runs = [_run(model_doc, metrics_doc, "model", "Model", "")]
        sweep_view = None
    spec = model_doc.get("spec") or {}
    words = evaluation_words(sweep[0][1] if sweep else metrics_doc)
    documents = sweep or [(model_doc, metrics_doc)]
    logs = [d.get("training_log") or (m.get("training") or {}).get("fit_log") or {} for m, d in documents]
    notes = {
        VERDICT_NOTE: VERDICT_NOTES[words.kind],
        ABROCA_NOTE: _abroca_note(any((d.get(k) or {}).get("scores_are_labels") for _, d in documents
                                      for k in ("train", "test"))),
        TRAINING_NOTE: _training_note([str(log.get("status")) for log in logs],
                                      any(log.get("mip_gap") is not None or log.get("status") in _STOPPED_WITH_SOLUTION
                                          for log in logs)),
    }
    return ReportContext(
        header=_header(model_doc),
        spec_text=str(spec.get("text") or ""),
        spec_note=SPEC_NORMALISED_NOTE if spec.get("normalised") is True else "",
        spec_warnings=tuple(_spec_warning(w) for w in spec.get("warnings") or ()),
        data=_data(model_doc, metrics_doc),
        runs=tuple(runs),
        sweep=sweep_view,
        evaluated=words,
        reading_notes=tuple(text for text in (notes.get(note, note) for note in READING_NOTES) if text),
    )
