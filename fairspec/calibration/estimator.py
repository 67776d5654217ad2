"""``CalibratedFairClassifier``: a bound that holds on rows the model never saw.

A family that enforces ``gap <= ε`` meets it on its training rows; on new rows the gap is
larger, because the fit chose among many labellings the one whose training gap is small, and
part of that smallness is the training sample's luck (for a leaf relabelling, the per-leaf
group counts).  This meta-estimator wraps any such family, knowing nothing of its internals
but the parameter that holds its :class:`~fairspec.registry.criteria.Criterion`:

1. **candidates.**  Internal bounds ``ε′ = f·ε`` for the fractions ``f`` of ``candidates``
   (1 first, down to 0).
2. **inner cross-validation.**  The training rows are split into ``folds`` folds (stratified by
   label and group, seeded; :func:`inner_splits`); on each inner training side the family is
   fitted at every ε′ and predicts the fold it did not see.  A family with
   ``fit_bound_path(X, y, bounds, sensitive_features=...)`` (the tree family: one growth, one
   leaf relabelling per ε′) gives all candidates from one fit; any other is fitted once per ε′
   (:func:`inner_fold`).  The folds go through :func:`fairspec.parallel.run_tasks`, each with
   its seed in its arguments.
3. **the pooled inner gap.**  Each candidate's held-out predictions over all folds are pooled
   (every training row predicted once by a model that did not see it) and give one gap
   ``g(ε′)``, one accuracy and the gap's standard error ``s(ε′)`` from the group counts
   (:func:`gap_standard_error`).
4. **a smooth choice.**  One pooled gap per candidate is noisy, and "the largest ε′ whose raw
   gap is under ε" is a noisy argmax over a coarse grid.  The gaps are smoothed by isotonic
   regression in ε′ (a looser bound cannot give a smaller expected gap, so the least-squares
   monotone fit pools adjacent violators and averages their noise), and ε′ is where the
   smoothed curve, interpolated linearly between candidates, reaches ``ε − margin·s``
   (:func:`choose_bound`): not a grid point, so a coarse grid costs no accuracy.  When even
   the tightest candidate misses, it is taken and ``met`` is false.  An ε′ interpolated from
   the candidate 0 is measured before it is used, with half of it, and the choice is made again
   without interpolating from 0 (:func:`_probe`: the expected gap can jump at 0); not on the
   single inner split of "Large data".
5. **refit.**  The family is refitted at the chosen ε′ on every training row.  It trains on
   ``K/(K-1)`` times the rows an inner fit had, and a fit on more rows overfits its bound less,
   so the inner estimate errs on the safe side.

6. **a pool of settings** (``choices``, optional).  How far a fit's gap on new rows exceeds its
   training gap depends on its complexity (a deeper tree has more leaves whose group counts the
   relabelling can exploit), and so does what it can reach at all: the best depth under a bound
   is a property of the data, not of the family.  Each setting of ``choices`` is calibrated on
   the same inner folds (steps 2–4) and the kept one is the most accurate whose inner estimate
   meets ε (:func:`choose_member`); only it is refitted.  Choosing reads nothing the calibration
   does not already measure, and the comparison is paired (``benchmarks/README.md``, "Fairness
   that holds", fifth part, measures it).

The inner gap at ε′ and the interval of the candidate it stands on (the Jeffreys interval of
:func:`fairspec.metrics.intervals.gap_intervals` on that candidate's pooled inner predictions)
are kept in ``calibration_``; the pipeline writes them to model.json and metrics.json.

Large data.  When one held-out fold is large enough that its gap's standard error (the worst
case, every rate at 1/2, :func:`fairspec.registry.criteria.held_out_gap_noise`) is at most
``negligible_se`` · ε, the K folds buy nothing: a single inner split (train on K-1 folds,
measure on one) is used, and its inner fit trains on at most ``max_inner_rows`` of them (a
seeded subsample): the fit then costs little more than the refit (``calibration_
["inner_folds_fitted"]``, ``calibration_["inner_training_rows"]``).

Cost.  With a bound path, the work is ``folds`` inner growths at (K-1)/K of the rows, the refit,
and one relabelling per candidate and fold (the tree family builds each fold's relabelling MIP
once and re-solves it per candidate, :class:`fairspec.models.tree.relabel.RelabellingMIP`, so
a candidate costs HiGHS's solve, not a build); without one, ``folds × len(candidates)`` fits, which
a family that has a ``time_limit`` parameter shares (each inner fit gets ``time_limit /
len(candidates)``, which sizes its work limits), so the inner fits together cost about
``folds`` fits and the whole about ``folds + 1``.  A probe (:func:`_probe`) adds, per fold, one
growth and two relabellings with a bound path, two fits (at that share) without.  With the
single inner split of "Large data" the time limit is the whole calibrated fit's: the inner fits
share half of it and the refit gets the other half, so ``time_limit 60s`` on a million rows
means about 60 s of the family's stages, not two minutes (each fit's set-up comes on top;
``benchmarks/README.md``, "Scale").
On small data the split stays ``folds + 1`` fits: its models are the bundled examples'.  ``benchmarks/README.md`` ("Fairness that
holds") records the measured ratios.

Per-row fit arguments.  ``fit(X, y, sensitive_features, **fit_params)`` forwards
``fit_params`` to the family; an array with one entry per row (privileged features, sample
weights) is cut by fold like ``X``, anything else is passed as it is.
"""
from __future__ import annotations

