"""Before training: groups too small for the fairness bound asked of them (a warning), and
groups the split leaves without a rate on a training side (an error).

A group's rate on the training rows moves in steps of one row: a TPR over m positive rows
takes the values 0, 1/m, ..., 1.  When 1/m is larger than the bound ε, the bound is finer
than the group can express, and "every pair of groups within ε" means the other groups' rates
must sit within ε of whichever step the small group lands on.  With one positive row (TPR 0
or 1) only a model that predicts almost every positive row alike can meet it; that is what a
bound of 0.05 over compas's race × sex groups does (a rule set barely more accurate than
predicting "no" for everyone).  The spec is not wrong, so this is a
warning, not an error: it names the groups, the counts and what to do.

The training rows are the rows the final model is fitted on: ``1 - test_size`` of the kept
rows for a holdout (stratified by target and group, so each group keeps its share), all of
them for cross-validation (the kept model is refitted on every row) and for ``none``.
"""
from __future__ import annotations

import math
import weakref

import numpy as np
import pandas as pd

from fairspec.data.groups import derived_group_labels
from fairspec.data.prepare import rows_without_missing, target_vector
from fairspec.data.split import holdout_test_rows, split_rows, training_sides
from fairspec.data.table import apply_filters, value_mask
from fairspec.dsl.groups import regroup_examples
from fairspec.dsl.load import SpecDocument
from fairspec.errors import Diagnostic
from fairspec.plan.plan import Plan
from fairspec.registry.criteria import held_out_gap_noise

#: which rows each rate of a criterion is a share of
RATE_ROWS = {"tpr": "positive", "fpr": "negative", "selection_rate": "", "accuracy": ""}
RATE_NAMES = {"tpr": "TPR", "fpr": "FPR", "selection_rate": "selection rate", "accuracy": "accuracy"}
SPLIT_HINT = ("merge or leave out the group ({filters}), or change the split "
              "(another `evaluate` seed, or fewer cv folds)")
ONE_ROW_CV_HINT = ("with one {row}, every cv split trains one fold without it: merge or leave out the "
                   "group ({filters}), or evaluate on a hold-out")
ONE_ROW_HOLDOUT_HINT = ("merge or leave out the group ({filters}), or pick an "
                        "`evaluate` seed whose hold-out keeps its one {row} on the training side")
HINT = ("leave such groups out or merge them ({filters}), or loosen the bound; "
        "the report's interval of each test gap shows how little a small group's rates can be measured")


def _filter_examples(doc: SpecDocument, plan: Plan, table: pd.DataFrame) -> str:
    """The `where` filters a hint suggests to leave a group out: one per protected column, since
    an intersectional group (``Female & Other``) is left out by a filter on any of its columns,
    and the first column alone can be the wrong one (`where sex in [...]` for groups that
    only race sets apart; found in review).  A numeric column of many values gets bins instead
    (a where filter listing 47 ages had followed), a derived attribute other edges or groups
    (:func:`fairspec.dsl.groups.regroup_examples`)."""
    rows = apply_filters(table, plan.data.filters)
    return " or ".join(regroup_examples(doc.spec, g, rows) for g in plan.data.group_columns)


def training_share(plan: Plan) -> float:
    """The share of the kept rows the final model is trained on."""
    return 1.0 - plan.evaluation.test_size if plan.evaluation.kind == "holdout" else 1.0


