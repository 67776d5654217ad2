"""The plan: a typed, printable description of everything training will do.

A :class:`Plan` is what the compiler makes of a checked spec: defaults filled in, paths
resolved, the fairness line expanded into one criterion per sweep point.  It holds numbers
and names only (no data, no solver objects), so it can be printed, compared and tested.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fairspec.data.groups import GroupColumn
from fairspec.dsl.ast import written_value
from fairspec.errors import Diagnostic, render_diagnostic, written_number
from fairspec.plan.boosting import boosting_plan_lines
from fairspec.registry.families import FAMILIES
from fairspec.registry.criteria import CALIBRATION_FOLDS, Criterion


@dataclass(frozen=True)
class FeaturePlan:
    name: str
    kind: str  # "numeric" | "categorical"


@dataclass(frozen=True)
class DataPlan:
    path: Path
    #: (column, op, values) triples applied in order when the data is read
    filters: tuple[tuple[str, str, tuple], ...]
    target: str
    positive: object
    protected: tuple[str, ...]
    features: tuple[FeaturePlan, ...]
    privileged: tuple[FeaturePlan, ...] = ()
    #: how each protected attribute's groups are read, in the order of ``protected``: a column
    #: as it is, bins of a numeric column, or merged values (:class:`GroupColumn`); () reads
    #: every attribute as the column of its name
    groups: tuple[GroupColumn, ...] = ()
    #: ``labels`` statements: (column, ((value, label), ...)) for each labelled column
    labels: tuple[tuple[str, tuple[tuple[object, str], ...]], ...] = ()
    #: whether the positive class is "favourable" or "adverse" to whom it is predicted (None: not said)
    outcome: str | None = None
    #: the group label the report compares every other group with (None: the largest group)
    reference: str | None = None

    @property
    def group_columns(self) -> list[GroupColumn]:
        """One :class:`GroupColumn` per protected attribute (a plain column where ``groups`` is empty)."""
        return list(self.groups) or [GroupColumn(name, name) for name in self.protected]


@dataclass(frozen=True)
class MissingPlan:
    """``strategy`` is a native strategy of the family (mia, trinary, ...) or impute / drop."""

    strategy: str
    impute_method: str | None = None  # mean | median | knn
    k: int | None = None

    def label(self) -> str:
        if self.strategy == "impute":
            return f"impute({self.impute_method}{f' k={self.k}' if self.k else ''})"
        return self.strategy


@dataclass(frozen=True)
class SolverSettings:
    time_limit: float = 60.0
    threads: int = 1
    mip_gap: float = 1e-4
    seed: int = 0
    #: False: the time limit sizes the work only; the clock stops no stage
    clock_cap: bool = True
    #: ``clock_cap`` False by ``compile-and-train --no-clock-cap``, not by the spec: the spec as
    #: written gives this model again only with that flag, and the outputs say so
    clock_cap_from_command_line: bool = False


@dataclass(frozen=True)
class EvaluationPlan:
    kind: str = "holdout"  # holdout | cv | none
    test_size: float = 0.3
    folds: int = 0
    stratify: bool = True
    seed: int = 0


@dataclass(frozen=True)
class ModelRecipe:
    """The family and its parameters, defaults filled in (nested blocks become dicts)."""

    family: str
    params: dict = field(default_factory=dict, hash=False)
    #: ``(parameter, values)`` when the spec lists values for one parameter (``depth [4, 5, 6]``):
    #: the calibration of the bound chooses among them; ``params`` holds the first.  None otherwise
    choice: tuple[str, tuple] | None = None
    #: ``(parameter, values)`` the calibration chooses among because the family searches it by
    #: default (:attr:`fairspec.registry.families.Family.calibration_search`) and the spec writes
    #: neither it nor a list (:func:`fairspec.plan.compile.calibration_search`); None otherwise
    search: tuple[str, tuple] | None = None


@dataclass(frozen=True)
class Plan:
    name: str
    spec_path: Path | None
    spec_text: str
    data: DataPlan
    missing: MissingPlan
    #: one criterion per sweep point; a single point for a plain spec; () if no fairness line
    fairness: tuple[Criterion, ...]
    model: ModelRecipe
    solver: SolverSettings
    evaluation: EvaluationPlan
    output_dir: Path
    #: what the checker found worth saying that does not stop training (see plan/small_groups.py)
    warnings: tuple[Diagnostic, ...] = ()
    #: the spec's name in messages: its path, or what the caller named a spec given as text
    spec_filename: str = "<spec>"
    #: SHA-256 of the spec file's bytes (of the text for a spec given as text), and whether
    #: ``spec_text`` is not those bytes as they are (see :class:`fairspec.dsl.load.SpecDocument`)
    spec_sha256: str = ""
    spec_normalised: bool = False
    #: the settings the spec does not write, which the compiler filled in: ``model.<param>``,
    #: ``solver.<setting>``, ``missing``, ``evaluation.<setting>``; :meth:`describe` marks them,
    #: so a reviewer reading the plan tells the spec's choices from the tool's
    defaults: frozenset[str] = field(default_factory=frozenset)
    #: ``fairness ... on train``: a bound holds on the training rows only; otherwise it is
    #: calibrated to hold on unseen rows (:mod:`fairspec.calibration`)
    fairness_on_train: bool = False
    #: the spec's model_card: field -> text (``limitations`` a list); None without one
    model_card: dict | None = field(default=None, hash=False)

    @property
    def calibrates(self) -> bool:
        """Whether the fits calibrate their bound on held-out rows (a bound, not ``on train``)."""
        return not self.fairness_on_train and any(c.bound is not None for c in self.fairness)

    def warning_text(self) -> str:
        """The warnings as the command line prints them (``FILE:LINE:COL: warning: ...``)."""
        return "\n".join(render_diagnostic(w, self.spec_text, self.spec_filename) for w in self.warnings)

    @property
    def is_sweep(self) -> bool:
        return len(self.fairness) > 1

    def describe(self) -> str:
        """A human-readable listing of the plan (``fairspec compile`` prints this).  A setting
        the spec does not write, filled in by default, is marked ``*``."""
        marked = []

        def mark(key: str) -> str:
            if key not in self.defaults:
                return ""
            marked.append(key)
            return "*"

        d = self.data
        lines = [
            f"plan {self.name}",
            "  data",
            f"    read        {d.path}",
        ]
        for col, op, values in d.filters:
            # as the spec writes it: a list after in / not in (one value too), one value after a comparison
            # (true, not Python's True)
            shown = (f"[{', '.join(written_value(v) for v in values)}]" if op in ("in", "not in")
                     else written_value(values[0]))
            lines.append(f"    keep rows   {col} {op} {shown}")
        outcome = "" if d.outcome is None else f", {d.outcome}"
        lines += [
            f"    target      {d.target} (positive class {written_value(d.positive)}{outcome})",
            f"    groups      {' * '.join(d.protected)}"
            + ("" if d.reference is None else f" (reference group {d.reference!r})"),
        ]
        lines += [f"                {line}" for g in d.group_columns if (line := _group_line(g))]
        lines.append("    features    " + ", ".join(f"{f.name}:{f.kind}" for f in d.features))
        for column, pairs in d.labels:
            lines.append(f"    labels      {column}: "
                         + ", ".join(f"{written_value(v)} as {written_value(text)}" for v, text in pairs))
        if d.privileged:
            lines.append("    privileged  " + ", ".join(f"{f.name}:{f.kind}" for f in d.privileged)
                         + "  (training only, never read at prediction)")
        one_hot = self.model.family == "baseline" and self.model.params.get("learner") == "logistic"
        lines += ["  preparation", f"    missing     {self.missing.label()}{mark('missing')}",
                  "    encoding    numeric as float (NaN = missing); categorical as "
                  + ("one indicator column per training category (logistic terms)" if one_hot
                     else "integer codes of the training categories")]
        lines.append("  training")
        def param(k, v) -> str:
            if isinstance(v, dict):  # a nested block: its own defaults marked too
                return f"{k}={{{', '.join(f'{ik}={iv}' + mark(f'model.{k}.{ik}') for ik, iv in v.items())}}}"
            if self.model.choice is not None and k == self.model.choice[0]:
                return f"{k}=[{', '.join(written_value(x) for x in self.model.choice[1])}]"
            if self.model.search is not None and k == self.model.search[0]:
                return f"{k}=[{', '.join(written_value(x) for x in self.model.search[1])}]{mark('model.' + k)}"
            return f"{k}={v}{mark('model.' + k)}"

        params = ", ".join(param(k, v) for k, v in self.model.params.items())
        lines.append(f"    model       {self.model.family}({params})")
        s = self.solver
        if "time_limit" in FAMILIES[self.model.family].solver_settings:
            lines.append(f"    solver      time_limit={written_number(s.time_limit)}s{mark('solver.time_limit')} "
                         f"threads={s.threads}{mark('solver.threads')} "
                         f"mip_gap={written_number(s.mip_gap)}{mark('solver.mip_gap')} "
                         f"seed={s.seed}{mark('solver.seed')}"
                         + ("" if s.clock_cap else " clock_cap=false (work limits only; may run past time_limit"
                            + ("; from --no-clock-cap)" if s.clock_cap_from_command_line else ")")))
            if self.model.family == "mip_forest":
                trees = int(self.model.params.get("trees", 1))
                lines.append(f"                (time_limit is dealt to the {trees} tree{'' if trees == 1 else 's'}: "
                             f"{written_number(s.time_limit / trees)}s of MIP work each; threads = trees fitted side "
                             f"by side)")
            if self.model.family == "tree" and not any(c.bound is not None for c in self.fairness):
                # printed alone, these read as the limits of a MIP that never runs (adult_tree.fair)
                lines.append("                (no fairness bound, so no leaf-relabelling MIP runs: time_limit and "
                             "mip_gap act on nothing)")
        elif self.model.family == "mp_boost":
            lines.append(f"    seed        {s.seed}{mark('solver.seed')} (no solver and no clock: the boosting "
                         "rounds below draw every minipatch from it)")
        else:
            what = ("no solver and no clock: it draws the held-out rows, and the rounds fix the work"
                    if self.model.family == "privileged_boost" else "no solver: the learner runs to convergence")
            lines.append(f"    seed        {s.seed}{mark('solver.seed')} ({what})")
        if not self.fairness:
            lines.append("    fairness    none declared (all gaps are still measured and reported)")
        for i, c in enumerate(self.fairness):
            prefix = f"    fairness[{i}] " if self.is_sweep else "    fairness    "
            lines.append(prefix + c.label())
        if any(c.bound is not None for c in self.fairness):
            lines.append("    holds on    " + (
                "the training rows (on train)" if self.fairness_on_train else
                f"unseen rows (an internal bound chosen by inner {CALIBRATION_FOLDS}-fold cross-validation "
                "on the training rows)"))
        if self.model.choice is not None:
            name, values = self.model.choice
            lines.append(f"    chosen      {name}: chosen among {', '.join(written_value(x) for x in values)} by the "
                         "calibration (each value calibrated on the same inner folds; the most accurate whose inner "
                         "estimate meets the bound is refitted on every training row)")
        if self.model.search is not None:
            name, values = self.model.search
            lines.append(f"    searched    {name}: the bound's Lagrange multiplier, chosen among "
                         f"{', '.join(written_value(x) for x in values)} by the calibration as a listed value is")
        lines += boosting_plan_lines(self, mark)
        e = self.evaluation
        lines.append("  evaluation")
        stratified = (f" (stratified{mark('evaluation.stratify')} by target and group where the data allow)"
                      if e.stratify else f" (not stratified{mark('evaluation.stratify')})")
        if e.kind == "holdout":
            lines.append(f"    holdout     {written_number(e.test_size)}{mark('evaluation.test_size')} of rows"
                         f"{stratified}, seed {e.seed}{mark('evaluation.seed')}")
        elif e.kind == "cv":
            lines.append(f"    cv          {e.folds} folds{stratified}, seed {e.seed}{mark('evaluation.seed')}; "
                         "final model refit on all rows")
        else:
            lines.append("    none        metrics on the training rows only")
        lines.append(f"  output        {self.output_dir}{mark('output')}")
        if marked:
            lines.append("  * not written in the spec: a default")
        return "\n".join(lines)


def _group_line(group: GroupColumn) -> str:
    """How a derived attribute's groups are formed, as one line of the plan ('' for a column as it is)."""
    if group.kind == "bins":
        edges = ", ".join(written_number(e) for e in group.edges)
        return (f"{group.name}: bins of {group.column} at [{edges}], closed on the left: "
                + ", ".join(group.bin_labels))
    if group.kind == "merged":
        return f"{group.name}: from {group.column}: " + "; ".join(
            f"[{', '.join(written_value(v) for v in values)}] as {written_value(label)}"
            for label, values in group.merged)
    return ""
