"""The local model rewording synthetic questions; the data engine keeps a rewording only when it keeps every slot."""

from __future__ import annotations

from collections.abc import Callable

import dspy

from nl2sparql.signatures.paraphrase import ParaphraseQuestion


class Paraphrase(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.reword = dspy.Predict(ParaphraseQuestion)

    def forward(self, question: str, language: str) -> dspy.Prediction:
        return self.reword(question=question, language=language)


def paraphraser(lm) -> Callable[[str, str], str | None]:
    """question, language → a rewording, or None when the model's answer could not be read."""
    module = Paraphrase()

    def reword(question: str, language: str) -> str | None:
        from dspy.utils.exceptions import AdapterParseError

        try:
            with dspy.context(lm=lm):
                text = module(question=question, language=language).paraphrase
        except AdapterParseError:
            return None
        return " ".join(str(text).split()) or None

    return reword
