"""Words of a question the signals read beyond single cues: an elided article split from its word ("dell'albero"),
and unquoted multiword expressions the lemma bank has as one written form ("fico d'India")."""

from __future__ import annotations

import re

from nl2sparql.retrieval.patterns import _QUOTED  # its fourth group: an English 'single-quoted' text

ELIDED = {"l", "dell", "all", "dall", "nell", "sull", "un", "quell", "quest"}


def reworded(question: str, rules: list[list[str]]) -> str:
    """The question in the wording the cues know (`cues.json` → rewrites: "numero totale di" is "numero di"); a
    quoted text is left as written ("nota «Usage: Voce gergale»" names a note, whatever a rule says of "voce
    gergale")."""
    for pattern, replacement in rules:
        spans = [m.span() for m in _QUOTED.finditer(question)]
        question = re.sub(pattern, lambda m: m.group(0) if _inside(m, spans) else m.expand(replacement), question,
                          flags=re.IGNORECASE)
    return question


def _inside(match: re.Match, spans: list[tuple[int, int]]) -> bool:
    """Whether a match begins or ends within a quoted text (one that holds a whole quote is outside it)."""
    return any(start < edge < end - 1 for start, end in spans for edge in (match.start(), match.end() - 1))


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


NEGATIONS = {"non", "né", "senza", "nessun", "nessuna", "nessuno", "privi", "prive", "not", "nor", "neither",
             "without", "no", "lack", "lacks", "lacking", "never", "missing", "absent", "manca", "mancano",
             "mancanti", "assente", "assenti", "nothing", "niente", "nulla"}  # "ELITA words missing from Sentix",
# "assenti in Sentix", "a Sicilian translation but nothing in Parmigiano"
# a negation's scope ends at a conjunction, a clause mark or "other" ("non esprimono Gioia e hanno polarità Sentix": Sentix
# is had); "né … né" and "ma non" open a new scope
_SCOPE_ENDS = {"e", "ed", "ma", "and", "but", "però", "mentre", "while", "sia", "altre", "altri", "altra", "altro",
               "other", "further"}  # "senza altre emozioni": other emotions, not ELITA, are lacked


def negated_names(text: str, table: dict[str, list[str]], window: int = 5) -> tuple[str, ...]:
    """The names of `table` (emotions, resources) the question negates: a cue of theirs with a negation among the
    `window` words before it, no conjunction or comma between ("ma non a Paura", "né siciliana né parmigiana",
    "nessuna emozione", "non hanno una voce in Sentix")."""
    found = []
    for name, cues in table.items():
        for cue in cues:
            for match in re.finditer(r"(?<![\w])" + re.escape(cue), text):
                before = re.split(r"[,;:?!()]", text[:match.start()])[-1].split()[-window:]
                for word in reversed(before):
                    word = word.strip("«»\"'")
                    if word in NEGATIONS:
                        found.append(name)
                        break
                    if word in _SCOPE_ENDS:
                        break
    return tuple(dict.fromkeys(found))


def in_question_order(text: str, names: tuple[str, ...], table: dict[str, list[str]]) -> tuple[str, ...]:
    """`names` in the order the question first names them ("sia Rabbia sia Disgusto ma non Paura")."""
    def first(name: str) -> int:
        hits = [m.start() for c in table[name] for m in re.finditer(r"(?<![\w])" + re.escape(c), text)]
        return min(hits, default=len(text))
    return tuple(sorted(names, key=first))


def disjoined(text: str, names: tuple[str, ...], table: dict[str, list[str]]) -> bool:
    """Whether the first two names are joined by "o" / "or" / "oppure" ("parole di Gioia o di Fiducia"): any one of
    them rather than both."""
    spans = sorted(m.span() for name in names[:2] for c in table[name]
                   for m in re.finditer(r"(?<![\w])" + re.escape(c), text))
    if len(names) < 2 or len(spans) < 2:
        return False
    between = text[spans[0][1]:spans[1][0]].split()
    return 0 < len(between) <= 3 and bool({"o", "or", "oppure", "either"} & set(between)) and not (
        {"sia", "both", "e", "and"} & set(text[:spans[0][0]].split()[-2:]))


def dialect_words(question: str, dialects: list[str], lexicon, dialect_lexicons: dict) -> list[tuple[str, str]]:
    """Unquoted words of a named dialect the Italian lemma bank lacks ("Morôza è la traduzione parmigiana di…")."""
    found = []
    for token in re.findall(r"[^\W\d_][\w'’]*[^\W_]", question):
        if len(token) < 3 or lexicon.lookup(token).match in ("exact", "case"):
            continue
        for dialect in dialects:
            hit = dialect_lexicons[dialect].lookup(token) if dialect in dialect_lexicons else None
            if hit is not None and hit.match in ("exact", "case"):
                found.append((dialect, hit.form))
    return list(dict.fromkeys(found))


