"""Typed DSPy signatures of the LM steps: scope, analyze, generate, repair, and the follow-up rewrite."""

from nl2sparql.signatures.analyze import AnalyzeQuestion
from nl2sparql.signatures.followup import RewriteFollowUp
from nl2sparql.signatures.generate import GenerateSparql, GenerateSparqlInConversation
from nl2sparql.signatures.repair import RepairSparql
from nl2sparql.signatures.scope import JudgeScope

__all__ = ["AnalyzeQuestion", "GenerateSparql", "GenerateSparqlInConversation", "JudgeScope", "RepairSparql",
           "RewriteFollowUp"]
