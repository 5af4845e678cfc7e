"""Typed DSPy signatures of the three LM steps: analyze, generate, repair."""

from nl2sparql.signatures.analyze import AnalyzeQuestion
from nl2sparql.signatures.generate import GenerateSparql
from nl2sparql.signatures.repair import RepairSparql

__all__ = ["AnalyzeQuestion", "GenerateSparql", "RepairSparql"]
