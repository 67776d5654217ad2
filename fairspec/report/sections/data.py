"""The data section: the rows used, the groups, the features and their roles, proxies, missing values.

Proxies (:mod:`fairspec.metrics.proxies`): each feature's one-feature AUC for the group it
predicts best, flagged at the threshold metrics.json records.  A missing-values table that is
all zero is folded with a one-line summary; coded categories show the spec's labels.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from fairspec.errors import written_name
from fairspec.report.format import UNDEFINED, fmt_count, fmt_number, fmt_rate, fmt_share, fmt_value
from fairspec.report.labels import category_labels, labelled
from fairspec.report.sections.groups import GroupRow, group_label

#: group columns per missing-values table: more make it wider than a printed page
MISSING_GROUPS_PER_TABLE = 6
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

    #: the proxy table: feature, AUC, the group it predicts best, flagged or not
    proxies: tuple["ProxyRow", ...] = ()
    proxy_threshold: str = ""
    #: the missing-value tables hold no missing value at all (folded)
    missing_all_zero: bool = False
    #: "The positive class (...) is adverse ...": the spec's favourable/adverse statement
    outcome: str = ""
    reference: str = ""


@dataclass(frozen=True)
class ProxyRow:
    name: str
    auc: str
    group: str
    flagged: bool
    note: str = ""


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
        groups.append(GroupRow(str(name), cells, group_label(summary, name)))
    # a group every row of which was dropped has no row used: it still belongs in the table
    for name, n_dropped in dropped_by_group.items():
        if name not in {row.name for row in groups}:
            groups.append(GroupRow(name, (fmt_count(0), fmt_rate(0.0), UNDEFINED, _dropped_cell(n_dropped, 0)),
                                   group_label(summary, name)))
    rows_split, rows_note = _rows_text(summary, metrics_doc.get("evaluation") or {})

    features = []
    feature_names = set()
    labels = category_labels(model_doc)
    for f in schema.get("features") or []:
        feature_names.add(f.get("name"))
        role = "protected attribute, used as a model input" if f.get("name") in protected else "model input"
        features.append(FeatureRow(str(f.get("name")), str(f.get("kind")),
                                   _categories(f.get("categories"), labels.get(str(f.get("name")))), role))
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
    """"; bins of COLUMN ..." for a protected attribute whose groups are bins or merged values."""
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


def _categories(categories, labels: dict | None = None) -> str:
    if not categories:
        return ""
    shown = [str(c) if not labels else labelled("", c, {"": labels}) for c in categories[:12]]
    more = f" … (+{len(categories) - 12} more)" if len(categories) > 12 else ""
    return ", ".join(shown) + more




def _proxies(summary: dict, protected: list[str], feature_names: set) -> tuple[tuple[ProxyRow, ...], str]:
    proxies = summary.get("proxies")
    if not isinstance(proxies, dict):
        return (), ""
    threshold = proxies.get("threshold")
    rows = []
    scored = [r for r in proxies.get("features") or [] if isinstance(r, dict)]
    for entry in sorted(scored, key=lambda r: -(r.get("auc") or 0)):
        name, auc = str(entry.get("name")), entry.get("auc")
        flagged = auc is not None and threshold is not None and auc >= threshold
        note = "the protected attribute itself" if name in protected else ""
        rows.append(ProxyRow(name, fmt_rate(auc), str(entry.get("group") or UNDEFINED), flagged, note))
    return tuple(rows), fmt_rate(threshold, 2) if threshold is not None else ""


def build(model_doc: dict, metrics_doc: dict, outcome_statement: str = "") -> DataView:
    view = _data(model_doc, metrics_doc)
    summary = metrics_doc.get("data_summary") or {}
    protected = [str(p) for p in (summary.get("protected") or [])]
    proxies, threshold = _proxies(summary, protected, {f.name for f in view.features})
    all_zero = bool(view.missing) and all(cell in ("0.000", UNDEFINED) for t in view.missing for r in t.rows
                                         for cell in r.cells)
    d = next(((metrics_doc.get(k) or {}).get("disparities") for k in ("test", "train")
              if (metrics_doc.get(k) or {}).get("disparities")), None)
    reference = ""
    if isinstance(d, dict):
        reference = (f"\u201c{d.get('reference')}\u201d, "
                     + ("named in the spec" if d.get("reference_from") == "spec" else "the group with the most rows"))
    return DataView(**{**view.__dict__, "proxies": proxies, "proxy_threshold": threshold,
                       "missing_all_zero": all_zero, "outcome": outcome_statement, "reference": reference})
