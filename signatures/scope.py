"""Scope: whether LiITA can answer a question at all, before any SPARQL is written."""

import dspy


class JudgeScope(dspy.Signature):
    """Say whether the question can be answered from LiITA, a knowledge base of Italian words: its lemma bank,
    ELITA emotions, Sentix polarity, Sicilian and Parmigiano translations, and CompL-it senses, definitions
    and semantic relations. Questions about anything else (weather, arithmetic, people, general knowledge,
    code, chat, other languages) are out of scope."""

    question: str = dspy.InputField()
    in_scope: bool = dspy.OutputField()
