"""Compile: the optimizers and `optimize run` (the execution metric they use lives in eval/scoring)."""
