"""Train what a plan describes and measure it: one model per fairness point.

Evaluation follows the plan: a (stratified) holdout; or k-fold cross-validation, where the
test metrics are those of the pooled out-of-fold predictions and the model that is kept is
refitted on every row; or none (training metrics only).  Stratification is by target *and*
group, so each split keeps every group's base rate.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from fairspec.calibration import CalibratedFairClassifier
from fairspec.data.groups import derived_group_labels, readable_group_labels
from fairspec.data.prepare import FeatureEncoder, Imputer, class_names, rows_without_missing, target_vector
from fairspec.data.split import split_rows, training_sides
from fairspec.data.table import (CHECK_SECONDS, READ_SECONDS, SHA256, STARTUP_SECONDS, apply_filters, file_sha256,
                                 read_table)
from fairspec.errors import DataError, GroupWithoutRateError, NoUsableModelError
from fairspec.metrics import evaluate_predictions, fairness_summary, group_counts, missing_by_group
from fairspec.metrics.audit import audit_measures, data_measures, reference_group
from fairspec.metrics.intervals import gap_intervals
from fairspec.pipeline.artifact import FittedPipeline, family_module, model_document
from fairspec.pipeline.progress import SILENT, Progress
from fairspec.registry.criteria import Criterion
from fairspec.registry.families import FAMILIES, NATIVE_TREE_STRATEGIES as NATIVE_STRATEGIES
from fairspec.plan.plan import Plan


@dataclass
class PointResult:
    """One trained model: its criterion (sweep point), model.json and metrics.json documents."""

    criterion: Criterion | None
    model_doc: dict
    metrics_doc: dict
    estimator: object = field(repr=False, default=None)
    #: the kept model's encoder, imputer and estimator (:func:`_unconstrained` may reuse its growth)
    fitted: FittedPipeline | None = field(repr=False, default=None)


@dataclass
class PointFailure:
    """A sweep point no usable model came out of: its place in the sweep, its criterion, and why."""

    index: int
    criterion: Criterion | None
    error: Exception

    @property
    def message(self) -> str:
        """The error as the command line prints it (it names the spec and the setting)."""
        return str(self.error)


@dataclass
class TrainingResult:
    plan: Plan
    points: list[PointResult]
    #: a sweep's points that gave no usable model (the others are kept and written)
    failed: list[PointFailure] = field(default_factory=list)


@dataclass
class _Fitted(FittedPipeline):
    seconds: float
    #: the encoded (and imputed) matrix the model was fitted on, while the pipeline may still
    #: score those rows with it (a serial fit keeps it; evaluation drops it)
    train_matrix: np.ndarray | None = field(default=None, repr=False)
    #: the same for the hold-out's scorable test rows, once encoded
    test_matrix: np.ndarray | None = field(default=None, repr=False)


def _prepare(plan: Plan, frame: pd.DataFrame, criterion: Criterion | None):
    """Encoder and imputer fitted on ``frame``, the encoded matrix, and an unfitted estimator."""
    encoder, imputer, X = _encode(plan, frame)
    return encoder, imputer, _estimator(plan, encoder, criterion), X


def _encode(plan: Plan, frame: pd.DataFrame):
    """Encoder and imputer fitted on ``frame``, and ``frame``'s rows encoded (and imputed) by them."""
    names = [f.name for f in plan.data.features]
    kinds = [f.kind for f in plan.data.features]
    encoder = FeatureEncoder.fit(frame, names, kinds)
    X = encoder.transform(frame)
    imputer = None
    if plan.missing.strategy == "impute":
        imputer = Imputer.fit(X, encoder.categorical_indices, plan.missing.impute_method, plan.missing.k)
        X = imputer.transform(X)
    return encoder, imputer, X


def _estimator(plan: Plan, encoder: FeatureEncoder, criterion: Criterion | None):
    """The unfitted estimator of ``plan`` at ``criterion`` (calibrated when the plan says so).
    A parameter the spec lists values for (``depth [4, 5, 6]``, :attr:`ModelRecipe.choice`) is
    chosen by the calibration: it gets each value's setting as one of its ``choices``."""
    native = plan.missing.strategy if plan.missing.strategy in NATIVE_STRATEGIES else "none"
    recipe = replace(plan.model, params={**plan.model.params, "missing": native, **_privileged_kinds(plan)})

    def build(params: dict):
        return family_module(plan.model.family).build_estimator(
            replace(recipe, params=params), criterion, plan.solver, categorical_features=encoder.categorical_indices,
            seed=plan.solver.seed)

    estimator = build(recipe.params)
    if plan.calibrates and criterion is not None and criterion.bound is not None:
        # the bound is to hold on unseen rows: an internal bound chosen on held-out training rows
        listed = choice_members(plan)
        choices = None if listed is None else choice_settings(build, recipe.params, *listed)
        estimator = CalibratedFairClassifier(estimator, random_state=plan.solver.seed, choices=choices)
    return estimator


