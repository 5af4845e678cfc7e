"""Compile: the execution metric as DSPy sees it, the optimizers, and `optimize run`."""
