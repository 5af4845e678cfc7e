"""Entity grounding: the words a question names, checked against the lemma bank's written forms.

A word is found exactly, then ignoring case, then ignoring accents and apostrophe shapes; failing those,
the closest written forms (rapidfuzz) are offered as suggestions and the word is kept as typed. A word
the Italian bank lacks may be a dialect word ("rezdôra", "picciottu"): the Parmigiano and Sicilian
lemma banks are checked next, and generation is told the word's dialect and language tag.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Literal

Match = Literal["exact", "case", "accent", "unknown"]
# One row holding every written form: endpoints cap the rows of an answer, not the length of a literal.
LEMMA_FORMS = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>
SELECT (GROUP_CONCAT(DISTINCT ?w; SEPARATOR="\\n") AS ?forms)
WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep ?w } }"""
# The dialect lemma banks are outside the lemma graph; their forms carry the dialect's language tag.
DIALECT_FORMS = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>
SELECT ?tag (GROUP_CONCAT(DISTINCT ?w; SEPARATOR="\\n") AS ?forms)
WHERE { ?lemma ontolex:writtenRep ?w BIND(LANG(?w) AS ?tag) FILTER(?tag IN ("roa", "scn")) } GROUP BY ?tag"""
DIALECT_TAGS = {"parmigiano": "roa", "sicilian": "scn"}
DIALECT_NAMES = {"parmigiano": ("Parmigiano", "parmigiano"), "sicilian": ("Sicilian", "siciliano")}
CLOSE_CUTOFF = 75.0
_WORD = re.compile(r"[^\W\d_][\w'’-]*[^\W_]")


def fold(word: str) -> str:
    """Lower case, no accents, one apostrophe: 'Città' and 'citta', 'l’acqua' and "l'acqua" fold alike."""
    decomposed = unicodedata.normalize("NFD", word.strip().lower().replace("’", "'").replace("`", "'"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class Grounding:
    """What the lemma bank says about one word of the question."""

    typed: str
    form: str | None  # the written form generation is given; None when the bank lacks the word
    match: Match
    suggestions: tuple[str, ...] = ()
    dialect: str | None = None  # set when the word is a dialect form, not an Italian lemma

    @property
    def known(self) -> bool:
        return self.form is not None

    @property
    def literal(self) -> str:
        """How a query writes the word when it is a dialect form: "rezdôra"@roa."""
        return f'"{self.form}"@{DIALECT_TAGS[self.dialect]}' if self.dialect and self.form else ""

    def message(self, language: str = "en") -> str | None:
        """A line for the user when the word is not as typed in the bank; None when it is."""
        if self.dialect:
            english, italian = DIALECT_NAMES[self.dialect]
            if language == "it":
                return f"'{self.typed}' è una parola del lessico {italian}" + (
                    "" if self.match == "exact" else f" ('{self.form}')")
            return f"'{self.typed}' is a {english} word" + ("" if self.match == "exact" else f" ('{self.form}')")
        if self.match == "exact":
            return None
        if self.known:
            if language == "it":
                return f"'{self.typed}' è nel lemmario come '{self.form}'"
            return f"'{self.typed}' is in the lemma bank as '{self.form}'"
        offer = " o ".join(f"'{s}'" for s in self.suggestions) if language == "it" else \
            " or ".join(f"'{s}'" for s in self.suggestions)
        if language == "it":
            return f"'{self.typed}' non è nel lemmario" + (f"; forse {offer}?" if offer else "")
        return f"'{self.typed}' is not in the lemma bank" + (f"; did you mean {offer}?" if offer else "")

    def to_json(self) -> dict:
        return {"typed": self.typed, "form": self.form, "match": self.match, "suggestions": list(self.suggestions),
                "dialect": self.dialect}


class Lexicon:
    """The written forms of the lemma bank, indexed for exact, folded and close look-ups."""

    def __init__(self, forms: Iterable[str]) -> None:
        self.forms = frozenset(f for f in forms if f)
        self._lower: dict[str, list[str]] = {}
        self._folded: dict[str, list[str]] = {}
        for form in sorted(self.forms):
            self._lower.setdefault(form.lower(), []).append(form)
            self._folded.setdefault(fold(form), []).append(form)
        self._keys = list(self._folded)

    def __len__(self) -> int:
        return len(self.forms)

    @classmethod
    def from_endpoint(cls, endpoint) -> Lexicon:
        """Every written form in the lemma graph (about 47,000 on LiITA; a quarter of a second embedded)."""
        result = endpoint.execute(LEMMA_FORMS)
        cell = result.rows[0][0] if result.rows and result.rows[0] else None
        return cls(cell.value.split("\n") if cell is not None else ())

    def ground(self, word: str, limit: int = 3) -> Grounding:
        """The word's written form in the bank; for a word the bank lacks, the closest forms as suggestions."""
        found = self.lookup(word)
        return found if found.known else Grounding(found.typed, None, "unknown", self.suggest(found.typed, limit))

    def lookup(self, word: str) -> Grounding:
        """The word's written form in the bank (exact, then ignoring case, then accents); no suggestions."""
        word = word.strip()
        if word in self.forms:
            return Grounding(word, word, "exact")
        for index, key, match in ((self._lower, word.lower(), "case"), (self._folded, fold(word), "accent")):
            found = index.get(key)
            if found:
                return Grounding(word, _prefer(found, word), match)
        return Grounding(word, None, "unknown")

    def suggest(self, word: str, limit: int = 3) -> tuple[str, ...]:
        """The closest forms: fewest edits first, then the most letters in common (so a missing double
        consonant, 'gato' → 'gatto', ranks before a changed letter, 'gato' → 'dato')."""
        from rapidfuzz import fuzz, process
        from rapidfuzz.distance import Levenshtein

        key = fold(word)
        hits = process.extract(key, self._keys, scorer=fuzz.ratio, limit=25, score_cutoff=CLOSE_CUTOFF)
        ranked = sorted(hits, key=lambda h: (Levenshtein.distance(key, h[0]), -h[1], abs(len(h[0]) - len(key)), h[0]))
        return tuple(dict.fromkeys(_prefer(self._folded[k], word) for k, _, _ in ranked[:limit]))


