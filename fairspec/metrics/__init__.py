"""Evaluation: per-group rates, fairness gaps, ABROCA and the data summary of metrics.json."""
from fairspec.metrics.roc import abroca, area_between_curves, roc_points
from fairspec.metrics.groups import (
    GAP_RATES,
    GROUP_RATES,
    MET_TOLERANCE,
    evaluate_predictions,
    fairness_summary,
    gaps_from_rates,
    group_counts,
    group_labels,
    missing_by_group,
)

__all__ = [
    "GAP_RATES", "GROUP_RATES", "MET_TOLERANCE", "abroca", "area_between_curves", "evaluate_predictions",
    "fairness_summary", "gaps_from_rates", "group_counts", "group_labels", "missing_by_group", "roc_points",
]