_MARKED = re.compile(r"\b(?:(?:il|lo|la|l'|al|del|dal|nel|per il|the) (siciliano|parmigiano|sicilian)|parola "
                     r"(siciliana|parmigiana)|(sicilian|parmigiano) word|in (siciliano|parmigiano|sicilian) "
                     r"(?:con|come|as|with)) (?:[«\"“]\s*([^»\"”]+?)\s*[»\"”]|'([^']+)'(?!\w))|\b(sicilian|parmigiano) "
                     r"'([^']+)'(?!\w)", re.IGNORECASE)  # English: "Sicilian 'picciriddu'"
_DIALECT_NAMES = {"siciliano": "sicilian", "siciliana": "sicilian", "sicilian": "sicilian"}


def marked_dialect_words(question: str, dialect_lexicons: dict) -> list[tuple[str, str]]:
    """Quoted words the question calls a dialect's ("il siciliano «casa»", "si traduce in parmigiano con «cà»"),
    found in that dialect's bank: a dialect word even where Italian writes the same."""
    found = []
    for match in _MARKED.finditer(question):
        found_groups = [g for g in match.groups() if g]
        name, word = found_groups[0].lower(), found_groups[-1]  # «cori», 'cori' (English)
        dialect = _DIALECT_NAMES.get(name, "parmigiano")
        hit = dialect_lexicons[dialect].lookup(word) if dialect in dialect_lexicons else None
        if hit is not None and hit.match in ("exact", "case"):
            found.append((dialect, hit.form))
    return found


# A kind of letter named at a word's edge ("iniziano con una vocale", "end in a consonant"): a character class.
LETTER_CLASSES = {"vocal": "[aeiouàèéìíòóùAEIOU]", "vowel": "[aeiouàèéìíòóùAEIOU]",
                  "consonan": "[b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]"}


def repeated_or_anchored(text: str, affixes: list) -> list:
    """"Contengono due volte la lettera z": the letter twice (z.*z); "terminano con una vocale accentata": an accented
    vowel at the end, not any vowel there and an accent anywhere."""
    if re.search(r"\b(?:due|2) volte\b|\btwice\b|\b(?:two|2) times\b", text):
        affixes = [("regex", f"{v}.*{v}") if k == "contains" and len(v) == 1 else (k, v) for k, v in affixes]
    accented = ("regex", "[àèéìíòóùú]")
    for anchored in (("regex", LETTER_CLASSES["vocal"] + "$"), ("regex", "^" + LETTER_CLASSES["vocal"])):
        if accented in affixes and anchored in affixes:
            edge = anchored[1].startswith("^")
            affixes = [a for a in affixes if a not in (accented, anchored)] + [
                ("regex", ("^" if edge else "") + accented[1] + ("" if edge else "$"))]
    return affixes


def letter_class(kind: str, word: str) -> tuple[str, str]:
    letters = next((c for stem, c in LETTER_CLASSES.items() if word.startswith(stem)), None)
    if letters is None or kind == "contains":
        return kind, word
    return "regex", "^" + letters if kind == "prefix" else letters + "$"


_MORE_LETTERS = re.compile(r"^[»\"”]?\s*(?:,\s*|\s+(?=o |or |oppure |e |and |ma non |but not ))"
                           r"(?:(o|or|oppure|e|and|ma non|but not)\s+)?(?:(?:in|con|per|by|with)\s+)?"
                           r"[«\"“]\s*-?([^\W\d_]+)-?\s*[»\"”]")


def continued_affixes(kind: str, after: str) -> list[tuple[str, str]]:
    """Letters of the same kind quoted right after an affix: "in «zione» o in «sione»" (either), "con «ri» ma non
    con «rin»" (that one negated: kind `not_prefix`)."""
    found = []
    while (more := _MORE_LETTERS.search(after)) is not None:
        found.append((("not_" if more.group(1) in ("ma non", "but not") else "") + kind, more.group(2)))
        after = after[more.end():]
    return found


def singulars(word: str) -> list[str]:
    """An Italian plural and its singular, as a definition would use it ("usurati" → "usurato")."""
    if len(word) > 4 and word.endswith("i"):
        return [word, word[:-1] + "o"]
    if len(word) > 4 and word.endswith("e") and not word.endswith("re"):
        return [word, word[:-1] + "a"]
    return [word]


