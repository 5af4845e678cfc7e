"""Evaluation: the execution metric shared with compile, eval runs and comparisons."""
