"""Rewording a generated question, for the synthetic data engine (`nl2sparql data synth --paraphrase`)."""

from __future__ import annotations

import dspy


class ParaphraseQuestion(dspy.Signature):
    """Reword a question about an Italian lexical knowledge base as another linguist would ask it, in the same
    language. Keep every quoted word, number, resource name and emotion name exactly as written."""

    question: str = dspy.InputField()
    language: str = dspy.InputField(desc="it (Italian) or en (English): write the paraphrase in it")
    paraphrase: str = dspy.OutputField(desc="one question, nothing else")
