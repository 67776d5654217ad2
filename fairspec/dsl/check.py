"""Semantic check of a parsed spec: against the language, the family registry and the data.

:func:`check_spec` collects every problem it finds as a
:class:`~fairspec.errors.Diagnostic` pointing at the spec line, and raises them together
in one :class:`~fairspec.errors.SpecSemanticError`, so a user fixes a spec in one round.
Without a table it does only the checks that need no data.

The messages are module-level format strings, so tests (and the README) can quote them.
"""
from __future__ import annotations

import dataclasses
import difflib
import json
from importlib import metadata

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from fairspec.dsl import ast
from fairspec.dsl.check_report import check_model_card, check_reference
from fairspec.dsl.load import HINT_HOME_UNKNOWN, unknown_home
from fairspec.dsl.syntax_errors import DURATION_UNIT_WORDS, HINT_DURATION_UNIT
from fairspec.data.groups import derived_group_labels
from fairspec.data.prepare import line_of, rows_without_missing, value_texts
from fairspec.data.split import holdout_test_rows
from fairspec.data.table import (BOOL_WORDS, LEADING_ZERO, NUMBERS_AS_READ, UNNAMED, column_kind, feature_kind,
                                 is_true_false, numbers_of, plain_number, value_mask, values_present)
from fairspec.errors import (Diagnostic, Span, SpecSemanticError, cell_text, in_spec_order, written_name,
                             written_number)
from fairspec.registry import families as fam
from fairspec.registry.criteria import CRITERIA

# ---- messages ------------------------------------------------------------------------------
UNKNOWN_COLUMN = "unknown column '{column}' ({role})"
HINT_DID_YOU_MEAN = "did you mean '{name}'?"
#: a column a spec must write in backquotes: the hint is pasted as written (found in review)
HINT_DID_YOU_MEAN_QUOTED = ("did you mean {name}? (in backquotes, as a column name with characters other than "
                            "letters, digits and _ is written)")
HINT_COLUMNS = "the data has the columns: {columns}"
HINT_FEATURE_TYPE = "a feature type follows its column name: did you mean the type '{kind}'?"
FILTER_NOT_NUMBER = "column '{column}' is numeric, but the filter compares it with {value}"
FILTER_ORDER_ON_TEXT = "'{op}' compares numbers, but column '{column}' holds text"
HINT_FILTER_TEXT = "use == or in [...] for text columns"
FILTER_ORDER_ON_TRUE_FALSE = "'{op}' compares numbers, but column '{column}' holds true/false"
HINT_FILTER_TRUE_FALSE = "use == true or == false"
FILTER_ORDER_ON_STRAY_TEXT = ("'{op}' compares numbers, but column '{column}' holds text such as {examples} "
                              "among its numbers (first on line {line} of the data), so it is read as text")
HINT_FILTER_STRAY_TEXT = ("clean the cell(s) (an empty cell is a missing value), or use == or in [...] to compare "
                          "the column as text")
HINT_FILTER_UNQUOTE = "write numbers without quotes"
FILTER_VALUE_ABSENT = "filter value {value} matches no row of column '{column}'"
HINT_FILTER_VALUES = "the column's values include: {values}"
NO_ROWS_LEFT = "no rows are left after the where filters (the file has {rows} rows)"
TARGET_HAS_MISSING = ("target '{column}' has {count} missing value(s) (first on line {line} of the data): "
                      "every row needs a label")
HINT_TARGET_MISSING = "keep only labelled rows with a where filter, or clean the file"
TARGET_NOT_BINARY = "target '{column}' must have exactly two classes, but it has {count}: {values}"
HINT_TARGET_NOT_BINARY = "restrict the rows with a where filter (e.g. where {column} in [...]) or derive a binary column"
#: the filters, not the file, left one class: a further filter cannot help (found in review)
HINT_TARGET_FILTERED_TO_ONE = ("the where filters leave only this class of the file's {count} ({values}): "
                               "loosen them so that rows of both classes are kept")
POSITIVE_ABSENT = "positive class {positive} does not occur in target '{column}'; its values are {values}"
TARGET_AS_FEATURE = ("target '{column}' is listed as a feature: a model must not read the label it predicts "
                     "(that would leak the answer into the input)")
TARGET_AS_PRIVILEGED = ("target '{column}' is listed as privileged information: privileged features add "
                        "information beyond the label, the label itself cannot be one")
TARGET_AS_PROTECTED = "target '{column}' is also the protected attribute: groups must be defined by another column"
PRIVILEGED_IN_FEATURES = ("'{column}' is both a feature and privileged: privileged information is read during "
                          "training only, never at prediction, so it cannot also be a feature")
HINT_PRIVILEGED_IN_FEATURES = "feature '{column}' is listed on line {line}; remove it from one of the two blocks"
DUPLICATE_COLUMN = "column '{column}' is listed twice in {block}"
NO_FEATURES = "the features block is empty: list at least one column, e.g. features { age numeric }"
PROTECTED_HAS_MISSING = ("protected attribute '{column}' has {count} missing value(s) after filtering (first on "
                         "line {line} of the data): every row must belong to a group")
HINT_PROTECTED_MISSING = "drop those rows with a where filter, e.g. where {column} in [{groups}]"
PROTECTED_ONE_GROUP = ("protected attribute '{column}' has a single group ({group!r}) after filtering: "
                       "fairness compares at least two groups")
GROUP_LACKS_LABEL = ("{criterion} compares {rate}s, but {groups} of '{column}' {have} no {label} rows "
                     "({target} {op} {positive}) after filtering: {its} {rate} is undefined and the gap would "
                     "silently leave {it} out")
HINT_GROUP_LACKS_LABEL = ("drop the group with a where filter, e.g. where {column} in [{kept}], or use a criterion "
                          "defined for every group (demographic_parity, accuracy_parity)")
HINT_GROUP_LACKS_LABEL_NOT_IN = ("drop the group with a where filter, e.g. where {column} not in [{lacking}], or use a "
                                 "criterion defined for every group (demographic_parity, accuracy_parity)")
HINT_GROUP_LACKS_LABEL_BINS = ("choose edges in `{name} bins [...]` that leave {label} rows in every bin, or use a "
                               "criterion defined for every group (demographic_parity, accuracy_parity)")
HINT_GROUP_LACKS_LABEL_MERGED = ("leave the group's values out with a where filter, e.g. where {column} not in "
                                 "[{codes}], or use a criterion defined for every group (demographic_parity, "
                                 "accuracy_parity)")
NUMERIC_NOT_NUMERIC = ("feature '{column}' is declared numeric, but the column holds text such as {examples} "
                       "(first on line {line} of the data)")
HINT_NUMERIC_NOT_NUMERIC = "declare it categorical, or leave out the type to let fairspec infer it"
NUMERIC_NOT_FINITE = ("feature '{column}' is numeric, but the column holds {count} infinite value(s), "
                      "the first {value} on line {line} of the data")
#: the reader turns a number past the largest double (1e400) into infinity, so the cell is
#: named as "inf" though the file may spell it otherwise
HINT_NUMERIC_NOT_FINITE = ("a numeric feature needs finite numbers (a cell written inf or Infinity reads as "
                           "infinity, as does a number past about 1.8e308, such as 1e400); leave a cell empty for "
                           "a missing value")
INFERRED_CATEGORICAL = ("feature '{column}' has no type and is taken as categorical, because its column holds text "
                        "such as {examples} (first on line {line} of the data), but {numbers:,} of its {cells:,} "
                        "non-empty cells are numbers")
HINT_INFERRED_CATEGORICAL = "declare it numeric and clean the cell(s), or declare it categorical to silence this"
#: what other tools write for a missing value; fairspec reads only an empty cell as missing
MISSING_MARKERS = frozenset({"na", "n/a", "#n/a", "nan", "null", "none", "?", "-", "--", ".", "missing", "nil"})
HINT_MISSING_MARKER = ("only an empty cell is a missing value here ({cells} is read as text): leave such cells "
                       "empty in the data file{then}")
#: the hint for text that is a number written for people (1,234, 3,5, $120, 12%)
HINT_NUMBER_FOR_PEOPLE = NUMBERS_AS_READ + ": write {plain} for {cell} in the data file{then}"
INFERRED_CODES = ("feature '{column}' has no type and is taken as categorical, its cells kept as text, because some "
                  "are written with a leading zero, such as {examples} (first on line {line} of the data); all "
                  "{cells:,} of its non-empty cells are numbers")
HINT_INFERRED_CODES = ("declare it numeric to read them as numbers (030 as 30), or categorical if they are codes "
                       "(zones, zip codes) to silence this")
UNKNOWN_CRITERION = "unknown fairness criterion '{name}'"
ON_TRAIN_WITHOUT_BOUND = ("`on train` says where a bound holds, and this fairness line has {form}: there is no bound "
                          "for it to place")