import math
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.isotonic import IsotonicRegression
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils.validation import check_is_fitted

from fairspec.parallel import run_tasks
from fairspec.registry.criteria import CALIBRATION_FOLDS, Criterion, held_out_gap_noise

#: the internal bounds tried, as fractions of ε (largest first); the choice interpolates between them
DEFAULT_CANDIDATES = (1.0, 0.75, 0.5, 0.25, 0.0)
#: without a bound path every candidate is a fit of its own: fewer of them
DEFAULT_CANDIDATES_WITHOUT_PATH = (1.0, 0.5, 0.0)
#: an ε′ interpolated from the candidate 0 is measured, with these fractions of it, before it is
#: used (:func:`_probe`)
PROBE_FRACTIONS = (1.0, 0.5)


def criterion_param(estimator) -> str:
    """The name of the parameter of ``estimator`` that holds its fairness criterion (the tree
    family calls it ``fairness``, the rule sets ``criterion``): the one whose value is a
    :class:`Criterion`."""
    names = [k for k, v in estimator.get_params(deep=False).items() if isinstance(v, Criterion)]
    if len(names) != 1:
        raise ValueError(f"{type(estimator).__name__} must have exactly one parameter holding a fairspec Criterion "
                         f"to calibrate; found {names or 'none'}")
    return names[0]


def with_bound(estimator, bound: float, time_share: float = 1.0):
    """An unfitted copy of ``estimator`` whose criterion has the bound ``bound`` (and, when
    ``time_share < 1`` and it has one, ``time_limit`` scaled by it)."""
    est = clone(estimator)
    name = criterion_param(est)
    criterion = est.get_params(deep=False)[name]
    est.set_params(**{name: type(criterion)(bound=float(bound))})
    if time_share < 1.0 and "time_limit" in est.get_params(deep=False):
        est.set_params(time_limit=float(est.get_params(deep=False)["time_limit"]) * time_share)
    return est


def rows_of(fit_params: dict, n: int, idx: np.ndarray) -> dict:
    """``fit_params`` with every per-row array (one entry per row of ``X``) cut to ``idx``."""
    out = {}
    for key, value in fit_params.items():
        if value is not None and hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict)) \
                and len(value) == n:
            out[key] = value.iloc[idx] if hasattr(value, "iloc") else np.asarray(value)[idx]
        else:
            out[key] = value
    return out


def _take(a, idx):
    return a.iloc[idx] if hasattr(a, "iloc") else np.asarray(a)[idx]


def inner_fold(estimator, bounds, X_train, y_train, groups_train, fit_params, X_test, time_share):
    """Fit ``estimator`` at each bound of ``bounds`` on one inner training side and predict the
    held-out rows ``X_test``: ``(predictions, one row per bound; training gaps)``.  A family
    with ``fit_bound_path`` fits once for all bounds."""
    if hasattr(estimator, "fit_bound_path"):
        fitted = estimator.fit_bound_path(X_train, y_train, list(bounds), sensitive_features=groups_train,
                                          **fit_params)
    else:
        fitted = [with_bound(estimator, b, time_share).fit(X_train, y_train, sensitive_features=groups_train,
                                                           **fit_params) for b in bounds]
    return np.vstack([np.asarray(est.predict(X_test)) for est in fitted])


