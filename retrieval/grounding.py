"""Entity grounding: the words a question names, checked against the lemma bank's written forms.

A word is found exactly, then ignoring case, then ignoring accents and apostrophe shapes; failing those,
the closest written forms (rapidfuzz) are offered as suggestions and the word is kept as typed.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterable, Literal

Match = Literal["exact", "case", "accent", "unknown"]
# One row holding every written form: endpoints cap the rows of an answer, not the length of a literal.
LEMMA_FORMS = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>
SELECT (GROUP_CONCAT(DISTINCT ?w; SEPARATOR="\\n") AS ?forms)
WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep ?w } }"""
CLOSE_CUTOFF = 75.0


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

    @property
    def known(self) -> bool:
        return self.form is not None

    def message(self, language: str = "en") -> str | None:
        """A line for the user when the word is not as typed in the bank; None when it is."""
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
        return {"typed": self.typed, "form": self.form, "match": self.match, "suggestions": list(self.suggestions)}


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
        word = word.strip()
        if word in self.forms:
            return Grounding(word, word, "exact")
        for index, key, match in ((self._lower, word.lower(), "case"), (self._folded, fold(word), "accent")):
            found = index.get(key)
            if found:
                return Grounding(word, _prefer(found, word), match)
        return Grounding(word, None, "unknown", self.suggest(word, limit))

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


def ground_words(lexicon: Lexicon, words: Iterable[str]) -> list[Grounding]:
    return [lexicon.ground(w) for w in words if w.strip()]
