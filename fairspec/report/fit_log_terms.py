"""Plain-English meanings of the fit-log keys, for the audit report's "Other fit-log entries".

Every estimator leaves a ``fit_log_`` dict after ``fit`` (metrics.json writes it as
``training_log``, model.json as ``training.fit_log``).  Its keys are the code's names
(``relabel_bound``, ``ip_checkpoints``, ``tilts_skipped``, ...), which say nothing to a
compliance reviewer.  :data:`FIT_LOG_TERMS` gives each top-level key that any estimator can
write (:class:`~fairspec.models.rule_set.FairRuleSetClassifier`, the missing-aware trees,
forest and regressor of :mod:`fairspec.models.tree.estimators`,
:class:`~fairspec.models.mip_forest.FairMIPForestClassifier`,
:class:`~fairspec.models.mp_boost.FairMPBoostClassifier` and
:class:`~fairspec.models.baseline.BaselineClassifier`) one sentence saying what the value is and
in which unit.  :data:`FIT_LOG_RECORD_TERMS` does the same for the keys *inside* the nested
records the report shows as table columns or inline: each record of the rule set's ``phases``
list (:class:`~fairspec.models.rule_set.column_generation.PhaseLog`), the rule set's
``refine`` dict, each record of the MIP forest's ``tree_fits`` list, and Fair MP-Boost's
``bound_search``, ``row_probability_summary`` and ``influential_rows`` lists.  Some of those keys
share a name with a top-level key (``seconds``, ``rounds``, ``cut_by_clock``, ``mip_gap``,
``status``) but not its meaning, so a record's keys are looked up in
:data:`FIT_LOG_RECORD_TERMS` only.

A key missing from these dicts (a model file written by another version, a key added to an
estimator before its meaning was written here) is shown with no meaning: the report must not
fail on an unknown key.  ``tests/report/test_fit_log_terms.py`` checks that every key the
estimators write and every key of the committed example reports has an entry.

Convention: each meaning is exactly one sentence, starting with a capital letter and ending
with a period.  The meanings are read off the code that writes the keys, not guessed from
their names; "rows" means training rows (a merged pattern counts as the rows it stands for),
and a gap or an accuracy is a fraction from 0 to 1 (0.05 is 5 percentage points).
"""
from __future__ import annotations