def gap_standard_error(criterion: Criterion, y, pred, groups) -> float | None:
    """Standard error of the criterion's gap measured on ``(y, pred, groups)``: for the rate and
    the pair of groups that make the gap, ``sqrt(r₁(1-r₁)/n₁ + r₂(1-r₂)/n₂)`` (two independent
    binomial shares); ``None`` when the gap is not measurable."""
    y, pred, groups = np.asarray(y).astype(int), np.asarray(pred).astype(int), np.asarray(groups)
    worst, se = -1.0, None
    for rate in criterion.rates:
        cond = {"tpr": y == 1, "fpr": y == 0}.get(rate, np.ones(len(y), dtype=bool))
        value = pred == y if rate == "accuracy" else pred == 1
        stats = []
        for g in np.unique(groups):
            rows = cond & (groups == g)
            if rows.any():
                stats.append((float(value[rows].mean()), int(rows.sum())))
        if len(stats) < 2:
            return None
        hi, lo = max(stats), min(stats)
        if hi[0] - lo[0] > worst:
            worst = hi[0] - lo[0]
            se = math.sqrt(hi[0] * (1 - hi[0]) / hi[1] + lo[0] * (1 - lo[0]) / lo[1])
    return se


def inner_splits(y, groups, folds: int, seed: int) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[str]]:
    """``folds`` (train, held-out) index pairs, stratified by label and group, and the groups
    kept on every training side.

    A label-and-group cell with fewer than ``folds`` rows (a group with two positive rows, say)
    cannot be spread over the folds: some inner training side would lack it, and a family that
    enforces a rate over it refuses to fit there.  Its rows are therefore never held out: they
    train every inner fit, and the held-out gap is measured over the other groups (a group
    that small has no measurable held-out rate anyway, which the checker's warning says)."""
    from fairspec.data.split import _strata

    y, groups = np.asarray(y), np.asarray(groups)
    # each row's label-and-group cell as the rank of its text "<y>|<group>" (the splitter reads
    # only which rows share a cell and the cells' order): the texts themselves, built and
    # sorted for every row, had taken 2 of the 3 seconds of this split on a million rows
    strata = _strata(y, groups)
    cells, cell_of, counts = np.unique(strata, return_inverse=True, return_counts=True)
    kept = counts[cell_of] < folds
    rest = np.flatnonzero(~kept)
    always = np.flatnonzero(kept)
    labels = strata[rest]
    if len(rest) >= folds and np.unique(labels, return_counts=True)[1].min() >= folds:
        pairs = StratifiedKFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(rest)), labels)
    else:
        pairs = KFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(rest)))
    splits = [(np.sort(np.concatenate([rest[tr], always])), rest[te]) for tr, te in pairs]
    return splits, sorted({str(g) for g in groups[always]})


def smooth_increasing(x, values) -> np.ndarray:
    """The least-squares non-decreasing fit of ``values`` over ``x`` (isotonic regression)."""
    return IsotonicRegression(increasing=True).fit_transform(np.asarray(x, float), np.asarray(values, float))


def choose_bound(bounds, smooth_gap, ses, eps: float, margin: float,
                 from_zero: bool = True) -> tuple[float, int, bool]:
    """``(ε′, index of the candidate it stands on, whether the inner estimate meets ε)``.

    ``bounds`` are the candidates, ``smooth_gap`` their smoothed pooled inner gaps (NaN where not
    measurable), ``ses`` the gaps' standard errors.  A candidate is feasible when its smoothed gap
    plus ``margin`` standard errors is within ε.  ε′ is the largest feasible candidate, moved
    towards the next looser (infeasible) one by linear interpolation of the smoothed gap to where
    it reaches the limit: between two candidates the expected gap is taken as linear in ε′, which
    the isotonic fit makes non-decreasing.  With ``from_zero`` false a feasible candidate at 0 is
    not moved (the expected gap may jump at 0: :func:`_probe`).  With no feasible candidate,
    the tightest is taken."""
    bounds = np.asarray(bounds, float)
    order = np.argsort(bounds)
    b, g, s = bounds[order], np.asarray(smooth_gap, float)[order], np.asarray(ses, float)[order]
    limit = eps - margin * s
    ok = ~np.isnan(g) & (g <= limit + 1e-12)
    if not ok.any():
        return float(b[0]), int(order[0]), False
    i = int(np.flatnonzero(ok)[-1])
    chosen = float(b[i])
    looser = [j for j in range(i + 1, len(b)) if not np.isnan(g[j])]
    if looser and (from_zero or b[i] > 0):
        j = looser[0]
        # excess over the limit at both ends; the limit's own SE term is interpolated too
        lo, hi = g[i] - limit[i], g[j] - limit[j]
        if hi > lo:
            chosen = float(b[i] + (b[j] - b[i]) * (-lo) / (hi - lo))
            chosen = min(max(chosen, float(b[i])), float(b[j]))
    return round(chosen, 12), int(order[i]), True


