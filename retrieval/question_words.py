"""Words of a question read beside the cue tables: the bounds of a comparison ("sopra", "almeno", "or below") and
the emotion words a meaning or a relation is asked of ("cosa vuol dire tristezza", "iperonimi di rabbia")."""

from __future__ import annotations

import re

GREATER = ("at least", "almeno", "above", "over", "more than", "greater", "higher than", "sopra", "più di", "oltre",
           "superiore", "or higher", "o più", "or more", ">", "≥", "più alta di", "più alto di", "più alti di",
           "più alte di")
LESS = ("at most", "below", "under", "less than", "fewer than", "lower than", "sotto", "meno di", "inferiore", "or lower",
        "o meno", "<", "≤", "non superiore", "al massimo", "più bassa di", "più basso di", "più bassi di",
        "più basse di")
# the bound itself passes
INCLUSIVE = ("at least", "almeno", "o più", "or more", "or higher", "≥", "at most", "al massimo", "o meno", "or fewer",
             "or lower", "non superiore", "non inferiore", "≤", "o superiore", "o inferiore", "or above", "or below")

_MEANING = ("significa", "significato", "vuol dire", "define", "definisci", "definizion", "definition", "meaning")


def asked_words(text: str, emotions: tuple, relations: tuple, resources: list, cues: dict) -> list[str]:
    """Emotion words a relation or a meaning is asked of right after its cue (the caller asks it only of a question
    that names no ELITA)."""
    heads = [c for r in relations for c in cues["relations"][r]] + (list(_MEANING) if "complit" in resources else [])
    return [e.lower() for e in emotions if any(re.search(
        rf"{re.escape(h.strip())}\w*\s+(?:(?:di|of|del|della|per)\s+)?[«'\"]?{e.lower()}\b", text) for h in heads)]


_LABELLED = (r"(?:è|e'|viene|risulta|is|gets)?\s*(?:associat|legat|collegat|classificat|etichettat|annotat|marcat|"
             r"associated|linked|tagged|label|classified|annotated|esprim|evoc|express|evok|convey)")


def subject_words(text: str, emotions: tuple) -> list[str]:
    """An emotion word asked whether it has another emotion ("amore in ELITA è associato alla tristezza?"): the
    first of two named, when it is the subject of being labelled with the other; a word, not an emotion."""
    if len(emotions) < 2:
        return []
    first = min(emotions, key=lambda e: text.find(e.lower()) if e.lower() in text else len(text))
    where = r"(?:\s+(?:in|per|secondo|nel|according to)\s+(?:elita|l'elita)\b)?"
    return [first.lower()] if re.search(rf"[«'\"]?\b{first.lower()}\b[»'\"]?{where}\s+{_LABELLED}", text) else []