HINT_ON_TRAIN = "write a bound before it (`fairness equal_opportunity <= 0.05 on train`), or leave `on train` out"
HINT_CRITERIA = "the criteria are: {criteria}"
HINT_CRITERION_ALIAS = "'{name}' is called '{ours}' here"
#: other names the literature gives the criteria; a spelling hint would point elsewhere
#: ("statistical_parity" is closest in letters to accuracy_parity)
CRITERION_ALIASES = {"statistical_parity": "demographic_parity", "independence": "demographic_parity",
                     "tpr_parity": "equal_opportunity", "true_positive_rate_parity": "equal_opportunity",
                     "false_positive_rate_parity": "fpr_parity", "predictive_equality": "fpr_parity",
                     "equal_odds": "equalized_odds", "equalised_odds": "equalized_odds",
                     "separation": "equalized_odds", "overall_accuracy_equality": "accuracy_parity"}
BOUND_OUT_OF_RANGE = "fairness bound {value} is outside [0, 1]: a gap between two groups' rates lies between 0 and 1"
PENALTY_NEGATIVE = "fairness penalty {value} is negative: a penalty weighs the gap and must be >= 0"
#: the largest λ: the tree's split score is loss/W + λ·(N/W)·gap, with the loss per unit weight at
#: most 1 and a change of the gap costing at least λ/N, so λ ≥ N already puts the gap before the
#: loss; far above that (1e308) λ·N/W overflowed to inf and inf·0 made the scores NaN
MAX_PENALTY = 1e9
PENALTY_TOO_LARGE = ("fairness penalty {value} is larger than {largest}, the largest taken: at {largest} "
                     "the gap already comes before the loss on any data of up to a billion rows, and far "
                     "larger values overflow the split scores")
HINT_PENALTY_TOO_LARGE = "write penalty {largest} to minimise the gap first, or a bound (<= EPS) to cap it"
SWEEP_VALUE_REPEATED = ("fairness {form} {value} is listed twice in the sweep: the two points would train the same "
                        "model twice")
CRITERION_NOT_ENFORCEABLE = "model family '{family}' cannot enforce {criterion} as a {form}; {supported}"
FAMILY_ENFORCES_NOTHING = "'{family}' enforces no criterion (it can only audit one)"
FAMILY_ENFORCES = "'{family}' enforces {what}"
HINT_AUDIT = "write `fairness {criterion}` alone to measure it without enforcing it{others}"
HINT_OTHER_FAMILIES = "; families that enforce it as a {form}: {families}"
UNKNOWN_FAMILY = "unknown model family '{name}'"
HINT_FAMILIES = "the families are: {families}"
FAMILY_NOT_IMPLEMENTED = "model family '{family}' is not implemented yet in fairspec {version}; implemented: {implemented}"
UNKNOWN_PARAM = "unknown parameter '{name}' for {owner}"
HINT_ALLOWED_PARAMS = "{owner} takes: {names}"
HINT_NO_PARAMS = "{owner} takes no parameters"
FLAG_TAKES_NAME = ("'{name}' of {owner} is written without a value and is followed by parameter '{next}', "
                   "which is read as its value")
HINT_FLAG_TAKES_NAME = "write {name} true {next} ..."
DUPLICATE_PARAM = "parameter '{name}' is given twice in {owner}"
PARAM_WRONG_TYPE = "parameter '{name}' of {owner} expects {expected}, got {got}"
PARAM_OUT_OF_RANGE = "parameter '{name}' of {owner} must be {bounds}, got {value}"
PARAM_NOT_APPLICABLE = ("parameter '{name}' of {owner} applies only with {other} {needed}, and this one's {other} "
                        "is {actual}{default}: it would be ignored")
PARAM_NOT_FOR_MISSING = ("parameter '{name}' of {owner} applies only with missing {needed}, and this spec's missing "
                         "is {actual}{default}: it would be ignored")
PARAM_NOT_A_CHOICE = "parameter '{name}' of {owner} must be one of {choices}, got {value}"
PARAM_WITHOUT_BOUND = ("parameter '{name}' of {owner} acts only under a fairness bound, and {why}: it would be "
                       "ignored")
HINT_PARAM_WITHOUT_BOUND = "remove {name}, or give the criterion a bound, e.g. fairness {criterion} <= 0.05"
#: ``depth [4, 5, 6]``: the calibration of a bound on unseen rows chooses among the values
#: (fairspec.calibration, ``choices``); anywhere nothing calibrates, a list would choose nothing
LIST_NOT_HERE = ("a list of values is taken only by a model parameter, for the calibration of a fairness bound "
                 "to choose among; parameter '{name}' of {owner} takes one value")
HINT_LIST_NOT_HERE = "write one value, e.g. {name} {first}"
LIST_WITHOUT_CALIBRATION = ("parameter '{name}' of {owner} lists values for the calibration of a fairness bound to "
                            "choose among, but {why}: nothing calibrates, so nothing chooses")
LIST_WHY = {
    "none": "the spec has no fairness statement",
    "audit": "the fairness statement has no bound (it audits {criterion})",
    "penalty": "the fairness statement is a penalty, not a bound",
    "on_train": "the bound holds `on train`, where it is met on the training rows without calibration",
}
HINT_LIST_WITHOUT_CALIBRATION = {
    "none": "write one value ({name} {first}), or add a bound on unseen rows, e.g. fairness equal_opportunity <= 0.05",
    "audit": "write one value ({name} {first}), or give the criterion a bound: fairness {criterion} <= 0.05",
    "penalty": "write one value ({name} {first}), or replace the penalty by a bound: fairness {criterion} <= 0.05",
    "on_train": "write one value ({name} {first}), or leave out `on train` so the bound is calibrated on held-out rows",
}
LIST_TOO_SHORT = ("parameter '{name}' of {owner} lists a single value: a list gives the calibration values to choose "
                  "among, at least two")
HINT_LIST_TOO_SHORT = "write {name} {first} (no brackets), or list another value"
LIST_VALUE_REPEATED = ("value {value} is listed twice for parameter '{name}' of {owner}: the calibration would fit "
                       "the same setting twice")
HINT_LIST_VALUE_REPEATED = "list each value once"
SECOND_LIST = ("parameters '{first}' and '{name}' of {owner} are both lists: the calibration chooses among the "
               "values of one parameter per spec (every value of a list is one more calibrated fit per fold, and a "
               "product of lists multiplies them)")
HINT_SECOND_LIST = "keep the list on one of them and write one value for the other, e.g. {name} {value}"
UNKNOWN_MISSING = "unknown missing-value strategy '{name}'"
HINT_MISSING = "the strategies are: {strategies}, impute(mean|median|knn k=5)"
MISSING_UNSUPPORTED = "model family '{family}' does not support missing-value strategy '{strategy}'; it supports: {supported}"
HINT_IMPUTE_METHOD = "{method} is a way to impute: write missing impute({written})"
UNKNOWN_IMPUTE_METHOD = "unknown imputation method '{method}': use mean, median or knn"
IMPUTE_K_NOT_KNN = "k (the number of neighbours) applies to knn imputation only, not to {method}"
IMPUTE_K_INVALID = "k (the number of neighbours) must be a whole number between 1 and {largest}, got {k}"
PRIVILEGED_UNUSED = ("model family '{family}' does not use privileged information, so the privileged block "
                     "would be ignored; privileged features are used by: {users}")
HINT_PRIVILEGED_UNUSED = ("write `model {user} {{ ... }}` to train with them (read while training only), or remove "
                          "the privileged block")
HOLDOUT_OUT_OF_RANGE = "holdout fraction must be strictly between 0 and 1, got {value}"
CV_TOO_FEW_FOLDS = "cv needs at least 2 folds, got {value}"
CLOCK_CAP_UNSUPPORTED = ("'clock_cap false' needs a family whose every stage stops by a work limit, and "
                         "'{family}' has none: its time limit can only be a clock")
CLOCK_CAP_NO_SOLVER = ("'clock_cap false' does not apply to model family '{family}', which uses no solver and has "
                       "no time limit: no clock can stop it")
HINT_CLOCK_CAP = "families with work limits: {families}"
HINT_WRITE_WHOLE = "write {number}: a whole number is written without a decimal point or an exponent"
SOLVER_SETTING_UNUSED = ("parameter '{name}' of solver does not apply to model family '{family}', which uses no "
                         "solver: it would be ignored")
HINT_SOLVER_SETTING_UNUSED = "'{family}' reads only {used} from the solver block"
EVALUATE_HOLDOUT_AND_CV = "evaluate takes either holdout or cv, not both"
EVALUATE_NONE_WITH_OTHERS = "evaluate none means no evaluation and cannot be combined with '{name}'"
DROP_LEAVES_NO_ROWS = ("missing drop leaves no rows: every one of the {rows} rows the filters keep has a missing "
                       "value in some feature")
