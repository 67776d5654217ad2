"""Model families: what each one accepts, so the checker can say no before training.

A family declares its parameters (name, type, default, range), the fairness criteria it
can enforce and in which form (``bound`` = hard ε, ``penalty`` = λ; every family accepts
an audited criterion), the missing-value strategies it understands, and the module under
``fairspec.models`` that trains it.  Nothing here imports a model module: the training
stage resolves ``module`` lazily, so the plan never reaches down the pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from fairspec.registry.criteria import CRITERIA

ALL_CRITERIA = frozenset(CRITERIA)
#: the tree's Lagrange multipliers (shares of the one at which a group's targets flip,
#: :mod:`fairspec.models.lagrangian`) a calibrated bound chooses among: past 1 the favoured
#: group's cell is relabelled, which a weak proxy of the group needs (compas); a strong one
#: overshoots there and wants a quarter (adult); ``benchmarks/README.md``, "Seventh part"
TREE_MULTIPLIERS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)
IMPUTE_OR_DROP = frozenset({"impute", "drop"})
NATIVE_TREE_STRATEGIES = frozenset({"mia", "trinary", "trinary_mia", "majority", "fractional"})


@dataclass(frozen=True)
class Param:
    """One model parameter: ``kind`` is int, float, bool, str, choice or block."""

    name: str
    kind: str
    default: object = None
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    doc: str = ""
    #: for ``kind == "block"``: the parameters allowed inside the nested block
    params: tuple["Param", ...] = ()
    #: ``(parameter, value)``: this one applies only when that parameter of the same block
    #: has that value (the baseline's ``depth`` only with ``learner tree``); given otherwise,
    #: it would be silently ignored, so the checker refuses it
    only_with: tuple[str, object] | None = None
    #: the missing-value strategies under which this parameter acts (empty: every one); under
    #: another it would be silently ignored, so the checker refuses it
    only_with_missing: tuple[str, ...] = ()
    #: acts only under a fairness bound (the tree's Lagrange multiplier); without one it would
    #: be silently ignored, so the checker refuses it and the plan leaves it out
    only_with_bound: bool = False


@dataclass(frozen=True)
class Family:
    name: str
    implemented: bool
    doc: str
    params: tuple[Param, ...] = ()
    #: form ("bound" / "penalty") -> criteria the family can enforce in that form
    enforces: dict = field(default_factory=dict)
    missing: frozenset = IMPUTE_OR_DROP
    default_missing: str = "impute"
    uses_privileged: bool = False
    #: solver-backed families can write their optimisation model with ``compile --emit-model``
    solver_backed: bool = False
    #: the solver block's settings the family reads (``seed`` seeds every family's model)
    solver_settings: frozenset = frozenset({"time_limit", "threads", "mip_gap", "seed", "clock_cap"})
    #: every stage of the fit stops by a work limit, so the clock can be left out
    #: (``solver { clock_cap false }``) and the model is the same on any machine
    work_limited: bool = False
    #: what the family's score (predict_proba's positive column) is, for the report: "probability"
    #: (an estimate of P(y = 1), so its calibration is drawn) or "ranking" (it orders the rows, and
    #: only its ROC curve and AUC mean something)
    score: str = "probability"
    module: str = ""
    #: a module whose ``scorer_from_json(doc)`` reads the family's saved estimator for scoring
    #: without importing scikit-learn (``fairspec predict``); "" when only the estimator scores
    scorer: str = ""
    #: ``(parameter, values)``: a parameter the calibration of a bound on unseen rows chooses
    #: among these values when the spec does not write it (the tree's Lagrange multiplier;
    #: :mod:`fairspec.calibration`, ``choices``); ``()`` for none
    calibration_search: tuple = ()

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def can_enforce(self, criterion: str, form: str) -> bool:
        return form == "audit" or criterion in self.enforces.get(form, frozenset())


FAMILIES: dict[str, Family] = {
    "baseline": Family(
        name="baseline",
        implemented=True,
        doc="impute-then-learn: a scikit-learn decision tree or logistic regression (no fairness enforcement)",
        params=(
            Param("learner", "choice", "tree", choices=("tree", "logistic"), doc="which scikit-learn learner"),
            Param("depth", "int", 5, low=1, high=30, doc="maximum depth of the tree learner",
                  only_with=("learner", "tree")),
            Param("min_samples_leaf", "int", 1, low=1, doc="minimum rows in a leaf (tree learner)",
                  only_with=("learner", "tree")),
            Param("C", "float", 1.0, low=1e-6, doc="inverse L2 regularisation strength (logistic learner)",
                  only_with=("learner", "logistic")),
        ),
        # scikit-learn's learners run to convergence on one core; no time limit, thread count or gap
        solver_settings=frozenset({"seed"}),
        module="fairspec.models.baseline",
    ),
    "tree": Family(
        name="tree",
        implemented=True,
        doc="missing-aware greedy tree (MIA, Trinary, TrinaryMIA, majority, fractional cases)",
        params=(
            Param("depth", "int", 5, low=1, high=30, doc="maximum depth"),
            Param("min_samples_leaf", "int", 1, low=1, doc="minimum rows in a leaf"),
            Param("min_samples_split", "int", 2, low=2, doc="minimum rows to split a node"),
            Param("criterion", "choice", "gini", choices=("gini", "entropy"), doc="impurity used to score splits"),
            Param("middle_growth", "choice", "observed", choices=("observed", "full"),
                  doc="trinary: grow the third child only where training rows miss the split feature "
                      "(observed), or always, as the paper does (full; can be very large)",
                  only_with_missing=("trinary", "trinary_mia")),
            Param("multiplier", "float", 0.0, low=0.0, high=4.0,
                  doc="under a bound, grow on the bound's Lagrangian at this share of the multiplier at which a "
                      "group's training targets flip (0: on the labels as they are); unwritten, a calibrated bound "
                      "on a single tree chooses it among " + ", ".join(f"{v:g}" for v in TREE_MULTIPLIERS),
                  only_with_bound=True),
            Param("forest", "block", None, doc="bag several trees: forest { trees 50 max_features sqrt }", params=(
                Param("trees", "int", 50, low=1, high=10000, doc="number of trees"),
                Param("max_features", "choice", "sqrt", choices=("sqrt", "log2", "all"), doc="features tried per split"),
                Param("bootstrap", "bool", True, doc="draw rows with replacement for each tree"),
            )),
        ),
        enforces={"bound": ALL_CRITERIA, "penalty": ALL_CRITERIA},
        missing=NATIVE_TREE_STRATEGIES | IMPUTE_OR_DROP,
        default_missing="mia",
        work_limited=True,
        module="fairspec.models.missing_tree",
        scorer="fairspec.models.tree.scorer",
        calibration_search=("multiplier", TREE_MULTIPLIERS),
    ),
    "rule_set": Family(
        name="rule_set",
        implemented=True,
        doc="fair Boolean rule set (OR of ANDs) by column generation (FairCG), Pyomo + HiGHS",
        params=(
            Param("max_complexity", "int", 30, low=2, high=1000, doc="sum over rules of (1 + conditions)"),
            Param("max_conditions", "int", 4, low=1, high=20, doc="conditions per rule"),
            Param("thresholds", "int", 10, low=2, high=100, doc="quantile bins per numeric feature (10 = deciles)"),
            Param("complexity_cost", "float", 0.0, low=0.0, high=1.0,
                  doc="objective cost of one unit of complexity, as a share of the training rows (BRCG's lambda)"),
        ),
        enforces={"bound": frozenset({"equal_opportunity", "equalized_odds"})},
        missing=frozenset({"mia"}) | IMPUTE_OR_DROP,
        default_missing="mia",
        solver_backed=True,
        work_limited=True,
        score="ranking",
        module="fairspec.models.rule_set",
    ),
    "mip_forest": Family(
        name="mip_forest",
        implemented=True,
        doc="fair MIP trees/forests with missing values routed inside the MIP (Fair MIP Forest), Pyomo + HiGHS",
        params=(
            Param("trees", "int", 30, low=1, high=1000, doc="trees in the forest, one per batch, majority vote"),
            Param("depth", "int", 3, low=1, high=4, doc="depth of every tree (each branching node picks a split "
                                                        "and where its missing values go)"),
            Param("batch_size", "int", 1000, low=2,
                  doc="training rows per tree, stratified by label and group (at least the training rows: all; "
                      "the paper: 200)"),
            Param("thresholds", "int", 10, low=2, high=100, doc="quantile bins per numeric feature (10 = deciles)"),
        ),
        enforces={"bound": ALL_CRITERIA, "penalty": ALL_CRITERIA},
        missing=frozenset({"mia"}) | IMPUTE_OR_DROP,
        default_missing="mia",
        solver_backed=True,
        work_limited=True,
        module="fairspec.models.mip_forest",
    ),
    "mp_boost": Family(
        name="mp_boost",
        implemented=True,
        doc="fair minipatch boosting (Fair MP-Boost): small missing-aware trees on adaptive minipatches of rows and "
            "features",
        params=(
            Param("rounds", "int", 200, low=1, high=100000, doc="boosting rounds at most, one tree each"),
            Param("depth", "int", 2, low=1, high=30, doc="maximum depth of each round's tree"),
            Param("patch_rows", "int", 0, low=0, doc="rows per minipatch (0: the square root of the training rows)"),
            Param("patch_features", "int", 0, low=0,
                  doc="features per minipatch (0: the square root of the features)"),
            Param("learning_rate", "float", 0.2, low=1e-6, high=1.0,
                  doc="μ: the weight of each tree in the score and of each round in the feature probabilities"),
            Param("patience", "int", 0, low=0,
                  doc="rounds without a better out-of-patch accuracy before stopping early (0: run and keep every "
                      "round)"),
            Param("burn_in", "int", 20, low=0,
                  doc="first rounds left out of the averaged row and feature probabilities"),
            Param("adversary", "choice", "logistic", choices=("logistic", "group_rates"),
                  doc="how the group is predicted from a tree's output: logistic regression (the paper's) or the "
                      "group shares of each output value"),
            Param("criterion", "choice", "gini", choices=("gini", "entropy"), doc="impurity used to score splits"),
            Param("min_samples_leaf", "int", 1, low=1, doc="minimum minipatch rows in a leaf"),
            Param("middle_growth", "choice", "observed", choices=("observed", "full"),
                  doc="trinary: grow the third child only where minipatch rows miss the split feature (observed), "
                      "or always (full)",
                  only_with_missing=("trinary", "trinary_mia")),
        ),
        enforces={"bound": frozenset({"demographic_parity", "equal_opportunity"}),
                  "penalty": frozenset({"demographic_parity", "equal_opportunity"})},
        missing=NATIVE_TREE_STRATEGIES | IMPUTE_OR_DROP,
        default_missing="mia",
        # no solver and no clock: the rounds are fixed by the data, the settings and the seed
        solver_settings=frozenset({"seed"}),
        module="fairspec.models.mp_boost",
    ),
    "privileged_boost": Family(
        name="privileged_boost",
        implemented=True,
        uses_privileged=True,
        doc="gradient boosting guided by a model on privileged information, read in training only "
            "(KbPIB / JPIB, Yan et al. 2023), on histogram trees",
        params=(
            Param("variant", "choice", "kbpib", choices=("kbpib", "jpib"),
                  doc="kbpib: boost the privileged model first, then the usable one towards it; jpib: alternate "
                      "one tree of each, each pulled towards the other"),
            Param("alpha", "float", 1.0, low=0.0, high=100.0,
                  doc="weight of KL(privileged model ‖ usable model) in the usable model's loss (0: plain boosting)"),
            Param("rounds", "int", 200, low=1, high=10000, doc="most trees of the usable model"),
            Param("depth", "int", 4, low=1, high=12, doc="depth of each tree"),
            Param("learning_rate", "float", 0.1, low=0.001, high=1.0, doc="shrinkage of each tree's leaf values"),
            Param("patience", "int", 20, low=1, high=10000,
                  doc="stop after this many trees without a better held-out loss"),
            Param("validation_share", "float", 0.2, low=0.0, high=0.5,
                  doc="share of the training rows held out for early stopping (0: no early stopping)"),
            Param("teacher_reads_features", "bool", True,
                  doc="the privileged model (the teacher) reads the features too, not only the privileged columns"),
            Param("min_samples_leaf", "int", 20, low=1, doc="minimum training rows in a leaf"),
        ),
        enforces={"bound": ALL_CRITERIA, "penalty": ALL_CRITERIA},
        missing=frozenset({"mia"}) | IMPUTE_OR_DROP,
        default_missing="mia",
        # no solver and no clock: the work is fixed by the rounds and the data
        solver_settings=frozenset({"seed"}),
        module="fairspec.models.privileged_boost",
    ),
}


#: the trade-offs α Fair MP-Boost fits under a bound, each with its own threshold (the most
#: accurate is kept); the plan prints them and the estimator defaults to them
MP_BOOST_BOUND_ALPHAS = (0.0, 0.5, 0.9)


def mp_boost_alpha(penalty: float) -> float:
    """Fair MP-Boost's trade-off α for a spec's ``penalty λ``: ``α = λ / (1 + λ)``, so that its row
    and feature probabilities weigh accuracy and fairness ``1 : λ`` (λ = 9 is the paper's
    α = 0.9).  Here, below the stages, because the plan prints it and the model uses it."""
    return float(penalty) / (1.0 + float(penalty))


def implemented_with(capability: str) -> str:
    """The implemented families that have ``capability`` (a flag of :class:`Family`, e.g.
    ``"work_limited"``), by name, comma-separated: what an error that refuses one lists."""
    return ", ".join(n for n, f in FAMILIES.items() if f.implemented and getattr(f, capability))
