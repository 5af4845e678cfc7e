"""Words of a question read beside the cue tables: the bounds of a comparison ("sopra", "almeno", "or below") and
the emotion words a meaning or a relation is asked of ("cosa vuol dire tristezza", "iperonimi di rabbia")."""

from __future__ import annotations

import re

GREATER = ("at least", "almeno", "above", "over", "more than", "greater", "higher than", "sopra", "più di", "oltre",
           "superiore", "or higher", "o più", "or more", ">", "≥", "più alta di", "più alto di", "più alti di",
           "più alte di", "non inferiore", "superano", "supera", "exceed")
LESS = ("at most", "below", "under", "less than", "fewer than", "lower than", "sotto", "meno di", "inferiore", "or lower",
        "o meno", "or fewer", "or less", "<", "≤", "non superiore", "al massimo", "più bassa di", "più basso di",
        "più bassi di", "più basse di", "non superano", "non supera", "do not exceed", "does not exceed")
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


NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                "twenty": 20, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sette": 7, "otto": 8, "nove": 9,
                "dieci": 10, "venti": 20, "quindici": 15, "fifteen": 15, "zero": 0}
_DIGITS = r"-?\d+(?:[.,]\d+)?"
NUMBER_PATTERN = re.compile(rf"(?<![\w.])({_DIGITS})(?![\w])")
_A_NUMBER = re.compile(rf"(?<![\w.])({_DIGITS}|" + "|".join(NUMBER_WORDS) + r")(?![\w])")  # a number word too
_CLAUSE = re.compile(r"[,;:?!()]|\b(?:e|and|con|with)\b")


def _bounds_in(phrase: str) -> list[tuple[int, int, str]]:
    """(where it ends, its length, the comparison) of each bound cue in `phrase` standing as whole words."""
    found = []
    for cue in GREATER + LESS:
        at = phrase.rfind(cue)
        end = at + len(cue)
        if at >= 0 and (at == 0 or not phrase[at - 1].isalnum()) and (end == len(phrase) or not phrase[end].isalnum()):
            inclusive = any(phrase[:end].endswith(c) for c in INCLUSIVE)  # "pari o superiore": the bound passes
            found.append((end, len(cue), (">" if cue in GREATER else "<") + ("=" if inclusive else "")))
    return found


def number_bounds(text: str) -> tuple[tuple[float, str], ...]:
    """Each number's own bound, from the comparison words right before it in its clause ("al massimo 6 lettere e
    polarità almeno 0,6": 6 at most, 0.6 at least) or right after it ("six letters or fewer"); a number with none
    has no entry, and the question's one comparison reads it."""
    out = []
    for match in _A_NUMBER.finditer(text):
        raw = match.group(1)
        value = float(NUMBER_WORDS[raw]) if raw in NUMBER_WORDS else float(raw.replace(",", "."))
        found = _bounds_in(_CLAUSE.split(text[max(0, match.start() - 30):match.start()])[-1])
        if not found:  # "six letters or fewer": after the number (and the unit it counts)
            words = _CLAUSE.split(text[match.end():match.end() + 30])[0].split()
            unit = bool(words) and words[0] in ("lettere", "letters", "caratteri", "characters", "sensi", "senses")
            found = _bounds_in(" ".join(words[1:4] if unit else words[:3]))
            if unit and len(words) > 1 and words[1] in ("max", "massimo", "maximum"):  # "(7 letters max)"
                found = [(0, 0, "<=")]
        if found:  # the nearest, then the longest ("non superiore a" over "superiore a")
            out.append((value, max(found)[2]))
    return tuple(dict.fromkeys(out))


_HIGHER = r"più alt[aoie]|più positiv\w*|higher|more positive(?:ly)?|greater|better|beat|superiore|più favorevol\w*"
_LOWER = r"più bass[aoie]|più negativ\w*|lower|more negative(?:ly)?|worse|inferiore|più severo|più sever\w*"
_RESOURCE = r"\b(elita|sentix)\b"


def compared_values(text: str) -> tuple[str, ...]:
    """"ELITA è più negativo di Sentix", "Sentix rates it higher than ELITA": one resource's polarity value compared
    with the other's, as "elitaValue<sentixValue" (the resource after "di"/"than" on the right)."""
    if not (re.search(r"\belita\b", text) and re.search(r"\bsentix\b", text)):
        return ()
    for cues, op in ((_HIGHER, ">"), (_LOWER, "<")):
        for match in re.finditer(rf"(?:{cues})\s+(?:di|than|rispetto a|che)\b", text):
            after = re.search(_RESOURCE, text[match.end():match.end() + 40])
            if after:
                right = after.group(1)
                left = "sentix" if right == "elita" else "elita"
                return (f"{left}Value{op}{right}Value",)
    return ()



# what a per-word count counts, by the word a question counts it with ("traduzioni siciliane", "definizioni")
_COUNTED = (("sicilianLemma", r"sicilian\w*"), ("parmigianoLemma", r"parmigian\w*"), ("definition", r"definizion\w*|"
            r"definitions?"), ("sense", r"sensi|senses|significati|meanings"), ("emotion", r"emozion\w*|emotions?"))


def _counted(span: str) -> str | None:
    return next((role for role, words in _COUNTED if re.search(rf"\b(?:{words})\b", span)), None)


def compared_counts(text: str) -> tuple[str, ...]:
    """"Più traduzioni siciliane che parmigiane", "more CompL-it definitions than emotions": one per-word count
    compared with another, as "sicilianLemma>parmigianoLemma" (what is counted after "che"/"than" on the right)."""
    for match in re.finditer(r"\b(più|more|meno|fewer|less)\s+((?:[\w-]+\s+){0,4}?)(?:che|than)\s+((?:[\w-]+\s+){0,2}"
                             r"[\w-]+)", text):
        left, right = _counted(match.group(2)), _counted(match.group(3))
        if left and right and left != right:
            return (f"{left}{'>' if match.group(1) in ('più', 'more') else '<'}{right}",)
    return ()
