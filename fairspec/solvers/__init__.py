"""Solver back ends: hand a Pyomo model to HiGHS and report honestly what came back."""
