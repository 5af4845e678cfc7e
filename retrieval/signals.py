"""What a question says that names plan blocks: the words it is about (grounded in the lemma bank), parts of speech,
emotions, polarity classes, resources, CompL-it relations, operators, numbers and affixes. The cue words are data
(`data/plans/cues.json`); the enumerator builds plans from these signals."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from nl2sparql.retrieval.named_words import content_words, listed_forms
from nl2sparql.retrieval.patterns import _QUOTED
from nl2sparql.retrieval.question_words import (GREATER, INCLUSIVE, LESS, NUMBER_PATTERN, NUMBER_WORDS,
                                                asked_words, compared_counts, compared_values,
                                                number_bounds, subject_words)
from nl2sparql.retrieval.signal_words import (DIFFERENT, FUNCTION_WORDS, QUOTED, asks_defined,
                                              continued_affixes, definition_words, dialect_words, disjoined,
                                              ending_size, in_question_order, letter_class, marked_dialect_words,
                                              repeated_or_anchored,
                                              multiwords, negated_names, reworded)

CUES_FILE = Path(__file__).resolve().parents[1] / "data" / "plans" / "cues.json"
_TOKEN = re.compile(r"[-'\"«»‘’“”]*([^\W\d_][\w'’]*)")
_SKIP = {"the", "a", "an", "with", "in", "per", "con", "il", "la", "le", "lo", "i", "gli", "letter", "letters",
         "lettera", "lettere", "prefix", "suffix", "prefisso", "suffisso", "sequence", "sequenza", "string", "in:", "un",
         "una", "uno", "some", "any", "ciascuna", "ciascun", "ciascuno", "ogni", "each", "every", "più", "meno",
         "almeno", "more", "most", "least", "volte", "volta", "times", "twice", "triple", "triples"}

@lru_cache(maxsize=1)
def load_cues(path: Path = CUES_FILE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Signals:
    forms: tuple[str, ...] = ()  # Italian lemma-bank written forms the question names
    dialect_forms: tuple[tuple[str, str], ...] = ()  # (dialect, written form)
    pos: tuple[str, ...] = ()
    emotions: tuple[str, ...] = ()
    polarity: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    relations: tuple[str, ...] = ()
    operators: frozenset[str] = field(default_factory=frozenset)
    numbers: tuple[float, ...] = ()
    affixes: tuple[tuple[str, str], ...] = ()  # (prefix | suffix | contains, letters)
    length: bool = False  # a number is a length in letters
    values: bool = False  # polarity values asked for (not emotions or classes)
    exactly: bool = False  # a number to be met exactly
    comparison: str | None = None  # ">=" or "<=" when a number is a threshold
    notes: tuple[str, ...] = ()  # usage notes named: a quoted note text, or "" for any note
    any_depth: bool = False  # a relation at any depth (its transitive closure)
    examples: bool = False  # example sentences asked for
    catalogs: tuple[str, ...] = ()  # meta questions: what the knowledge base holds
    lemma_kind: str | None = None  # "Lemma" / "Hypolemma" when the question says so
    computed: tuple[str, ...] = ()  # computed roles named: "initial" (a group key), "length" (an order)
    optional: bool = False  # "with any usage note", "if it has one": a column shown where present
    single_word: bool = False  # "monorematico": a written form with no space
    inclusive: bool = False  # "almeno dieci": the threshold itself passes (">=" rather than ">")
    bounds: tuple[tuple[float, str], ...] = ()  # each number's own bound where its clause names one
    between: bool = False  # "tra 3 e 5 lettere", "compresa tra 0.2 e 0.4": the two numbers bound a range
    keys: tuple[str, ...] = ()  # group keys named ("per classe di polarità"): asked before the others
    definition: tuple[tuple[str, str], ...] = ()  # (contains | prefix | suffix, text) a CompL-it definition must have
    authentic: bool = False  # lemmas with LiITA's own IRIs ("lemmi LiITA autentici", "un vero lemma di LiITA")
    same_form: bool = False  # a translation written as its Italian word ("si scrivono esattamente come")
    quoted: bool = False  # a named word is quoted («allegria»): asked about, never read away
    only: bool = False  # "soltanto Gioia": no other emotion
    asks_type: bool = False  # "di che tipo sono (lemma o ipolemma)": the resource's rdf:type as a column
    any_case: bool = False  # a named word written in any case ("roma, con o senza maiuscola")
    several_counts: bool = False  # "quanti lemmi e quante grafie": two counts in one answer
    bank_link: bool = False  # the lemma bank named beside CompL-it ("a quale lemma di LiITA è collegata")
    iris: tuple[str, ...] = ()  # resources the question names by IRI ("il lemma http://liita.it/data/id/lemma/…")
    every_pos: bool = False  # "sia nomi che verbi", "both a noun and a verb": one written form with each
    without: tuple[str, ...] = ()  # emotions negated ("ma non Paura", "né Gioia né Tristezza")
    lacking: tuple[str, ...] = ()  # resources negated ("nessuna emozione", "né siciliana né parmigiana")
    without_pos: tuple[str, ...] = ()  # parts of speech negated ("né nomi né verbi", "nomi ma non verbi")
    defined: bool = False  # senses with a definition asked for ("parole che hanno una definizione in CompL-it")
    either: bool = False  # the first two emotions are alternatives ("Gioia o Fiducia"), not both
    concat: bool = False  # several values in one cell ("le emozioni separate da virgola"): a GROUP_CONCAT
    letters: float | None = None  # the number right before "lettere/caratteri" ("3 nomi di 11 caratteri": 11)
    asks: tuple[str, ...] = ()  # a column asked for alone ("quali emozioni hanno i verbi": the emotions, not words)


def _hits(text: str, table: dict[str, list[str]], whole: bool = False) -> tuple[str, ...]:
    return tuple(name for name, words in table.items() if any(_has(text, w, whole) for w in words))


def _has(text: str, cue: str, whole: bool = False) -> bool:
    """A cue at a word start (a stem such as "aggettiv"), or as a whole word."""
    return re.search(r"(?<![\w])" + re.escape(cue) + (r"(?![\w])" if whole else ""), text) is not None


_NAMES_A_WORD = {"parola", "parole", "word", "words", "lemma", "lemmi", "voce", "voci", "forma", "termine"}
_QUOTED_LETTERS = re.compile(r"^\s*(?:[^\W\d_]+['’]?\s*){0,3}(?:[«\"“]|(?<![\w'’])')\s*-?([^\W\d_][\w'’]*?)-?\s*"
                             r"(?:[»\"”]|'(?!\w))")  # «ggh», "ggh", 'ggh' (English)


def _affixes(text: str, table: dict[str, list[str]]) -> tuple[list[tuple[str, str]], set[str]]:
    """(affixes, the words between a cue and its quoted letters: "il nesso «ggh»" names no word «nesso»)."""
    found, glue = [], set()
    for kind, cues in table.items():
        for cue in cues:
            for match in re.finditer(r"(?<![\w])" + re.escape(cue) + r"\w*(?<!iniziale)(?<!iniziali)\b", text):
                window = text[match.end():match.end() + 40]
                quoted = _QUOTED_LETTERS.search(window)  # "contengono il nesso «ggh»": the quoted letters
                if quoted and _NAMES_A_WORD & set(window[:quoted.start(1)].split()) and re.search(
                        r"lemmario|lessico|dizionario|base di|liita|elita|sentix|compl-?it|lemma bank|lexicon|graph|grafo|"
                        r"knowledge base|database", text[:match.start()]):
                    continue  # "il lemmario contiene la parola «smartphone»": a word named, no letters
                if quoted and not (_NAMES_A_WORD & set(window[:quoted.start(1)].split()) and kind != "contains"):
                    found += [(kind, quoted.group(1))] + continued_affixes(kind, window[quoted.end():] + text[
                        match.end() + 40:])  # "in «zione» o in «sione»", "con «ri» ma non con «rin»"
                    glue |= set(re.findall(r"[^\W\d_]+", window[:quoted.start(1)]))
                    continue
                after_letter = False  # "finiscono con la lettera a": a letter named after "lettera" is one
                for token in _TOKEN.finditer(window):  # "contiene il grafo": a catalog, no letters
                    word = token.group(1).strip("'’")
                    if after_letter and len(word) == 1:
                        found.append(letter_class(kind, word))
                        break
                    after_letter = word in ("lettera", "letter")
                    if kind == "contains" and word in ("grafo", "graph", "lessico", "lexicon", "lemmario"):
                        break
                    marked = window[token.end():token.end() + 1] == "-"  # "starting with in-": letters, not a word
                    if word and (word not in _SKIP or marked) and word not in NUMBER_WORDS:
                        found.append(letter_class(kind, word))
                        break
    return list(dict.fromkeys(found)), glue


def _negated_pos(text: str, table: dict, named: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in negated_names(text, {p: table[p] for p in named}) if p in named)


def _classes(text: str, table: dict) -> list[str]:
    """Letters a question names in words ("un apostrofo", "una lettera maiuscola", "only vowels")."""
    return [name for name in table if name != "about" and _has(text, name)]


# Question words that are also common verbs or adverbs ("compare", "come"): a question word only near the start.
_WEAK_WH = {"come", "compare", "name", "list", "show", "find", "give", "count", "conta", "che", "cosa", "translate"}


def _asks_what(text: str, wh: list[str]) -> bool:
    opening = " " + " ".join(w for clause in re.split(r"[:;]", text)  # the first two words of each clause
                             for w in re.findall(r"[^\W\d_]+", clause)[:2]) + " "
    return any(_has(opening if w.strip() in _WEAK_WH else text, w.strip(), whole=True) for w in wh)


def _quoted(question: str, form: str) -> bool:
    return bool(re.search(r"[«\"“'‘]\s*" + re.escape(form) + r"\s*[»\"”'’]", question, re.IGNORECASE))


def _parts_of_speech(text: str, table: dict[str, list[str]]) -> tuple[str, ...]:
    """The parts of speech named; one whose cue is only inside another's ("nomi" in "nomi propri") is not, nor a
    verb of naming ("grafo nominato")."""
    text = re.sub(r"(?<![\w])nomina\w*", " ", text)
    found = _hits(text, table)

    def inside(p: str, q: str) -> bool:
        longer = [d for d in table[q] if d not in table[p] and any(c in d for c in table[p])]
        return bool(longer) and not _hits(re.sub("|".join(map(re.escape, longer)), " ", text), {p: table[p]})
    return tuple(p for p in found if not any(q != p and inside(p, q) for q in found))


_ONE = (r"\b(?:esattamente|exactly|soltanto|solo|only) (?:un|uno|una|one)\b|\bun(?:o|a)? sol[oa]\b(?! parola)|"
        r"\ba single\b(?! word)")  # "di una sola parola" is a single word, no count of one


def _numbers(text: str) -> list[float]:
    values = [float(m.group(1).replace(",", ".")) for m in NUMBER_PATTERN.finditer(text)]
    if re.search(r"\b(?:più|meno) di (?:una|uno|un)\b|\b(?:more|fewer|less) than one\b", text):
        values.append(1.0)  # "più di una voce"
    if re.search(_ONE, text) or re.search(DIFFERENT, text):
        values.append(1.0)  # "esattamente un senso", "a single sense"; "parti del discorso diverse": more than one
    values += [float(NUMBER_WORDS[w]) for w in re.findall(r"[a-zà-ù]+", text) if w in NUMBER_WORDS]
    if re.search(r"\bsei (?:lettere|caratteri)\b", text):  # "sei" is a verb too: a number only before its unit
        values.append(6.0)
    return list(dict.fromkeys(values))


_SAMPLE = re.compile(r"\b(?:qualche esempio|alcuni esempi|un esempio|(?:a few|some) examples?|an example) (?:di|d'|of) "
                     r"(lemm|parol|verb|nom|aggettiv|avverb|sostantiv|word|noun|adjective|adverb)")
_BETWEEN = re.compile(r"\b(?:tra|fra|between|from|da) -?\d+(?:[.,]\d+)? (?:e|and|to|a) -?\d+(?:[.,]\d+)?\b|"
                      r"\b\d+ to \d+ (?:letters|characters)\b")  # "4 to 6 letters long"
_SOME = re.compile(r"\b(?:elenca|dammi|mostra(?:mi)?|trova|show(?: me)?|list|give(?: me)?|find)(?: (?:me|about|circa|"
                   r"una|the|i|gli|le))? (?:decina\b|\d+ |(?:two|three|five|ten|twenty|tre|cinque|dieci|venti) )")
_TIE_CLAUSE = re.compile(r"\bse ce n'è più di un[oa]?\b|\b(?:se ci sono|if there are|if any)(?= (?:pareggi|pari merito|ties?)\b)|\bse (?:ce ne )?sono (?:più|divers[ie]) (?:a pari|in testa)\b|"
                         r"\bif (?:there (?:are|is) )?(?:several|more than one)(?= tie| are tied| share)")
_IRI = re.compile(r"<?(https?://[^\s<>«»\"',;?)]+)>?")


def _named_keys(text: str, table: dict[str, list[str]]) -> tuple[str, ...]:
    """The group keys named, the first named first ("per ogni emozione, … il valore di polarità più alto")."""
    first = {k: min((m.start() for w in ws for m in re.finditer(r"(?<![\w])" + re.escape(w), text)), default=-1)
             for k, ws in table.items() if k != "about"}
    each = {k for k, ws in table.items() if k != "about" and any(re.search(
        r"\b(?:per (?:ogni|ciascun[ao]?|singola)|(?:for|in|within) each|per|by|secondo la|a seconda della)\s+(?:sua |their |its "
        r"|the )?" + re.escape(w), text) for w in ws)}  # "per ogni emozione": the key the question groups by, first
    return tuple(sorted((k for k in first if first[k] >= 0), key=lambda k: (k not in each, first[k])))


def read_signals(question: str, lexicon=None, dialect_lexicons=None) -> Signals:
    """The signals of a question; with the lexicons, the words it names are grounded in the lemma banks."""
    from nl2sparql.retrieval.grounding import fold, ground_question
    from nl2sparql.retrieval.patterns import analyze_patterns

    cues = load_cues()
    question = reworded(question, cues["rewrites"]["rules"])
    iris = tuple(dict.fromkeys(m.rstrip(".") for m in _IRI.findall(question)))
    question = _IRI.sub(" ", question)  # an IRI's path is no word, cue or number of the question
    text = " " + " ".join(question.lower().replace("’", "'").split()) + " "
    text = _SAMPLE.sub(r" \1", text)  # "qualche esempio di lemma": some lemmas, no CompL-it example
    text = _TIE_CLAUSE.sub(" ", text)  # "se ce n'è più di uno, tutti": ties asked for, no threshold of one
    analysis = analyze_patterns(question)
    forms, dialect_forms = [], []
    if lexicon is not None:
        for grounded in ground_question(question, analysis.entities, analysis.dialects, lexicon,
                                        dialect_lexicons or {}):
            if grounded.known and grounded.dialect:
                dialect_forms.append((grounded.dialect, grounded.form))
            elif grounded.known and ((grounded.form.lower() not in cues["stop"] and len(grounded.form) > 1)
                                     or _quoted(question, grounded.form)):  # "… parola e finiscono": no word «E»
                forms.append(grounded.form)  # "Quale parola ha più sensi": no question is about the word «ha»
        marked = [d for d in marked_dialect_words(question, dialect_lexicons or {}) if d not in dialect_forms]
        forms, dialect_forms = [f for f in forms if f not in {m for _, m in marked}], dialect_forms + marked
    else:
        forms = list(analysis.entities)
    sized, unsized = ending_size(text)  # "terminazioni di 2 lettere": a group key, no suffix «di»
    affixes, glue = _affixes(unsized, cues["affixes"])
    marked = [("suffix", m) for m in re.findall(r"(?<![\w-])-([^\W\d_]+)", text)] + [
        ("prefix", m) for m in re.findall(r"(?<![\w-])([^\W\d_]+)-(?![\w-])", text)]  # "verbi in stra-"
    listed = {k for k, _ in marked if [m[0] for m in marked].count(k) > 1}  # "-zione, -mento e -tà": only those
    affixes = [a for a in affixes if a[0] not in listed or a in marked] + marked
    classes = _classes(text, cues["classes"])
    affixes = [a for a in dict.fromkeys(affixes) if not any(a[1].startswith(c.split()[0]) for c in classes)]
    affixes += [tuple(cues["classes"][c]) for c in classes]
    doubled = re.findall(r"(?<![\w])(?:doppi[ae]|double) ([^\W\d_])(?![\w])", text)  # "la doppia z": "zz"
    affixes = [a for a in affixes if a[1] not in ("doppia", "doppie", "double")] + [("contains", x * 2)
                                                                                   for x in doubled]
    affixes = repeated_or_anchored(text, list(dict.fromkeys(affixes)))
    pos = _parts_of_speech(text, cues["pos"])
    if "proper_noun" in pos:  # "nomi propri che iniziano con la lettera B"
        affixes = [(k, v.upper()) if len(v) == 1 and re.search(rf"(?<![\w']){v.upper()}(?![\w'])", question) else (k, v)
                   for k, v in affixes]
    if _hits(text, {"initial": cues["computed"]["initial"]}):  # "iniziano con ogni lettera": a key, no prefix
        affixes = [a for a in affixes if a[0] != "prefix"]
    definition, affixes = definition_words(text, cues, affixes, {f.lower() for f in forms}, _SKIP)
    affix_values = {value for _, value in affixes} | {value for _, value in definition}
    dialect_forms = [d for d in dialect_forms if fold(d[1]) not in {fold(v) for v in affix_values} and (  # letters,
        len(d[1]) > 2 or _quoted(question, d[1]))]  # «ista»; "lists it as a noun" names no Parmigiano «as»
    cue_words = {w for table in [*cues["computed"].values(), cues["concat"]] for c in table if _has(text, c)
                 for w in c.split()}
    forms = [f for f in forms if f.lower() not in affix_values | glue and (
        f.lower() not in cue_words | FUNCTION_WORDS | set(NUMBER_WORDS) or _quoted(question, f))]  # "la lettera iniziale … tra gli …"
    stop_forms = forms == []
    introduced = [f.lower() for f in forms if re.search(rf"\b(?:parola|word|lemma|termine|term|forma|form) "
                                                        rf"[«\"']?{re.escape(f.lower())}\b", text)]
    unnamed = re.sub(r"\b(?:" + "|".join(map(re.escape, introduced)) + r")\b", " ", text) if introduced else text
    resources = list(_hits(unnamed, cues["resources"]))  # "la parola Parma": a word named, no dialect of Parma
    named_only = set(_hits(text, cues["resources"])) - set(resources)  # resources the named word alone cued
    for dialect in analysis.dialects:
        if dialect not in resources and dialect not in named_only:
            resources.append(dialect)
    bare = _QUOTED.sub(lambda m: f"«{m.group(4)}»" if m.group(4) else m.group(0), text)  # 'felicità' names a word
    bare = QUOTED.sub(lambda m: f" {m.group(1)} " if m.group(1).capitalize() in cues["emotions"] else " ", bare)
    emotions = in_question_order(bare, _hits(bare, cues["emotions"]), cues["emotions"])
    emotions = tuple(e for e in emotions if e.lower() not in {f.lower() for f in forms} or re.search(
        rf"\bemo(?:zione|tion) [«\"]?{e.lower()}\b", bare))  # "che esprimono l'emozione Paura": the emotion too
    if emotions and "elita" not in resources:
        resources.insert(0, "elita")
    # no holonym or meronym in "part of speech", "parti del discorso"
    relations = _hits(re.sub(r"parts? of speech|part[ei] del discorso", " ", text), cues["relations"])
    if not relations and re.search(r"(?<![\w])(?:sotto|under|below) (?:a |ad )?[«\"“]", text):
        relations = ("hyponym",)  # "i veicoli sotto «veicolo» a qualunque profondità": a quoted word's hyponyms
    if re.search(r"\b(?:ha|hanno|has|have) (?:il |la |l'|the )?[«\"“]?[^\W\d_]+[»\"”]? (?:come|as) (?:suo |loro |an? |its |"
                 r"their )?(?:iperonim|iponim|hypernym|hyponym)", text):
        swap = {"hypernym": "hyponym", "hyponym": "hypernym"}  # "le parole che hanno «frutto» come iperonimo"
        relations = tuple(swap.get(r, r) for r in relations)
    if relations and "complit" not in resources:
        resources.append("complit")
    operators = set(_hits(text, cues["operators"], whole=True))
    without = tuple(e for e in negated_names(bare, cues["emotions"]) if e in emotions)
    lacking = tuple(r for r in negated_names(unnamed, cues["resources"]) if r in resources)
    operators |= {"absent"} if without or lacking else set()
    operators |= {"alphabetical"} if _SOME.search(text) else set()  # "dammi dieci pronomi": some N, the first N
    if {"top", "group"} <= operators and not _numbers(text) and any(_has(text, c) for c in cues["values"]):
        operators.add("min" if "ascending" in operators else "max")  # "il valore più alto per ogni emozione"
    if re.search(r"\bal (?:massimo|minimo)\b", text):  # "al massimo cinque lettere": a bound, not a maximum
        operators -= {"min", "max"}
    polarity = _hits(text, cues["polarity"])
    if "average" in operators and not _hits(re.sub(r"\b(?:più|most|meno|least) (?:positiv|negativ)\w*", " ", text),
                                              cues["polarity"]):
        polarity = ()  # "mediamente più positive": the order of an average, not a polarity class
    if "count" in operators and len(polarity) > 1:  # "quante voci sono positive, negative o neutre": per class
        operators.add("group")
    asks_type = any(_has(text, c) for c in cues["type"])
    if question.rstrip().endswith("?") and not _asks_what(text, cues["wh"]) and not asks_type:
        operators.add("ask")  # a question with no question word: a yes/no question
    comparison = "<=" if any(_has(text, c) for c in LESS) else ">=" if any(_has(text, c) for c in GREATER) or re.search(
        DIFFERENT, text) else None
    longer = re.search(r"\bpiù (lung|cort)\w* (?:di|than) |\b(long|short)er than ", text) if _numbers(text) else None
    if longer:  # "più lunghe di 12 lettere": a length bound, not the longest
        comparison = ">=" if "lung" in longer.group(0) or "long" in longer.group(0) else "<="
    if comparison and _numbers(text) and (longer or re.search(
            r"\b(?:più|meno|more|fewer|less)(?: (?:alt|bass)[aeio])? (?:di|than) |\b(?:higher|lower) than ", text)):
        operators -= {"top", "descending", "ascending"}  # "hanno più di dieci sensi": a threshold, not the most
    if not dialect_forms and lexicon is not None:
        dialect_forms = dialect_words(question, [r for r in resources if r in ("sicilian", "parmigiano")], lexicon,
                                       dialect_lexicons or {})
    kind = None if asks_type else "Hypolemma" if re.search(r"hypolemm|ipolemm|particip", text) else "Lemma" if re.search(
        r"\blemm", text) else None  # "lemma o ipolemma?": either kind, the type shown
    if stop_forms and lexicon is not None:
        named = affix_values | glue | cue_words | {e.lower() for e in emotions}  # "joy (Gioia)" glosses an emotion
        forms = [f for f in content_words(question, text, cues, lexicon, _SKIP) if f.lower() not in named]
    multiword = multiwords(question, cues, lexicon) if lexicon is not None else []
    if multiword:  # "l'espressione polirematica fico d'India": the whole expression, before its parts
        forms = multiword + [f for f in forms if not any(f.lower() in m.lower().split() for m in multiword)]
    if relations and not forms:  # "i sinonimi di paura … all'emozione Paura": the emotion's word is asked about too
        forms = [e.lower() for e in emotions if re.search(r"(?:\bdi|\bof) [«'\"]?(?:" + "|".join(  # "synonyms of fear"
            map(re.escape, [e.lower()] + cues["emotions"][e])) + r")\b", text)]
    asked = ([] if _hits(text, {"elita": cues["resources"]["elita"]}) else asked_words(  # "iperonimi di rabbia",
        text, emotions, relations, resources, cues)) or subject_words(text, emotions)  # "amore è associato a …?"
    if asked:  # "cosa vuol dire tristezza": the word is asked about, no emotion
        forms = forms or asked
        emotions = tuple(e for e in emotions if e.lower() not in asked)
        resources = [r for r in resources if r != "elita" or emotions]
    listed = listed_forms(question, lexicon, cues) if lexicon is not None else []
    if listed:  # "sorella, cavallo, neve, gatto e libro": the words listed (no emotions, though some name one)
        forms = listed + [f for f in forms if _quoted(question, f) and f not in listed]
        emotions = tuple(e for e in emotions if e.lower() not in {w.lower() for w in listed})
        resources = [r for r in resources if r != "elita" or emotions or _has(text, "elita")]
    if "sentix" in resources and (_has(text, "elita") or emotions) and not _has(text, "sentix") \
            and "sentix" not in lacking:
        resources.remove("sentix")  # "polarity" of a question that names ELITA or an emotion, not Sentix: ELITA's own
    if dialect_forms and "complit" in resources and not relations and \
            not any(_has(text, c) for c in ("compl-it", "complit", "definizion", "definition")):
        resources.remove("complit")  # "che cosa vuol dire il parmigiano rezdôra": its Italian word, not a sense
    if iris:  # "la forma scritta del lemma http://…": the IRI is what is asked about, not an unquoted word
        forms = [f for f in forms if _quoted(question, f)]
    if "ask" in operators:  # "il lemmario contiene la parola «smartphone»?": a word no bank has, asked about
        forms += [q for q in re.findall(r"\b(?:parola|lemma|word|termine|forma) [«\"“]([^»\"”\s]+)[»\"”]", question)
                  if q.lower() not in {f.lower() for f in forms} | affix_values | {d.lower() for _, d in dialect_forms}]
    notes: list[str] = []
    if any(_has(text, c) for c in cues["notes"]):
        notes = [q for q in analysis.entities if q.lower().startswith("usage:") and not q.rstrip().endswith(
            ("…", "..."))] or [""]  # «Usage: …» names no note text: any note
        forms = [f for f in forms if not f.lower().startswith("usage:")]
    return Signals(forms=tuple(dict.fromkeys(forms)), dialect_forms=tuple(dialect_forms), pos=pos,
                   emotions=emotions, polarity=polarity, resources=tuple(resources),
                   relations=relations, operators=frozenset(operators), numbers=tuple(_numbers(text)), letters=next((
                       float(m) for m in re.findall(r"(\d+) (?:lettere|letters|caratteri|characters)\b", text)), None),
                   single_word=any(_has(text, c) for c in cues["single_word"]),
                   inclusive=bool(comparison) and any(_has(text, c) for c in INCLUSIVE), bounds=number_bounds(text),
                   between=bool(_BETWEEN.search(text)),
                   affixes=tuple(affixes), comparison=comparison, notes=tuple(notes), lemma_kind=kind,
                   any_depth=any(_has(text, c) for c in cues["depth"]),
                   length=any(_has(unsized, c) for c in cues["length"]) and (not (  # "the longest": an order, no
                       "top" in operators and _hits(text, {"length": cues["computed"]["length"]}))  # filter, but
                       or bool(_BETWEEN.search(text))),  # "lunghi da 4 a 6 lettere: per lunghezza, il più …": both
                   examples=any(_has(text, c) for c in cues["examples"]), catalogs=_hits(text, cues["catalogs"]),
                   values=any(_has(text, c) for c in cues["values"]) or bool(comparison and re.search(
                       r"polarit\w* (?:sentix |elita )?(?:oltre|sopra|sotto|above|below|over|under) -?\d", text)),
                   computed=_hits(text, cues["computed"]) + ((f"ending{sized}",) if sized else ())
                   + compared_values(text) + compared_counts(text),  # "ELITA più negativo di Sentix", "più
                   # traduzioni siciliane che parmigiane": one value (one per-word count) against the other
                   optional=any(_has(text, c) for c in cues["optional"]),
                   keys=_named_keys(text, cues["keys"]),
                   exactly=any(_has(text, c) for c in ("esattamente", "exactly", "pari a", "equal to", "uguale")) or bool(
                       re.search(_ONE, text)),
                   definition=tuple(definition), authentic=any(_has(text, c) for c in cues["authentic"]),
                   same_form=any(_has(text, c) for c in cues["same_form"]),
                   quoted=any(_quoted(question, f) for f in forms), iris=iris,
                   bank_link=any(_has(text, c) for c in cues["bank_link"]),
                   only=any(_has(text, c, whole=True) for c in cues["only"]), asks_type=asks_type,
                   any_case=any(_has(text, c) for c in cues["any_case"]),
                   without=without, lacking=lacking, without_pos=_negated_pos(text, cues["pos"], pos),
                   either=disjoined(bare, emotions, cues["emotions"]),
                   concat=any(_has(text, c) for c in cues["concat"]), defined=asks_defined(text),
                   asks=_hits(text, cues["asks"]),
                   several_counts=len(re.findall(r"\b(?:quant[iea]|how many)\b", text)) > 1,
                   every_pos=bool(re.search(r"\bsia (?:come )?(?:un |una )?\w+ (?:che|sia|e) |\bboth (?:as )?(?:an? )?\w+ "
                                            r"and |\b(?:anche|also) (?:come |as )?(?:un |una |an? )?(?:forma |lemma |form )?(?:nom|verb|aggett|"
                                            r"avverb|noun|adject|adverb)", text)))


def signals_to_json(signals) -> dict[str, Any]:
    data = asdict(signals)
    data["operators"] = sorted(signals.operators)
    return data


def signals_from_json(data: dict[str, Any]) -> Signals:
    pairs = ("dialect_forms", "affixes", "definition")
    return Signals(**{k: frozenset(v) if k == "operators" else tuple(tuple(x) for x in v) if k in pairs
                      else tuple(v) if isinstance(v, list) else v for k, v in data.items()})