def choice_members(plan: Plan) -> tuple[str, tuple] | None:
    """``(parameter, values)`` the calibration chooses among: the spec's listed values
    (:attr:`ModelRecipe.choice`) or the ones the family searches (:attr:`ModelRecipe.search`;
    never both, :func:`fairspec.plan.compile.calibration_search`); None when there is neither."""
    return plan.model.choice if plan.model.choice is not None else plan.model.search


def choice_settings(build, params: dict, name: str, values: tuple) -> list[dict]:
    """The estimator settings of a spec parameter's values (:func:`choice_members`), as
    :class:`CalibratedFairClassifier`'s ``choices``: for each value, the estimator parameters in
    which the family's estimator built with it (``build(params)``) differs from those built with
    the others.  A family names its estimator's parameters as it likes (the tree's ``depth`` is
    ``max_depth``, its ``multiplier`` is ``lagrange_share``), so they are read off the built
    estimators rather than assumed."""
    built = [build({**params, name: value}).get_params(deep=False) for value in values]
    keys = [k for k in built[0] if any(not _same_param(b[k], built[0][k]) for b in built[1:])]
    return [{k: b[k] for k in keys} for b in built]


def _same_param(a, b) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):  # values without a plain equality (arrays): taken as different
        return False


def chosen_among(plan: Plan, calibration: dict | None) -> dict | None:
    """What the calibration chose, in the spec's words: ``{"parameter": "depth", "values": [4, 5,
    6], "chosen": 5}`` for a listed parameter, the same under ``"searched"`` for the parameter the
    family searches (the tree's multiplier; ``calibration["choices"]`` are in the order of
    ``values``); None without a list, a search or a calibration."""
    found = choice_members(plan)
    if found is None or not calibration or "chosen" not in calibration:
        return None
    name, values = found
    pick = next(i for i, c in enumerate(calibration["choices"]) if c["params"] == calibration["chosen"])
    among = {"parameter": name, "values": list(values), "chosen": values[pick]}
    return among if plan.model.choice is not None else {"searched": among}


def with_chosen_value(plan: Plan, among: dict | None) -> Plan:
    """``plan`` with its listed (or searched) parameter set to the value the calibration chose
    (``among``, from :func:`chosen_among`), as an ordinary one-value recipe; ``plan`` itself
    without a choice."""
    if among is None:
        return plan
    chosen = among.get("searched", among)
    return replace(plan, model=replace(plan.model, params={**plan.model.params, chosen["parameter"]: chosen["chosen"]},
                                       choice=None, search=None))


def family_estimator(estimator):
    """The family's fitted estimator: the one a calibrated fit refitted at its internal bound,
    or ``estimator`` itself (what model.json holds and ``fairspec predict`` rebuilds)."""
    return estimator.estimator_ if isinstance(estimator, CalibratedFairClassifier) else estimator


def calibration_record(estimator) -> dict | None:
    """What a calibrated fit chose and measured (:attr:`CalibratedFairClassifier.calibration_`), or
    ``None`` for a fit whose bound holds on the training rows (or that has no bound)."""
    return getattr(estimator, "calibration_", None) if isinstance(estimator, CalibratedFairClassifier) else None


def _fit_task(plan: Plan, frame: pd.DataFrame | None, y: np.ndarray, groups: np.ndarray, criterion: Criterion | None,
              train_idx: np.ndarray, test_idx: np.ndarray | None, fold: int | None, keep_matrix: bool = False,
              encoded: "EncodedRows | None" = None):
    """One independent fit, as :func:`fairspec.parallel.run_tasks` runs it (here or in a worker):
    the model fitted on ``train_idx`` and, for a cross-validation fold, its predictions on the
    scorable rows of ``test_idx``.  Returns plain data, ``(fitted, scored rows, labels, scores,
    seconds)``, or the error a user is told: returned, not raised, so that the other fits'
    results still come back in task order and the first error in that order is raised, as a
    serial run raises it.  ``keep_matrix``: the kept model keeps its training matrix
    (``train_matrix``), which its evaluation scores (a worker's result leaves it behind).
    ``encoded``: the kept model's rows, encoded (:func:`encode_kept_rows`), when ``frame`` is
    dropped; ``train_idx`` must be those rows."""
    started = time.perf_counter()
    try:
        fitted = _fit(plan, frame, train_idx, y[train_idx], groups[train_idx], criterion, fold=fold, encoded=encoded)
    except (DataError, NoUsableModelError) as exc:
        return exc
    if not keep_matrix or test_idx is not None:
        fitted.train_matrix = None
    if test_idx is None:
        return fitted, None, None, None, time.perf_counter() - started
    scored = _scorable(plan, fitted, frame, test_idx)
    labels, scores = fitted.predict(frame.iloc[scored])
    return fitted, scored, labels, scores, time.perf_counter() - started