def _measure(criterion: Criterion, bounds, pooled, classes, y_held, g_held, eps: float, margin: float,
             from_zero: bool = True) -> dict:
    """One family setting's pooled inner predictions (one row per candidate bound) measured and
    its ε′ chosen (:func:`choose_bound`): the candidates' gaps, standard errors and accuracies,
    their smoothed curves, and the choice with its smoothed inner gap and accuracy."""
    pooled01 = (pooled == classes[-1]).astype(int)
    gaps, ses, accs = [], [], []
    for row in pooled01:
        gap = criterion.gap(y_held, row, g_held)
        gaps.append(np.nan if gap is None else gap)
        se = gap_standard_error(criterion, y_held, row, g_held)
        ses.append(0.0 if se is None else se)
        accs.append(float((row == y_held).mean()))
    gaps, ses, accs = np.array(gaps), np.array(ses), np.array(accs)
    # a gap that cannot be measured (one group in the held-out rows) is no evidence either way
    measured = ~np.isnan(gaps)
    order = np.argsort(bounds)  # increasing ε′ for the fits
    eb = np.asarray(bounds)[order]
    smooth_gap = np.full(len(bounds), np.nan)
    if measured.any():
        m = measured[order]
        smooth_gap[order[m]] = smooth_increasing(eb[m], gaps[order][m])
    smooth_acc = np.empty(len(bounds))
    smooth_acc[order] = smooth_increasing(eb, accs[order])
    chosen, best, met = choose_bound(bounds, smooth_gap, ses, eps, margin, from_zero)
    known = ~np.isnan(smooth_gap[order])
    return {
        "chosen": chosen, "best": best, "met": met, "pooled01": pooled01,
        "bounds": [float(b) for b in bounds],
        "inner_gap": float(np.interp(chosen, eb[known], smooth_gap[order][known])) if measured.any() else None,
        "inner_accuracy": float(np.interp(chosen, eb, smooth_acc[order])),
        "inner_gap_measured": None if np.isnan(gaps[best]) else float(gaps[best]),
        "inner_gap_se": float(ses[best]),
        "candidates": [{"bound": b, "inner_gap": None if np.isnan(g) else float(g), "inner_gap_se": float(s),
                        "inner_accuracy": float(a),
                        "inner_gap_smoothed": None if np.isnan(sg) else float(sg),
                        "inner_accuracy_smoothed": float(sa)}
                       for b, g, s, a, sg, sa in zip(bounds, gaps, ses, accs, smooth_gap, smooth_acc)],
    }


def _probe(criterion: Criterion, measured: dict, pooled, probe_pooled, probe_bounds, classes, y_held, g_held,
           eps: float, margin: float) -> dict:
    """``measured`` (:func:`_measure` of the pooled inner predictions ``pooled``) chosen again
    once its ε′, interpolated from the candidate 0, has been measured: ``probe_pooled`` holds the
    pooled inner predictions at ``probe_bounds`` (the :data:`PROBE_FRACTIONS` of that ε′), which
    join the candidates; the choice is then made without interpolating from 0, so it stands on
    measured positive bounds or is 0.

    Why.  At ε′ = 0 a relabelling must equalise the training rates exactly, which leaves little
    but a near-constant labelling; at any positive ε′, however small, it can choose among many
    labellings the one the training rows' group counts favour.  The expected gap on new rows
    then need not shrink towards 0 with ε′ as a line: a compas forest's inner gap was 0 at ε′ = 0
    and 0.07–0.09 at ε′ of 0.005–0.011, where the line from 0 read 0.05 (benchmarks/README.md,
    "Fairness that holds", sixth part).  A measurement at the point the line proposes tells.
    Half that point is measured too, so that on a line, where the proposed point's expected gap
    is the limit itself and its measurement misses it half the time, the choice still finds a
    measured feasible bound near it."""
    bounds = measured["bounds"] + [float(b) for b in probe_bounds]
    order = np.argsort(bounds, kind="stable")[::-1]  # the candidates' order: largest first
    pooled = np.vstack([pooled, probe_pooled])[order]
    again = _measure(criterion, [bounds[i] for i in order], pooled, classes, y_held, g_held, eps, margin,
                     from_zero=False)
    again["probe"] = {"proposed": measured["chosen"], "bounds": [float(b) for b in probe_bounds]}
    return again