DROP_LEAVES_ONE_CLASS = ("missing drop leaves no {label} rows of target '{column}' ({kept} rows are left): "
                         "there is nothing to learn from")
HINT_DROP = "the features missing most often: {features}; impute them, or leave them out of the features"
DROP_LEAVES_ONE_GROUP = ("missing drop leaves a single group of {columns}: fairness compares at least two")
HOLDOUT_TOO_FEW_ROWS = ("holdout {value} of the {rows:,} rows used leaves {train:,} for training and {test:,} "
                        "for testing: training needs at least 2 rows, testing 1")
CV_MORE_FOLDS_THAN_ROWS = "cv {folds:,} needs at least {folds:,} rows, but {rows:,} are used"
OUTPUT_EMPTY = "output path is empty: leave out the output statement to write to out/<spec name>"
HINT_ROWS_USED = "the rows used are those the where filters keep{dropped}"

#: the largest whole number a parameter without a range of its own takes (a row count, a number of
#: folds or neighbours): the largest 32-bit integer, which every learner's integers hold
MAX_WHOLE_NUMBER = 2**31 - 1

#: the missing-value strategies the language knows (a family accepts a subset)
MISSING_STRATEGIES = ("mia", "trinary", "trinary_mia", "majority", "fractional", "drop")
IMPUTE_METHODS = ("mean", "median", "knn")

#: solver settings (see :class:`fairspec.plan.plan.SolverSettings`); ``duration`` = 120s or seconds
SOLVER_PARAMS = (
    # at most 30 days: the work limits are sized from it and must stay finite numbers
    fam.Param("time_limit", "duration", 60.0, low=0.01, high=30 * 86400.0,
              doc="wall-clock limit of the fit, e.g. 120s (rule_set: also sizes each stage's work)"),
    fam.Param("threads", "int", 1, low=1, high=256, doc="solver threads"),
    fam.Param("mip_gap", "float", 1e-4, low=0.0, high=1.0, doc="relative MIP gap at which to stop"),
    fam.Param("seed", "int", 0, low=0, high=2**31 - 1, doc="solver random seed"),
    fam.Param("clock_cap", "bool", True,
              doc="false: time_limit only sizes each stage's work and the clock stops nothing, so the model "
                  "is the same on any machine (a slower one takes longer); families with work limits only"),
)
SOLVER_PARAM_NAMES = frozenset(p.name for p in SOLVER_PARAMS)
#: evaluation settings (see :class:`fairspec.plan.plan.EvaluationPlan`); holdout/cv ranges are checked apart
EVALUATE_PARAMS = (
    fam.Param("holdout", "float", 0.3, doc="fraction of rows held out for testing"),
    fam.Param("cv", "int", 0, doc="number of cross-validation folds"),
    fam.Param("stratify", "bool", True, doc="stratify the split by target and group"),
    fam.Param("seed", "int", 0, low=0, high=2**31 - 1, doc="split seed"),
    fam.Param("none", "bool", False, doc="no evaluation: metrics on the training rows only"),
)

_TYPE_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "str": "a text value",
    "block": "a block { ... }",
    "duration": "a duration such as 120s (or a number of seconds)",
}


def fairspec_version() -> str:
    """``major.minor`` of the installed fairspec (messages say "fairspec 0.1")."""
    try:
        full = metadata.version("fairspec")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        full = "0.1"
    return ".".join(full.split(".")[:2])


# ---- filters and classes: the data stage's own matching, so check and training agree ---------
def _filter_problem(series: pd.Series, flt: ast.Filter) -> tuple[str, int | None, str | None] | None:
    """Why ``flt`` cannot be applied to ``series``: a message, the index of the bad value
    (``None`` when the operator itself is wrong) and a hint; ``None`` if the filter is fine.

    Rows are then selected by :func:`fairspec.data.table.value_mask`, the function training
    uses, so the checker judges the target and groups on exactly the rows training sees.
    """
    numeric = column_kind(series) == "numeric"
    if flt.op in ("<", "<=", ">", ">="):
        if is_true_false(series):
            # with an empty cell pandas reads the column as objects, not bools, and the order
            # had then been allowed (True as 1) where the same column without it was "text"
            return (FILTER_ORDER_ON_TRUE_FALSE.format(op=flt.op, column=flt.column.value), None,
                    HINT_FILTER_TRUE_FALSE)
        if not numeric:
            present = series.dropna()
            text = _text_cells(present)
            if 0 < text.sum() < len(present):
                # numbers among the text: the column is likely meant numeric and some cells are
                # wrong, so name them; in a column of text alone it is the operator that is wrong
                examples, line = _text_sample(present, text)
                return (FILTER_ORDER_ON_STRAY_TEXT.format(op=flt.op, column=flt.column.value, examples=examples,
                                                          line=line), None, HINT_FILTER_STRAY_TEXT)
            return FILTER_ORDER_ON_TEXT.format(op=flt.op, column=flt.column.value), None, HINT_FILTER_TEXT
        bad = [j for j, v in enumerate(flt.values) if isinstance(v, (str, bool))]
    elif numeric:
        words = BOOL_WORDS if is_true_false(series) else {}  # "true" on a true/false column is True
        bad = [j for j, v in enumerate(flt.values)
               if not _is_number_like(v) and not (isinstance(v, str) and v.strip() in words)]
    else:
        bad = []
    if bad:
        value = flt.values[bad[0]]
        hint = HINT_FILTER_UNQUOTE if isinstance(value, str) and _is_number_like(value) else None
        return FILTER_NOT_NUMBER.format(column=flt.column.value, value=_spec_word(value)), bad[0], hint
    return None


def _unit_after_duration(params, k: int, allowed) -> str | None:
    """The unit letter (s, m, h) that ``params[k]``, a bare word, spells when it follows a
    duration written as a plain number (``time_limit 30 sec``), else None."""
    param, previous = params[k], params[k - 1] if k else None
    unit = DURATION_UNIT_WORDS.get(param.name.lower(), param.name if param.name in ("s", "m", "h") else None)
    declared = next((p for p in allowed if previous is not None and p.name == previous.name), None)
    if (unit is None or param.value is not True or declared is None or declared.kind != "duration"
            or isinstance(previous.value, bool) or not isinstance(previous.value, (int, float))):
        return None
    return unit


def _is_number_like(value) -> bool:
    try:
        float(value)
        return True
    except (TypeError, ValueError):
        return False


def group_checks():
    """:mod:`fairspec.dsl.groups`, the checks of derived and labelled groups, which words its
    messages with this module's helpers (so it is imported when first used, not at the top)."""
    from fairspec.dsl import groups

    return groups


