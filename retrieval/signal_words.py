"""Words of a question the signals read beyond single cues: an elided article split from its word ("dell'albero"),
and unquoted multiword expressions the lemma bank has as one written form ("fico d'India")."""

from __future__ import annotations

import re

ELIDED = {"l", "dell", "all", "dall", "nell", "sull", "un", "quell", "quest"}


def split_elision(token: str) -> list[str]:
    head, mark, rest = token.replace("’", "'").partition("'")
    return [head, rest] if mark and head.lower() in ELIDED and rest else [token]


FUNCTION_WORDS = {"di", "a", "da", "in", "con", "su", "per", "tra", "fra", "senza", "e", "o", "non", "che", "un",
                  "una", "uno", "il", "lo", "la", "i", "gli", "le", "of", "to", "in", "on", "and", "or", "the", "at"} | {
    p + a for p in ("a", "da", "de", "ne", "su") for a in ("l", "llo", "lla", "i", "gli", "lle")}


def multiwords(question: str, cues: dict, lexicon) -> list[str]:
    """Unquoted expressions of two or three words the lemma bank has as one written form ("fico d'India", "alta
    tensione"), after a word that introduces one ("di", "l'espressione polirematica"): none starting or ending with a
    function word, none made of cue or common words."""
    stop = set(cues["stop"]) | FUNCTION_WORDS
    before = set(cues["before_word"]) | {"polirematica", "polirematico", "espressione", "expression", "locuzione"}
    cue_words = [w.strip() for table in ("pos", "polarity", "resources", "relations", "operators", "affixes", "wh")
                 for words in (cues[table].values() if isinstance(cues[table], dict) else [cues[table]])
                 for w in words if len(w.strip()) > 2]
    tokens = re.findall(r"[^\W\d_][\w'’]*[^\W_]|[^\W\d_]", question)
    found = []
    for size in (3, 2):
        for i in range(len(tokens) - size + 1):
            words = tokens[i:i + size]
            lower = [w.lower() for w in words]
            previous = tokens[i - 1].lower().split("'")[-1] if i else ""
            if previous not in before or lower[0] in stop or lower[-1] in stop or sum(w not in stop for w in lower) < 2:
                continue
            if any(w.startswith(c) for w in lower for c in cue_words):
                continue
            hit = lexicon.lookup(" ".join(words))
            if hit.match in ("exact", "case") and not any(hit.form.lower() in f.lower() for f in found):
                found.append(hit.form)
    return found
