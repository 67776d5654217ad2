"""Compile a checked spec into a :class:`~fairspec.plan.plan.Plan`: fill defaults, resolve names.

Defaults a spec may leave out:

* a feature's type: ``numeric`` when the column holds numbers, else ``categorical``;
* ``missing``: the family's own default (``mia`` for trees and rule sets, ``impute(median)``
  for the baseline);
* ``solver``: 60 s, 1 thread, relative MIP gap 1e-4; seed: the evaluation's when only it is given, else 0;
* ``evaluate``: a stratified 30 % holdout; the seed is the solver's unless given;
* ``output``: ``out/<spec name>`` (relative to the current directory; git ignores ``out/``).

A written ``output`` starts with ``~`` as ``data`` may: it is the home folder, not a folder
named ``~`` made in the current directory.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pandas as pd

from fairspec.data.table import apply_filters, feature_kind, read_table
from fairspec.dsl import ast
from fairspec.errors import DataError, Diagnostic, SpecSemanticError, in_spec_order
from fairspec.dsl.check import check_spec, empty_feature_warnings, inference_warnings
from fairspec.dsl.groups import group_column, many_values_warnings
from fairspec.dsl.check_report import model_card_fields, reference_key
from fairspec.dsl.load import SpecDocument, resolve_data_path
from fairspec.registry.criteria import make_criterion
from fairspec.plan.small_groups import (KeptRows, class_split_errors, filter_look_alike_warnings, group_diagnostics,
                                       look_alike_group_warnings, small_test_warning)
from fairspec.registry.families import FAMILIES, Param
from fairspec.plan.plan import (DataPlan, EvaluationPlan, FeaturePlan, MissingPlan, ModelRecipe, Plan,
                                SolverSettings)


def _plain(value):
    if isinstance(value, ast.Duration):
        return float(value.seconds)
    if isinstance(value, ast.Name):
        return value.value
    return value


def resolve_params(declared: tuple[Param, ...], written: tuple, missing: str | None = None,
                   bounded: bool = True) -> dict:
    """Written parameters over the declared defaults; nested blocks resolve the same way.  A
    parameter that applies only with another's value (``depth`` only with ``learner tree``),
    only under some missing-value strategies (``middle_growth`` only under ``trinary`` and
    ``trinary_mia``; ``missing`` is the plan's strategy) or only under a fairness bound (the
    tree's ``multiplier``; ``bounded``: the spec has one) is left out otherwise: the plan and
    the report list what the model uses (the checker refuses it written there)."""
    given = {p.name: p.value for p in written}
    out = {}
    for param in declared:
        if param.only_with_missing and missing not in param.only_with_missing:
            continue
        if param.only_with_bound and not bounded:
            continue
        if param.only_with is not None:
            other, needed = param.only_with
            other_param = next(d for d in declared if d.name == other)
            if _plain(given.get(other, other_param.default)) != needed:
                continue
        if param.kind == "block":
            out[param.name] = resolve_params(param.params, given[param.name]) if param.name in given else None
        else:
            value = _plain(given.get(param.name, param.default))
            if isinstance(value, ast.ValueList):  # the values the calibration chooses among (model_choice)
                value = ast.ValueList(tuple(float(v) for v in value.values) if param.kind == "float"
                                      else value.values)
            elif param.kind == "float" and value is not None:
                value = float(value)
            out[param.name] = value
    return out


def model_choice(params: dict) -> tuple[dict, tuple | None]:
    """``params`` with a list of values (``depth [4, 5, 6]``) replaced by its first value, and
    ``(name, values)`` of that list (None without one; the checker allows one list).  The
    calibration sets every value in turn (:mod:`fairspec.calibration`, ``choices``), so the one
    the recipe holds only stands for the parameter where no fit reads it (the plan's other lines,
    ``compile --emit-model``): the first, as the spec lists it."""
    choice = next(((name, value.values) for name, value in params.items() if isinstance(value, ast.ValueList)), None)
    if choice is None:
        return params, None
    return {**params, choice[0]: choice[1][0]}, choice


def calibration_search(family, spec, params: dict, choice) -> tuple | None:
    """``(parameter, values)`` of the family's :attr:`~fairspec.registry.families.Family.calibration_search`
    when the calibration of a bound on unseen rows is to choose it: the spec has a bound not
    ``on train``, does not write the parameter, lists no other parameter (one list per spec, for
    the checker's reason: a product multiplies the fits, and the choice among them flatters the
    kept one's inner estimate), and the model is a single tree (a forest's calibration already
    fits every tree per fold and candidate; its multiplier is the spec's to write or list).
    None otherwise."""
    if not family.calibration_search or spec.fairness is None or not spec.fairness.bounds or spec.fairness.on_train:
        return None
    name, values = family.calibration_search
    written = {p.name for p in spec.model.params}
    if name in written or choice is not None or params.get("forest"):
        return None
    return name, tuple(values)


def _feature_plans(features: tuple[ast.Feature, ...], table: pd.DataFrame) -> tuple[FeaturePlan, ...]:
    return tuple(FeaturePlan(f.name.value, f.kind or feature_kind(table[f.name.value])) for f in features)


def _settings(block) -> dict:
    return {} if block is None else {p.name: _plain(p.value) for p in block.params}


def build_plan(doc: SpecDocument, table: pd.DataFrame, data_path: Path) -> Plan:
    """The plan for a spec already checked against ``table`` (the unfiltered data)."""
    spec = doc.spec
    family = FAMILIES[spec.model.family.value]
    filters = tuple((f.column.value, f.op, tuple(f.values)) for f in spec.data.filters)
    # an untyped feature's kind is its column's as read, the where filters aside (as the
    # inference warnings read it): a true/false word in a row a filter drops had made a numeric
    # column categorical, one category per number, without a word (found in review)
    data = DataPlan(
        path=data_path, filters=filters, target=spec.target.column.value, positive=spec.target.positive,
        protected=tuple(a.value for a in spec.protected.attributes),
        features=_feature_plans(spec.features, table), privileged=_feature_plans(spec.privileged, table),
        groups=tuple(group_column(spec, a.value, table) for a in spec.protected.attributes),
        labels=tuple((e.column.value, tuple((x.value, x.text) for x in e.entries)) for e in spec.labels),
        outcome=spec.target.outcome,
        reference=None if spec.reference is None else reference_key(spec.reference.values, table,
                                                                   [group_column(spec, a.value, table)
                                                                    for a in spec.protected.attributes]),
    )
    if spec.missing is None:
        missing = MissingPlan(family.default_missing, "median" if family.default_missing == "impute" else None)
    else:
        m = spec.missing
        missing = MissingPlan(m.strategy, m.method if m.strategy == "impute" else None,
                              m.k if m.strategy == "impute" and m.method == "knn" else None)
        if missing.strategy == "impute" and missing.impute_method == "knn" and missing.k is None:
            missing = MissingPlan("impute", "knn", 5)

    solver_given = _settings(spec.solver)
    ev = _settings(spec.evaluate)
    # one seed given seeds both the model and the split; two given are each respected
    solver = SolverSettings(time_limit=float(solver_given.get("time_limit", 60.0)),
                            threads=int(solver_given.get("threads", 1)),
                            mip_gap=float(solver_given.get("mip_gap", 1e-4)),
                            clock_cap=bool(solver_given.get("clock_cap", True)),
                            seed=int(solver_given.get("seed", ev.get("seed", 0))))
    seed = int(ev.get("seed", solver.seed))
    if ev.get("none"):
        evaluation = EvaluationPlan(kind="none", test_size=0.0, folds=0, stratify=False, seed=seed)
    elif "cv" in ev:
        evaluation = EvaluationPlan(kind="cv", test_size=0.0, folds=int(ev["cv"]),
                                    stratify=bool(ev.get("stratify", True)), seed=seed)
    else:
        evaluation = EvaluationPlan(kind="holdout", test_size=float(ev.get("holdout", 0.3)),
                                    stratify=bool(ev.get("stratify", True)), seed=seed)

    fairness = ()
    if spec.fairness is not None:
        name = spec.fairness.criterion.value
        if spec.fairness.bounds:
            fairness = tuple(make_criterion(name, bound=float(b)) for b in spec.fairness.bounds)
        elif spec.fairness.penalties:
            fairness = tuple(make_criterion(name, penalty=float(p)) for p in spec.fairness.penalties)
        else:
            fairness = (make_criterion(name),)

    bounded = spec.fairness is not None and bool(spec.fairness.bounds)
    params, choice = model_choice(resolve_params(family.params, spec.model.params, missing.strategy, bounded))
    search = calibration_search(family, spec, params, choice)
    output = Path(spec.output).expanduser() if spec.output else Path("out") / spec.name.value
    defaults = _defaults(spec, params, solver_given, ev)
    return Plan(name=spec.name.value, spec_path=doc.path, spec_text=doc.text, data=data, missing=missing,
                fairness=fairness, model=ModelRecipe(family.name, params, choice, search), solver=solver,
                evaluation=evaluation, output_dir=output, spec_sha256=doc.sha256, spec_normalised=doc.normalised,
                defaults=defaults, fairness_on_train=bool(spec.fairness is not None and spec.fairness.on_train),
                model_card=model_card_fields(spec.model_card))


def _defaults(spec: ast.Spec, params: dict, solver_given: dict, ev: dict) -> frozenset[str]:
    """The plan's settings that the spec does not write (:attr:`Plan.defaults`).  The seeds
    count as written when either block gives one: one seed seeds the whole run."""
    written = {p.name for p in spec.model.params}
    found = {f"model.{name}" for name in params if name not in written}
    for block in spec.model.params:  # a nested block (forest { trees 3 }) fills the rest of its own
        if isinstance(params.get(block.name), dict) and isinstance(block.value, tuple):
            inner = {q.name for q in block.value}
            found |= {f"model.{block.name}.{name}" for name in params[block.name] if name not in inner}
    found |= {f"solver.{name}" for name in ("time_limit", "threads", "mip_gap") if name not in solver_given}
    if "seed" not in solver_given and "seed" not in ev:
        found |= {"solver.seed", "evaluation.seed"}
    if spec.missing is None:
        found.add("missing")
    if "holdout" not in ev:
        found.add("evaluation.test_size")
    if "stratify" not in ev:
        found.add("evaluation.stratify")
    if not spec.output:
        found.add("output")
    return frozenset(found)


UNREACHABLE_CONDITIONS = ("max_conditions {conditions} cannot be reached under max_complexity {complexity}: a "
                          "rule's complexity is 1 plus its conditions, so a rule holds at most {most}")
UNREACHABLE_CONDITIONS_HINT = "lower max_conditions to {most}, or raise max_complexity"


def rule_length_warning(doc: SpecDocument, plan: Plan) -> list[Diagnostic]:
    """A warning when a written ``max_conditions`` is more than ``max_complexity`` lets a rule
    hold: the checker refuses a parameter the fit would ignore, and this one was partly ignored
    without a word (found in review).  A default ``max_conditions`` says nothing."""
    if plan.model.family != "rule_set":
        return []
    written = [q for q in doc.spec.model.params if q.name == "max_conditions"]
    conditions, complexity = plan.model.params["max_conditions"], plan.model.params["max_complexity"]
    if not written or conditions <= complexity - 1:
        return []
    most = f"{complexity - 1} condition{'' if complexity == 2 else 's'}"
    where = doc.locations.get(("param.value", written[0].span), written[0].span)
    return [Diagnostic(UNREACHABLE_CONDITIONS.format(conditions=conditions, complexity=complexity, most=most), where,
                       UNREACHABLE_CONDITIONS_HINT.format(most=complexity - 1), severity="warning")]


def compile_spec(doc: SpecDocument, table: pd.DataFrame | None = None) -> Plan:
    """Check ``doc`` against its data and compile it.

    Every problem is collected before anything is raised: when the data file cannot be
    found, the checks that need no data still run and their problems are listed with it.
    """
    return compile_with_table(doc, table)[0]


def compile_with_table(doc: SpecDocument, table: pd.DataFrame | None = None) -> tuple[Plan, pd.DataFrame]:
    """:func:`compile_spec`, and the data table the spec was checked against (read from the
    spec's data file unless given), so that training uses the very rows that were checked
    without reading the file a second time."""
    return compile_checked(doc, table)[:2]


def compile_checked(doc: SpecDocument, table: pd.DataFrame | None = None) -> tuple[Plan, pd.DataFrame, KeptRows]:
    """:func:`compile_with_table`, and the kept rows' target, groups and split as the checks
    computed them (:class:`~fairspec.plan.small_groups.KeptRows`), which training can read
    (``prepare_data``'s ``checked``) instead of computing them again."""
    problems = []
    data_path = None
    try:
        data_path = resolve_data_path(doc)
    except SpecSemanticError as exc:
        problems += exc.diagnostics
    unreadable = None
    if table is None and data_path is not None:
        try:
            table = read_table(data_path)
        except DataError as exc:
            unreadable = exc  # the checks that need no data still run: all problems are listed together
    try:
        check_spec(doc, table)
    except SpecSemanticError as exc:
        problems += exc.diagnostics
    if unreadable is not None and not problems:
        raise unreadable
    if problems:
        if unreadable is not None:
            detail = str(unreadable).removeprefix(f"{data_path}: error: ")
            problems.insert(0, Diagnostic(f"data file {str(data_path)!r}: {detail}", doc.spec.data.span))
        raise SpecSemanticError(problems, doc.text, doc.filename)
    plan = build_plan(doc, table, Path(os.path.normpath(data_path)))
    kept = KeptRows(plan, table)  # the kept rows' target, groups and split, computed once for the checks below
    found = in_spec_order(inference_warnings(doc, table) + empty_feature_warnings(doc, table)
                          + look_alike_group_warnings(doc, plan, table) + filter_look_alike_warnings(doc, table)
                          + small_test_warning(doc, plan, table, kept) + class_split_errors(doc, plan, table, kept)
                          + group_diagnostics(doc, plan, table, kept)
                          + many_values_warnings(doc, table, apply_filters(table, plan.data.filters))
                          + rule_length_warning(doc, plan))
    if any(d.severity == "error" for d in found):
        raise SpecSemanticError(found, doc.text, doc.filename)  # the warnings with them: all is said at once
    return dataclasses.replace(plan, warnings=tuple(found), spec_filename=doc.filename), table, kept