# ---- the checker -----------------------------------------------------------------------------------
class _Checker:
    def __init__(self, doc, table: pd.DataFrame | None):
        self.doc = doc
        self.spec: ast.Spec = doc.spec
        self.table = table
        # a duplicate statement, found while parsing: listed with the rest, in line order
        self.problems: list[Diagnostic] = list(doc.problems)
        self.family: fam.Family | None = None  # known and implemented
        #: how each protected attribute's groups are read, once the data shows they can be
        self.group_columns: list | None = None

    def add(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(message, span, hint))

    def loc(self, key, fallback: Span | None) -> Span | None:
        return self.doc.locations.get(key, fallback)

    # ---- the parts ------------------------------------------------------------------------
    def run(self) -> list[Diagnostic]:
        self.check_model()
        self.check_columns_roles()
        group_checks().check_rules(self)
        self.check_fairness()
        self.check_missing()
        self.check_missing_params()
        self.check_privileged_use()
        self.check_block(self.spec.solver.params if self.spec.solver else (), SOLVER_PARAMS, "solver")
        self.check_clock_cap()
        self.check_solver_use()
        self.check_evaluate()
        if self.spec.output is not None and not str(self.spec.output).strip():
            self.add(OUTPUT_EMPTY, self.loc(("output",), None))
        elif self.spec.output is not None and (home_problem := unknown_home(self.spec.output, "output path")):
            self.add(home_problem, self.loc(("output",), None), HINT_HOME_UNKNOWN)
        # the statements only the report reads (fairspec.dsl.check_report)
        self.problems += check_model_card(self.spec.model_card)
        if self.table is not None:
            self.check_data()
        else:
            self.problems += check_reference(self.spec, None)
        return in_spec_order(self.problems)

    def check_model(self) -> None:
        model = self.spec.model
        name = model.family.value
        family = fam.FAMILIES.get(name)
        if family is None:
            close = difflib.get_close_matches(name, list(fam.FAMILIES), n=1, cutoff=0.5)
            hint = (HINT_DID_YOU_MEAN.format(name=close[0]) if close
                    else HINT_FAMILIES.format(families=", ".join(fam.FAMILIES)))
            self.add(UNKNOWN_FAMILY.format(name=name), model.family.span, hint)
            return
        if not family.implemented:
            implemented = ", ".join(f.name for f in fam.FAMILIES.values() if f.implemented)
            self.add(FAMILY_NOT_IMPLEMENTED.format(family=name, version=fairspec_version(), implemented=implemented),
                     model.family.span, family.doc)
            return
        self.family = family
        self.check_block(model.params, family.params, f"model '{name}'", lists=True)
        self.check_value_lists(model.params, f"model '{name}'")

    def check_value_lists(self, params, owner: str) -> None:
        """A model parameter written as a list (``depth [4, 5, 6]``) is chosen by the calibration of
        a bound on unseen rows: refused where nothing calibrates (no fairness statement, an audit, a
        penalty, ``on train``) and on a second parameter (one list per spec).  Each value's own check
        (type, range) and repeats are :meth:`check_value`'s."""
        lists = [p for p in params if isinstance(p.value, ast.ValueList)]
        if not lists:
            return
        fairness = self.spec.fairness
        why = ("none" if fairness is None else "on_train" if fairness.bounds and fairness.on_train
               else None if fairness.bounds else "penalty" if fairness.penalties else "audit")
        criterion = None if fairness is None else fairness.criterion.value
        for param in lists:
            if why is not None:
                first = _literal(param.value.values[0])
                self.add(LIST_WITHOUT_CALIBRATION.format(name=param.name, owner=owner,
                                                         why=LIST_WHY[why].format(criterion=criterion)),
                         self.value_span(param),
                         HINT_LIST_WITHOUT_CALIBRATION[why].format(name=param.name, first=first, criterion=criterion))
        for param in lists[1:]:
            self.add(SECOND_LIST.format(first=lists[0].name, name=param.name, owner=owner), self.value_span(param),
                     HINT_SECOND_LIST.format(name=param.name, value=_literal(param.value.values[0])))

    def value_span(self, param: ast.Param) -> Span | None:
        """Where ``param``'s value is written (its name's span for a flag)."""
        return self.doc.locations.get(("param.value", param.span), param.span)

    def check_block(self, params, allowed, owner: str, lists: bool = False) -> None:
        given = {p.name: p.value for p in params}
        seen = set()
        skip = self.flags_without_value(params, allowed, owner)
        for k, param in enumerate(params):
            if k in skip:
                continue
            if param.name in seen:
                self.add(DUPLICATE_PARAM.format(name=param.name, owner=owner), param.span)
                continue
            seen.add(param.name)
            spec = next((p for p in allowed if p.name == param.name), None)
            if spec is None:
                names = [p.name for p in allowed]
                unit = _unit_after_duration(params, k, allowed)
                if unit is not None:
                    self.add(UNKNOWN_PARAM.format(name=param.name, owner=owner), param.span,
                             HINT_DURATION_UNIT.format(fixed=f"{params[k - 1].name} "
                                                             f"{_value_text(params[k - 1].value)}{unit}"))
                    continue
                if not names:
                    hint = HINT_NO_PARAMS.format(owner=owner)
                else:
                    close = difflib.get_close_matches(param.name, names, n=1, cutoff=0.6)
                    hint = HINT_ALLOWED_PARAMS.format(owner=owner, names=", ".join(names))
                    if close:
                        hint = HINT_DID_YOU_MEAN.format(name=close[0]) + " " + hint
                self.add(UNKNOWN_PARAM.format(name=param.name, owner=owner), param.span, hint)
                continue
            if spec.only_with is not None:
                other, needed = spec.only_with
                other_spec = next((p for p in allowed if p.name == other), None)
                actual = given.get(other, other_spec.default if other_spec is not None else None)
                # a value the other parameter cannot take has its own error there: read as a
                # learner, a bare `learner` (true) had also made `depth` "not applicable with
                # learner True" (found in review)
                settled = (other not in given or other_spec is None or other_spec.kind != "choice"
                           or actual in other_spec.choices)
                if settled and actual != needed:
                    self.add(PARAM_NOT_APPLICABLE.format(name=param.name, owner=owner, other=other, needed=needed,
                                                         actual=actual,
                                                         default=" (the default)" if other not in given else ""),
                             param.span)
                    continue
            self.check_value(param, spec, owner, lists=lists)

    def flags_without_value(self, params, allowed, owner: str) -> set[int]:
        """``forest { bootstrap max_features log2 }``: a true-or-false parameter written bare
        (as a flag) and followed by another parameter's name takes that name as its value, and
        the next value is left as a parameter of its own.  One error says so, at the flag, and
        the positions of the two misread parameters are returned so no follow-on error is added
        (it gave "expects true or false, got 'max_features'" and "unknown parameter 'log2'")."""
        names = {p.name: p for p in allowed}
        skip = set()
        for k, param in enumerate(params):
            spec = names.get(param.name)
            if (spec is None or spec.kind != "bool" or not isinstance(param.value, str)
                    or param.value not in names or k in skip):
                continue
            if owner == "evaluate" and param.name == "none":
                # `none true stratify` would be refused next: none takes no other parameter
                self.add(EVALUATE_NONE_WITH_OTHERS.format(name=param.value), param.span)
            else:
                self.add(FLAG_TAKES_NAME.format(name=param.name, owner=owner, next=param.value), param.span,
                         HINT_FLAG_TAKES_NAME.format(name=param.name, next=param.value))
            skip.add(k)
            if k + 1 < len(params) and params[k + 1].value is True and params[k + 1].name not in names:
                skip.add(k + 1)  # the next parameter's value, read as a flag
        return skip

    def check_value(self, param: ast.Param, spec: fam.Param, owner: str, lists: bool = False,
                    value_span: Span | None = None, is_flag: bool | None = None) -> None:
        """``param``'s value against its declaration ``spec``: type, range, choices.  ``lists``: a
        list of values may stand here (a model's own parameter); each value is checked as one
        would be, at its own place (``value_span``; ``is_flag`` False: it was written)."""
        value = param.value
        if value_span is None:
            value_span = self.doc.locations.get(("param.value", param.span), param.span)
        if is_flag is None:
            is_flag = ("param.value", param.span) not in self.doc.locations and value is True
        kind = spec.kind
        if isinstance(value, ast.ValueList) and kind != "block":
            self.check_list(param, spec, owner, lists, value_span)
            return
        if kind == "block":
            if isinstance(value, tuple):
                self.check_block(value, spec.params, f"block '{param.name}' of {owner}")
            else:
                self.wrong_type(param, spec, owner, value_span, is_flag,
                                hint=f"write {param.name} {{ }} to use the defaults")
            return
        if isinstance(value, tuple):
            self.wrong_type(param, spec, owner, param.span, False)
            return
        if kind == "choice":
            if not isinstance(value, str) or value not in spec.choices:
                if is_flag:
                    self.wrong_type(param, spec, owner, value_span, True)
                else:
                    self.add(PARAM_NOT_A_CHOICE.format(name=param.name, owner=owner,
                                                       choices=", ".join(map(str, spec.choices)),
                                                       value=_spec_word(value)),
                             value_span, spec.doc or None)
            return
        if kind == "bool":
            if not isinstance(value, bool):
                self.wrong_type(param, spec, owner, value_span, is_flag)
            return
        if kind == "str":
            if not isinstance(value, str):
                self.wrong_type(param, spec, owner, value_span, is_flag)
            return
        if kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif kind == "duration":
            ok = isinstance(value, ast.Duration) or (isinstance(value, (int, float)) and not isinstance(value, bool))
        else:  # pragma: no cover - the registry uses the kinds above
            ok = True
        if not ok:
            # 1e3 and 3.0 are read as decimals; "got the number 1000.0" alone had looked like a
            # contradiction (found in review)
            whole = (kind == "int" and isinstance(value, float) and value.is_integer() and abs(value) < 1e16)
            self.wrong_type(param, spec, owner, value_span, is_flag,
                            hint=HINT_WRITE_WHOLE.format(number=int(value)) if whole else None)
            return
        number = value.seconds if isinstance(value, ast.Duration) else value
        if kind == "int" and spec.high is None:
            # a whole number with no range of its own (a row count, folds) still has to fit the
            # learners' integers: min_samples_leaf 99999999999999999999 passed here and then stopped
            # scikit-learn with an OverflowError (exit 70)
            spec = dataclasses.replace(spec, high=MAX_WHOLE_NUMBER)
        if (spec.low is not None and number < spec.low) or (spec.high is not None and number > spec.high):
            self.add(PARAM_OUT_OF_RANGE.format(name=param.name, owner=owner, bounds=_bounds_text(spec),
                                               value=_value_text(value)), value_span, spec.doc or None)

    def check_list(self, param: ast.Param, spec: fam.Param, owner: str, lists: bool, span: Span | None) -> None:
        """``name [v1, v2, ...]``: refused outside a model's own parameters; else at least two
        values, none twice, each checked as a single value at its own place."""
        values = param.value.values
        spans = param.value.spans or (span,) * len(values)
        first = _literal(values[0])
        if not lists:
            self.add(LIST_NOT_HERE.format(name=param.name, owner=owner), span,
                     HINT_LIST_NOT_HERE.format(name=param.name, first=first))
            return
        if len(values) < 2:
            self.add(LIST_TOO_SHORT.format(name=param.name, owner=owner), span,
                     HINT_LIST_TOO_SHORT.format(name=param.name, first=first))
        for i, (value, at) in enumerate(zip(values, spans)):
            # 4 and 4.0 are one setting; true and 1 are not (a bool is no number here)
            if any(_same_setting(value, v) for v in values[:i]):
                self.add(LIST_VALUE_REPEATED.format(value=ast.written_value(value), name=param.name, owner=owner),
                         at, HINT_LIST_VALUE_REPEATED)
                continue
            self.check_value(dataclasses.replace(param, value=value), spec, owner, value_span=at, is_flag=False)

    def wrong_type(self, param, spec, owner, span, is_flag, hint=None) -> None:
        expected = (f"one of {', '.join(map(str, spec.choices))}" if spec.kind == "choice"
                    else _TYPE_WORDS.get(spec.kind, spec.kind))
        got = "no value" if is_flag else _got_text(param.value)
        self.add(PARAM_WRONG_TYPE.format(name=param.name, owner=owner, expected=expected, got=got),
                 span, hint or spec.doc or None)

    def check_columns_roles(self) -> None:
        spec = self.spec
        target = spec.target.column.value
        if not spec.features:
            self.add(NO_FEATURES, self.loc(("features",), spec.span))
        feature_lines = {}
        for block, items in (("features", spec.features), ("privileged", spec.privileged)):
            seen = set()
            for feature in items:
                name = feature.name.value
                if name in seen:
                    self.add(DUPLICATE_COLUMN.format(column=name, block=block), feature.name.span)
                    continue
                seen.add(name)
                if name == target:
                    message = TARGET_AS_FEATURE if block == "features" else TARGET_AS_PRIVILEGED
                    self.add(message.format(column=name), feature.name.span)
                if block == "features":
                    feature_lines[name] = feature.name.span
                elif name in feature_lines:
                    line = feature_lines[name].line if feature_lines[name] else "?"
                    self.add(PRIVILEGED_IN_FEATURES.format(column=name), feature.name.span,
                             HINT_PRIVILEGED_IN_FEATURES.format(column=name, line=line))
        seen = set()
        for attribute in spec.protected.attributes:
            if attribute.value in seen:
                self.add(DUPLICATE_COLUMN.format(column=attribute.value, block="protected"), attribute.span)
            seen.add(attribute.value)
            if attribute.value == target:
                self.add(TARGET_AS_PROTECTED.format(column=target), attribute.span)

    def check_fairness(self) -> None:
        fairness = self.spec.fairness
        if fairness is None:
            return
        name = fairness.criterion.value
        known = name in CRITERIA
        if not known:
            close = difflib.get_close_matches(name, list(CRITERIA), n=1, cutoff=0.5)
            hint = (HINT_CRITERION_ALIAS.format(name=name, ours=CRITERION_ALIASES[name]) if name in CRITERION_ALIASES
                    else HINT_DID_YOU_MEAN.format(name=close[0]) if close
                    else HINT_CRITERIA.format(criteria=", ".join(CRITERIA)))
            self.add(UNKNOWN_CRITERION.format(name=name), fairness.criterion.span, hint)
        for i, bound in enumerate(fairness.bounds):
            if not 0.0 <= bound <= 1.0:
                self.add(BOUND_OUT_OF_RANGE.format(value=written_number(bound)),
                         self.loc(("fairness.bound", i), fairness.span))
        for i, penalty in enumerate(fairness.penalties):
            if penalty < 0:
                self.add(PENALTY_NEGATIVE.format(value=written_number(penalty)),
                         self.loc(("fairness.penalty", i), fairness.span))
            elif not penalty <= MAX_PENALTY:
                self.add(PENALTY_TOO_LARGE.format(value=written_number(penalty), largest="1e9"),
                         self.loc(("fairness.penalty", i), fairness.span), HINT_PENALTY_TOO_LARGE.format(largest="1e9"))
        for form, values in (("bound", fairness.bounds), ("penalty", fairness.penalties)):
            for i, value in enumerate(values):
                if value in values[:i]:
                    self.add(SWEEP_VALUE_REPEATED.format(form=form, value=written_number(value)),
                             self.loc((f"fairness.{form}", i), fairness.span))
        form = "bound" if fairness.bounds else "penalty" if fairness.penalties else "audit"
        if fairness.on_train and form != "bound":
            self.add(ON_TRAIN_WITHOUT_BOUND.format(form="a penalty" if form == "penalty" else "no bound"),
                     self.loc(("fairness.on_train",), fairness.span), HINT_ON_TRAIN)
        family = self.family
        if not known or family is None or family.can_enforce(name, form):
            return
        what = "; ".join(f"as a {f}: {', '.join(c for c in CRITERIA if c in crits)}"
                         for f, crits in family.enforces.items() if crits)
        supported = (FAMILY_ENFORCES.format(family=family.name, what=what) if what
                     else FAMILY_ENFORCES_NOTHING.format(family=family.name))
        others = [f.name for f in fam.FAMILIES.values() if f.implemented and f.can_enforce(name, form)]
        hint = HINT_AUDIT.format(criterion=name, others=HINT_OTHER_FAMILIES.format(form=form, families=", ".join(others))
                                 if others else "")
        self.add(CRITERION_NOT_ENFORCEABLE.format(family=family.name, criterion=name, form=form, supported=supported),
                 fairness.span, hint)

    def check_missing(self) -> None:
        missing = self.spec.missing
        if missing is None:
            return
        if missing.strategy == "impute":
            method_span = self.loc(("missing.method",), missing.span)
            if missing.method not in IMPUTE_METHODS:
                close = difflib.get_close_matches(str(missing.method), IMPUTE_METHODS, n=1, cutoff=0.5)
                self.add(UNKNOWN_IMPUTE_METHOD.format(method=missing.method), method_span,
                         HINT_DID_YOU_MEAN.format(name=close[0]) if close else None)
            if missing.k is not None:
                k_span = self.loc(("missing.k",), missing.span)
                if missing.method in IMPUTE_METHODS and missing.method != "knn":
                    self.add(IMPUTE_K_NOT_KNN.format(method=missing.method), k_span)
                elif (not isinstance(missing.k, int) or isinstance(missing.k, bool) or missing.k < 1
                      or missing.k > MAX_WHOLE_NUMBER):
                    self.add(IMPUTE_K_INVALID.format(k=missing.k, largest=MAX_WHOLE_NUMBER), k_span)
        elif missing.strategy not in MISSING_STRATEGIES:
            close = difflib.get_close_matches(missing.strategy, MISSING_STRATEGIES, n=1, cutoff=0.5)
            # `missing median` is an imputation written without impute(...): 'mia' had been the hint
            method = missing.strategy.lower()
            hint = (HINT_IMPUTE_METHOD.format(method=method, written="knn k=5" if method == "knn" else method)
                    if method in IMPUTE_METHODS
                    else HINT_DID_YOU_MEAN.format(name=close[0]) if close
                    else HINT_MISSING.format(strategies=", ".join(MISSING_STRATEGIES)))
            self.add(UNKNOWN_MISSING.format(name=missing.strategy), self.loc(("missing.strategy",), missing.span), hint)
            return
        family = self.family
        if family is not None and missing.strategy not in family.missing:
            order = [s for s in (*MISSING_STRATEGIES[:-1], "impute", "drop") if s in family.missing]
            supported = ", ".join("impute(mean|median|knn)" if s == "impute" else s for s in order)
            self.add(MISSING_UNSUPPORTED.format(family=family.name, strategy=missing.strategy, supported=supported),
                     self.loc(("missing.strategy",), missing.span))

    def check_missing_params(self) -> None:
        """A model parameter that acts only under some missing-value strategies (the tree's
        ``middle_growth``, for Trinary's third child), given under another one: it would be
        ignored, as the baseline's ``depth`` would be with ``learner logistic``."""
        model, family = self.spec.model, self.family
        if model is None or family is None:
            return
        missing = self.spec.missing
        strategy = family.default_missing if missing is None else missing.strategy
        written = f"impute({missing.method})" if strategy == "impute" and missing is not None else strategy
        fairness = self.spec.fairness
        for param in model.params:
            declared = family.param(param.name)
            if declared is not None and declared.only_with_bound and (fairness is None or not fairness.bounds):
                why = LIST_WHY["none" if fairness is None else "penalty" if fairness.penalties else "audit"]
                criterion = "equal_opportunity" if fairness is None else fairness.criterion.value
                self.add(PARAM_WITHOUT_BOUND.format(name=param.name, owner=f"model '{family.name}'",
                                                    why=why.format(criterion=criterion)),
                         param.span, HINT_PARAM_WITHOUT_BOUND.format(name=param.name, criterion=criterion))
            if declared is not None and declared.only_with_missing and strategy not in declared.only_with_missing:
                self.add(PARAM_NOT_FOR_MISSING.format(name=param.name, owner=f"model '{family.name}'",
                                                      needed=" or ".join(declared.only_with_missing), actual=written,
                                                      default=" (the default)" if missing is None else ""),
                         param.span)

    def check_privileged_use(self) -> None:
        if not self.spec.privileged or self.family is None or self.family.uses_privileged:
            return
        users = [f for f in fam.FAMILIES.values() if f.uses_privileged]
        named = ", ".join(f.name + ("" if f.implemented else " (not implemented yet)") for f in users)
        usable = [f.name for f in users if f.implemented]
        self.add(PRIVILEGED_UNUSED.format(family=self.family.name, users=named or "none"),
                 self.loc(("privileged",), self.spec.privileged[0].span),
                 HINT_PRIVILEGED_UNUSED.format(user=usable[0]) if usable else None)

    def check_solver_use(self) -> None:
        """A solver setting the family never reads (``time_limit`` for the baseline) is refused, as a
        model parameter its learner ignores is: the plan would list it as if it bounded the fit.
        ``clock_cap false`` has its own check (a family without work limits cannot drop the clock)."""
        if self.spec.solver is None or self.family is None:
            return
        used = self.family.solver_settings
        for param in self.spec.solver.params:
            own_check = param.name == "clock_cap" and param.value is False  # check_clock_cap's
            if param.name in SOLVER_PARAM_NAMES and param.name not in used and not own_check:
                self.add(SOLVER_SETTING_UNUSED.format(name=param.name, family=self.family.name), param.span,
                         HINT_SOLVER_SETTING_UNUSED.format(family=self.family.name,
                                                           used=", ".join(f"'{u}'" for u in sorted(used))))

    def check_clock_cap(self) -> None:
        param = next((p for p in (self.spec.solver.params if self.spec.solver else ()) if p.name == "clock_cap"), None)
        if param is None or param.value is not False or self.family is None or self.family.work_limited:
            return
        message = CLOCK_CAP_NO_SOLVER if "time_limit" not in self.family.solver_settings else CLOCK_CAP_UNSUPPORTED
        self.add(message.format(family=self.family.name),
                 self.doc.locations.get(("param.value", param.span), param.span),
                 HINT_CLOCK_CAP.format(families=fam.implemented_with("work_limited")))

    def check_evaluate(self) -> None:
        evaluate = self.spec.evaluate
        if evaluate is None:
            return
        self.check_block(evaluate.params, EVALUATE_PARAMS, "evaluate")
        by_name = {p.name: p for p in evaluate.params}
        for name, test, message in (
            ("holdout", lambda v: 0 < v < 1, HOLDOUT_OUT_OF_RANGE),
            ("cv", lambda v: v >= 2, CV_TOO_FEW_FOLDS),
        ):
            param = by_name.get(name)
            if param is None or isinstance(param.value, bool) or not isinstance(param.value, (int, float)):
                continue
            if name == "cv" and not isinstance(param.value, int):
                continue  # already reported as the wrong type
            if not test(param.value):
                self.add(message.format(value=param.value),
                         self.doc.locations.get(("param.value", param.span), param.span))
        if "holdout" in by_name and "cv" in by_name:
            self.add(EVALUATE_HOLDOUT_AND_CV, by_name["cv"].span)
        if "none" in by_name:
            for param in evaluate.params:
                if param.name != "none":
                    self.add(EVALUATE_NONE_WITH_OTHERS.format(name=param.name), param.span)

    # ---- against the data -----------------------------------------------------------------------
    def column_exists(self, name: ast.Name, role: str) -> bool:
        columns = list(self.table.columns)
        if name.value in columns:
            return True
        close = difflib.get_close_matches(name.value, columns, n=1, cutoff=0.6)
        if not close:
            close = [c for c in columns if str(c).lower() == name.value.lower()]
        if close:
            written = written_name(str(close[0]))
            hint = (HINT_DID_YOU_MEAN.format(name=close[0]) if written == str(close[0])
                    else HINT_DID_YOU_MEAN_QUOTED.format(name=written))
        elif role.startswith("feature") and difflib.get_close_matches(name.value, ["numeric", "categorical"], n=1):
            kind = difflib.get_close_matches(name.value, ["numeric", "categorical"], n=1)[0]
            hint = HINT_FEATURE_TYPE.format(kind=kind)
        else:
            unnamed = self.table.attrs.get(UNNAMED, {})
            shown = ", ".join(f"(column {unnamed[c]}, no name)" if c in unnamed else str(c) for c in columns[:30]) + (
                ", ..." if len(columns) > 30 else "")
            hint = HINT_COLUMNS.format(columns=shown)
        self.add(UNKNOWN_COLUMN.format(column=name.value, role=role), name.span, hint)
        return False

    def check_data(self) -> None:
        spec, table = self.spec, self.table
        problems_before = len(self.problems)
        keep = np.ones(len(table), dtype=bool)
        for i, flt in enumerate(spec.data.filters):
            if not self.column_exists(flt.column, "in a where filter"):
                continue
            series = table[flt.column.value]
            problem = _filter_problem(series, flt)
            if problem is None:
                keep &= value_mask(series, flt.op, flt.values)
                self.check_filter_values_present(i, flt, series)
                continue
            message, j, hint = problem
            # an ordering on a text column is the operator's fault; else a value's
            self.add(message, flt.span if j is None else self.loc(("filter.value", i, j), flt.span), hint)
        rows = table.loc[keep]
        if len(rows) == 0 and len(spec.data.filters) > 0:
            self.add(NO_ROWS_LEFT.format(rows=len(table)), spec.data.span)

        target = spec.target
        if self.column_exists(target.column, "target") and len(rows):
            self.check_target(rows[target.column.value])
        self.group_columns = group_checks().check_in_data(self, rows)
        if len(rows) and self.group_columns and target.column.value in table.columns:
            self.check_rates_defined(rows, self.group_columns)
        group_checks().check_labels_in_data(self)
        self.problems += check_reference(spec, rows, self.group_columns)
        for block, role in ((spec.features, "feature"), (spec.privileged, "privileged feature")):
            for feature in block:
                if not self.column_exists(feature.name, role):
                    continue
                series = rows[feature.name.value]
                # an untyped feature is numeric when its column is (as read, the filters aside, as
                # the plan types it), and needs finite values too
                if feature.kind == "numeric" or (feature.kind is None
                                                 and feature_kind(table[feature.name.value]) == "numeric"):
                    self.check_numeric(feature, series)

        if len(self.problems) == problems_before:  # else the rows counted are not those training would see
            self.check_rows_used(rows)

    def check_rows_used(self, rows: pd.DataFrame) -> None:
        """What training will see of the rows the filters keep: ``missing drop`` must leave
        rows of both classes and every group the rows its criterion needs, and the evaluation
        must be able to divide them."""
        spec = self.spec
        target = spec.target.column.value
        if not len(rows) or target not in rows.columns:
            return
        drop = spec.missing is not None and spec.missing.strategy == "drop"
        if drop:
            names = [f.name.value for f in spec.features if f.name.value in rows.columns]
            kept = rows[rows_without_missing(rows, names)]
            if len(kept) < len(rows):
                shares = rows[names].isna().mean().sort_values(ascending=False, kind="stable")
                worst = ", ".join(f"{name} ({share:.0%})" for name, share in shares.items() if share > 0)
                hint = HINT_DROP.format(features=worst)
                if not len(kept):
                    self.add(DROP_LEAVES_NO_ROWS.format(rows=len(rows)), spec.missing.span, hint)
                    return
                positive = value_mask(kept[target], "==", [spec.target.positive])
                for label, present in (("positive", positive.any()), ("negative", (~positive).any())):
                    if not present:
                        self.add(DROP_LEAVES_ONE_CLASS.format(label=label, column=target, kept=len(kept)),
                                 spec.missing.span, hint)
                        return
                # the groups' checks again, on the rows the drop leaves (it can empty a group of
                # its positives, or of every row)
                if self.group_columns:
                    before = len(self.problems)
                    if any(len(set(g.group_texts(kept))) < 2 for g in self.group_columns):
                        self.add(DROP_LEAVES_ONE_GROUP.format(columns=" × ".join(g.name for g in self.group_columns)),
                                 spec.missing.span, hint)
                    else:
                        self.check_rates_defined(kept, self.group_columns)
                    if len(self.problems) > before:
                        return
            rows = kept
        n = len(rows)
        by_name = {p.name: p for p in (spec.evaluate.params if spec.evaluate else ())}
        if "none" in by_name or ("holdout" in by_name and "cv" in by_name):
            return
        hint = HINT_ROWS_USED.format(dropped=", less those missing drop removes" if drop else "")
        cv = by_name.get("cv")
        if cv is not None:
            if (isinstance(cv.value, int) and not isinstance(cv.value, bool) and 2 <= cv.value <= MAX_WHOLE_NUMBER
                    and cv.value > n):
                self.add(CV_MORE_FOLDS_THAN_ROWS.format(folds=cv.value, rows=n), self.loc(("param.value", cv.span),
                                                                                           cv.span), hint)
            return
        holdout = by_name.get("holdout")
        value = 0.3 if holdout is None else holdout.value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            return  # reported by check_evaluate
        # the split needs a training side of two rows (room for both classes) and a test row
        test = holdout_test_rows(value, n)
        if n - test < 2 or test < 1:
            where = (self.loc(("param.value", holdout.span), holdout.span) if holdout is not None
                     else spec.evaluate.span if spec.evaluate else spec.data.span)
            self.add(HOLDOUT_TOO_FEW_ROWS.format(value=written_number(value), rows=n, train=n - test, test=test),
                     where, hint)

    def check_filter_values_present(self, i: int, flt: ast.Filter, series: pd.Series) -> None:
        """A listed value that matches no row is most likely a typo (``"Caucasain"``) that would
        silently change which groups are compared."""
        if flt.op not in ("in", "not in", "==", "!="):
            return
        values = None
        for j, (value, present) in enumerate(zip(flt.values, values_present(series, flt.values))):
            if present:
                continue
            if values is None:
                values = _distinct(series)
            # spelling is a text's: 1 is no typo of 71, and the hint lists the values instead
            close = [] if isinstance(value, (int, float)) else difflib.get_close_matches(
                str(value), [str(v) for v in values], n=1, cutoff=0.6)
            hint = (HINT_DID_YOU_MEAN.format(name=close[0]) if close
                    else HINT_FILTER_VALUES.format(values=_values_text(values)))
            self.add(FILTER_VALUE_ABSENT.format(value=_spec_word(value), column=flt.column.value),
                     self.loc(("filter.value", i, j), flt.span), hint)

    def check_target(self, series: pd.Series) -> None:
        target = self.spec.target
        name = target.column.value
        missing = series.isna().to_numpy()
        if missing.any():
            self.add(TARGET_HAS_MISSING.format(column=name, count=int(missing.sum()),
                                               line=line_of(series, int(np.flatnonzero(missing)[0]))),
                     target.column.span, HINT_TARGET_MISSING)
        classes = _distinct(series)
        if len(classes) != 2:
            every = _distinct(self.table[name]) if name in self.table.columns else classes
            hint = (HINT_TARGET_FILTERED_TO_ONE.format(count=len(every), values=_values_text(every))
                    # with three classes or more in the file, loosening the filters would only
                    # bring the 'exactly two classes' error back
                    if len(classes) == 1 and len(every) == 2 and self.spec.data.filters
                    else HINT_TARGET_NOT_BINARY.format(column=written_name(name)))
            self.add(TARGET_NOT_BINARY.format(column=name, count=len(classes), values=_classes_text(series, classes)),
                     target.column.span, hint)
        if not value_mask(series, "==", [target.positive]).any():
            self.add(POSITIVE_ABSENT.format(positive=_spec_word(target.positive), column=name, values=_values_text(classes)),
                     self.loc(("target.positive",), target.span))

    def check_protected(self, attribute: ast.Name, series: pd.Series) -> None:
        groups = _distinct(series)
        missing = series.isna().to_numpy()
        if missing.any():
            self.add(PROTECTED_HAS_MISSING.format(column=attribute.value, count=int(missing.sum()),
                                                  line=line_of(series, int(np.flatnonzero(missing)[0]))),
                     attribute.span,
                     HINT_PROTECTED_MISSING.format(column=written_name(attribute.value), groups=_values_text(groups, _quote)))
        if len(groups) == 1:
            self.add(PROTECTED_ONE_GROUP.format(column=attribute.value, group=_plain(groups[0])), attribute.span)

    def check_rates_defined(self, rows: pd.DataFrame, group_columns: list) -> None:
        """Every group needs rows of the label its criterion conditions on (TPR: positives,
        FPR: negatives); otherwise the gap is taken over the other groups only.  ``group_columns``:
        how each protected attribute's groups are read (:class:`~fairspec.data.groups.GroupColumn`)."""
        fairness, target = self.spec.fairness, self.spec.target
        if fairness is None or fairness.criterion.value not in CRITERIA:
            return
        y = value_mask(rows[target.column.value], "==", [target.positive]).astype(int)
        if rows[[g.column for g in group_columns]].isna().any(axis=None):
            return  # reported by check_protected
        if len(np.unique(y)) < 2:
            return  # no positive (or no negative) row at all: check_target says so, once
        keys = derived_group_labels(rows, group_columns)
        columns = [g.name for g in group_columns]
        groups = list(np.unique(keys))
        if len(groups) < 2:
            return
        for rate, lacking in CRITERIA[fairness.criterion.value]().groups_without_rate(y, keys).items():
            if not lacking:
                continue
            label, op = ("positive", "==") if rate == "tpr" else ("negative", "!=")
            many = len(lacking) > 1
            self.add(GROUP_LACKS_LABEL.format(criterion=fairness.criterion.value, rate=rate.upper(),
                                              groups=("groups " if many else "group ")
                                              + ", ".join(repr(_plain(g)) for g in lacking),
                                              have="have" if many else "has", its="their" if many else "its",
                                              it="them" if many else "it",
                                              column=" & ".join(columns), label=label,
                                              target=target.column.value, op=op, positive=_spec_word(target.positive)),
                     fairness.criterion.span,
                     self.lacking_rate_hint(rows, group_columns, groups, lacking, label)
                     if len(group_columns) == 1 else None)

    def lacking_rate_hint(self, rows: pd.DataFrame, group_columns: list, groups: list, lacking: list,
                          label: str) -> str | None:
        """How to leave out the groups ``lacking`` a rate, one attribute's: a where filter on a
        column taken as it is (its values written as the spec writes them: a numeric column's
        keys are text, and ``where age in ["19", ...]`` then failed the checker), bins for a
        numeric column of many values, other edges or groups for a derived attribute."""
        (group,) = group_columns
        if group.kind == "bins":
            return HINT_GROUP_LACKS_LABEL_BINS.format(label=label, name=written_name(group.name))
        if group.kind == "merged":
            codes = [v for name, values in group.merged if name in lacking for v in values]
            return HINT_GROUP_LACKS_LABEL_MERGED.format(column=written_name(group.column),
                                                        codes=", ".join(_quote(v) for v in codes))
        series = rows[group.column]
        if group_checks().many_values(series):
            hint = group_checks().bins_hint(self.spec, group.column, series)
            if hint is not None:
                return hint + "; or use a criterion defined for every group (demographic_parity, accuracy_parity)"
        value_of = dict(zip(value_texts(series), series))
        kept = [g for g in groups if g not in lacking]
        if not kept:
            return None
        if len(kept) > 6 and len(lacking) < len(kept):
            return HINT_GROUP_LACKS_LABEL_NOT_IN.format(column=written_name(group.column),
                                                        lacking=", ".join(_quote(value_of[g]) for g in lacking))
        return HINT_GROUP_LACKS_LABEL.format(column=written_name(group.column),
                                             kept=", ".join(_quote(value_of[g]) for g in kept))

    def check_numeric(self, feature: ast.Feature, series: pd.Series) -> None:
        """Text in a numeric column, or an infinite value: the families would each fail (or
        not) in their own way on it, so the data is refused here, with the line to fix."""
        if ptypes.is_bool_dtype(series.dtype):
            return
        present = series.dropna()
        numbers = numbers_of(present)
        text = numbers.isna().to_numpy()
        if text.any():
            examples, line = _text_sample(present, text)
            self.add(NUMERIC_NOT_NUMERIC.format(column=feature.name.value, examples=examples, line=line),
                     feature.name.span, _number_hint(present[text]) or HINT_NUMERIC_NOT_NUMERIC)
        infinite = ~text & ~np.isfinite(numbers.to_numpy(dtype=float, na_value=0.0))
        if infinite.any():
            first = int(np.flatnonzero(infinite)[0])
            self.add(NUMERIC_NOT_FINITE.format(column=feature.name.value, count=int(infinite.sum()),
                                               value=str(present.iloc[first]), line=line_of(present, first)),
                     feature.name.span, HINT_NUMERIC_NOT_FINITE)