def _point_tasks(plan: Plan, data: "PreparedData", criterion: Criterion | None) -> list[tuple]:
    """The fits of one fairness point, as :func:`_fit_task` arguments after the shared data:
    each cross-validation fold's, then the kept model's."""
    tasks = []
    if plan.evaluation.kind == "cv":
        tasks = [(criterion, tr, te, k + 1) for k, (tr, te) in enumerate(data.splits)]
    return tasks + [(criterion, kept_model_rows(plan, data.splits), None, None)]


def _all_fits(plan: Plan, data: "PreparedData", criteria: list, n_jobs: int | None) -> list[list | None]:
    """Every point's fit results, computed together through :func:`fairspec.parallel.run_tasks`
    when fits run side by side (``n_jobs`` > 1, or a Dask scheduler named): the folds of every
    point at once, so that all workers are busy.  Serially, None per point: each point fits its
    own, in order, with a progress line per fold and a stop at its first error, as before."""
    from fairspec.parallel import run_tasks, scheduler_address

    if scheduler_address() is None and (n_jobs is None or int(n_jobs) == 1):
        return [None] * len(criteria)
    per_point = [_point_tasks(plan, data, criterion) for criterion in criteria]
    results = run_tasks(_fit_task, [task for tasks in per_point for task in tasks], n_jobs=n_jobs,
                        shared=(plan, data.frame, data.y, data.groups))
    out, at = [], 0
    for tasks in per_point:
        out.append(results[at:at + len(tasks)])
        at += len(tasks)
    return out


def _privileged_kinds(plan: Plan) -> dict:
    """The recipe entry naming the privileged columns that are categorical (none without a
    privileged block): a family that reads privileged columns needs to know their kinds."""
    if not plan.data.privileged:
        return {}
    return {"privileged_categorical": [j for j, f in enumerate(plan.data.privileged) if f.kind == "categorical"]}


def privileged_matrix(plan: Plan, frame: pd.DataFrame) -> np.ndarray | None:
    """The privileged columns of ``frame`` encoded as features are (categories as codes of the
    categories ``frame`` holds), or None without a privileged block.  Read for ``fit`` only: the
    encoder is not kept, and nothing of these columns reaches the model file's input schema."""
    if not plan.data.privileged:
        return None
    names, kinds = [f.name for f in plan.data.privileged], [f.kind for f in plan.data.privileged]
    return FeatureEncoder.fit(frame, names, kinds).transform(frame)


def _fit(plan: Plan, frame: pd.DataFrame | None, rows: np.ndarray, y: np.ndarray, groups: np.ndarray,
         criterion: Criterion | None, fold: int | None = None, encoded: "EncodedRows | None" = None) -> _Fitted:
    """The model fitted on ``rows`` of ``frame`` (``y`` and ``groups`` theirs), or on ``encoded``,
    the kept model's rows encoded before any fit (:func:`encode_kept_rows`; ``frame`` is then
    None).  The rows' copy of the frame lives only while they are encoded: on a million rows it
    is as large as the matrix, and had been held through the whole fit."""
    if encoded is not None:
        encoder, imputer, X, privileged = encoded.encoder, encoded.imputer, encoded.train_matrix, encoded.privileged
        estimator = _estimator(plan, encoder, criterion)
    else:
        part = _feature_rows(plan, frame, rows)
        encoder, imputer, estimator, X = _prepare(plan, part, criterion)
        privileged = privileged_matrix(plan, part)
        del part
    start = time.perf_counter()
    try:
        estimator.fit(X, y, sensitive_features=groups, **({} if privileged is None else {"privileged": privileged}))
    except (DataError, NoUsableModelError) as exc:
        # the estimator knows neither the spec nor which point of a sweep or which fold it fits
        where = f" under {criterion.label()}" if criterion is not None and criterion.enforced else ""
        where += "" if fold is None else f", cv fold {fold}"
        hint = ""
        if isinstance(exc, GroupWithoutRateError) and plan.evaluation.kind != "none":
            hint = ("; the split left the group without them on the training side (a group this small cannot "
                    "be stratified): merge or leave out the group, or evaluate another way")
        raise type(exc)(f"{plan.spec_filename}: error: fitting{where}: {exc}{hint}") from None
    return _Fitted(encoder, imputer, estimator, time.perf_counter() - start, X)


#: what metrics.json keeps of each cross-validation fold's fit log
FOLD_FIT_KEYS = ("status", "mip_gap", "reproducible", "cut_by_clock")


def _fold_fit(fold: int, fitted: _Fitted) -> dict:
    """How the fit of one cross-validation fold ended.  The out-of-fold metrics and the verdict
    read these models' predictions, so a reviewer must see whether the clock cut one of them:
    the kept model's fit log alone had said "optimal" and "reproducible" while a fold's
    relabelling MIP had stopped at the time limit (found in review)."""
    log = getattr(fitted.estimator, "fit_log_", {}) or {}
    return {"fold": fold, **{key: log.get(key) for key in FOLD_FIT_KEYS}}


