"""Typed DSPy signatures of the LM steps: analyze, generate, repair, and the follow-up rewrite."""

from nl2sparql.signatures.analyze import AnalyzeQuestion
from nl2sparql.signatures.followup import RewriteFollowUp
from nl2sparql.signatures.generate import GenerateSparql
from nl2sparql.signatures.repair import RepairSparql

__all__ = ["AnalyzeQuestion", "GenerateSparql", "RepairSparql", "RewriteFollowUp"]