def _text_cells(present: pd.Series) -> np.ndarray:
    """Which cells of ``present`` (a column without its missing cells) are text, not numbers."""
    return numbers_of(present).isna().to_numpy()


def _text_sample(present: pd.Series, text: np.ndarray) -> tuple[str, int]:
    """Up to three of the text values among ``present`` and the data line of the first."""
    examples = ", ".join(cell_text(v) for v in pd.unique(present[text])[:3])
    return examples, line_of(present, int(np.flatnonzero(text)[0]))


def _number_hint(text_cells: pd.Series, then: str = "") -> str | None:
    """The hint for the first of ``text_cells`` that is a number written for people (1,234,
    $120; :func:`~fairspec.data.table.plain_number`), or, when every text cell is a word other
    tools write for a missing value (``NA``, ``?``), that only an empty cell is one; None when
    neither.  "Declare it categorical" was the hint for a column of numbers with ``NA`` cells,
    which would have made every number a category (found in review)."""
    distinct = pd.unique(text_cells)
    for cell in distinct:
        plain = plain_number(str(cell))
        if plain is not None:
            return HINT_NUMBER_FOR_PEOPLE.format(plain=plain, cell=cell_text(cell), then=then)
    if all(str(cell).strip().casefold() in MISSING_MARKERS for cell in distinct):
        cells = " or ".join(cell_text(cell) for cell in distinct[:3])
        return HINT_MISSING_MARKER.format(cells=cells, then=then)
    return None


