"""How right is an answer: the one scoring module that compile (`optimize/`) and evaluation (`eval/`) share.

- `metric`: execute predicted and gold SPARQL and compare the result sets (exact match, precision/recall/F1).
- `gold`: gold results, executed once per KB fingerprint and cached on disk.
- `dspy_metric`: the same metric in DSPy's shapes (`ExecutionMetric`, GEPA's `FeedbackMetric`) and the
  question examples built from dataset records.
- `program`: run a program over examples and score every answer (`score_program`).
"""
