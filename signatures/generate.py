"""Generate: one read-only SPARQL query for the question."""

import dspy


class GenerateSparql(dspy.Signature):
    """Write one SPARQL query that answers the question on the LiITA knowledge base. Follow the
    constraints, reuse the shapes of the examples, declare every prefix, and return only the query."""

    constraints: str = dspy.InputField(desc="rules for this kind of question")
    schema_notes: str = dspy.InputField(desc="classes and properties that may be relevant")
    examples: str = dspy.InputField(desc="similar questions with their correct SPARQL")
    analysis: str = dspy.InputField(desc="patterns, words and dialects the question involves")
    question: str = dspy.InputField()
    sparql: str = dspy.OutputField(desc="a complete SELECT or ASK query with its PREFIX lines")


# The same step asked inside a conversation: the earlier turns come first as chat turns (their questions and the
# queries written for them), so a follow-up ("e quanti sono?") is answered in one call, reading the history itself.
GenerateSparqlInConversation = GenerateSparql.prepend(
    "history", dspy.InputField(desc="the earlier turns of the conversation"), type_=dspy.History)