def _distinct(series: pd.Series) -> list:
    values = pd.unique(series.dropna())
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


def _spec_word(value) -> str:
    """A value as the spec spells it (numpy scalars too)."""
    return ast.written_value(_plain(value))


def _plain(value):
    """numpy scalars as Python values, so messages print 1 and 'A', not np.int64(1); and a whole
    float as the whole number it is (a column of codes with one empty cell reads as floats, and
    its hints said ``where race in [1.0, 2.0]`` where the file says 1 and 2)."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _quote(value) -> str:
    """A value as a spec literal, so a hint's filter can be pasted into the spec: a spec string
    takes JSON escapes, and a quote or line break written bare would end or break it."""
    value = _plain(value)
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def _classes_text(series: pd.Series, classes: list) -> str:
    """:func:`_values_text` of a target's classes, each with its row count and first line, so
    a stray class (``2`` in 3 rows of a 0/1 column) can be found in the file."""
    cells = series.to_numpy()

    def text(value) -> str:
        rows = np.flatnonzero(cells == value)
        first = line_of(series, int(rows[0]))
        return f"{_plain(value)!r} ({rows.size:,} row{'s' if rows.size != 1 else ''}, first on line {first})"

    return _values_text(classes, text)


def _values_text(values: list, text=lambda v: repr(_plain(v))) -> str:
    """The first six of ``values`` (each shown by ``text``), and how many there are when that is not all."""
    shown = ", ".join(text(v) for v in values[:6])
    return shown + (f", ... ({len(values)} in all)" if len(values) > 6 else "")


def _bounds_text(spec: fam.Param) -> str:
    low, high = (_limit_text(spec.low, spec.kind), _limit_text(spec.high, spec.kind))
    if spec.low is not None and spec.high is not None:
        return f"between {low} and {high}"
    if spec.low is not None:
        return f"at least {low}"
    return f"at most {high}"


def _limit_text(value, kind: str) -> str:
    """A range limit as the user may write it: whole numbers in full (2147483647, not
    2.14748e+09), durations in seconds."""
    if value is None:
        return ""
    text = str(int(value)) if float(value).is_integer() and abs(value) < 1e16 else f"{value:g}"
    return text + "s" if kind == "duration" else text


def _value_text(value) -> str:
    """A value as written, every digit kept: with ``:g`` (six digits) 1.0000001 printed as 1,
    inside the range the message said it was outside (found in review)."""
    if isinstance(value, ast.Duration):
        return f"{written_number(value.seconds)}s"
    return written_number(value) if isinstance(value, float) else str(value)


def _literal(value) -> str:
    """A value as a spec writes it after a parameter's name, for a hint to paste: a word bare
    (``gini``), other text in double quotes, numbers and true/false as they are."""
    if isinstance(value, str):
        return value if value.isidentifier() else json.dumps(value, ensure_ascii=False)
    return ast.written_value(value)


def _same_setting(a, b) -> bool:
    """Whether two values of a list are one setting: equal, and both true/false or neither."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _got_text(value) -> str:
    if isinstance(value, ast.ValueList):
        return "a list [...]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ast.Duration):
        return f"the duration {written_number(value.seconds)}s"
    if isinstance(value, tuple):
        return "a block"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return f"the number {value:.1f}"  # "expects a whole number, got 3" when 3.0 was written
    if isinstance(value, (int, float)):
        return f"the number {written_number(value)}"
    return f"'{value}'"


