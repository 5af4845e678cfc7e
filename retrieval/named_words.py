"""The words a question names without quotes: the lemma-bank forms it is about (the last content words, a chain of
them after a cue), and a comma list of them ("sorella, cavallo, neve, gatto e libro")."""

from __future__ import annotations

import re

from nl2sparql.retrieval.question_words import NUMBER_WORDS
from nl2sparql.retrieval.signal_words import ELIDED, FUNCTION_WORDS, split_elision

_CUE_TABLES = ("pos", "polarity", "resources", "relations", "operators", "affixes")


def _cue_words(cues: dict) -> list[str]:
    """The words that name a block (a part of speech, a resource, an operator …): never a word asked about."""
    return [w.strip() for table in _CUE_TABLES for words in cues[table].values() for w in words]


def content_words(question: str, text: str, cues: dict, lexicon, skip: set[str]) -> list[str]:
    """Unquoted words the question is about: lemma-bank forms that are no cue and no common word, the last two
    (the word asked about tends to close an Italian or English question: "i sinonimi di coraggio")."""
    stop = set(cues["stop"]) | FUNCTION_WORDS | skip  # "termina con la lettera h": no word «lettera»
    stop |= {"secondo"} if re.search(r"\bsecondo (?:compl-?it|elita|sentix|liita)\b", text) else set()  # "according to"
    cue_words = _cue_words(cues)
    found = []
    before = set(cues["before_word"]) | ELIDED | {"un", "uno", "una", "a", "an"}
    tokens = [part for token in re.findall(r"[^\W\d_][\w'’]*[^\W_]|[^\W\d_]", question)
              for part in split_elision(token)]  # "dell'albero": the article, then the word
    glossed = {w.lower() for w in re.findall(r"\(\s*([^\W\d_][\w'’]*)\s*\)", question)}  # "the face (viso)"
    chained = 0  # "di cane, gatto e cavallo": words listed after a found one
    for index, (previous, token) in enumerate(zip([""] + tokens, tokens)):
        word = token.lower()
        listed = bool(found) and (tokens[index - 1] == found[-1] or (
            index > 1 and previous.lower() in ("e", "and", "o", "or") and tokens[index - 2] == found[-1]))
        subject = index == 0 and len(tokens) > 1 and (tokens[1].lower() in ("è", "is") or len(tokens) <= 4 or re.match(
            r"\s*\S+\s*:|\s*\S+ in (?:dialetto )?(?:parmigiano|siciliano)\b", question, re.IGNORECASE) is not None)
        # "Costume è un tipo di …?", "Comprare in siciliano?", "Fratello: …", "vino in dialetto parmigiano, …"
        if previous.lower() not in before and word not in glossed and not listed and not subject:
            continue
        if len(word) < 3 or word in stop or word in NUMBER_WORDS:
            continue
        if any(word.startswith(c) for c in cue_words if len(c) > 2):
            continue
        grounded = lexicon.lookup(token)
        if grounded.match in ("exact", "case"):
            chained = chained + 1 if listed else 0
            found.append(grounded.form)
    keep = max(2, chained + 1)
    return list(reversed(list(dict.fromkeys(found))[-keep:])) if chained < 1 else list(dict.fromkeys(found))[-keep:]


_ITEM = r"[«'\"‘“]?(?<![\w-])[^\W\d_][\w'’]*(?![\w-])[»'\"’”]?"
_LIST = re.compile(rf"{_ITEM}(?:\s*,\s*{_ITEM})+(?:\s*,?\s+(?:e|ed|and|o|or|oppure)\s+{_ITEM})?")


def listed_forms(question: str, lexicon, cues: dict) -> list[str]:
    """Three or more words in a comma list ("mangiare, bambino, paura, cane e casa"), each one the lemma bank knows
    and none a cue word; not a list of emotion names only ("per gioia, tristezza e paura": emotions)."""
    cue_words = _cue_words(cues)
    emotion_words = {w.strip() for words in cues["emotions"].values() for w in words}
    stop = set(cues["stop"]) | FUNCTION_WORDS  # "mostra parola, traduzione e valore": columns, not words
    for match in _LIST.finditer(question):
        items = [w for w in re.findall(r"[^\W\d_][\w'’]*", match.group(0))
                 if w.lower() not in ("e", "ed", "and", "o", "or", "oppure")]
        if len(items) < 3 or any(w.lower() in stop or any(w.lower().startswith(c) for c in cue_words if len(c) > 2)
                                 for w in items):
            continue
        if all(w.lower() in emotion_words for w in items):
            continue
        grounded = [lexicon.lookup(w) for w in items]
        if all(g.match in ("exact", "case") for g in grounded):
            return list(dict.fromkeys(g.form for g in grounded))
    return []