#: top-level fit-log key -> one-sentence meaning
FIT_LOG_TERMS: dict[str, str] = {
    # ---------------------------------------------------------------- every estimator
    "status": (
        "How training ended: the solver status of the optimisation that produced the model (optimal = "
        "proven best within the solver's gap tolerance; work_limit or time_limit = stopped by its work "
        "limit or by the clock, keeping the best solution found so far), heuristic when the model came "
        "from a heuristic (greedy tree growth, a forest's tree-by-tree relabelling, local search, a "
        "rounded LP solution, a rule set's refinement or a fallback) rather than from a solved integer "
        "program (a rule set has the final integer program's status only when it decides every training "
        "row as that program's solution does; ip_status keeps the program's own), or fitted for a "
        "baseline learner; a MIP forest is optimal only when every tree's integer program is proven "
        "optimal, and otherwise takes the first of time_limit, heuristic and work_limit among its trees "
        "(heuristic too when its leaf labels were re-chosen to meet a bound)."),
    "mip_gap": (
        "The relative gap, as a fraction (0.05 = 5 %), between the objective of the best solution the "
        "solver found and the bound it proved on the best possible objective of the problem named in "
        "mip_gap_of (0 = proven optimal; empty when no integer program gave a solution)."),
    "mip_gap_of": (
        "Which optimisation problem the MIP gap is measured on (for a rule set only the final integer "
        "program over the pooled rules, not every possible rule set; for a tree only the choice of leaf "
        "labels, not the greedily grown splits; for a MIP forest each tree's program on its own batch over "
        "the candidate splits, the largest gap over the trees)."),
    "seconds": "Wall-clock seconds the whole fit of the estimator took.",
    "reproducible": (
        "Whether the result does not depend on the machine's speed: true when the wall clock stopped no "
        "training stage (each ended by finishing or by its fixed work limit), so the same spec, data and "
        "seed give the same model again."),
    "cut_by_clock": (
        "The list of training stages the wall clock stopped before they finished or reached their work "
        "limit (rule set: column-generation phase names, local_search, final_ip, refine; tree or forest: "
        "relabel_descent, relabel_mip; MIP forest: tree_<k> for a tree's integer program, relabel_descent, "
        "relabel_mip), empty when the clock stopped none."),
    "clock_cap": (
        "Whether the time limit was allowed to stop a training stage on the wall clock (true) or only the "
        "fixed work limits could stop stages (false), which makes the fit reproducible on any machine but "
        "may take longer than the time limit."),
    "note": (
        "An explanation present only when the fit fell back to a trivial model: the empty rule set (every "
        "row negative) because no non-empty rule set met the bound on the training rows, or, for a tree "
        "or forest, the same class in every leaf a training row reaches because the relabelling integer "
        "program found no labelling meeting the bound (or only a less accurate one) within its limits; for a "
        "MIP forest, that its leaf labels were re-chosen because the trees' majority vote broke the bound on "
        "the training rows."),
    "train_gap": (
        "The fairness gap of the returned model on the training rows, as a fraction from 0 to 1: the "
        "largest difference between two groups in the criterion's rate or rates, for example the "
        "true-positive rate (empty when there is no criterion)."),

    # ---------------------------------------------------------------- rule set (FairCG)
    "criterion": (
        "The fairness criterion given to the model, as text (for example equal_opportunity <= 0.05), "
        "or empty when none was given."),
    "enforced": (
        "Whether the fit enforced the criterion's bound (true) or had no criterion or only audits one "
        "(false)."),
    "bound": (
        "The enforced bound on the fairness gap, as a fraction from 0 to 1 (0.05 = 5 percentage points), "
        "or empty when no bound was enforced."),
    "n_rows": "Number of training rows the rule set or MIP forest was fitted on.",
    "n_patterns": (
        "Number of distinct training patterns the search works on, where rows with the same yes/no "
        "conditions, label and group are merged into one pattern weighted by its row count."),
    "n_literals": (
        "Number of yes/no conditions (such as age <= 25, or a category equal to a value) the features "
        "were turned into, the building blocks of every rule."),
    "warm_start_columns": (
        "Number of rules put in the pool before column generation, read from the paths of decision "
        "trees fitted on the training data (or the single most precise condition when they gave none)."),
    "enumerated": (
        "Whether the rule space was small enough that every possible rule was put in the pool, which "
        "makes the final integer program exact over all rule sets."),
    "setup_seconds": (
        "Seconds from the start of the fit until column generation could start (turning features into "
        "conditions, merging rows, the warm start, building the master LP and loading it into HiGHS), a "
        "step the time limit does not cap."),
    "setup_sample_rows": (
        "Present when the training rows were more than the set-up's sample size: the number of rows, "
        "drawn at random under the seed, from which the set-up learned its conditions' cut points and "
        "its warm-start rules; every later step counts all training rows."),
    "master_lp": (
        "Present, as \"arrays\", when the training rows merged into so many patterns that the master "
        "LP was handed to HiGHS as arrays rather than built as a Pyomo model: the same LP, built "
        "faster; a smaller fit writes no such entry."),
    "after_cg_seconds": (
        "Seconds of each step after column generation, by name: merging the patterns for the local "
        "search and for the final integer program, the final integer program, choosing among the "
        "candidates, the refinement, and re-measuring the chosen rule set on every row (timings only, "
        "which the model file leaves out)."),
    "certifier_skipped": (
        "Present when the time limit was too short to run the certifier: column generation ended when "
        "its beam search found no new rule, without the pricing integer program that would prove no "
        "better rule exists."),
    "tilts_skipped": (
        "Present (as bound slack) when the fairness bound did not bind after the main column-generation "
        "phase, so the tilted phases, which re-weight one group's errors to find rules that help meet "
        "the bound, were skipped."),
    "cg_seconds": (
        "Seconds from the start of the fit to the end of column generation (pricing new rules and "
        "re-solving the master LP), so setup_seconds is included."),
    "cg_cells": (
        "Column generation's work, counted as scored (training pattern, candidate rule) pairs over "
        "all its phases, the unit of its fixed work limit cg_cells_limit."),
    "cg_cells_limit": (
        "Column generation's work limit in scored (pattern, rule) pairs: cg_fraction of the time "
        "limit at a fixed rate, so the same spec does the same work on a fast or a slow machine."),
    "local_search_iterations": (
        "Number of kicks the iterated local search made after its first hill-climbs (each kick drops "
        "and adds random rules, then climbs again)."),
    "local_search_cells": (
        "The local search's amount of work, counted as scored (training pattern, candidate rule set) "
        "pairs, the unit of its fixed work limit."),
    "local_search_seconds": (
        "Seconds from the end of column generation to the end of the local search, choosing its rules "
        "included."),
    "local_search_columns": "Number of pooled rules the local search could choose from.",
    "ip_patterns": (
        "Number of training patterns in the final integer program after merging those its candidate "
        "rules cannot tell apart (same coverage, label and group)."),
    "ip_status": (
        "HiGHS's status for the final integer program, even when it gave no solution (optimal, "
        "work_limit or time_limit, with _no_solution when it had none), or not_run when HiGHS never ran "
        "it: no time was left to run it, or the pool held no rule to choose from (ip_not_run_because "
        "says which)."),
    "ip_objective": (
        "The final integer program's objective at its best solution: training errors in rows (a wrongly "
        "covered negative row counted once per covering rule unless exact_negatives is true), plus the "
        "complexity cost when one is set."),
    "ip_bound": (
        "HiGHS's proven lower bound on the final integer program's objective, in the same units as "
        "ip_objective (equal to it, up to the gap tolerance, when proven optimal)."),
    "ip_seconds": "Seconds HiGHS spent loading and solving the final integer program (0 when it was not run).",
    "ip_columns": "Number of pooled rules the final integer program could choose from.",
    "ip_nodes": (
        "Number of branch-and-bound nodes HiGHS explored on the final integer program (0 = it stopped "
        "at the first, root node)."),
    "ip_checkpoints": (
        "Number of HiGHS checkpoints (calls of its progress callback, the unit of the fixed work limit) "
        "the final integer program used."),
    "ip_start_objective": (
        "The objective, in the same units as ip_objective, of the local search's best rule set handed to "
        "the final integer program as its starting solution (empty when there was none)."),
    "ip_build_seconds": "Seconds spent building the final integer program in Pyomo before HiGHS received it.",
    "ip_not_run_because": (
        "Present only when the final integer program was not run, saying why (the time limit had passed, "
        "too little of it was left to load the program into HiGHS, or the pool held no rule: no feature "
        "splits the training rows, so the empty and the all-positive rule sets were compared directly)."),
    "exact_negatives": (
        "Whether the final integer program counted a wrongly covered negative row once, the true training "
        "error, rather than once per rule covering it (the paper's Hamming loss)."),
    "lp_bound": (
        "The objective of the relaxed (fractional) master LP at the end of the main column-generation "
        "phase, in training errors under the paper's Hamming loss (plus the complexity cost when one is "
        "set), which is a lower bound on the paper's integer problem only when that phase is certified."),
    "columns_generated": (
        "Number of rules column generation added to the pool (found by beam-search pricing or by the "
        "pricing integer program), beyond the warm-start and enumerated rules."),
    "columns_total": (
        "Number of rules in the pool when the final integer program was built (warm-start, enumerated "
        "and generated rules)."),
    "rounds": (
        "Total number of column-generation rounds over all phases, each round one solve of the master LP "
        "followed by a search for new rules."),
    "phases": (
        "One record per column-generation phase (the main master LP phase, then any tilted phases), "
        "with its rounds, new rules, LP objective, time and how it ended."),
    "refine": (
        "The refinement step's record: the chosen rule set's complexity before it, after dropping every "
        "condition and rule that could go without more training errors or fairness excess, and after one "
        "hill-climb spending the freed complexity, and whether the clock stopped it."),
    "selected_from": (
        "Which candidate rule set was returned: final_ip (the integer program's solution), local_search, "
        "lp_rounding (an LP solution rounded at 1/2), simplified or refined (the refinement step's "
        "results), empty (no rule, every row negative) or all_positive (one rule with no condition)."),
    "candidates": (
        "Number of candidate rule sets compared when choosing the returned one (the integer program's, "
        "the local search's, rounded LP solutions, the empty and all-positive sets, the refinements)."),
    "train_accuracy": (
        "Share of training rows the returned model (rule set, MIP forest, boosted model) classifies "
        "correctly, from 0 to 1."),
    "bound_met_on_train": (
        "Whether the returned model's training fairness gap is within the bound (empty when no bound was "
        "enforced)."),
    "n_rules": "Number of rules in the returned rule set.",
    "complexity": (
        "The returned rule set's complexity: each rule counts 1 plus its number of conditions, summed "
        "over the rules."),

    # ---------------------------------------------------------------- trees and forests
    "algorithm": (
        "How the model was grown: greedy tree, greedy regression tree, bagged greedy trees (a forest), "
        "histogram gradient boosting, guided by a privileged model (KBPIB or JPIB) when one was grown, or Fair "
        "MP-Boost (small trees boosted on minipatches of rows and features)."),
    "missing": (
        "The rule the tree or trees used for missing values (mia, trinary, trinary_mia, majority, fractional, "
        "or none when missing values were imputed or dropped before training)."),
    "nodes": (
        "Number of nodes (splits and leaves) of the tree, summed over all trees for a forest or a boosted "
        "model."),
    "leaves": "Number of leaves of the tree.",
    "trees": (
        "Number of trees in the forest, or of a boosted model's trees that score a row (privileged_boost: the "
        "usable model's trees kept after early stopping)."),
    "train_gap_before_relabel": (
        "The fairness gap on the training rows before the leaves were relabelled, as a fraction from 0 "
        "to 1."),
    "train_gap_after_relabel": (
        "The fairness gap on the training rows after the leaves were relabelled, as a fraction from 0 "
        "to 1."),
    "train_accuracy_before_relabel": (
        "Share of training rows the model classified correctly before the leaves were relabelled, from 0 "
        "to 1."),
    "train_accuracy_after_relabel": (
        "Share of training rows the model classifies correctly after the leaves were relabelled, from 0 "
        "to 1."),
    "lagrange_multiplier": (
        "The bound's Lagrange multiplier λ the tree(s) were grown at: the training targets and row weights "
        "of error + λ·(rate gap) (fairspec/models/lagrangian.py): the model's multiplier share (written in "
        "the spec or chosen by the calibration) times the multiplier at which a group's targets flip."),
    "leaves_relabelled": (
        "Number of leaves, over all trees of a forest, whose predicted class the relabelling (or, grown on "
        "the bound's Lagrangian, the Lagrangian's targets) changed from the majority class of their "
        "training rows."),
    "relabel_status": (
        "HiGHS's status for the leaf-relabelling integer program (for a forest, the joint one over all "
        "trees): optimal, infeasible (no labelling meets the bound), work_limit or time_limit, with "
        "_no_solution when it found no labelling."),
    "relabel_mip_gap": (
        "The relative gap, as a fraction (0 = proven optimal), between HiGHS's best labelling "
        "(relabel_objective_of_mip) and relabel_bound in the leaf-relabelling integer program."),
    "relabel_objective": (
        "Number of training rows the returned leaf labels classify correctly, the quantity the "
        "relabelling integer program maximises."),
    "relabel_bound": (
        "HiGHS's proven upper bound on the number of training rows any leaf labelling meeting the "
        "fairness bound could classify correctly (equal to relabel_objective, up to the gap tolerance, "
        "when solved to optimality)."),
    "relabel_labels_from": (
        "Where the returned leaf labels came from: mip (HiGHS's solution), start (the starting labelling "
        "handed to HiGHS, kept because it found nothing better) or fallback (the same class in every "
        "leaf a training row reaches, which meets any bound, because HiGHS found no labelling meeting it "
        "or only a less accurate one)."),
    "relabel_objective_of_mip": (
        "Number of training rows HiGHS's own best labelling classifies correctly (empty when it found "
        "none), which differs from relabel_objective when a fallback was better."),
    "relabel_seconds": (
        "Seconds the leaf relabelling took, building the integer program and HiGHS's solve included."),
    "relabel_leaves": (
        "Number of leaves reached by at least one training row, each a yes/no label choice of the "
        "relabelling integer program (the other leaves keep their own label)."),
    "relabel_vote_patterns": (
        "Number of distinct ways training rows split their vote over several leaves (fractional routing "
        "of missing values, or a forest's trees), each an extra yes/no variable of the integer program "
        "(0 when every row reaches one leaf)."),
    "relabel_constrained_rates": (
        "Number of the criterion's rates (selection rate, true- or false-positive rate, accuracy) whose "
        "gap between groups the relabelling integer program bounds, a rate counting only when at least "
        "two groups have rows it applies to."),
    "relabel_checkpoints": (
        "Number of HiGHS checkpoints (calls of its progress callback, the unit of the fixed work limit) "
        "the leaf-relabelling integer program used."),
    "relabel_start_objective": (
        "Number of training rows the starting labelling handed to the relabelling integer program "
        "classifies correctly."),
    "relabel_start_used": (
        "What became of the starting labelling: handed to HiGHS as its first solution, kept because "
        "HiGHS found nothing better, or not used because it did not meet the bound."),
    "relabel_not_run_because": (
        "Why the leaf-relabelling integer program was not built or solved: the time limit had passed "
        "before it (a forest's tree-by-tree descent had used it up); the labels are then the best "
        "labelling at hand that meets the bound."),
    "relabel_descent": (
        "Which starting point the forest's tree-by-tree relabelling (block coordinate descent) ended best "
        "from: each tree relabelled alone under the bound, or the forest's majority labels."),
    "relabel_descent_sweeps": (
        "Number of full passes over the trees the winning tree-by-tree descent made (it stops after a "
        "pass that changes no label, or after a fixed maximum)."),
    "relabel_descent_blocks": (
        "Number of single-tree relabelling integer programs (one tree's leaves re-chosen with the other "
        "trees fixed) the winning descent solved."),
    "relabel_descent_excess": (
        "How far the forest's training fairness gap exceeds the bound after the descent, summed over the "
        "criterion's rates, as a fraction (0 = the bound is met)."),
    "relabel_descent_meets_bound": (
        "Whether the descent's labels meet the bound on the training rows; when false, the joint "
        "relabelling integer program over all trees was run (its results are the other relabel_ "
        "entries)."),
    "relabel_descent_train_accuracy": (
        "Share of training rows the forest classifies correctly with the descent's labels, from 0 to 1."),
    "relabel_descent_cut_by_clock": "Whether the wall clock stopped the tree-by-tree descent before it finished.",
    "relabel_descent_seconds": (
        "Seconds the whole tree-by-tree descent took (relabelling each tree alone and both descents)."),

    # ---------------------------------------------------------------- MIP forest
    "depth": "Depth of every tree of the MIP forest (each has 2 to the depth leaves).",
    "batch_rows": (
        "Number of training rows in each tree's batch, drawn stratified by label and group (all training rows "
        "when the batch size is at least their number)."),
    "candidate_splits": (
        "Number of distinct candidate splits on the training rows, each a test of one feature (a quantile "
        "threshold or a category) together with where a missing value goes, from which every node of every "
        "tree chooses one."),
    "tree_checkpoints": (
        "The work limit of each tree's integer program, in HiGHS checkpoints (calls of its progress callback)."),
    "trees_optimal": (
        "Number of trees whose integer program on their batch was proven optimal over the candidate splits, by "
        "HiGHS or by the dual bound of the dynamic programme."),
    "trees_improved_by_mip": (
        "Number of trees for which HiGHS found a better tree than the heuristic start it was given."),
    "tree_fits": (
        "One record per tree of the MIP forest: its batch, its heuristic start, the integer program's status, "
        "objective, bound, gap and time."),
    # ---------------------------------------------------------------- Fair MP-Boost
    "alpha_from": (
        "Where alpha came from: parameter (given to the estimator), penalty (the spec's penalty as "
        "alpha = penalty / (1 + penalty)), bound search (the most accurate candidate, over alphas and Lagrange "
        "multipliers, once each met the bound by its threshold) or none (no enforced fairness, alpha 0)."),
    "multiplier": (
        "The Lagrange multiplier of the fairness bound that the model (in bound_search: the candidate) was "
        "fitted with: its boosting rounds learned cost-sensitive targets and weights in which predicting the "
        "favoured group positive costs this much more per unit of the gap; 0 when none was used."),
    "adversary": (
        "How each round predicted the rows' group from its tree's output (logistic regression, or the group "
        "shares of each output value), empty when alpha is 0 and no adversary ran."),
    "patch_rows": "Number of training rows in each minipatch (by default the square root of the training rows).",
    "patch_features": "Number of features in each minipatch (by default the square root of the features).",
    "rounds_run": (
        "Number of boosting rounds run, one tree each, before the round limit or early stopping ended the fit."),
    "rounds_kept": (
        "Number of rounds (trees) the model keeps: up to the latest round whose out-of-patch accuracy is "
        "within one standard error of the best, or every round run when there is no early stopping."),
    "stopped_by": (
        "What ended the rounds: rounds (the limit) or patience (that many rounds without a better "
        "out-of-patch accuracy)."),
    "best_round": "The round whose out-of-patch accuracy was the best.",
    "out_of_patch_accuracy": (
        "Share of training rows the kept rounds classify correctly when each row is scored only by the trees "
        "whose minipatch did not hold it, from 0 to 1."),
    "best_out_of_patch_accuracy": "The best out-of-patch accuracy of any round, from 0 to 1.",
    "out_of_patch_gap": (
        "The fairness gap, from 0 to 1, of the kept rounds' out-of-patch predictions (each row scored only by "
        "trees that did not see it), empty when the rows' groups were not given."),
    "threshold_from": (
        "How the threshold was set: default (0) or bound (the most accurate threshold whose training gap "
        "meets the bound)."),
    "feature_probabilities": (
        "The averaged feature sampling probabilities, one per feature in the order of the model's features, "
        "summing to 1: Fair MP-Boost's feature importance."),
    "averaged_rounds": (
        "Number of rounds the averaged row and feature probabilities are taken over (the kept rounds after "
        "the burn-in, or all kept rounds when there are no more)."),
    "influential_rows": (
        "The training rows drawn most often on average (the highest averaged row probabilities), by position "
        "among the rows the model was fitted on."),
    "row_probability_summary": (
        "For each class (and group, when the groups were given): its training rows, their share of the "
        "averaged row probability, and that share over their share of the rows (above 1: drawn more often "
        "than uniformly)."),
    "row_probability_concentration": (
        "How unevenly the rows were drawn: for the most-drawn 1, 5, 10, 25 and 50 % of the training rows, "
        "their share of the averaged row probability (under uniform draws each share equals its rows)."),
    "bound_search": (
        "One record per alpha and Lagrange multiplier tried under the bound: the threshold that met it on the "
        "training rows, the training accuracy and gap there, and the rounds kept; the most accurate candidate "
        "was returned."),

    # ---------------------------------------------------------------- baseline
    "learner": "The scikit-learn learner of the baseline: tree (a decision tree) or logistic (L2 logistic regression).",

    # ---------------------------------------------------------------- privileged_boost (KbPIB / JPIB)
    "variant": (
        "The privileged-information boosting variant: kbpib (the privileged model is boosted first, then "
        "guides the usable model) or jpib (one tree of each in turn, each model pulled towards the other)."),
    "alpha": (
        "The trade-off weight the fit used: for privileged_boost, the weight of the Kullback-Leibler divergence "
        "from the privileged model's probabilities to the usable model's in the usable model's loss (0 = plain "
        "boosting); for Fair MP-Boost, the weight of fairness, from 0 to 1, in the row and feature sampling "
        "probabilities (0 = plain MP-Boost, 1 = fairness only)."),
    "privileged_columns": (
        "Number of privileged columns given to the fit, read while training only and never at prediction."),
    "privileged_model_used": (
        "Whether a privileged model (the teacher) was grown and guided the usable model; false without "
        "privileged columns or with alpha 0, when the fit is plain boosting."),
    "privileged_model_inputs": (
        "Number of columns the privileged model read: the privileged columns, plus the features when it reads "
        "them too (empty when no privileged model was grown)."),
    "privileged_model_rounds": (
        "Number of trees of the privileged model: for kbpib those kept after its own early stopping, for jpib "
        "those grown alongside the usable model (empty when no privileged model was grown)."),
    "privileged_model_validation_loss": (
        "The kbpib privileged model's mean log loss on the held-out rows at its best number of trees (empty "
        "for jpib, without held-out rows or without a privileged model)."),
    "fit_rows": "Number of training rows the trees were fitted on: the training rows less those held out.",
    "validation_rows": (
        "Number of training rows held out for early stopping, drawn by label, which train no tree (0 = no "
        "early stopping)."),
    "rounds_grown": (
        "Number of trees of the usable model grown before early stopping or the round limit ended the "
        "boosting."),
    "stopped_early": "Whether early stopping ended the boosting before the round limit.",
    "best_validation_loss": (
        "The usable model's loss on the held-out rows at the number of trees kept: the mean log loss, plus "
        "the penalty times the gap of probabilities under a fairness penalty (empty without held-out rows)."),
    "threshold": (
        "The decision threshold: the model predicts the positive class where its probability (privileged_boost; "
        "0.5 unless a fairness bound moved it) or its score (Fair MP-Boost; 0 unless a bound moved it) exceeds "
        "it."),
    "threshold_gap_at_half": (
        "The fairness gap on the training rows at the decision threshold 0.5, before a threshold was chosen "
        "for the bound, as a fraction from 0 to 1."),
    "threshold_chosen_for_bound": (
        "Whether the decision threshold was moved from 0.5 to meet the fairness bound on the training rows "
        "(false when the gap at 0.5 already met it)."),
}

