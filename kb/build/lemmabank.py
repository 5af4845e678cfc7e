"""The Italian lemma bank: real LiITA lemmas first, further lemmas minted in our own id space."""

from __future__ import annotations

import pyoxigraph as ox

from nl2sparql.kb.build.rdf import TYPE, iri, quad, text
from nl2sparql.kb.build.sources import ItalianLemma
from nl2sparql.kb.vocab import LILA, LIITA_GRAPH, LIITA_HYPOLEMMA, MINTED_LEMMA, ONTOLEX, UPOS_TO_LILA

GRAPH = ox.NamedNode(LIITA_GRAPH)
WRITTEN_REP = ox.NamedNode(ONTOLEX + "writtenRep")
HAS_POS = ox.NamedNode(LILA + "hasPOS")


class LemmaIndex:
    """Finds the lemma-bank IRI of (written form, lila POS) and mints one when LiITA has none here."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], str] = {}
        self._by_form: dict[str, str] = {}
        self.quads: list[ox.Quad] = []
        self.real = 0
        self.minted = 0
        self.per_pos: dict[str, int] = {}

    def add_real(self, lemmas: list[ItalianLemma]) -> None:
        for lemma in lemmas:
            pos = UPOS_TO_LILA.get(lemma.upos, "other")
            kind = "Hypolemma" if lemma.iri.startswith(LIITA_HYPOLEMMA) else "Lemma"
            self._add(lemma.iri, lemma.written, pos, kind)
            self.real += 1

    def find(self, written: str, pos: str) -> str | None:
        return self._by_key.get((written.lower(), pos))

    def find_any(self, written: str) -> str | None:
        return self._by_form.get(written.lower())

    def ensure(self, written: str, pos: str) -> str:
        """The IRI for (written, pos), minting `http://nl2sparql.invalid/liita/lemma/N` if needed."""
        found = self.find(written, pos)
        if found:
            return found
        self.minted += 1
        minted = f"{MINTED_LEMMA}{self.minted}"
        self._add(minted, written, pos, "Lemma")
        return minted

    def _add(self, lemma_iri: str, written: str, pos: str, kind: str) -> None:
        node = iri(lemma_iri)
        # Hypolemmas carry POS and form but no `a lila:Lemma`, as on the live endpoint.
        self.quads += [
            quad(node, TYPE, iri(LILA + kind), GRAPH),
            quad(node, WRITTEN_REP, text(written, "it"), GRAPH),
            quad(node, HAS_POS, iri(LILA + pos), GRAPH),
        ]
        self._by_key.setdefault((written.lower(), pos), lemma_iri)
        self._by_form.setdefault(written.lower(), lemma_iri)
        self.per_pos[pos] = self.per_pos.get(pos, 0) + 1
