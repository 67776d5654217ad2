"""``fairspec report``'s checks of what metrics.json holds for the audit report's group tables.

A block's ``disparities`` (:mod:`fairspec.metrics.disparity`) repeat, per group, the counts
the block's rates are shares of, and derive every other number from those counts.  The
report shows both the block's per-group rates and these tables, so a hand edit of one would
make the page say two things: :func:`disparity_problem` checks that the counts give the
block's rows and rates, and that every derived number is what
:func:`~fairspec.metrics.disparity.against_reference` gives for the counts, and names the first
place where either fails.  The four-fifths rule is recomputed on the rate the spec's outcome
gives (model.json's ``schema.target.outcome``): an adverse positive class's block without the
rule's ``rate`` was written before the rule read favourable predictions, and is refused with
that said, as its report would name the flagged direction backwards.  The curves (``roc``, ``calibration``) and the proxy scores come from
scores and features the file does not hold; the schema bounds them, nothing can recompute them.
"""
from __future__ import annotations

import json
import math

from fairspec.metrics.disparity import COUNTS, against_reference
from fairspec.metrics.groups import MET_TOLERANCE
from fairspec.metrics.intervals import LEVEL
from fairspec.pipeline.files import json_place

#: the block's own rates, as the disparity counts give them
_BLOCK_RATES = {"selection_rate": lambda tp, fp, fn, tn: ((tp + fp), tp + fp + fn + tn),
                "tpr": lambda tp, fp, fn, tn: (tp, tp + fn),
                "fpr": lambda tp, fp, fn, tn: (fp, fp + tn),
                "accuracy": lambda tp, fp, fn, tn: (tp + tn, tp + fp + fn + tn)}


def _blocks(doc: dict):
    unconstrained = doc.get("unconstrained") or {}
    for place, block in ((("train",), doc.get("train")), (("test",), doc.get("test")),
                         (("unconstrained", "train"), unconstrained.get("train")),
                         (("unconstrained", "test"), unconstrained.get("test"))):
        if isinstance(block, dict) and isinstance(block.get("disparities"), dict):
            yield place, block


def _differs(found, wanted) -> bool:
    if isinstance(wanted, dict):
        return not isinstance(found, dict) or set(found) != set(wanted) or any(
            _differs(found[k], wanted[k]) for k in wanted)
    if isinstance(wanted, list):
        return not isinstance(found, list) or len(found) != len(wanted) or any(
            _differs(f, w) for f, w in zip(found, wanted))
    if isinstance(wanted, float) and isinstance(found, (int, float)) and not isinstance(found, bool):
        return not math.isclose(found, wanted, rel_tol=1e-9, abs_tol=MET_TOLERANCE)
    return found != wanted or isinstance(found, bool) != isinstance(wanted, bool)


def _first_difference(found, wanted, place: tuple) -> tuple | None:
    if isinstance(wanted, dict) and isinstance(found, dict):
        for key in sorted(set(found) | set(wanted)):
            if key not in found or key not in wanted:
                return (*place, key)
            deeper = _first_difference(found[key], wanted[key], (*place, key))
            if deeper is not None:
                return deeper
        return None
    return place if _differs(found, wanted) else None


def disparity_problem(doc: dict, outcome: str | None = None) -> str | None:
    """Where a block's ``disparities`` contradict the block or themselves, or None; ``outcome``
    is the spec's word for the positive class (model.json's ``schema.target.outcome``)."""
    for place, block in _blocks(doc):
        d = block["disparities"]
        where = json_place("metrics", (*place, "disparities"))
        groups = d.get("groups") or {}
        own = block.get("groups") or {}
        if set(groups) != set(own):
            return f"{where}.groups names other groups than {json_place('metrics', (*place, 'groups'))}"
        for name, entry in groups.items():
            counts = [entry.get(k) for k in COUNTS]
            if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
                where_group = json_place("metrics", (*place, "disparities", "groups", name))
                return f"{where_group} needs whole counts tp, fp, fn, tn"
            if own[name].get("count") is not None and own[name]["count"] != sum(counts):
                return (f"{json_place('metrics', (*place, 'disparities', 'groups', name))}: tp + fp + fn + tn is "
                        f"{sum(counts)}, but the block's group has {own[name]['count']} rows")
            for rate, of in _BLOCK_RATES.items():
                if rate not in own[name]:
                    continue
                k, n = of(*counts)
                wanted = None if n == 0 else k / n
                if _differs(own[name][rate], wanted) if wanted is not None else own[name][rate] is not None:
                    return (f"{json_place('metrics', (*place, 'groups', name, rate))} is "
                            f"{json.dumps(own[name][rate])}, but the counts in {where} give {json.dumps(wanted)}")
        confusion = {g: {k: e[k] for k in COUNTS} for g, e in groups.items()}
        try:
            wanted = against_reference(confusion, d.get("reference"), d.get("reference_from", "largest group"),
                                       d.get("level", LEVEL), outcome=outcome)
        except (TypeError, ValueError, KeyError):
            return f"{where} cannot be read (its reference or level)"
        rule = d.get("four_fifths")
        if "rate" in wanted["four_fifths"] and isinstance(rule, dict) and "rate" not in rule:
            return (f"{where}.four_fifths has no rate: the positive class is adverse (model.json's "
                    "schema.target.outcome), and the file was written before fairspec read the four-fifths rule "
                    "on favourable predictions for it; train again")
        at = _first_difference(d, wanted, ())
        if at is not None:
            found = d
            for step in at:
                found = found.get(step) if isinstance(found, dict) else None
            return (f"{json_place('metrics', (*place, 'disparities', *at))} is {json.dumps(found)}, but the counts "
                    f"give {json.dumps(_at(wanted, at))}")
    return None


def _at(doc, steps):
    for step in steps:
        doc = doc.get(step) if isinstance(doc, dict) else None
    return doc


def reference_problem(model_doc: dict, metrics_doc: dict) -> str | None:
    """Where a block's reference group is not the one the run chose: the spec's
    (model.json's ``schema.reference_group``), else the group with most rows used."""
    declared = (model_doc.get("schema") or {}).get("reference_group")
    rows = {g: v.get("count") for g, v in ((metrics_doc.get("data_summary") or {}).get("groups") or {}).items()
            if isinstance(v, dict) and isinstance(v.get("count"), int)}
    if declared is None and not rows:
        return None
    from fairspec.metrics.audit import reference_group

    wanted = reference_group(rows, declared)
    for place, block in _blocks(metrics_doc):
        d = block["disparities"]
        found = (d.get("reference"), d.get("reference_from", "largest group"))
        if found != wanted:
            return (f"{json_place('metrics', (*place, 'disparities', 'reference'))} is {json.dumps(found[0])} "
                    f"({found[1]}), but the run's reference group is {json.dumps(wanted[0])} ({wanted[1]})")
    return None
