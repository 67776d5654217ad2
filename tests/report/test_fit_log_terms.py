"""Every fit-log key the report can show has a plain-English meaning (fairspec.report.fit_log_terms).

Three sources of keys, each checked against the dicts: the committed example reports under
reports/, the ``fit_log_`` of small real fits of every estimator (a rule set with and without a
criterion, single trees with a bound and a penalty, forests, the regressor and both baselines,
some of them pushed onto their rarer branches: skipped tilts, an IP left unrun, a fallback
labelling, a forest's joint MIP), and the estimator sources themselves, read with ``ast`` for
every key a fit log is given there, so a branch no small fit reaches is still covered.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from fairspec.models.baseline import BaselineClassifier
from fairspec.models.mip_forest import FairMIPForestClassifier
from fairspec.models.mp_boost import FairMPBoostClassifier
from fairspec.models.privileged_boost import PrivilegedBoostClassifier
from fairspec.models.rule_set import FairRuleSetClassifier
from fairspec.models.rule_set.column_generation import PhaseLog
from fairspec.models.tree.estimators import (MissingAwareForestClassifier, MissingAwareTreeClassifier,
                                             MissingAwareTreeRegressor)
from fairspec.registry.criteria import make_criterion
from fairspec.report.fit_log_terms import FIT_LOG_RECORD_TERMS, FIT_LOG_TERMS

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"
#: the modules that write fit-log keys (the local search's own log is copied under other names)
WRITERS = ("fairspec/models/rule_set/estimator.py", "fairspec/models/tree/estimators.py",
           "fairspec/models/tree/relabel.py", "fairspec/models/tree/forest_relabel.py",
           "fairspec/models/baseline.py", "fairspec/models/privileged_boost/estimator.py",
           "fairspec/models/privileged_boost/threshold.py", "fairspec/models/mp_boost/estimator.py",
           "fairspec/models/mip_forest/estimator.py", "fairspec/models/mip_forest/tree_fit.py")
#: functions that build the records of a list a fit log holds under one key (Fair MP-Boost's):
#: every key of a dict they write is a record key
RECORD_LIST_WRITERS = {"_row_summary", "_influential_rows", "_bound_search_records", "_concentration"}
#: functions whose log becomes a nested record of the fit log (the rule set's ``refine``, a MIP
#: forest's ``tree_fits``)
RECORD_WRITERS = {"_refine", "fit_tree", "_solve_mip"}
#: dicts named like a log that never reach the fit log under their own keys: the local
#: search's (its ``cells`` and ``iterations`` become ``local_search_cells`` / ``_iterations``)
INTERNAL_LOGS = {"search_log"}
#: dicts a fit builds and writes whole under one key of its log (the rule set's ``after_cg``,
#: written as ``after_cg_seconds``): their keys, and those of that key's dict display, are record keys
RECORD_DICTS = {"after_cg": "after_cg_seconds"}


def _missing(keys, terms) -> list[str]:
    return sorted(str(k) for k in set(keys) - set(terms))


def _nested_keys(log: dict) -> set[str]:
    """Keys of the records inside a fit log: a list of dicts (``phases``) or a dict (``refine``)."""
    keys = set()
    for value in log.values():
        records = value if isinstance(value, list) else [value]
        for record in records:
            if isinstance(record, dict):
                keys |= set(record)
    return keys


# ------------------------------------------------------------------ committed reports

def _committed_logs() -> dict[str, dict]:
    logs = {}
    for path in sorted(REPORTS.glob("*/metrics.json")) + sorted(REPORTS.glob("*/point-*/metrics.json")):
        logs[str(path.relative_to(ROOT))] = json.loads(path.read_text())["training_log"]
    for path in sorted(REPORTS.glob("*/model.json")) + sorted(REPORTS.glob("*/point-*/model.json")):
        logs[str(path.relative_to(ROOT))] = json.loads(path.read_text())["training"]["fit_log"]
    return logs


def test_every_key_of_the_committed_reports_has_a_meaning():
    logs = _committed_logs()
    assert len(logs) >= 10, f"expected the committed example reports under {REPORTS}, found {sorted(logs)}"
    for where, log in logs.items():
        assert log, f"{where} has an empty fit log"
        assert not _missing(log, FIT_LOG_TERMS), f"{where}: no meaning for {_missing(log, FIT_LOG_TERMS)}"
        nested = _nested_keys(log)
        assert not _missing(nested, FIT_LOG_RECORD_TERMS), \
            f"{where}: no meaning for the record keys {_missing(nested, FIT_LOG_RECORD_TERMS)}"
    # the rule set's example has both kinds of record, so the second check above is not empty
    rules = logs["reports/compas_rules/metrics.json"]
    assert rules["phases"] and rules["refine"]


# ------------------------------------------------------------------ small real fits

def _data(n=300, shift=0.0, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + g, rng.integers(0, 3, n), rng.normal(size=n)])
    X[rng.random(n) < 0.1, 2] = np.nan
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * X[:, 0] - 0.5 * X[:, 1] + shift)))).astype(int)
    return X, y, g


@pytest.fixture(scope="module")
def fitted_logs() -> dict[str, dict]:
    X, y, g = _data()
    rare_X, rare_y, rare_g = _data(shift=-2.0)  # few positives: the empty rule set can win
    eo = lambda bound: make_criterion("equal_opportunity", bound)  # noqa: E731
    # work limits only (clock_cap False): on a busy machine the clock had cut the slack fit's
    # column generation before its first LP, and its tilts then ran
    small = dict(max_complexity=8, max_conditions=2, thresholds=4, categorical_features=[1], time_limit=2.0,
                 clock_cap=False)
    fits = {
        "rule set, no criterion": (FairRuleSetClassifier(**small), X, y, None),
        "rule set, binding bound (tilted phases)": (FairRuleSetClassifier(criterion=eo(0.01), **small), X, y, g),
        "rule set, slack bound (tilts skipped)": (FairRuleSetClassifier(criterion=eo(1.0), **small), X, y, g),
        # a time limit long enough for the certifying pricing IP; the work stays tiny
        "rule set, certified": (FairRuleSetClassifier(criterion=make_criterion("equalized_odds", 0.05),
                                                      search_iterations=20, **{**small, "time_limit": 10.0}),
                                X, y, g),
        # no time left for the final IP, and nothing non-empty meets a zero gap: ip_not_run_because, note
        "rule set, out of time": (FairRuleSetClassifier(criterion=eo(0.0), **{**small, "time_limit": 0.01,
                                                                          "clock_cap": True}),
                                  rare_X, rare_y, rare_g),
        "tree, bound": (MissingAwareTreeClassifier(max_depth=3, fairness=eo(0.02), time_limit=5.0), X, y, g),
        "tree, penalty": (MissingAwareTreeClassifier(max_depth=3, fairness=make_criterion("equal_opportunity",
                                                                                          penalty=1.0)), X, y, g),
        # one HiGHS checkpoint finds no fair labelling: the fallback labelling and its note
        "tree, fallback": (MissingAwareTreeClassifier(max_depth=4, fairness=make_criterion("equalized_odds", 0.005),
                                                      relabel_checkpoints=1), X, y, g),
        "forest, bound": (MissingAwareForestClassifier(n_estimators=4, max_depth=3, fairness=eo(0.02),
                                                       time_limit=5.0), X, y, g),
        # the clock cuts the descent at once, so the joint MIP over every tree runs
        "forest, joint MIP": (MissingAwareForestClassifier(n_estimators=4, max_depth=3,
                                                           fairness=make_criterion("equalized_odds", 0.0),
                                                           time_limit=0.0001), X, y, g),
        "mip forest, penalty": (FairMIPForestClassifier(n_trees=2, max_depth=2, batch_size=100, clock_cap=False,
                                                        tree_checkpoints=1, criterion=make_criterion(
                                                            "equal_opportunity", penalty=1.0)), X, y, g),
        # the vote breaks the bound, so the leaves are relabelled
        "mip forest, bound": (FairMIPForestClassifier(n_trees=3, max_depth=2, batch_size=60, clock_cap=False,
                                                      tree_checkpoints=1, criterion=eo(0.0)), X, y, g),
        "mp_boost, penalty": (FairMPBoostClassifier(n_rounds=15, fairness=make_criterion("demographic_parity",
                                                                                       penalty=2.0)), X, y, g),
        # the bound search's records
        "mp_boost, bound": (FairMPBoostClassifier(n_rounds=15, fairness=make_criterion("equal_opportunity", 0.05)),
                            X, y, g),
        "baseline tree": (BaselineClassifier(learner="tree", depth=3), np.nan_to_num(X), y, None),
        "baseline logistic": (BaselineClassifier(learner="logistic"), np.nan_to_num(X), y, None),
        "boosting, bound": (PrivilegedBoostClassifier(n_rounds=10, fairness=eo(0.01)), X, y, g),
        "boosting, penalty": (PrivilegedBoostClassifier(n_rounds=10, variant="jpib",
                                                        fairness=make_criterion("equal_opportunity", penalty=1.0)),
                              X, y, g),
    }
    logs = {name: est.fit(X_, y_, g_).fit_log_ for name, (est, X_, y_, g_) in fits.items()}
    logs["boosting, privileged"] = PrivilegedBoostClassifier(n_rounds=10).fit(X, y, privileged=g).fit_log_
    logs["tree regressor"] = MissingAwareTreeRegressor(max_depth=3).fit(X, X[:, 0]).fit_log_
    return logs


def test_every_key_the_estimators_write_has_a_meaning(fitted_logs):
    for name, log in fitted_logs.items():
        assert not _missing(log, FIT_LOG_TERMS), f"{name}: no meaning for {_missing(log, FIT_LOG_TERMS)}"
        nested = _nested_keys(log)
        assert not _missing(nested, FIT_LOG_RECORD_TERMS), \
            f"{name}: no meaning for the record keys {_missing(nested, FIT_LOG_RECORD_TERMS)}"
    seen = set().union(*fitted_logs.values())
    # the fits reached what they were set up for (keys no clock decides)
    assert {"phases", "refine", "tilts_skipped", "relabel_status", "relabel_descent", "relabel_leaves",
            "train_gap_before_relabel", "note", "learner", "trees", "threshold_chosen_for_bound",
            "privileged_model_rounds", "bound_search", "row_probability_summary", "tree_fits"} <= seen


def test_every_phase_record_field_has_a_meaning():
    fields = {f.name for f in dataclasses.fields(PhaseLog)}
    assert not _missing(fields, FIT_LOG_RECORD_TERMS), f"no meaning for {_missing(fields, FIT_LOG_RECORD_TERMS)}"


# ------------------------------------------------------------------ the sources

def _is_log(node) -> bool:
    if isinstance(node, ast.Name):
        return "log" in node.id.lower() and node.id not in INTERNAL_LOGS
    return isinstance(node, ast.Attribute) and node.attr == "fit_log_"


def _dict_keys(node) -> set[str]:
    """String keys of a dict display, through ``**{...}`` and ``**({...} if c else {...})``."""
    if isinstance(node, ast.IfExp):
        return _dict_keys(node.body) | _dict_keys(node.orelse)
    if not isinstance(node, ast.Dict):
        return set()
    keys = set()
    for key, value in zip(node.keys, node.values):
        if key is None:
            keys |= _dict_keys(value)
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            keys.add(key.value)
    return keys


def _written_keys(func: ast.AST) -> set[str]:
    """Keys ``func`` gives a log: ``log = {...}``, ``log["k"] = ...``, ``log.update(k=..., **{...})``."""
    keys = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if _is_log(target):
                    keys |= _dict_keys(node.value)
                elif (isinstance(target, ast.Subscript) and _is_log(target.value)
                      and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)):
                    keys.add(target.slice.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "update" and _is_log(node.func.value)):
            keys |= {kw.arg for kw in node.keywords if kw.arg is not None}
            for arg in node.args:
                keys |= _dict_keys(arg)
    return keys


def _record_dict_keys(func: ast.AST) -> set[str]:
    """Keys of the :data:`RECORD_DICTS` ``func`` builds: ``after_cg = {...}``,
    ``after_cg["k"] = ...`` and ``{"after_cg_seconds": {...}}``."""
    keys = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in RECORD_DICTS:
                    keys |= _dict_keys(node.value)
                elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                      and target.value.id in RECORD_DICTS and isinstance(target.slice, ast.Constant)):
                    keys.add(target.slice.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value in RECORD_DICTS.values():
                    keys |= _dict_keys(value)
    return keys


def _source_keys() -> tuple[set[str], set[str]]:
    """(top-level keys, record keys) the estimator sources write into fit logs."""
    top, records = set(), set()
    for rel in WRITERS:
        tree = ast.parse((ROOT / rel).read_text(), filename=rel)
        for func in ast.walk(tree):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if func.name in RECORD_LIST_WRITERS:
                    records.update(_record_keys(func))
                else:
                    (records if func.name in RECORD_WRITERS else top).update(_written_keys(func))
                    records.update(_record_dict_keys(func))
    return top, records


def _record_keys(func: ast.AST) -> set[str]:
    """Keys of every dict ``func`` writes: ``{...}`` displays and ``record["k"] = ...``."""
    keys = set()
    for node in ast.walk(func):
        keys |= _dict_keys(node)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                        and isinstance(target.slice.value, str)):
                    keys.add(target.slice.value)
    return keys


def test_every_key_in_the_estimator_sources_has_a_meaning():
    top, records = _source_keys()
    # the scan finds the keys it should: not vacuous
    assert {"ip_not_run_because", "relabel_bound", "relabel_descent_sweeps", "learner", "note",
            "tilts_skipped", "reproducible"} <= top
    assert {"complexity_before", "complexity_climbed", "cut_by_clock", "draws_per_uniform", "group", "row",
            "rounds_kept", "dual_bound", "mip_status"} <= records
    assert not _missing(top, FIT_LOG_TERMS), f"no meaning for {_missing(top, FIT_LOG_TERMS)}"
    assert not _missing(records, FIT_LOG_RECORD_TERMS), \
        f"no meaning for the record keys {_missing(records, FIT_LOG_RECORD_TERMS)}"


def test_no_meaning_is_for_a_key_no_estimator_writes():
    """Stale entries would explain keys that no longer exist (and hide a rename)."""
    top, records = _source_keys()
    assert not _missing(FIT_LOG_TERMS, top), f"no estimator writes {_missing(FIT_LOG_TERMS, top)}"
    written = records | {f.name for f in dataclasses.fields(PhaseLog)}
    assert not _missing(FIT_LOG_RECORD_TERMS, written), f"no record has {_missing(FIT_LOG_RECORD_TERMS, written)}"


# ------------------------------------------------------------------ the wording

@pytest.mark.parametrize("terms", [FIT_LOG_TERMS, FIT_LOG_RECORD_TERMS], ids=["top-level", "records"])
def test_every_meaning_is_one_sentence(terms):
    """The convention of the module docstring: one sentence, capitalised, ending with a period."""
    assert terms
    for key, meaning in terms.items():
        assert isinstance(key, str) and re.fullmatch(r"[a-z][a-z0-9_]*", key), key
        assert isinstance(meaning, str) and meaning.strip() == meaning and meaning, key
        assert meaning[0].isupper(), f"{key}: {meaning!r} does not start with a capital letter"
        assert meaning.endswith(".") and not meaning.endswith(".."), f"{key}: {meaning!r} does not end with a period"
        assert not re.search(r"[.!?]\s+[A-Z]", meaning), f"{key}: {meaning!r} is more than one sentence"
        assert "\n" not in meaning and "  " not in meaning, f"{key}: {meaning!r} has stray whitespace"