QUOTED = re.compile(r"[«\"“]\s*([^»\"”]+?)\s*[»\"”]")


def definition_words(text: str, cues: dict, affixes: list, named: set[str], skip: set[str]) -> tuple[list, list]:
    """What a CompL-it definition must say, and the affixes left to the word: after "definiti come", "parlano di",
    "la cui definizione dice" the quoted text, else the first two content words of the clause (an unquoted plural
    also as its singular: "definiti come usurati" is 'usurato'); an affix cue right after "una definizione che" is the
    definition's ("comincia con «mammifero»")."""
    stop = set(cues["stop"]) | skip | {"per", "della", "delle", "degli", "dello", "dei", "del", "che", "cui",
                                             "essere", "being", "used", "from", "with", "that", "which"}
    found: list[tuple[str, str]] = []
    for cue in cues["definition"]["described"]:
        for match in re.finditer(r"(?<![\w])" + cue + r"\s+", text):
            window = re.split(r"[?.;,:()]", text[match.end():])[0]
            quoted = QUOTED.findall(window) or [m.group(4) for m in _QUOTED.finditer(window) if m.group(4)]  # 'x'
            words = quoted[:2] or [w for w in re.findall(r"[^\W\d_][\w'’]*", window)
                                   if len(w) > 3 and w not in stop and w not in named][:2]
            for word in words:
                found += [("contains", w) for w in ([word] if quoted else singulars(word))]
    kept = []
    for kind, value in affixes:
        cue_words = cues["affixes"].get(kind, [])
        if kind in ("prefix", "suffix", "contains") and any(
                re.search(r"(?<![\w])" + lead + re.escape(c), text) for lead in cues["definition"]["affixed"]
                for c in cue_words):
            found.append((kind, value))
        else:
            kept.append((kind, value))
    return list(dict.fromkeys(found)), kept


_SIZES = {"due": 2, "tre": 3, "quattro": 4, "two": 2, "three": 3, "four": 4}
_SIZE = r"(\d|due|tre|quattro|two|three|four)"
# "le 10 terminazioni di 2 lettere più frequenti", "con quali 3 lettere finiscono", "the most common 3-letter endings"
_ENDING_SIZE = re.compile(
    rf"\b(?:terminazion[ei]|desinenz[ae]|finali|endings?|suffiss[oi]|suffix(?:es)?)(?: più \w+)? (?:di|of|da) {_SIZE} "
    rf"(?:lettere|letters|caratteri|characters)\b|\bquali {_SIZE} lettere(?: (?:finisc|termin)\w*)?"
    rf"|\b(?:ultime|last) {_SIZE} (?:lettere|letters)\b|\bwhich {_SIZE} letters\b|\b{_SIZE}[- ]letter endings?\b")


def ending_size(text: str) -> tuple[int | None, str]:
    """(n, the text without the phrase) when the question groups words by their last n letters (2 to 4): the phrase
    names no suffix ("terminazioni di 2 lettere" ends in no «di»)."""
    match = _ENDING_SIZE.search(text)
    if match is None:
        return None, text
    size = next(g for g in match.groups() if g)
    n = int(size) if size.isdigit() else _SIZES[size]
    if not 2 <= n <= 4:
        return None, text
    return n, text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]


# "parole che hanno una definizione in CompL-it", "ricevono una definizione", "defined in CompL-it": senses defined
_DEFINED = re.compile(r"\b(?:hanno|ha|abbiano|con|ricevono|riceve|have|has|with|get|gets|receive|sia|e|and) "
                      r"(?:una |a )?(?:definizion|definition)|\bdefinit[oaie]\b(?! come)|\bdefined\b(?! as)|"
                      r"\b(?:anche|also|include|including|con|with) (?:la |le |the |its |their |la loro |le loro )?"
                      r"(?:definizion|definition)|\b(?:dammi|give me|show me|mostrami|its|their|sua|loro) (?:la |le |its |"
                      r"their |the )?(?:definizion|definition)|\b(?:nessuna|alcuna|senza|no|without) (?:definizion|"
                      r"definition)")  # "dammi anche la definizione dell'iperonimo", "non hanno alcuna definizione"


# "lemmi con parti del discorso diverse", "different parts of speech": more than one (a threshold of 1)
DIFFERENT = re.compile(r"\b(?:diverse|differenti|distinte|different|distinct) (?:parti del discorso|categorie|"
                       r"parts of speech)|\b(?:parti del discorso|categorie(?: grammaticali)?) (?:diverse|differenti|"
                       r"distinte)\b")


def asks_defined(text: str) -> bool:
    return bool(_DEFINED.search(text))
