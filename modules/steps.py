"""The three LM steps as DSPy modules: analyze (optional refinement), generate, repair."""

from __future__ import annotations

import dspy

from nl2sparql.data.dataset import PATTERNS
from nl2sparql.modules.fixes import extract_query
from nl2sparql.retrieval.patterns import PatternAnalysis, analyze_patterns
from nl2sparql.signatures import AnalyzeQuestion, GenerateSparql, GenerateSparqlInConversation, RepairSparql


def _sparql_from(predictor: dspy.Predict, **inputs) -> str:
    """Call a predictor whose output is `sparql`; when the adapter cannot parse the answer into fields,
    take the query from the raw text (small local models often answer with a bare fenced query)."""
    from dspy.utils.exceptions import AdapterParseError

    try:
        return extract_query(predictor(**inputs).sparql)
    except AdapterParseError as error:
        return extract_query(error.lm_response or "")


class Analyze(dspy.Module):
    """Rule-based pattern analysis, refined by the LM when `use_lm` is on."""

    def __init__(self, use_lm: bool = False):
        super().__init__()
        self.use_lm = use_lm
        self.predict = dspy.Predict(AnalyzeQuestion)

    def forward(self, question: str) -> dspy.Prediction:
        rules = analyze_patterns(question)
        if not self.use_lm:
            return _from_rules(rules)
        from dspy.utils.exceptions import AdapterParseError

        try:
            out = self.predict(question=question, hints=describe(rules))
        except AdapterParseError:
            return _from_rules(rules, note="LM analysis unreadable; rules kept")
        patterns = tuple(p for p in (out.patterns or []) if p in PATTERNS) or rules.labels
        return dspy.Prediction(patterns=patterns, entities=tuple(out.entities or rules.entities),
                               dialects=tuple(d.lower() for d in (out.dialects or rules.dialects)),
                               needs_service=bool(out.needs_service), plan=out.plan or "", lm_calls=1)


def _from_rules(rules: PatternAnalysis, note: str = "") -> dspy.Prediction:
    service = bool({"sense_definition", "sense_count", "semantic_relation", "service_integration"} & set(rules.labels))
    return dspy.Prediction(patterns=rules.labels, entities=rules.entities, dialects=rules.dialects,
                           needs_service=service, plan=note, lm_calls=1 if note else 0)


def describe(analysis) -> str:
    """One compact text of an analysis, for prompts (stable order, short)."""
    scores = getattr(analysis, "scores", None)
    if scores:
        patterns = ", ".join(f"{p} {s:.2f}" for p, s in sorted(scores.items(), key=lambda kv: -kv[1]) if s > 0)
    else:
        patterns = ", ".join(analysis.patterns if hasattr(analysis, "patterns") else analysis.labels)
    parts = [f"patterns: {patterns or 'none'}"]
    if analysis.entities:
        parts.append("words: " + ", ".join(analysis.entities))
    if analysis.dialects:
        parts.append("dialects: " + ", ".join(analysis.dialects))
    if getattr(analysis, "needs_service", False):
        parts.append("needs CompL-it (SERVICE)")
    if getattr(analysis, "plan", ""):
        parts.append("plan: " + analysis.plan)
    return "; ".join(parts)


class _SparqlStep(dspy.Module):
    """A step whose signature ends in `sparql`; inputs are the signature's input fields, by name."""

    signature: type[dspy.Signature]

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(self.signature)

    def forward(self, **inputs: str) -> dspy.Prediction:
        return dspy.Prediction(sparql=_sparql_from(self.predict, **inputs))


class Generate(_SparqlStep):
    signature = GenerateSparql

    def forward(self, history: dspy.History | None = None, **inputs: str) -> dspy.Prediction:
        """With `history` (earlier turns as chat turns), the same predictor answers inside the conversation."""
        if history is None:
            return super().forward(**inputs)
        return dspy.Prediction(sparql=_sparql_from(self.predict, signature=GenerateSparqlInConversation,
                                                   history=history, **inputs))


class Repair(_SparqlStep):
    signature = RepairSparql