def _data_summary(plan: Plan, y: np.ndarray, groups: np.ndarray, splits, before_drop) -> dict:
    """Rows, groups and missing rates of the rows used.  ``before_drop`` is ``(frame, groups)``
    of the rows the filters kept: the missing rates are read there, since under ``missing
    drop`` the rows used have none, and the rows dropped are counted per group (dropping can
    thin one group far more than another)."""
    names = [f.name for f in plan.data.features]
    train, test = splits[0]
    frame_all, groups_all = before_drop
    summary = {
        "rows": int(len(y)),
        "rows_train": int(len(y) if plan.evaluation.kind == "cv" else len(train)),
        "rows_test": int(len(y) if plan.evaluation.kind == "cv" else len(test)),
        "target": plan.data.target, "positive": plan.data.positive, "protected": list(plan.data.protected),
        "groups": group_counts(y, groups),
        "missing": missing_by_group(frame_all, names + [f.name for f in plan.data.privileged], groups_all),
        "features": names, "privileged": [f.name for f in plan.data.privileged],
    }
    # the names a `labels` statement gives coded groups (group -> label), for the report's tables
    labels = readable_group_labels(frame_all, plan.data.group_columns)
    if labels:
        summary["group_labels"] = labels
    if plan.missing.strategy == "drop":
        names_all, counts_all = np.unique(groups_all, return_counts=True)
        kept = dict(zip(*np.unique(groups, return_counts=True)))
        summary["dropped"] = {"rows": int(len(groups_all) - len(groups)),
                              "groups": {str(g): int(c - kept.get(g, 0)) for g, c in zip(names_all, counts_all)}}
    return summary