#: the share of non-empty cells that must be numbers for an untyped feature inferred categorical to
#: be reported.  A stray cell (a typo, "?", "unknown", an NA word) is rarely more than one cell in ten,
#: while text holding a tenth of a column is part of the data the user has seen (a level such as "4+").
#: Too low a share costs one warning, silenced by writing the type; a missed one costs a numeric
#: feature read as hundreds of unordered categories.
MOSTLY_NUMBERS = 0.9


def inference_warnings(doc, table: pd.DataFrame) -> list[Diagnostic]:
    """Warnings for untyped features inferred categorical although nearly all their cells are numbers.

    A column is numeric only when every cell is a number, so one text cell among thousands of
    numbers silently makes the feature categorical.  The column as read decides the type (the
    where filters keep it), so the whole file's cells are counted.  Call it on a spec
    :func:`check_spec` accepted; the warnings do not stop training.
    """
    spec, found = doc.spec, []
    for feature in (*spec.features, *spec.privileged):
        name = feature.name.value
        if feature.kind is not None or name not in table.columns or feature_kind(table[name]) != "categorical":
            continue
        present = table[name].dropna()
        text = _text_cells(present)
        numbers = int((~text).sum())
        padded = present.astype(str).str.match(LEADING_ZERO).to_numpy()
        if not text.any() and padded.any():
            # every cell a number, and one "030" made the column categorical (see read_table):
            # said, as one text cell is, or 53 ages became 53 unordered categories unannounced
            examples, line = _text_sample(present, padded)
            found.append(Diagnostic(INFERRED_CODES.format(column=name, examples=examples, line=line,
                                                          cells=len(present)),
                                    feature.name.span, HINT_INFERRED_CODES, severity="warning"))
            continue
        if not text.any() or numbers < MOSTLY_NUMBERS * len(present):
            continue
        if padded[~text].any():
            continue  # codes with a leading zero are text anyway (see read_table): the text cells are not why
        examples, line = _text_sample(present, text)
        found.append(Diagnostic(INFERRED_CATEGORICAL.format(column=name, examples=examples, line=line,
                                                            numbers=numbers, cells=len(present)),
                                feature.name.span,
                                _number_hint(present[text], then=", and declare it numeric")
                                or HINT_INFERRED_CATEGORICAL, severity="warning"))
    return found


EMPTY_FEATURE = "feature '{column}' is empty in every row of the data: no model can use it"
HINT_EMPTY_FEATURE = "leave it out of `features`, or check the data file's column"


def empty_feature_warnings(doc, table: pd.DataFrame) -> list[Diagnostic]:
    """A warning per feature whose column holds no value at all: it passed without a word,
    and under ``impute`` it was filled with 0 (found in review)."""
    found = []
    for feature in (*doc.spec.features, *doc.spec.privileged):
        name = feature.name.value
        if name in table.columns and len(table) and table[name].isna().all():
            found.append(Diagnostic(EMPTY_FEATURE.format(column=name), feature.name.span, HINT_EMPTY_FEATURE,
                                    severity="warning"))
    return found


def check_spec(doc, table: pd.DataFrame | None = None) -> None:
    """Check ``doc`` against the language, the family registry and (if given) the data.

    ``table`` is the data file as read (empty cells NaN); the spec's ``where`` filters are
    applied here before the target and protected columns are examined.  Every problem is
    collected; if there is any, one :class:`SpecSemanticError` carries them all, in the
    order they appear in the spec.
    """
    problems = _Checker(doc, table).run()
    if problems:
        raise SpecSemanticError(problems, doc.text, doc.filename)