def choose_member(measured: list[dict]) -> int:
    """Which of several family settings, each measured by :func:`_measure` on the same inner
    folds, the calibration keeps: of those whose inner estimate meets ε, the one with the highest
    smoothed inner accuracy at its ε′ (the first listed on a tie); when none meets ε, the one
    with the smallest smoothed inner gap at its ε′.  The inner folds are shared, so the
    comparison is paired: the fold-to-fold noise that every member sees does not decide it."""
    met = [i for i, m in enumerate(measured) if m["met"]]
    if met:
        return max(met, key=lambda i: (measured[i]["inner_accuracy"], -i))
    gaps = [np.inf if m["inner_gap"] is None else m["inner_gap"] for m in measured]
    return int(np.argmin(gaps))


class CalibratedFairClassifier(ClassifierMixin, BaseEstimator):
    """Wrap a family estimator whose criterion has a bound ε so that ε holds on unseen rows.

    Parameters
    ----------
    estimator : an unfitted fairspec family estimator with one parameter holding a
        :class:`~fairspec.registry.criteria.Criterion` (with a bound, or the estimator is fitted as
        it is)
    folds : inner cross-validation folds (at least 2)
    candidates : internal bounds as fractions of ε, or None for :data:`DEFAULT_CANDIDATES`
        (:data:`DEFAULT_CANDIDATES_WITHOUT_PATH` for a family without ``fit_bound_path``)
    margin : standard errors of the pooled inner gap kept between the smoothed gap and ε
        (0 aims the expected gap on unseen rows at ε)
    negligible_se : one inner split instead of ``folds`` when one held-out fold's worst-case
        gap standard error is at most this share of ε (module docstring, "Large data"); 0 never
    max_inner_rows : with that single split, its inner fit trains on at most this many rows (a
        seeded subsample); None or 0 for all of them
    n_jobs : inner folds run side by side (:func:`fairspec.parallel.run_tasks`)
    random_state : seed of the inner folds
    choices : None, or family settings to choose among (a list of parameter dicts, say
        ``[{"max_depth": 4}, {"max_depth": 5}, {"max_depth": 6}]``): each is calibrated on the same
        inner folds and the one kept is the most accurate whose inner estimate meets ε
        (:func:`choose_member`); only it is refitted.  Its parameters are in
        ``calibration_["chosen"]``, every setting's choice in ``calibration_["choices"]``.

    After ``fit``: ``estimator_`` (the family fitted at ε′ on every row), ``bound_`` (ε′) and
    ``calibration_`` (a JSON-able record: every candidate's pooled inner gap, standard error and
    accuracy, the smoothed curves, the choice and the chosen candidate's interval).
    """

    def __init__(self, estimator=None, folds=CALIBRATION_FOLDS, candidates=None, margin=0.0, negligible_se=0.1,
                 max_inner_rows=200_000, n_jobs=1, random_state=0, choices=None):
        self.estimator = estimator
        self.choices = choices
        self.folds = folds
        self.candidates = candidates
        self.margin = margin
        self.negligible_se = negligible_se
        self.max_inner_rows = max_inner_rows
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _criterion(self) -> Criterion | None:
        if self.estimator is None:
            raise ValueError("CalibratedFairClassifier needs an estimator")
        try:
            name = criterion_param(self.estimator)
        except ValueError:
            return None
        return self.estimator.get_params(deep=False)[name]

    def _members(self) -> list:
        """The unfitted family settings the calibration chooses among: ``estimator`` with each of
        ``choices`` set (or ``estimator`` alone)."""
        if not self.choices:
            return [self.estimator]
        return [clone(self.estimator).set_params(**dict(c)) for c in self.choices]

    def fit(self, X, y, sensitive_features=None, **fit_params):
        from fairspec.metrics.intervals import gap_intervals

        start = time.perf_counter()
        criterion = self._criterion()
        if criterion is None or criterion.bound is None:
            # nothing to calibrate: a penalty, an audit or no criterion is fitted as it is
            if self.choices:
                raise ValueError("choices are chosen by the calibration of a bound: the criterion has no bound")
            self.estimator_ = clone(self.estimator).fit(X, y, sensitive_features=sensitive_features, **fit_params)
            self.bound_ = None
            self.calibration_ = None
            self.classes_ = self.estimator_.classes_
            return self
        if int(self.folds) < 2:
            raise ValueError(f"folds must be at least 2; got {self.folds!r}")
        if sensitive_features is None:
            raise ValueError(f"{criterion.label()} is calibrated on held-out rows: fit(...) needs sensitive_features")
        members = self._members()
        y_arr = np.asarray(y)
        groups = np.asarray(sensitive_features)
        groups_text = groups.astype(str) if groups.ndim == 1 else np.array([" & ".join(map(str, r)) for r in groups])
        classes = np.unique(y_arr)
        y01 = (y_arr == classes[-1]).astype(int)
        n = len(y_arr)
        eps = criterion.bound
        has_path = hasattr(self.estimator, "fit_bound_path")
        fractions = self.candidates or (DEFAULT_CANDIDATES if has_path else DEFAULT_CANDIDATES_WITHOUT_PATH)
        bounds = sorted({round(float(f) * eps, 12) for f in fractions}, reverse=True)
        folds = int(self.folds)
        if n < 2 * folds:
            raise ValueError(f"{criterion.label()} is calibrated by {folds}-fold inner cross-validation, which needs "
                             f"at least {2 * folds} training rows; got {n} (or hold the bound on train)")
        splits, kept_in_training = inner_splits(y01, groups_text, folds, int(self.random_state or 0))
        one_fold_se = held_out_gap_noise(criterion, y01[splits[0][1]], groups_text[splits[0][1]])
        single = (self.negligible_se and one_fold_se is not None and eps > 0
                  and one_fold_se <= float(self.negligible_se) * eps)
        used = splits[:1] if single else splits
        if single and self.max_inner_rows and len(used[0][0]) > int(self.max_inner_rows):
            # the held-out gap's noise is negligible here (module docstring, "Large data"), and so
            # is what a few hundred thousand rows more teach the inner fit: a seeded random
            # subsample of its training side, so the calibration costs a fraction of the refit
            tr, te = used[0]
            rng = np.random.default_rng(int(self.random_state or 0))
            used = [(np.sort(rng.choice(tr, size=int(self.max_inner_rows), replace=False)), te)]
        # a family's time_limit sizes its work: the inner fits share it (module docstring, "Cost");
        # on large data, where they are one hold-out, the refit shares it with them as well
        time_share, refit_share = (1.0, 1.0) if has_path else (1.0 / len(bounds), 1.0)
        if single and not has_path:
            time_share, refit_share = 0.5 / len(bounds), 0.5
        def fold_tasks(member, at_bounds, folds_used=used):
            """One :func:`inner_fold` task per inner fold: ``member`` fitted at ``at_bounds``."""
            return [(member, at_bounds, _take(X, tr), _take(y, tr), _take(sensitive_features, tr),
                     rows_of(fit_params, n, tr), _take(X, te), time_share) for tr, te in folds_used]

        # every member is measured on the same inner folds: their comparison is paired
        tasks = [task for member in members for task in fold_tasks(member, bounds)]
        predictions = run_tasks(inner_fold, tasks, n_jobs=self.n_jobs)
        del tasks  # the inner sides' copies of the rows, not needed by the refit
        held = np.concatenate([te for _, te in used])
        y_held, g_held = y01[held], groups_text[held]
        k = len(used)
        measured_members = [_measure(criterion, bounds, np.concatenate(predictions[i * k:(i + 1) * k], axis=1),
                                     classes, y_held, g_held, eps, float(self.margin))
                            for i in range(len(members))]
        # not on the single inner split of "Large data": what a probe guards against is a relabelling
        # exploiting the training rows' group counts, whose noise that split has found negligible;
        # and there the time limit's halves are spent already
        probes = [] if single else [i for i, mm in enumerate(measured_members)
                                    if mm["met"] and mm["bounds"][mm["best"]] == 0 and mm["chosen"] > 0]
        if probes:
            # an ε′ interpolated from the candidate 0 is measured on the same folds before it is used
            # (:func:`_probe`): one more inner fit per fold and probe bound, for the settings that need it
            at = {i: [round(f * measured_members[i]["chosen"], 12) for f in PROBE_FRACTIONS] for i in probes}
            tasks = [task for i in probes for task in fold_tasks(members[i], at[i])]
            probed = run_tasks(inner_fold, tasks, n_jobs=self.n_jobs)
            del tasks
            for j, i in enumerate(probes):
                measured_members[i] = _probe(criterion, measured_members[i],
                                             np.concatenate(predictions[i * k:(i + 1) * k], axis=1),
                                             np.concatenate(probed[j * k:(j + 1) * k], axis=1), at[i], classes,
                                             y_held, g_held, eps, float(self.margin))
            probed = None
        pick = choose_member(measured_members)
        m = measured_members[pick]
        chosen, best, met = m["chosen"], m["best"], m["met"]
        interval = gap_intervals(y_held, m["pooled01"][best], g_held, seed=int(self.random_state or 0))
        held_out_rows, inner_training_rows = int(len(held)), [int(len(tr)) for tr, _ in used]
        # the inner folds' rows and predictions are not read from here on: let go before the refit,
        # which had held them beside its own arrays at a large fit's peak (benchmarks/README.md, "Scale")
        summaries = [{key: v for key, v in mm.items() if key != "pooled01"} for mm in measured_members]
        del splits, used, fold_tasks, predictions, held, y_held, g_held, y01, groups_text, measured_members, m
        tr = te = None  # (a fold's rows)
        self.estimator_ = with_bound(members[pick], chosen, refit_share).fit(
            X, y, sensitive_features=sensitive_features, **fit_params)
        self.bound_ = chosen
        self.classes_ = self.estimator_.classes_
        s = summaries[pick]
        self.calibration_ = {
            "method": "inner cross-validation" if not single else "inner hold-out",
            "bound": eps,
            "internal_bound": chosen,
            "met": bool(met),
            "folds": folds,
            "inner_folds_fitted": len(inner_training_rows),
            "held_out_rows": held_out_rows,
            "inner_training_rows": inner_training_rows,
            # groups with a label too rare to spread over the folds: on every inner training side
            "groups_never_held_out": kept_in_training,
            "margin": float(self.margin),
            "inner_gap": s["inner_gap"],
            "inner_accuracy": s["inner_accuracy"],
            # the held-out predictions are those of the candidates; the interval is the one of the
            # candidate the choice stands on (the loosest ε′ at or below the chosen one)
            "inner_gap_candidate": s["bounds"][best],
            "inner_gap_measured": s["inner_gap_measured"],
            "inner_gap_se": s["inner_gap_se"],
            "inner_gap_interval": (interval["gaps"] or {}).get(criterion.name),
            "inner_gap_interval_level": interval["level"],
            "candidates": s["candidates"],
            # an ε′ interpolated from 0 and measured before use: the bounds measured (now among the
            # candidates) and the ε′ the interpolation had proposed
            **({"probe": s["probe"]} if "probe" in s else {}),
            "bound_path": has_path,
            # the shares of the family's time_limit each inner fit and the refit were given, when the
            # refit's is not all of it (a record without them is what it was before the split)
            **({"inner_time_share": time_share, "refit_time_share": refit_share} if refit_share < 1 else {}),
            # the family settings chosen among (absent when there was one): each one's choice
            **({"choices": [{"params": dict(c), "internal_bound": mm["chosen"], "met": bool(mm["met"]),
                             "inner_gap": mm["inner_gap"], "inner_accuracy": mm["inner_accuracy"]}
                            for c, mm in zip(self.choices, summaries)],
                "chosen": dict(self.choices[pick])} if self.choices else {}),
            "seconds": round(time.perf_counter() - start, 3),
        }
        return self

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    @property
    def labels_from_scores(self):
        """The refitted family's ``labels_from_scores`` (an AttributeError when it has none)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.labels_from_scores

    @property
    def fit_log_(self) -> dict:
        """The refitted family's fit log."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.fit_log_

    def to_json(self) -> dict:
        return self.estimator_.to_json()

    def describe(self, *args, **kwargs) -> list[str]:
        return self.estimator_.describe(*args, **kwargs)
