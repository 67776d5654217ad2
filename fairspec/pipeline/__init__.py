"""Runs the stages in order: plan → data → model fit → metrics → model file and report.

This is the one place that knows every stage; each stage knows only the ones before it.
"""