def kept_rows(plan: Plan, table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Target and group of the rows the pipeline keeps, in its order (as ``prepare_data``)."""
    frame = apply_filters(table, plan.data.filters)
    if plan.missing.strategy == "drop":
        frame = frame.loc[rows_without_missing(frame, [f.name for f in plan.data.features])]
    return (target_vector(frame, plan.data.target, plan.data.positive),
            derived_group_labels(frame, plan.data.group_columns))


class KeptRows:
    """:func:`kept_rows` of one plan and table, and their split, each computed once on first
    use: three checks read them, and on a million rows each pass took a few tenths of a second.
    Training reads them too (:meth:`for_training`), rather than computing them a second time."""

    def __init__(self, plan: Plan, table: pd.DataFrame):
        self._plan, self._table = plan, table
        self._rows = self._split = None
        # what they are of: the table itself (not kept alive by this) and the parts of the plan
        # that choose them
        self._of_table = weakref.ref(table)
        self._of_plan = (plan.data, plan.missing.strategy, plan.evaluation)

    @property
    def target_and_groups(self) -> tuple[np.ndarray, np.ndarray]:
        if self._rows is None:
            self._rows = kept_rows(self._plan, self._table)
            self._table = None  # the rows are all that is needed of it from here on
        return self._rows

    def split(self) -> tuple[list, str | None]:
        """``split_rows(plan.evaluation, y, groups)``: the splits and what they are stratified by."""
        if self._split is None:
            y, groups = self.target_and_groups
            self._split = split_rows(self._plan.evaluation, y, groups)
        return self._split

    def splits(self):
        """``split_rows(plan.evaluation, y, groups)``'s splits."""
        return self.split()[0]

    def for_training(self, plan: Plan, table: pd.DataFrame) -> "KeptRows | None":
        """These rows when they are ``plan``'s of ``table`` (the plan may differ in what does not
        choose them, such as its solver settings) and were computed, else None."""
        if (self._rows is None or self._of_table() is not table
                or self._of_plan != (plan.data, plan.missing.strategy, plan.evaluation)):
            return None
        return self


#: fewest hold-out rows without a warning: a test accuracy over n rows has a standard error of
#: up to 0.5/√n, 0.05 at 100 rows (a larger error than most differences a reviewer compares)
MIN_TEST_ROWS = 100
SMALL_TEST = ("the hold-out keeps {n_test} of the {n} rows for testing: a test accuracy over so few rows "
              "is uncertain by up to ±{se:.2f} (one standard error), and a group's test rates by more")
SMALL_TEST_HINT = "hold out a larger share, or use cross-validation (`evaluate { cv 5 }`), which tests on every row"


def small_test_warning(doc: SpecDocument, plan: Plan, table: pd.DataFrame,
                       kept: KeptRows | None = None) -> list[Diagnostic]:
    """A warning when the hold-out has fewer than :data:`MIN_TEST_ROWS` rows (``holdout
    0.0001`` left one test row, and the run reported its test accuracy as 0.000 without a
    word)."""
    if plan.evaluation.kind != "holdout":
        return []
    y, _ = (kept or KeptRows(plan, table)).target_and_groups
    n_test = holdout_test_rows(plan.evaluation.test_size, len(y))
    if len(y) == 0 or n_test >= MIN_TEST_ROWS:
        return []
    return [Diagnostic(SMALL_TEST.format(n_test=n_test, n=len(y), se=0.5 / math.sqrt(max(n_test, 1))),
                       _evaluate_place(doc), SMALL_TEST_HINT, severity="warning")]


def _evaluate_place(doc: SpecDocument):
    """Where a diagnostic about the split points: the ``holdout`` or ``cv`` value, else the
    ``evaluate`` block, else nowhere (the default split)."""
    where = doc.spec.evaluate.span if doc.spec.evaluate is not None else None
    for param in doc.spec.evaluate.params if doc.spec.evaluate is not None else ():
        if param.name in ("holdout", "cv"):
            where = doc.locations.get(("param.value", param.span), param.span)
    return where


CLASS_NOT_TRAINED = ("the {label} class has {n} row{s} in all and none on {side} of the split (seed {seed}): "
                     "a model fitted there never sees it, and predicts the other class for every row")
CLASS_NOT_TRAINED_HINT = ("use more rows of that class, pick an `evaluate` seed that keeps {one} on the training "
                          "side, or evaluate with `evaluate {{ none }}`")
#: under cv a class of one row is missing from the training side of the fold that tests it, whatever the seed
CLASS_NOT_TRAINED_CV_HINT = ("use more rows of that class, or evaluate on a hold-out (`evaluate {{ holdout 0.3 }}`) "
                             "or with `evaluate {{ none }}`")


def class_split_errors(doc: SpecDocument, plan: Plan, table: pd.DataFrame,
                       kept: KeptRows | None = None) -> list[Diagnostic]:
    """An error when a side of the split a model is fitted on holds no row of one of the two
    classes, which the kept rows have: the run had trained a constant model on it and exited
    0 without a word (found in review: a hold-out drew a data set's only positive row).  The
    split is computed as training will compute it, so the failure is certain."""
    if plan.evaluation.kind == "none":
        return []
    kept = kept or KeptRows(plan, table)
    y, groups = kept.target_and_groups
    if len(y) == 0 or len(np.unique(y)) < 2:
        return []  # training stops with its own error
    splits = kept.splits()
    errors = []
    for cls, label in ((1, "positive"), (0, "negative")):
        sides = [side for side, rows in training_sides(plan.evaluation, splits) if not (y[rows] == cls).any()]
        if not sides:
            continue
        n = int((y == cls).sum())
        side = sides[0] if len(sides) == 1 else f"{len(sides)} training sides ({', '.join(sides)})"
        errors.append(Diagnostic(CLASS_NOT_TRAINED.format(label=label, n=n, s="s" if n != 1 else "", side=side,
                                                          seed=plan.evaluation.seed),
                                 _evaluate_place(doc),
                                 (CLASS_NOT_TRAINED_CV_HINT if plan.evaluation.kind == "cv" and n == 1
                                  else CLASS_NOT_TRAINED_HINT).format(one="one" if n == 1 else "some")))
    return errors


LOOK_ALIKE_GROUPS = ("protected attribute '{column}' has values that differ only in case, in spaces at "
                     "their ends or in how they write one number, {pairs}: each is a group of its own, measured "
                     "and compared with the others")
LOOK_ALIKE_HINT = ("if they are one group, write it one way in the data file (a CSV cell keeps the spaces "
                   "after its text)")


def _alike_key(text: str):
    """What two look-alike group values share: the number a value spells (a code "01" is kept
    as text beside "1", and the two were separate groups unannounced; found in review), else
    its text without case or end spaces."""
    key = text.strip().casefold()
    try:
        number = float(key)
    except ValueError:
        return key
    return ("number", number) if math.isfinite(number) and "_" not in key else key


def look_alike_group_warnings(doc: SpecDocument, plan: Plan, table: pd.DataFrame) -> list[Diagnostic]:
    """A warning per protected column whose kept values include two that are equal but for
    case or surrounding white space (``Female``, ``female``, ``Female `` from a hand-edited
    file): fairness would be measured, and a bound enforced, between what is one group of
    people.  A warning, not an error, since codes such as ``a`` and ``A`` may be meant."""
    frame = apply_filters(table, plan.data.filters)
    warnings = []
    for group, attribute in zip(plan.data.group_columns, doc.spec.protected.attributes):
        if group.kind != "column":
            continue  # bins are numbers; merged values are named one by one in the spec
        name = group.column
        values = frame[name].dropna()
        # the texts of the distinct values (each row's text, built in Python, took seconds on a million rows)
        texts = sorted(set(values.astype(str).unique())) if values.dtype.kind not in "fiub" else []
        alike: dict[str, list[str]] = {}
        for text in texts:
            alike.setdefault(_alike_key(text), []).append(text)
        clashes = [group for group in alike.values() if len(group) > 1]
        if not clashes:
            continue
        pairs = "; ".join(" and ".join(repr(v) for v in group) for group in clashes[:3])
        pairs += f" (and {len(clashes) - 3} more such sets)" if len(clashes) > 3 else ""
        warnings.append(Diagnostic(LOOK_ALIKE_GROUPS.format(column=name, pairs=pairs), attribute.span,
                                   LOOK_ALIKE_HINT, severity="warning"))
    return warnings


FILTER_LOOK_ALIKE = ("the `where` filter on '{column}' leaves out {found}, which differ{s} from {named} only in case, "
                     "in spaces at the ends or in how a number is written")
FILTER_LOOK_ALIKE_HINT = ("if they are the same value, name each spelling in the filter or write it one way in the "
                          "data file (a CSV cell keeps the spaces after its text)")


def filter_look_alike_warnings(doc: SpecDocument, table: pd.DataFrame) -> list[Diagnostic]:
    """A warning per ``where ... in [...]`` (or ``==``) filter whose named text values the
    data also spells another way: ``where race in ["Caucasian"]`` drops the rows of
    ``"Caucasian "``.  Without a filter, look-alike groups are warned of
    (:func:`look_alike_group_warnings`); with one, their rows went without a word (found in
    review).  ``!=`` and ``not in`` are left alone: naming an odd spelling to drop it, beside
    the usual one kept, is what the hint of the group warning suggests."""
    warnings = []
    for f in doc.spec.data.filters:
        column = f.column.value
        if f.op not in ("==", "in") or column not in table.columns:
            continue
        series = table[column]
        if series.dropna().dtype.kind in "fiub":
            continue  # read as numbers: `1` and `1.0` are one value already
        named = {_alike_key(str(v)): str(v) for v in f.values}
        kept = value_mask(series, f.op, f.values)
        dropped = series[series.notna().to_numpy() & ~kept].astype(str)
        counts = dropped[dropped.map(_alike_key).isin(list(named))].value_counts()
        found = sorted((text, int(n)) for text, n in counts.items())
        if not found:
            continue
        shown = ", ".join(f"{text!r} ({n} row{'s' * (n != 1)})" for text, n in found[:3])
        shown += f" and {len(found) - 3} more" if len(found) > 3 else ""
        alike = " or ".join(sorted({repr(named[_alike_key(text)]) for text, _ in found}))
        warnings.append(Diagnostic(FILTER_LOOK_ALIKE.format(column=column, found=shown, named=alike,
                                                            s="s" if len(found) == 1 else ""),
                                   f.span, FILTER_LOOK_ALIKE_HINT, severity="warning"))
    return warnings


def group_diagnostics(doc: SpecDocument, plan: Plan, table: pd.DataFrame,
                      kept: KeptRows | None = None) -> list[Diagnostic]:
    """The warnings of :func:`small_group_warnings` and the errors of :func:`split_errors`,
    from the kept rows read once; none (and no pass over the data) without an enforced
    criterion."""
    if not any(c.enforced for c in plan.fairness):
        return []
    kept = kept or KeptRows(plan, table)
    y, groups = kept.target_and_groups
    filters = _filter_examples(doc, plan, table)
    return (small_group_warnings(doc, plan, y, groups, filters)
            + unchecked_bound_warnings(doc, plan, y, groups, filters)
            + split_errors(doc, plan, y, groups, filters, kept.splits))


UNCHECKED_BOUND = ("the {rows} cannot check the bound {bound:g}: with {counts}, a gap measured there is uncertain by "
                   "up to ±{noise:.3f} (one standard error, from the group sizes), more than the bound itself, so "
                   "a gap of {bound:g} and one of 0 look alike; the smallest bound these rows can check is about "
                   "{smallest}")
UNCHECKED_BOUND_HINT = ("loosen the bound to at least {smallest}, test on more rows (a larger hold-out, or "
                        "`evaluate {{ cv 10 }}`, which tests on every row), or merge small groups ({filters})")


def held_out_share(plan: Plan) -> tuple[float, str]:
    """The share of the kept rows a bound is checked on, and what they are called: the hold-out's
    test rows; every row under cv (the pooled out-of-fold predictions); without a test side the
    training rows, which the calibration's inner folds hold out in turn."""
    if plan.evaluation.kind == "holdout":
        return plan.evaluation.test_size, "hold-out's test rows"
    if plan.evaluation.kind == "cv":
        return 1.0, "cross-validation's pooled out-of-fold rows"
    return 1.0, "training rows held out in turn by the calibration"


def unchecked_bound_warnings(doc: SpecDocument, plan: Plan, y: np.ndarray, groups: np.ndarray,
                             filters: str) -> list[Diagnostic]:
    """A warning, at the finest bound, when the rows that check it are too few: the expected noise
    of the held-out gap (:func:`fairspec.registry.criteria.held_out_gap_noise`, the standard
    error at rates of 1/2 for the two smallest groups) exceeds ε.  It names the smallest ε those
    rows can check, that noise rounded up to two significant digits."""
    bounds = [c.bound for c in plan.fairness]
    positive = [b for b in bounds if b is not None and b > 0]
    if not positive:
        return []
    bound = min(positive)
    criterion = plan.fairness[bounds.index(bound)]
    share, rows = held_out_share(plan)
    noise = held_out_gap_noise(criterion, y, groups, share)
    if noise is None or noise <= bound:
        return []
    step = 10.0 ** (math.floor(math.log10(noise)) - 1)  # noise rounded up to two significant digits
    smallest = f"{math.ceil(noise / step - 1e-9) * step:.2g}"
    names, index = np.unique(groups, return_inverse=True)
    label = {"tpr": y == 1, "fpr": y == 0}
    parts = []
    for rate in criterion.rates:
        has = label.get(rate, np.ones(len(y), dtype=bool))
        counts = sorted((int(round(float(has[groups == g].sum()) * share)), str(g)) for g in names)
        kind = RATE_ROWS[rate] + " rows" if RATE_ROWS[rate] else "rows"
        parts.append(", ".join(f"about {n} {kind.removesuffix('s') if n == 1 else kind} of '{g}'"
                               for n, g in counts[:2]))
    where = doc.locations.get(("fairness.bound", bounds.index(bound)), doc.spec.fairness.span)
    return [Diagnostic(UNCHECKED_BOUND.format(rows=rows, bound=bound, counts="; ".join(parts), noise=noise,
                                              smallest=smallest),
                       where, UNCHECKED_BOUND_HINT.format(smallest=smallest, filters=filters),
                       severity="warning")]


def split_errors(doc: SpecDocument, plan: Plan, y: np.ndarray, groups: np.ndarray,
                 filters: str, splits_of=None) -> list[Diagnostic]:
    """One error per rate of an enforced criterion that some group has in the data but not on
    a side of the split a model is fitted on (its only positive row drawn into the test rows,
    say): the rate is undefined there, so the fit under the criterion would stop
    (``Criterion.require_every_rate``, which every family that enforces a criterion calls).
    A group with no row at all on that side is an error too: the fit would succeed, but only
    because it never sees the group, and the test rows would then measure a gap the bound was
    never imposed on (a one-row group drawn into the hold-out made a test gap of 0.62 beside a
    training gap "met" at 0.17).
    ``filters`` is how the hint says to leave a group out (:func:`_filter_examples`);
    ``splits_of()``, when given, returns the split of ``y`` and ``groups`` already drawn.
    The split is computed as training will compute it (:func:`fairspec.data.split.split_rows`),
    so the failure is certain, and ``fairspec check`` reports it as the error it is instead of
    saying "ok" and leaving it to the fit."""
    criteria = [c for c in plan.fairness if c.enforced]
    if not criteria or plan.evaluation.kind == "none":
        return []
    if len(y) == 0 or len(np.unique(y)) < 2:
        return []  # training stops with its own error
    splits = splits_of() if splits_of is not None else split_rows(plan.evaluation, y, groups)[0]
    names = np.unique(groups)
    where = doc.locations.get(("fairness.criterion",), doc.spec.fairness.span)
    errors = []
    for rate in criteria[0].rates:
        label = RATE_ROWS[rate]
        has = {"positive": y == 1, "negative": y == 0}.get(label, np.ones(len(y), dtype=bool))
        lacking = {}  # group -> the sides it lacks the rows on
        seen = set()  # groups that lack the rows on a side they have other rows on
        for side, rows in training_sides(plan.evaluation, splits):
            present = set(np.unique(groups[rows][has[rows]]).tolist())
            on_side = set(np.unique(groups[rows]).tolist())
            for g in names:
                if g not in present and has[groups == g].any():
                    lacking.setdefault(str(g), []).append(side)
                    if g in on_side:
                        seen.add(str(g))
        for g, sides in lacking.items():
            n = int(has[groups == g].sum())
            kind = f"{label} row" if label else "row"
            shown = sides[0] if len(sides) == 1 else f"{len(sides)} training sides ({', '.join(sides)})"
            # a group the fit never sees does not stop it: the bound is just not imposed on it,
            # while the test rows still measure it; one the fit sees without the rate stops it
            # a sweep's settings are all bounds or all penalties
            form = "bound" if criteria[0].bound is not None else "penalty"
            outcome = (f"no model can be fitted under {criteria[0].name}" if g in seen else
                       f"the fit under {criteria[0].name} cannot impose the {form} on it")
            message = (f"group '{g}' has {n} {kind}{'s' if n != 1 else ''} in all and none on {shown} of the "
                       f"split (seed {plan.evaluation.seed}): its {RATE_NAMES[rate]} is undefined there, so "
                       f"{outcome}")
            if n > 1:
                hint = SPLIT_HINT
            elif plan.evaluation.kind == "cv":
                hint = ONE_ROW_CV_HINT  # whichever fold tests the row trains without it
            else:
                hint = ONE_ROW_HOLDOUT_HINT
            errors.append(Diagnostic(message, where, hint.format(filters=filters, row=kind)))
    return errors


def small_group_warnings(doc: SpecDocument, plan: Plan, y: np.ndarray, groups: np.ndarray,
                         filters: str) -> list[Diagnostic]:
    """One warning per rate of the criterion whose bound is finer than one training row of
    some group, pointing at the (smallest) bound; none without a bound."""
    bounds = [c.bound for c in plan.fairness]
    # a bound of 0 asks for exact parity: no row count makes it coarser; a sweep's other
    # bounds are still warned about (the finest of them)
    positive = [b for b in bounds if b is not None and b > 0]
    if not positive:
        return []
    bound = min(positive)
    where = doc.locations.get(("fairness.bound", bounds.index(bound)), doc.spec.fairness.span)
    names, index = np.unique(groups, return_inverse=True)
    counts = {"positive": np.bincount(index, weights=y == 1, minlength=len(names)),
              "negative": np.bincount(index, weights=y == 0, minlength=len(names)),
              "": np.bincount(index, minlength=len(names))}
    share = training_share(plan)
    trained = "all of them train the model" if share == 1 else f"{share:.0%} of them train the model"
    warnings = []
    for rate in plan.fairness[0].rates:
        label = RATE_ROWS[rate]
        # groups with no such row at all are the checker's error, not this warning
        small = sorted(((int(n), str(g)) for g, n in zip(names, counts[label]) if 0 < n * share < 1 / bound))
        if not small:
            continue
        kind = f"{label} rows" if label else "rows"
        what = RATE_NAMES[rate]
        if len(small) == 1:
            n, g = small[0]
            one = kind.removesuffix("s") if n == 1 else kind
            whom, its, counted = f"group '{g}'", "its", f"it has {n} {one} in all"
        else:
            whom, its = f"{len(small)} groups", "such a group's"
            counted = f"{kind} in all: " + ", ".join(f"'{g}' {n}" for n, g in small)
        message = (f"the bound {bound:g} is finer than one training row of {whom}: one row moves {its} {what} "
                   f"by more than {bound:g} ({counted}; {trained}), so the bound holds only if every other "
                   f"group's {what} stays within {bound:g} of {'its' if len(small) == 1 else 'each of theirs'} "
                   "(often: a model that predicts almost every row alike)")
        warnings.append(Diagnostic(message, where, HINT.format(filters=filters), severity="warning"))
    return warnings