def _prefer(forms: list[str], typed: str) -> str:
    """Of several written forms that fold alike, the lower-case one (a common noun) unless the user capitalised."""
    if typed[:1].isupper():
        capital = [f for f in forms if f[:1].isupper()]
        if capital:
            return capital[0]
    lower = [f for f in forms if f == f.lower()]
    return (lower or forms)[0]


def dialect_lexicons(endpoint) -> dict[str, Lexicon]:
    """The written forms of the Parmigiano (@roa) and Sicilian (@scn) lemma banks, one Lexicon each."""
    by_tag = {tag: name for name, tag in DIALECT_TAGS.items()}
    found = {name: Lexicon(()) for name in DIALECT_TAGS}
    for tag, forms in endpoint.execute(DIALECT_FORMS).rows:
        if tag is not None and forms is not None and tag.value in by_tag:
            found[by_tag[tag.value]] = Lexicon(forms.value.split("\n"))
    return found


def ground_words(lexicon: Lexicon, words: Iterable[str], dialects: dict[str, Lexicon] | None = None,
                 named: Iterable[str] = ()) -> list[Grounding]:
    """Each word against the Italian bank; a word it lacks (or has only up to accents) against the dialect
    banks, those the question names first."""
    named = [d for d in named if d in (dialects or {})]
    order = named + [d for d in (dialects or {}) if d not in named]
    grounded = []
    for word in (w for w in words if w.strip()):
        found = lexicon.lookup(word)
        if found.match not in ("exact", "case"):
            for name in order:
                hit = dialects[name].lookup(word)
                if hit.match in ("exact", "case") or (hit.known and not found.known):
                    found = Grounding(hit.typed, hit.form, hit.match, dialect=name)
                    break
        grounded.append(found if found.known else lexicon.ground(word))
    return grounded


def ground_question(question: str, entities: Iterable[str], named_dialects: Iterable[str], lexicon: Lexicon,
                    dialects: dict[str, Lexicon]) -> list[Grounding]:
    """The words a question names, and, when it names a dialect, its unquoted dialect words, each grounded."""
    words, named = list(entities), list(named_dialects)
    if named:
        words += [w for w in spot_dialect_words(question, lexicon, dialects, named) if w not in words]
    return ground_words(lexicon, words, dialects, named) if words else []


def spot_dialect_words(question: str, lexicon: Lexicon, dialects: dict[str, Lexicon], named: Iterable[str]) -> list[str]:
    """Unquoted dialect words of a question that names the dialect ("il parmigiano rezdôra"): words of
    three letters or more that the dialect's bank has and the Italian bank has not."""
    found = []
    for word in _WORD.findall(question):
        if len(word) < 3 or lexicon.lookup(word).match in ("exact", "case"):
            continue
        if any(dialects[d].lookup(word).match in ("exact", "case") for d in named if d in dialects):
            found.append(word)
    return list(dict.fromkeys(found))
