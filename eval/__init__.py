"""Evaluation: the execution metric, runs over a split, and comparisons between versions.

`nl2sparql.eval.run(version, split)` and `nl2sparql.eval.compare([vA, vB, …], split)` return the
objects the `nl2sparql eval` commands print.
"""

from __future__ import annotations


def run(version: str, split: str = "test", **options):
    """The report of `version` on `split` (reused when it exists; `force=True` re-runs); see eval.runner."""
    from nl2sparql.eval.runner import run_eval

    return run_eval(version, split, **options)[0]


def compare(versions: list[str], split: str = "test", *, allow_mismatch: bool = False, **options):
    """Run what is missing, then compare the reports (overall, per pattern, paired tests, flips)."""
    from nl2sparql.eval.comparison import compare_reports
    from nl2sparql.eval.runner import run_evals

    reports = [report for report, _, _ in run_evals(list(versions), split, **options)]
    return compare_reports(reports, allow_mismatch=allow_mismatch)
