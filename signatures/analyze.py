"""Analyze: what a question asks of LiITA, before any SPARQL is written."""

import dspy

from nl2sparql.data.dataset import PATTERNS


class AnalyzeQuestion(dspy.Signature):
    """Read a linguist's question about Italian words (in Italian or English) and say which LiITA query
    patterns it needs, which words it is about, which dialects it names, whether it needs CompL-it
    senses (SERVICE), and a one-line plan. Correct the hints where they are wrong."""

    question: str = dspy.InputField()
    hints: str = dspy.InputField(desc="a rule-based first guess: patterns with scores, entities, dialects")
    patterns: list[str] = dspy.OutputField(desc="labels from: " + ", ".join(PATTERNS))
    entities: list[str] = dspy.OutputField(desc="the words the question is about, as written in it")
    dialects: list[str] = dspy.OutputField(desc="sicilian and/or parmigiano, or empty")
    needs_service: bool = dspy.OutputField(desc="true when senses, definitions or semantic relations are needed")
    plan: str = dspy.OutputField(desc="one line: which sources to join and what to return")