def _feature_rows(plan: Plan, frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    """The feature (and privileged) columns of ``rows`` of ``frame``: what a fit encodes."""
    names = [f.name for f in plan.data.features] + [f.name for f in plan.data.privileged]
    return frame[list(dict.fromkeys(names))].iloc[rows]


def _scorable(plan: Plan, fitted: FittedPipeline, frame: pd.DataFrame, idx: np.ndarray) -> np.ndarray:
    """The rows of ``idx`` the fitted model can score: all of them, except under ``missing
    drop``, where a category the training rows never had encodes as missing and the saved model
    refuses such a row (``LoadedModel.matrix``).  Test metrics leave those rows out, so that
    they are what ``fairspec predict`` reproduces; metrics.json counts them."""
    if plan.missing.strategy != "drop" or len(idx) == 0:
        return idx
    X = fitted.matrix(frame.iloc[idx])
    return idx[~np.isnan(X).any(axis=1)]


@dataclass
class PreparedData:
    """The rows a plan trains and evaluates on, with their target, groups and splits."""

    #: None once the fits read :attr:`encoded` instead
    frame: pd.DataFrame | None
    y: np.ndarray
    groups: np.ndarray
    splits: list
    data_sha256: str
    summary: dict
    #: "target and group", "target" (too few rows in some target-group cell), or None
    stratified_by: str | None = None
    #: the classes as the data spells them, negative then positive (:func:`class_names`)
    class_names: tuple[str, str] = ("0", "1")
    #: the kept model's rows encoded before the fits, when ``frame`` has been dropped (:func:`encode_kept_rows`)
    encoded: "EncodedRows | None" = None


@dataclass
class EncodedRows:
    """The rows every fit and measurement of a hold-out (or no evaluation) run reads, encoded once
    before the first fit: the kept model's training rows (with their encoder, imputer and
    privileged columns) and the hold-out's scorable test rows.  With them the frame can be dropped
    before the fits: on a million rows it is as large as the training matrix and had been held
    beside it through the whole fit, to encode the test rows after it.  The encoder is fitted on
    the training rows only, as a fit fits it, so the matrices are the ones each fit and the
    evaluation had encoded for themselves, and the models the same."""

    encoder: FeatureEncoder
    imputer: Imputer | None
    train_matrix: np.ndarray
    privileged: np.ndarray | None
    #: the test rows the model can score (:func:`_scorable`) and their matrix; None without a hold-out
    test_rows: np.ndarray | None
    test_matrix: np.ndarray | None
    #: the encodings' seconds, counted once, in the first fit's and evaluation's times (the
    #: stages that had encoded the rows)
    train_seconds: float
    test_seconds: float


def fits_on_encoded_rows(plan: Plan, n_jobs: int | None) -> bool:
    """Whether the run's fits can read :class:`EncodedRows` instead of the frame: every fit trains
    on the kept model's rows (a hold-out or no evaluation; cross-validation's folds each fit their
    own encoder) and runs here, one after another (a worker is sent the frame)."""
    from fairspec.parallel import scheduler_address

    return (plan.evaluation.kind in ("holdout", "none") and scheduler_address() is None
            and (n_jobs is None or int(n_jobs) == 1))


def encode_kept_rows(plan: Plan, data: PreparedData) -> EncodedRows:
    """:class:`EncodedRows` of ``data``, whose frame it drops (``data.frame`` is None after): the
    kept model's training rows encoded as :func:`_fit` encodes them, and the hold-out's test rows
    as the evaluation encoded them after the fit (all of them, then under ``missing drop`` those
    without a missing value, :func:`_scorable`).  The feature columns of both are cut from the
    frame first and the frame let go, so that it is not held while the rows are encoded either."""
    start = time.perf_counter()
    train_part = _feature_rows(plan, data.frame, kept_model_rows(plan, data.splits))
    train_seconds = time.perf_counter() - start
    start = time.perf_counter()
    test_rows = data.splits[0][1] if plan.evaluation.kind == "holdout" else None
    test_part = None if test_rows is None else _feature_rows(plan, data.frame, test_rows)
    test_seconds = time.perf_counter() - start
    data.frame = None
    start = time.perf_counter()
    encoder, imputer, X = _encode(plan, train_part)
    privileged = privileged_matrix(plan, train_part)
    del train_part
    train_seconds += time.perf_counter() - start
    start = time.perf_counter()
    test_matrix = None
    if test_part is not None:
        test_matrix = FittedPipeline(encoder, imputer, None).matrix(test_part)
        del test_part
        if plan.missing.strategy == "drop" and len(test_rows):
            scorable = ~np.isnan(test_matrix).any(axis=1)
            test_rows, test_matrix = test_rows[scorable], test_matrix[scorable]
    for shared in (X, privileged, test_matrix):
        # every point of a sweep, and the comparison model, fits on these same arrays: a fit
        # that wrote into its input would change the next one's, so none may
        if shared is not None:
            shared.flags.writeable = False
    return EncodedRows(encoder, imputer, X, privileged, test_rows, test_matrix, train_seconds,
                       test_seconds + time.perf_counter() - start)


def prepare_data(plan: Plan, progress: Progress = SILENT, table: pd.DataFrame | None = None,
                 checked=None) -> PreparedData:
    """Read the data (unless ``table``, the file as compiled against, is given), keep the spec's
    rows, derive target and groups, and split them.  ``checked``: the kept rows as the spec's
    checks computed them on ``table`` (:func:`fairspec.plan.compile.compile_checked`), read
    here instead of computed again when they are this plan's (a few tenths of a second on a
    million rows)."""
    if table is None:
        progress.step(f"reading {plan.data.path}")
        table = read_table(plan.data.path)
    checked = None if checked is None else checked.for_training(plan, table)
    # the hash of the bytes read (the file may have been rewritten since)
    data_sha = table.attrs.get(SHA256) or file_sha256(plan.data.path)
    frame = apply_filters(table, plan.data.filters)
    if checked is not None and plan.missing.strategy != "drop":  # (under drop they are of the rows kept)
        y_all, groups_all = checked.target_and_groups
    else:
        y_all = target_vector(frame, plan.data.target, plan.data.positive)
        groups_all = derived_group_labels(frame, plan.data.group_columns)
    before_drop = (frame, groups_all)
    if plan.missing.strategy == "drop":
        keep = rows_without_missing(frame, [f.name for f in plan.data.features])
        frame, y_all, groups_all = frame.loc[keep], y_all[keep], groups_all[keep]
    if len(frame) == 0:
        raise DataError(f"{plan.data.path}: error: no rows left after the filters"
                        + (" and dropping rows with missing values" if plan.missing.strategy == "drop" else ""))
    for cls in (0, 1):
        if not (y_all == cls).any():
            raise DataError(f"{plan.data.path}: error: column {plan.data.target!r} has no "
                            f"{'positive' if cls else 'negative'} rows left to learn from")
    splits, stratified_by = checked.split() if checked is not None else split_rows(plan.evaluation, y_all, groups_all)
    summary = _data_summary(plan, y_all, groups_all, splits, before_drop)
    summary.update(data_measures(frame, [(f.name, f.kind) for f in plan.data.features], groups_all,
                                 seed=plan.evaluation.seed))
    return PreparedData(frame, y_all, groups_all, splits, data_sha, summary, stratified_by,
                        class_names(frame[plan.data.target], y_all, plan.data.positive))


def constant_model(train_block: dict, class_names: tuple[str, str]) -> dict | None:
    """metrics.json's ``constant_model``: the class the kept model predicts for every one of its
    training rows, or None when it predicts both.  Such a model (the empty rule set, the
    all-positive one, a tree whose leaves all say one class) gives every group the same rates,
    so its gaps are 0 whatever it does to the groups: a fit that ends there is said to have
    (the run's warning, the summary line, the report's verdict), never shown as a plain success
    (a rule set on a million rows had returned the empty set as "bound met", exit 0)."""
    rates = [g["selection_rate"] for g in train_block["groups"].values()]
    if not rates or any(r is None for r in rates) or not (all(r == 0 for r in rates) or all(r == 1 for r in rates)):
        return None
    positive = rates[0] == 1
    return {"predicts": "positive" if positive else "negative", "class": str(class_names[int(positive)]),
            "training_rows": int(train_block["n"])}


def kept_model_rows(plan: Plan, splits) -> np.ndarray:
    """The rows the model that is kept trains on: the hold-out's training side, or every row
    (cv refits on all rows after the folds; none has no test side)."""
    return training_sides(plan.evaluation, splits)[-1][1]


def training_matrix(plan: Plan, data: PreparedData, criterion: Criterion | None = None):
    """(encoder, imputer, estimator, X, y, groups) of the rows the kept model trains on
    (:func:`kept_model_rows`), the estimator not yet fitted."""
    train_idx = kept_model_rows(plan, data.splits)
    frame = data.frame.iloc[train_idx]
    encoder, imputer, estimator, X = _prepare(plan, frame, criterion)
    # the family's own problem at the bound as written (a calibrated fit solves it at the ε′ it
    # chooses on held-out rows, which only training finds)
    if isinstance(estimator, CalibratedFairClassifier):
        estimator = estimator.estimator
    return encoder, imputer, estimator, X, data.y[train_idx], data.groups[train_idx]


def train(plan: Plan, progress: Progress = SILENT, table: pd.DataFrame | None = None, *,
          n_jobs: int | None = 1, checked=None) -> TrainingResult:
    """Fit one model per fairness point of ``plan`` and measure each on train and test rows;
    ``table`` is the data file's table when the caller has read it already (see
    :func:`fairspec.plan.compile.compile_with_table`).  Each fit (a point's folds and its kept
    model) is an independent task of :func:`fairspec.parallel.run_tasks`: with ``n_jobs`` > 1,
    or a Dask scheduler named (:func:`fairspec.parallel.use_scheduler`), they run side by
    side, and the result is the serial run's.  ``checked``: :func:`prepare_data`'s."""
    t_start = time.perf_counter()
    # the stages before this one (reading the file and checking the spec, when the caller did
    # both: the command line does), so that metrics.json's timing covers the whole run
    earlier = {} if table is None else {name: table.attrs[key] for name, key in
                                        (("startup_seconds", STARTUP_SECONDS), ("read_seconds", READ_SECONDS),
                                         ("check_seconds", CHECK_SECONDS))
                                        if key in table.attrs}
    t_start -= sum(earlier.values())
    data = prepare_data(plan, progress, table, checked)
    load_seconds = time.perf_counter() - t_start - sum(earlier.values())
    earlier["load_seconds"] = load_seconds
    del table, checked  # (the caller's references are its own: the command line passes its only ones)
    if fits_on_encoded_rows(plan, n_jobs):
        # no stage after this reads the frame: the fits run without it (EncodedRows)
        data.encoded = encode_kept_rows(plan, data)

    points: list[PointResult] = []
    failed: list[PointFailure] = []
    criteria = list(plan.fairness) or [None]
    from fairspec.parallel import scheduler_address

    if scheduler_address() is not None or (n_jobs is not None and int(n_jobs) != 1):
        where = scheduler_address() or f"{n_jobs} local processes"
        progress.step(f"fitting {len(criteria) * len(training_sides(plan.evaluation, data.splits))} models on {where}")
    t_fits = time.perf_counter()
    fits = _all_fits(plan, data, criteria, n_jobs)
    if fits[0] is not None:  # side by side: the time of all the fits together, before the first point's
        earlier["parallel_fits_seconds"] = time.perf_counter() - t_fits
    for i, criterion in enumerate(criteria):
        try:
            points.append(_train_point(plan, data, criterion, i, len(criteria), progress, earlier, t_start, fits[i],
                                       keep_train_matrix=not points))
        except NoUsableModelError as exc:
            # a sweep keeps the points that trained: one bound no model can meet (or none
            # found in time) had discarded the others, minutes of work a reviewer then lacked
            if not plan.is_sweep:
                raise
            failed.append(PointFailure(i, criterion, exc))
    if len(failed) == 1 and not points:
        raise failed[0].error
    if not points:  # every setting: say why for each, not the first alone
        raise NoUsableModelError("\n".join(f.message for f in failed))
    if any(c is not None and c.enforced for c in criteria):
        t_unconstrained = time.perf_counter()
        unconstrained = _unconstrained(plan, data, progress, earlier, t_start, points)
        unconstrained_seconds = round(time.perf_counter() - t_unconstrained, 3)
        for point in points:
            point.metrics_doc["unconstrained"] = unconstrained
            # the comparison model is part of every point's run: its time, and a total counting it
            timing = point.metrics_doc["timing"]
            total = timing.pop("total_seconds")
            timing["unconstrained_seconds"] = unconstrained_seconds
            timing["total_seconds"] = round(total + unconstrained_seconds, 3)
    for point in points:  # the kept model's matrices are not needed any more
        if point.fitted is not None:
            point.fitted.train_matrix = point.fitted.test_matrix = None
    return TrainingResult(plan, points, failed)


def reused_unconstrained_fit(plan: Plan, points: list[PointResult]) -> _Fitted | None:
    """The model the run would fit without the fairness criterion, taken from a point's kept
    model when its family can give it without fitting again (an estimator's
    ``fitted_without_fairness()``: the tree family's growth does not depend on a bound), else
    None.  Only for a hold-out or no evaluation, where the kept model's rows are the ones the
    comparison model trains on; cross-validation's folds are fitted anew."""
    if plan.evaluation.kind == "cv":
        return None
    for point in points:
        fitted = point.fitted
        hook = getattr(family_estimator(fitted.estimator), "fitted_without_fairness", None) if fitted else None
        estimator = hook() if hook is not None else None
        if estimator is not None:
            return _Fitted(fitted.encoder, fitted.imputer, estimator, 0.0, fitted.train_matrix, fitted.test_matrix)
    return None


def _unconstrained(plan: Plan, data: PreparedData, progress: Progress, earlier: dict, t_start: float,
                   points: list[PointResult] = ()) -> dict:
    """metrics.json's ``unconstrained``: the same family, data, split and seed with no fairness
    criterion, measured the same way, so the report can say what meeting the criterion cost (the
    accuracy given up) and what it bought (the gap closed).  Its train and test blocks, or, when
    no usable model came out of it, why.  The model is :func:`reused_unconstrained_fit` of
    ``points`` when there is one (the same model a fit would give, without its time), else fitted."""
    # a listed parameter (depth [4, 5, 6]) at the value the first point's calibration chose: the
    # comparison is the kept model's setting without the criterion, as a reused growth is
    among = next((among for p in points if (among := ((p.metrics_doc.get("fairness") or {}).get("calibration")
                                                      or {}).get("chosen_among"))), None)
    plan = with_chosen_value(plan, among)
    reused = reused_unconstrained_fit(plan, list(points))
    if reused is not None:
        progress.step("measuring the model as grown, before its leaves were relabelled, for comparison")
        fits = [(reused, None, None, None, 0.0)]
    else:
        progress.step("fitting the same model without the fairness criterion, for comparison")
        fits = None
    try:
        doc = _train_point(plan, data, None, 0, 1, SILENT, earlier, t_start, fits).metrics_doc
    except NoUsableModelError as exc:
        return {"train": None, "test": None, "error": str(exc)}
    log = doc["training_log"]
    return {"train": doc["train"], "test": doc["test"],
            "training_log": {key: log.get(key) for key in ("status", "mip_gap", "reproducible")}}


def _train_point(plan: Plan, data: PreparedData, criterion: Criterion | None, i: int, n_points: int,
                 progress: Progress, earlier: dict, t_start: float, fits: list | None = None,
                 keep_train_matrix: bool = False) -> PointResult:
    """Fit the model of one fairness point and measure it on train and test rows.  ``earlier``
    is the seconds of the run's stages before the fits (``<stage>_seconds``, in their order);
    ``fits`` the point's :func:`_fit_task` results when they were computed side by side
    (their ``fit_seconds`` is then the sum of the fits' own times).  ``keep_train_matrix``: the
    kept model keeps the matrices of its training and test rows, for
    :func:`reused_unconstrained_fit`."""
    frame, y_all, groups_all, splits = data.frame, data.y, data.groups, data.splits
    data_sha, summary = data.data_sha256, data.summary
    label = "fitting" if criterion is None else f"fitting ({criterion.label()})"
    t_fit = time.perf_counter()
    unscored = 0
    fold_fits: list[dict] = []
    tasks = _point_tasks(plan, data, criterion)
    shared = (plan, frame, y_all, groups_all)

    def result(k: int, step: str, at: int, of: int):
        """Fit ``k`` of the point: computed already, or now (serially, with its progress line)."""
        if fits is None:
            progress.step(step, at, of)
        done = fits[k] if fits is not None else _fit_task(*shared, *tasks[k], keep_matrix=True, encoded=data.encoded)
        if isinstance(done, Exception):
            raise done
        return done

    if plan.evaluation.kind == "cv":
        pred = np.zeros(len(y_all), dtype=int)
        score = np.zeros(len(y_all))
        scored = np.zeros(len(y_all), dtype=bool)
        for k in range(len(splits)):
            fold, te, pred_te, score_te, _ = result(k, f"{label}, fold {k + 1}", k + 1, len(splits) + 1)
            fold_fits.append(_fold_fit(k + 1, fold))
            pred[te], score[te] = pred_te, score_te
            scored[te] = True
        fitted, *_ = result(len(splits), f"{label}, final model on all rows", len(splits) + 1, len(splits) + 1)
        train_idx = kept_model_rows(plan, splits)
        test_eval = (y_all[scored], pred[scored], score[scored], groups_all[scored])
        unscored = int((~scored).sum())
    else:
        train_idx, test_idx = splits[0]
        test_eval = None
        fitted, *_ = result(0, label, i + 1, n_points)
    fit_seconds = (time.perf_counter() - t_fit if fits is None
                   else sum(done[-1] for done in fits if not isinstance(done, Exception)))
    if fits is None and data.encoded is not None:
        # the training rows' encoding, done once before the fits: the first fit's time counts it
        fit_seconds += data.encoded.train_seconds
        data.encoded.train_seconds = 0.0
    t_eval = time.perf_counter()
    encoded_seconds = 0.0  # the test rows' encoding, when it was done before the fit
    if fitted.train_matrix is not None:  # the rows as the fit read them: not encoded again
        tr_pred, tr_score = fitted.predict_matrix(fitted.train_matrix)
        if not keep_train_matrix:
            fitted.train_matrix = None
    elif data.encoded is not None:
        tr_pred, tr_score = fitted.predict_matrix(data.encoded.train_matrix)
    else:
        tr_pred, tr_score = fitted.predict(frame.iloc[train_idx])
    train_block = evaluate_predictions(y_all[train_idx], tr_pred, tr_score, groups_all[train_idx])
    # the report's measures (fairspec.metrics.audit): every group against the reference group, and
    # the curves it draws on the rows the verdict is read on
    reference, reference_from = reference_group({g: v["count"] for g, v in summary["groups"].items()},
                                                plan.data.reference)
    audit = {"reference": reference, "reference_from": reference_from, "score_kind": FAMILIES[plan.model.family].score,
             "outcome": plan.data.outcome}
    train_block.update(audit_measures(y_all[train_idx], tr_pred, tr_score, groups_all[train_idx],
                                      curves=plan.evaluation.kind == "none", **audit))
    test_block = None
    if plan.evaluation.kind == "holdout":
        if data.encoded is not None:
            scored_idx = data.encoded.test_rows
            if fitted.test_matrix is None:
                fitted.test_matrix = data.encoded.test_matrix
                encoded_seconds, data.encoded.test_seconds = data.encoded.test_seconds, 0.0
        else:
            scored_idx = _scorable(plan, fitted, frame, test_idx)
        unscored = len(test_idx) - len(scored_idx)
        if fitted.test_matrix is None:
            fitted.test_matrix = fitted.matrix(frame.iloc[scored_idx])
        te_pred, te_score = fitted.predict_matrix(fitted.test_matrix)
        if not keep_train_matrix:
            fitted.test_matrix = None
        test_eval = (y_all[scored_idx], te_pred, te_score, groups_all[scored_idx])
    if test_eval is not None:
        te_y, te_pred, te_score, te_groups = test_eval
        test_block = evaluate_predictions(te_y, te_pred, te_score, te_groups)
        test_block["gap_intervals"] = gap_intervals(te_y, te_pred, te_groups, seed=plan.evaluation.seed)
        test_block.update(audit_measures(te_y, te_pred, te_score, te_groups, curves=True, **audit))
    fit_log = dict(getattr(fitted.estimator, "fit_log_", {}))
    calibration = calibration_record(fitted.estimator)
    among = chosen_among(plan, calibration)
    if among is not None:
        calibration = {**calibration, "chosen_among": among}
    fairness = fairness_summary(criterion, train_block, test_block)
    if criterion is not None and criterion.bound is not None:
        fairness["holds_on"] = "train" if calibration is None else "unseen"
        fairness["calibration"] = calibration
    metrics_doc = {
        "constant_model": constant_model(train_block, data.class_names),
        "train": train_block,
        "test": test_block,
        "fairness": fairness,
        # one "<stage>_seconds" per stage, in the order they ran (a stage added to the run adds
        # its key; the report lists every key); total counts from the start of reading
        "timing": {**{name: round(seconds, 3) for name, seconds in earlier.items()},
                   "fit_seconds": round(fit_seconds, 3),
                   "evaluate_seconds": round(time.perf_counter() - t_eval + encoded_seconds, 3),
                   "total_seconds": round(time.perf_counter() - t_start, 3)},
        "evaluation": {"kind": plan.evaluation.kind, "test_size": plan.evaluation.test_size or None,
                       "folds": plan.evaluation.folds or None, "stratify": plan.evaluation.stratify,
                       "stratified_by": data.stratified_by, "seed": plan.evaluation.seed,
                       # without a test set there is no test row to leave out: not even 0 of them
                       **({"unscored_test_rows": unscored}
                          if plan.missing.strategy == "drop" and plan.evaluation.kind != "none" else {}),
                       **({"fold_fits": fold_fits} if fold_fits else {})},
        "data_summary": summary,
        "training_log": fit_log,
    }
    # model.json's recipe is the kept model's: the chosen value, not the list
    model_doc = model_document(with_chosen_value(plan, among), data_sha256=data_sha, rows_used=len(train_idx),
                               encoder=fitted.encoder, imputer=fitted.imputer,
                               estimator=family_estimator(fitted.estimator), criterion=criterion,
                               class_names=data.class_names, calibration=calibration)
    return PointResult(criterion, model_doc, metrics_doc, fitted.estimator, fitted)