#: key of a nested record (a rule set's ``phases`` records, its ``refine`` dict) -> meaning
FIT_LOG_RECORD_TERMS: dict[str, str] = {
    "search_merge": "Seconds merging every training pattern by the local search's columns (after_cg_seconds).",
    "ip_merge": "Seconds merging the patterns by the final integer program's columns (after_cg_seconds).",
    "final_ip": "Seconds building and solving the final integer program (after_cg_seconds).",
    "select": "Seconds choosing the rule set among the candidates on every training row (after_cg_seconds).",
    "refine": "Seconds simplifying the chosen rule set and the hill-climb after it (after_cg_seconds).",
    "measure": "Seconds re-measuring the kept rule set's accuracy and gap on the training rows (after_cg_seconds).",
    "work_limit": (
        "True when the phase ended because its work limit (cells) was spent, the same on every "
        "machine, rather than by convergence or the clock."),
    "cells": (
        "The work the phase did, counted as scored (training pattern, candidate rule) pairs."),
    # ---------------------------------------------------------------- phases (PhaseLog)
    "name": (
        "The column-generation phase: master (no fairness bound) or fair_master (the paper's fair master "
        "LP), or tilt_<rate>_<group>_<t> for a tilted phase that drops the fairness rows and multiplies "
        "the cost of one group's missed positives (fnr) or wrongly covered negatives (fpr) by 1 + t."),
    "rounds": "Number of rounds in this phase, each one master LP solve followed by a search for new rules.",
    "columns": "Number of new rules this phase added to the pool.",
    "lp_objective": (
        "The master LP's objective at the phase's last solve, in training errors under the paper's "
        "Hamming loss plus the complexity cost when one is set (for a tilted phase, with its re-weighted "
        "costs and no fairness rows)."),
    "converged": (
        "Whether the search for new rules found none that could improve the LP, so the phase ended by "
        "itself rather than by its round limit or the clock."),
    "certified": (
        "Whether the pricing integer program proved, over all training patterns, that no rule could "
        "improve the LP, so lp_objective is the LP optimum over every possible rule."),
    "certifier": (
        "HiGHS's status for the certifying pricing integer program (optimal, work_limit, time_limit, ...), "
        "empty when it did not run."),
    "certifier_seconds": "Seconds the certifying pricing integer program took, empty when it did not run.",
    "seconds": "Wall-clock seconds this phase took.",
    "cut_by_clock": (
        "Whether the wall clock stopped this step (a column-generation phase or its certifier, or in the "
        "refine record the refinement's hill-climb) rather than its work limit or convergence."),
    # ---------------------------------------------------------------- MIP forest: tree_fits
    "tree": "The tree's number in the forest, from 0.",
    "route_classes": (
        "Number of groups of the batch's rows that every candidate split sends the same way, each one routing "
        "variable of the tree's integer program."),
    "candidates": "Number of candidate splits that divide the batch's rows differently, the choices of every node.",
    "dp_solves": (
        "Number of exact dynamic programmes the tree's heuristics solved (one for the 0-1 loss, the others for "
        "Lagrangian weights of the group rates)."),
    "local_search_moves": (
        "Number of split replacements the local search made, each with the best labelling of the leaves, "
        "summed over its starts."),
    "start": (
        "Which heuristic gave the tree the integer program started from: greedy, dynamic programme, lagrangian "
        "dynamic programme, constant 0 or 1, or a local search from one of these."),
    "start_objective": (
        "The objective of that start on the batch: the share of its rows misclassified, plus the penalty times "
        "the fairness gap under a penalty."),
    "dual_bound": (
        "A lower bound on the objective of every tree of this depth over the candidate splits, proved by the "
        "dynamic programme's Lagrangian dual (empty at depth 4, where the programme is a heuristic)."),
    "heuristic_seconds": "Seconds the tree's heuristics took (dynamic programmes, greedy tree, local search).",
    "status": (
        "How the tree's fit ended: optimal (proven by HiGHS, or by a start reaching the dual bound, which then "
        "needs no integer program), work_limit or time_limit (HiGHS stopped and the better of its incumbent and "
        "the start is kept), or heuristic (no tree found meets the bound on the batch)."),
    "proved_by": "What proved the tree optimal without an integer program, present only then.",
    "mip_status": (
        "HiGHS's own status for the tree's integer program, or not_run when the start was already proven "
        "optimal."),
    "mip_checkpoints": "Number of HiGHS checkpoints the tree's integer program used (its work).",
    "mip_nodes": "Number of branch-and-bound nodes HiGHS explored on the tree's integer program.",
    "mip_seconds": "Seconds HiGHS spent loading and solving the tree's integer program.",
    "mip_build_seconds": "Seconds spent building the tree's integer program in Pyomo.",
    "mip_bound": "HiGHS's proven lower bound on the tree's objective, empty when it did not run.",
    "mip_improved": "Whether HiGHS found a better tree than the start it was given.",
    "objective": (
        "The objective of the tree returned on its batch, in the units of start_objective (before any "
        "relabelling of the forest's leaves)."),
    "bound": "The best proven lower bound on that objective: the larger of HiGHS's and the dual bound.",
    "mip_gap": (
        "The relative gap (objective minus bound, divided by objective) of the tree returned, 0 when proven "
        "optimal and empty when nothing bounds it."),
    "meets_bound": "Whether the tree returned meets the fairness bound on its batch (true without a bound).",
    "batch_errors": "Number of the batch's rows the tree returned misclassifies.",
    "batch_gap": "The fairness gap of the tree returned on its batch, as a fraction (empty without a criterion).",
    "tree_seconds": "Wall-clock seconds the tree's whole fit took.",
    "note": "Present only when no tree found meets the bound on the batch, saying which was kept.",
    # ---------------------------------------------------------------- Fair MP-Boost bound_search
    "alpha": "The trade-off alpha of this candidate, from 0 to 1.",
    "multiplier": (
        "The Lagrange multiplier of the bound this candidate's rounds were fitted with (cost-sensitive targets "
        "and weights), 0 for none."),
    "threshold": "The score threshold chosen for this candidate on the training rows.",
    "train_accuracy": "Share of training rows this candidate classifies correctly at its threshold, from 0 to 1.",
    "train_gap": "This candidate's fairness gap on the training rows at its threshold, from 0 to 1.",
    "rounds_kept": "Number of rounds (trees) this candidate keeps.",
    # ---------------------------------------------------------------- Fair MP-Boost row_probability_summary
    "label": "The class: 1 the positive class, 0 the other.",
    "group": "The group of the protected attribute.",
    "rows": (
        "Number of training rows: of this class (and group) in Fair MP-Boost's summary, of the tree's "
        "batch in the MIP forest's tree_fits."),
    "share_of_draws": "These rows' share of the averaged row sampling probability, from 0 to 1.",
    "draws_per_uniform": (
        "That share divided by the rows' share of all training rows (1 = drawn as often as under uniform "
        "sampling)."),
    # ---------------------------------------------------------------- Fair MP-Boost influential_rows
    "row": "Position of the row among the training rows the model was fitted on, from 0.",
    "probability": "The row's averaged sampling probability (the training rows' probabilities sum to 1).",
    # ---------------------------------------------------------------- Fair MP-Boost row_probability_concentration
    "rows_share": "A share of the training rows, the most-drawn first, from 0 to 1.",
    "draws_share": "Those rows' share of the averaged row sampling probability, from 0 to 1.",
    # ---------------------------------------------------------------- refine
    "complexity_before": (
        "Complexity (each rule 1 plus its conditions) of the chosen rule set before refinement."),
    "complexity_simplified": (
        "Complexity of the chosen rule set after dropping every condition and rule that could go without "
        "more training errors or fairness excess."),
    "complexity_climbed": (
        "Complexity of the rule set after one hill-climb spent the freed complexity, present only when "
        "that rule set met the bound."),
}
