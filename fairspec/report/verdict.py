"""The verdict on a criterion: MET, NOT MET or INCONCLUSIVE, and the words beside it.

A bound is read on the rows the verdict is on (the test rows; out-of-fold rows under
cross-validation; the training rows without either).  Its gap is a sample's, so it comes with
an interval (:mod:`fairspec.metrics.intervals`), and the verdict has three states:

* **MET** when the whole interval lies within the bound;
* **NOT MET** when the whole interval lies above it;
* **INCONCLUSIVE** when the interval crosses the bound: the rows cannot tell on which side the
  gap on new data lies, whichever side the measured gap is on.

Without an interval (files written before fairspec measured them, or no test rows) the
measured gap alone decides, and the explanation says so.  The other badges say why there is
no such verdict: no criterion, a penalty or an audit (nothing to meet), or a gap that cannot be
measured.  Beside a verdict the explanation adds what a reviewer must know to read it: a model
that predicts one class for every row, a fit the clock cut, a kept model unlike the fold models.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from fairspec.metrics.groups import GAP_RATES, MET_TOLERANCE, measurable_part
from fairspec.report.format import UNDEFINED, _group_list, fmt_gap_against, fmt_interval, fmt_number, fmt_rate
from fairspec.report.words import EVALUATION_WORDS, EvaluationWords, evaluation_words

#: the three states of a verdict on a bound, and each one's badge
MET, NOT_MET, INCONCLUSIVE = "met", "not met", "inconclusive"
BADGES = {MET: ("MET", "met"), NOT_MET: ("NOT MET", "not-met"), INCONCLUSIVE: ("INCONCLUSIVE", "inconclusive")}


@dataclass(frozen=True)
class Badge:
    """A verdict: ``css`` is one of ``met``, ``not-met``, ``inconclusive``, ``neutral``."""

    text: str
    css: str
    explanation: str
    #: what the test gap's interval says, in a few words, printed beside the badge where the
    #: explanation has no room (the sweep table): "interval reaches above the bound"
    caveat: str = ""


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
    #: the verdict on the bound (MET, NOT_MET, INCONCLUSIVE), None when there is none to give
    state: str | None = None
    #: where a bound holds ("unseen rows: ..." or "the training rows (`on train`)"); "" without a
    #: bound or in a file written before issue 43
    holds_on: str = ""
    #: the calibration's inner out-of-fold gap at its internal bound, with its interval; "" without one
    inner_gap: str = ""
    #: a spec's listed parameter (``depth [4, 5, 6]``): the value the calibration kept, among which,
    #: and why (:func:`choice_words`); "" without a list
    chosen: str = ""
    #: the listed parameter's name, and one :class:`ChoiceRow` per value, in the spec's order
    chosen_parameter: str = ""
    choices: tuple = ()


@dataclass(frozen=True)
class ChoiceRow:
    """One value of a listed parameter as the calibration measured it on its inner folds."""

    value: str
    internal_bound: str
    inner_accuracy: str
    inner_gap: str
    met: str
    kept: bool


def _short(value) -> str:
    """An internal bound as a person writes it: 0.05, 0.003822, 0 (four significant digits)."""
    return UNDEFINED if not isinstance(value, (int, float)) else f"{float(value):.4g}"


def calibration_words(fairness: dict) -> tuple[str, str]:
    """(where the bound applies, the inner out-of-fold gap) as the report prints them beside the
    test result, from metrics.json's ``fairness.holds_on`` and ``fairness.calibration``
    (:mod:`fairspec.calibration`, docs/calibration.md).

    The inner gap is said as the calibration measured it: at the candidate ε′ the choice stands
    on (``inner_gap_measured``), with that measurement's interval, then the smoothed value at
    the chosen ε′ (``inner_gap``: isotonic in ε′ and interpolated, so about ε by construction).
    Printing the smoothed value beside the measured one's interval had shown a gap of 0.0200
    outside its own interval of 0 to 0.0040 (compas_tree_sweep, ≤ 0.02)."""
    holds_on, calibration = fairness.get("holds_on"), fairness.get("calibration")
    if holds_on == "train":
        return "the training rows only (`on train`; nothing is promised about new rows)", ""
    if holds_on != "unseen" or not isinstance(calibration, dict):
        return "", ""
    bound = fairness.get("bound")
    eps_prime = calibration.get("internal_bound")
    how = (f"{calibration.get('folds')}-fold inner cross-validation" if calibration.get("method") ==
           "inner cross-validation" else "a single inner split")
    where = (f"unseen rows (the model was fitted at the internal bound ε′ = {_short(eps_prime)}, chosen by "
             f"{how} on the training rows so that the expected gap on new rows is at most {fmt_number(bound)}")
    if calibration.get("met") is False:
        where += "; no internal bound met the bound on the inner held-out rows, so the tightest was taken"
    probe = calibration.get("probe")
    if isinstance(probe, dict) and isinstance(probe.get("proposed"), (int, float)):
        # docs/calibration.md, step 5: an ε′ drawn on a line from 0 is measured before use
        where += (f"; the line from ε′ = 0 had proposed {_short(probe['proposed'])}, which was measured with "
                  "half of it before use"
                  + (", and every positive bound measured missed, so the model is fitted at 0" if eps_prime == 0 else ""))
    where += ")"
    interval = calibration.get("inner_gap_interval")
    level = calibration.get("inner_gap_interval_level")
    within = ("" if not interval else f" (interval {fmt_interval(interval, bound)}"
              + (f", {level:.0%}" if isinstance(level, (int, float)) else "") + ")")
    measured, candidate = calibration.get("inner_gap_measured"), calibration.get("inner_gap_candidate")
    smoothed = calibration.get("inner_gap")
    if measured is not None and candidate is not None:
        inner = f"{fmt_gap_against(measured, bound)} at the candidate ε′ = {_short(candidate)}{within}"
        if smoothed is not None:
            inner += f"; smoothed over the candidates, at the chosen ε′: {fmt_gap_against(smoothed, bound)}"
    elif smoothed is not None:  # a file without the measured value: the smoothed one, with no interval
        inner = f"{fmt_gap_against(smoothed, bound)} (smoothed over the candidates)"
    else:
        inner = ""
    return where, inner


def _spec_value(value) -> str:
    """A listed value as the spec writes it (a word bare: ``gini``; numbers as written)."""
    return value if isinstance(value, str) else fmt_number(value)


def choice_words(fairness: dict) -> tuple[str, str, tuple]:
    """(the kept value and why, the parameter's name, one :class:`ChoiceRow` per listed value) of
    a spec that lists values for a parameter (``depth [4, 5, 6]``), from metrics.json's
    ``fairness.calibration``: ``chosen_among`` (the spec's parameter, values and the kept one) and
    ``choices`` (each value's internal bound, inner accuracy and gap, whether it met the bound on
    the inner held-out rows, in the values' order; :mod:`fairspec.calibration`).  Empty without
    a list, or in a record that lacks either."""
    calibration = fairness.get("calibration")
    among = calibration.get("chosen_among") if isinstance(calibration, dict) else None
    measured = calibration.get("choices") if isinstance(calibration, dict) else None
    listed = _listed(among)
    if listed is None or not isinstance(measured, list) or \
            not all(isinstance(m, dict) for m in measured) or len(measured) != len(listed[1]):
        return "", "", ()
    (name, values, kept), bound = listed, fairness.get("bound")
    rows = tuple(ChoiceRow(_spec_value(v), _short(m.get("internal_bound")), fmt_rate(m.get("inner_accuracy")),
                           fmt_gap_against(m.get("inner_gap"), bound), "yes" if m.get("met") else "no", v == kept)
                 for v, m in zip(values, measured))
    why = ("the most accurate on the inner held-out rows of those whose inner gap meets the bound"
           if any(m.get("met") for m in measured) else
           "no value met the bound on the inner held-out rows, so the one with the smallest inner gap")
    return f"{name} {_spec_value(kept)}, among {', '.join(_spec_value(v) for v in values)}: {why}", name, rows


def _listed(among) -> tuple[str, list, object] | None:
    """(parameter, values, the kept one) of metrics.json's ``chosen_among``
    (:func:`fairspec.pipeline.train.chosen_among`): the spec's listed parameter, or the one the
    family searched (``searched``, the tree's multiplier); None when it is neither."""
    single = among.get("searched", among) if isinstance(among, dict) else None
    if not isinstance(single, dict) or not isinstance(single.get("values"), list):
        return None
    return str(single.get("parameter")), single["values"], single.get("chosen")


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



def _interval_reading(interval, bound: float, met: bool) -> str:
    """Where the test gap's interval lies against the bound: "within" or "reaches above" for a
    met bound, "above" or "includes" for one not met."""
    low, high = interval
    if met:
        return "within" if high <= bound + MET_TOLERANCE else "reaches above"
    return "above" if low > bound + MET_TOLERANCE else "includes"


def verdict_state(met: bool, interval, bound: float) -> str:
    """MET, NOT_MET or INCONCLUSIVE for a measured gap that ``met`` the ``bound`` or not, and
    its interval (None: the measured gap decides)."""
    if not interval or any(v is None for v in interval):
        return MET if met else NOT_MET
    return {"within": MET, "above": NOT_MET, "reaches above": INCONCLUSIVE, "includes": INCONCLUSIVE}[
        _interval_reading(interval, bound, met)]


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
    state = None
    if bound is not None:
        where = {"unseen": "on unseen rows", "train": "on the training rows"}.get(fairness.get("holds_on"), "on the training rows")
        setting = f"gap ≤ {fmt_number(bound)} {where}"
        part, measured = measurable_part(test_block, GAP_RATES.get(str(name), ()))
        if has_test and met_test is False and a_test is None and part is not None:
            missing = [r for r in GAP_RATES.get(str(name), ()) if r not in measured]
            state = NOT_MET
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
            interval = fairness.get("interval_test") if level is not None else None
            why = _interval_sentence(interval, bound, level, met_test, words.rows)
            caveat = _interval_caveat(interval, bound, level, met_test)
            state = verdict_state(met_test, interval, bound)
            if not why:
                why = (f" No interval was measured (a file written before fairspec measured them), so the {words.gap} "
                       "alone decides.")
            side = "is within" if met_test else "exceeds"
            badge = Badge(*BADGES[state], f"The {words.gap} {fmt_gap_against(a_test, bound)} {side} the bound "
                                          f"{fmt_number(bound)}.{why}", caveat)
        elif has_test:
            badge = Badge("NOT MEASURED ON TEST", "neutral",
                          f"Fewer than two groups have, in the {words.rows}, the rate this criterion compares, "
                          f"so the {words.gap} cannot be measured; read the training gap and the group table.")
        elif met_train is not None:
            state = MET if met_train else NOT_MET
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
    chosen, chosen_parameter, choices = choice_words(fairness) if bound is not None else ("", "", ())
    return FairnessView(
        holds_on=holds_on, inner_gap=inner_gap, chosen=chosen, chosen_parameter=chosen_parameter, choices=choices,
        criterion=str(name), form=form, setting=setting,
        achieved_train=fmt_gap_against(a_train, bound),
        achieved_test=fmt_gap_against(a_test, bound) if has_test else UNDEFINED,
        met_train=UNDEFINED if met_train is None else ("met" if met_train else "not met"),
        badge=badge,
        interval_test=(fmt_interval(fairness.get("interval_test"), bound) + f" ({level:.0%})"
                       if has_test and level is not None and fairness.get("interval_test") else UNDEFINED),
        test_rows=words.rows, test_gap=words.gap, state=state,
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




def run_fairness(metrics_doc: dict) -> FairnessView:
    """The verdict of one run's ``metrics.json``, with every caveat it needs beside it."""
    fairness = metrics_doc.get("fairness") or {}
    intervals = (metrics_doc.get("test") or {}).get("gap_intervals")
    level = intervals.get("level") if intervals else None
    view = fairness_view(fairness, bool(metrics_doc.get("test")), level, evaluation_words(metrics_doc),
                         metrics_doc.get("test"),
                         constant_prediction(metrics_doc.get("test") or metrics_doc.get("train")))
    return _with_kept_model_caveat(_with_clock_caveat(view, metrics_doc), metrics_doc)
