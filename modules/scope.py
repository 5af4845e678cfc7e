"""The relevance step, before generate: whether LiITA can answer the question at all.

A cheap first stage decides the clear cases without an LM: the words of the question (what LiITA holds, signs
of another subject: data/scope.json), then how much closer it is to the questions LiITA answers (the
retriever's training questions) than to known off-topic ones (the training split of data/off_topic.jsonl).
Only a question left between the two gets one short LM call through `JudgeScope`, a named predictor that
compiles and saves like the others (`scope.predict`). An off-topic question gets a polite answer saying what
the knowledge base holds, in its language, and no SPARQL.
"""

from __future__ import annotations

from dataclasses import dataclass

import dspy
from nl2sparql.modules.answer import Answer
from nl2sparql.retrieval.language import guess_language
from nl2sparql.retrieval.scope import (ScopeEvidence, load_scope_cues, off_topic_answer, scope_evidence,
                                      similarity_margin)
from nl2sparql.signatures import JudgeScope


@dataclass(frozen=True)
class ScopeRules:
    """Margins (similarity to LiITA questions minus similarity to off-topic ones) of the similarity stage:
    at or above `in_margin` in scope, below `off_margin` off topic, in between the LM decides. Set on the
    training and dev splits only."""

    in_margin: float = 0.03
    off_margin: float = 0.0


class CheckScope(dspy.Module):
    def __init__(self, runtime, rules: ScopeRules | None = None):
        super().__init__()
        self.runtime = runtime
        self.rules = rules or ScopeRules()
        self.predict = dspy.Predict(JudgeScope)

    def forward(self, question: str) -> dspy.Prediction:
        decided, stage = by_words(scope_evidence(question)), "words"
        if decided is None:
            similar, off = similarity_margin(question, self.runtime.retriever, self.runtime.off_topic)
            decided, stage = by_similarity(similar, off, self.rules), "similarity"
        if decided is not None:
            return dspy.Prediction(in_scope=decided[0], reason=decided[1], stage=stage, lm_calls=0)
        return self._ask(question)

    def _ask(self, question: str) -> dspy.Prediction:
        from dspy.utils.exceptions import AdapterParseError

        try:
            in_scope = bool(self.predict(question=question).in_scope)
        except AdapterParseError:  # a small model's unreadable answer: the question keeps its chance
            return dspy.Prediction(in_scope=True, reason="unsure, and the LM's answer was unreadable", stage="lm",
                                   lm_calls=1)
        reason = "the words did not settle it; the LM judged it " + ("in scope" if in_scope else "off topic")
        return dspy.Prediction(in_scope=in_scope, reason=reason, stage="lm", lm_calls=1)


def by_words(evidence: ScopeEvidence) -> tuple[bool, str] | None:
    """In or out from the question's words alone; None when they do not settle it."""
    named = list(evidence.strong) + list(evidence.weak)
    if evidence.off_topic:
        reason = load_scope_cues().off_topic[evidence.off_topic[0]][1]
        if not evidence.strong:
            return False, reason
        if "other-language" in evidence.off_topic:
            return None  # LiITA words about a language it lacks ("the definition of 'cane' in English")
        return True, "names " + ", ".join(named[:3])
    if evidence.strong or len(evidence.weak) >= 2 or (evidence.weak and evidence.quoted):
        return True, "names " + ", ".join(named[:3])
    if evidence.quoted:
        return True, "asks about a quoted word"
    return None


def by_similarity(similar: float, off: float, rules: ScopeRules) -> tuple[bool, str] | None:
    margin = similar - off
    figures = f"similarity {similar:.2f} to questions LiITA answers, {off:.2f} to off-topic ones"
    if margin >= rules.in_margin:
        return True, "close to questions LiITA answers (" + figures + ")"
    if margin < rules.off_margin:
        return False, "closer to questions LiITA cannot answer (" + figures + ")"
    return None


OFF_TOPIC_READING = {"en": "Not a question about the words LiITA holds", "it": "Non è una domanda sulle parole di LiITA"}


def off_topic_prediction(question: str, scope: dspy.Prediction, usage: dict, seconds: float) -> dspy.Prediction:
    """The program's answer to a question LiITA cannot answer: what it holds, and no query."""
    text = off_topic_answer(guess_language(question))
    return dspy.Prediction(
        question=question, sparql="", result=None, answer=text, readable=Answer(text), rows=[], variables=[],
        patterns=[], entities=[], dialects=[], attempts=[], errors=[f"off-topic: {scope.reason}"], grounding=[],
        notes=[], ok=False, usage=usage, seconds=seconds, in_scope=False, scope_reason=scope.reason,
        scope_stage=scope.stage, understood_as=OFF_TOPIC_READING[guess_language(question)], doubt=None)
