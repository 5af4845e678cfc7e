"""Follow-up: a question asked after an earlier answer, rewritten so that it stands alone."""

import dspy


class RewriteFollowUp(dspy.Signature):
    """A linguist asks about Italian words in LiITA, in a conversation. Rewrite their new question as one
    complete question that stands alone: bring in what it refers to from the earlier turns (the word, the
    emotion, the resource, the filters), keep its language. A question that already stands alone is copied."""

    history: str = dspy.InputField(desc="the earlier turns, oldest first: question, its SPARQL, its answer")
    question: str = dspy.InputField()
    standalone_question: str = dspy.OutputField()
