"""Missing-aware greedy trees; the family entry point is :mod:`fairspec.models.missing_tree`."""
