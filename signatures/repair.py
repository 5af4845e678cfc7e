"""Repair: a corrected query from a failed one and what went wrong."""

import dspy


class RepairSparql(dspy.Signature):
    """The query below failed on the LiITA knowledge base. Read the diagnosis and write a corrected
    query that answers the question; change only what the diagnosis points at."""

    constraints: str = dspy.InputField(desc="rules for this kind of question")
    question: str = dspy.InputField()
    failed_sparql: str = dspy.InputField()
    diagnosis: str = dspy.InputField(desc="the error, lint findings, or why an empty answer is suspicious")
    history: str = dspy.InputField(desc="earlier attempts and their outcomes, oldest first")
    sparql: str = dspy.OutputField(desc="the corrected SELECT or ASK query with its PREFIX lines")
