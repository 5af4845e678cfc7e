"""Words of a question read beside the cue tables: the bounds of a comparison ("sopra", "almeno", "or below") and
the emotion words a meaning or a relation is asked of ("cosa vuol dire tristezza", "iperonimi di rabbia")."""

from __future__ import annotations

import re

GREATER = ("at least", "almeno", "above", "over", "more than", "greater", "higher than", "sopra", "più di", "oltre",
           "superiore", "or higher", "o più", "or more", ">", "≥", "più alta di", "più alto di", "più alti di",
           "più alte di", "non inferiore")
LESS = ("at most", "below", "under", "less than", "fewer than", "lower than", "sotto", "meno di", "inferiore", "or lower",
        "o meno", "or fewer", "or less", "<", "≤", "non superiore", "al massimo", "più bassa di", "più basso di", "più bassi di",
        "più basse di")
# the bound itself passes
INCLUSIVE = ("at least", "almeno", "o più", "or more", "or higher", "≥", "at most", "al massimo", "o meno", "or fewer",
             "or lower", "non superiore", "non inferiore", "≤", "o superiore", "o inferiore", "or above", "or below",
             "or less")

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


_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
          "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8, "nove": 9, "dieci": 10}
_A_NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:[.,]\d+)?|" + "|".join(_WORDS) + r")(?![\w])")


def _bound(phrase: str, found: list[tuple[int, int, str]]) -> None:
    for cue in GREATER + LESS:
        at = phrase.rfind(cue)
        if at >= 0 and re.match(r"\W|$", phrase[at + len(cue):at + len(cue) + 1] or " ") and (
                at == 0 or not phrase[at - 1].isalnum()):
            end = at + len(cue)
            op = (">" if cue in GREATER else "<") + ("=" if any(phrase[:end].endswith(c) for c in INCLUSIVE) else "")
            found.append((at + len(cue), len(cue), op))  # the nearest, then the longest ("non superiore")


def number_bounds(text: str) -> tuple[tuple[float, str], ...]:
    """Each number's own bound, from the comparison words right before it in its clause ("al massimo 6 lettere e
    polarità almeno 0,6": 6 at most, 0.6 at least) or right after it ("six letters or fewer"); a number with none
    has no entry, and the question's one comparison reads it."""
    out = []
    for match in _A_NUMBER.finditer(text):
        raw = match.group(1)
        value = float(_WORDS.get(raw, 0) or raw.replace(",", "."))
        before = re.split(r"[,;:?!()]|\b(?:e|and|con|with)\b", text[max(0, match.start() - 30):match.start()])[-1]
        after = re.split(r"[,;:?!()]|\b(?:e|and|con|with)\b", text[match.end():match.end() + 30])[0]
        found: list[tuple[int, int, str]] = []
        _bound(before, found)
        if not found:
            words = after.split()
            _bound(" ".join(words[1:4]) if words and words[0] in ("lettere", "letters", "caratteri", "characters",
                                                                  "sensi", "senses") else " ".join(words[:3]), found)
        if found:
            out.append((value, max(found)[2]))
    return tuple(dict.fromkeys(out))
