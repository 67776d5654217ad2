"""The plan stage: a checked spec becomes a typed, printable training plan."""
