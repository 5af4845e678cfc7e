"""Dialect lexicons, modelled as on the live LiITA (SCHEMA.md): Italian entry → translatableAs → dialect entry.

Parmigiano is real data (the published lemma bank as-is, plus the VLP glossary links); Sicilian is
our marked sample, because the Sicilian resource is not available offline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from nl2sparql.kb.build.lemmabank import HAS_POS, WRITTEN_REP, LemmaIndex
from nl2sparql.kb.build.rdf import CANONICAL, TYPE, iri, quad, sample_marker, text
from nl2sparql.kb.build.sources import DialectLemma, DialectLink, SicilianEntry
from nl2sparql.kb.vocab import (
    DCTERMS, LILA, LIME, MINTED, ONTOLEX, PARMIGIANO_LEXICON, RDFS, SICILIAN_LEMMA_BANK, SICILIAN_LEXICON,
    UPOS_TO_LILA, VARTRANS,
)

PARMIGIANO_LEMMA = "http://liita.it/data/id/DialettoParmigiano/lemma/"
ENTRY = ox.NamedNode(LIME + "entry")
TRANSLATABLE_AS = ox.NamedNode(VARTRANS + "translatableAs")
LEXICAL_ENTRY = ox.NamedNode(ONTOLEX + "LexicalEntry")
IS_PART_OF = ox.NamedNode(DCTERMS + "isPartOf")
COMMENT = ox.NamedNode(RDFS + "comment")


@dataclass
class DialectCounts:
    lemmas: int = 0
    italian_entries: int = 0
    translations: int = 0
    quads: list[ox.Quad] = field(default_factory=list, repr=False)


class _Lexicon:
    """Mints entry IRIs for one dialect lexicon and writes its lime:entry / translatableAs triples."""

    def __init__(self, lexicon_iri: str, slug: str, language: str, counts: DialectCounts) -> None:
        self.node, self.slug, self.counts = iri(lexicon_iri), slug, counts
        self._entries: dict[tuple[str, str], ox.NamedNode] = {}
        counts.quads += [
            quad(self.node, TYPE, iri(LIME + "Lexicon")),
            quad(self.node, iri(LIME + "language"), text(language)),
        ]

    def entry(self, side: str, lemma_iri: str) -> ox.NamedNode:
        key = (side, lemma_iri)
        if key not in self._entries:
            node = iri(f"{MINTED}{self.slug}/entry/{side}/{len(self._entries) + 1}")
            self._entries[key] = node
            self.counts.quads += [
                quad(node, TYPE, LEXICAL_ENTRY),
                quad(node, CANONICAL, iri(lemma_iri)),
                quad(self.node, ENTRY, node),
            ]
            if side == "it":
                self.counts.italian_entries += 1
        return self._entries[key]

    def translate(self, italian_lemma: str, dialect_lemma: str) -> None:
        self.counts.quads.append(
            quad(self.entry("it", italian_lemma), TRANSLATABLE_AS, self.entry("dialect", dialect_lemma))
        )
        self.counts.translations += 1


def parmigiano(ttl: Path, links: list[DialectLink], lemmas: list[DialectLemma], index: LemmaIndex,
               store: ox.Store) -> DialectCounts:
    """Loads the published Parmigiano lemma bank unchanged and links Italian lemmas to it."""
    store.bulk_load(path=str(ttl), format=ox.RdfFormat.TURTLE, to_graph=ox.DefaultGraph())
    counts = DialectCounts(lemmas=len(lemmas))
    by_form: dict[tuple[str, str], str] = {}
    by_written: dict[str, str] = {}
    for lemma in lemmas:
        by_form.setdefault((lemma.written, lemma.upos), PARMIGIANO_LEMMA + lemma.id)
        by_written.setdefault(lemma.written, PARMIGIANO_LEMMA + lemma.id)
    lexicon = _Lexicon(PARMIGIANO_LEXICON, "parmigiano", "roa", counts)
    usage = {PARMIGIANO_LEMMA + lemma.id: lemma.usage for lemma in lemmas if lemma.usage}
    for link in links:
        pos = UPOS_TO_LILA.get(link.upos, "other")
        italian = link.italian_iris[0] if link.italian_iris else index.ensure(link.italian, pos)
        for form in link.dialect_forms:
            dialect = by_form.get((form, link.upos)) or by_written.get(form)
            if dialect:
                lexicon.translate(italian, dialect)
    for lemma_iri, note in usage.items():
        if ("dialect", lemma_iri) in lexicon._entries:
            counts.quads.append(quad(lexicon.entry("dialect", lemma_iri), COMMENT, text(f"Usage: {note}", "it")))
    return counts


def sicilian(entries: list[SicilianEntry], index: LemmaIndex) -> DialectCounts:
    """Our Sicilian sample: minted dialect lemmas, each marked as sample data."""
    counts = DialectCounts(lemmas=len(entries))
    lexicon = _Lexicon(SICILIAN_LEXICON, "sicilian", "scn", counts)
    bank = iri(SICILIAN_LEMMA_BANK)
    for number, entry in enumerate(entries, start=1):
        pos = UPOS_TO_LILA.get(entry.upos, "other")
        node = iri(f"{MINTED}sicilian/lemma/{number}")
        counts.quads += [
            quad(node, TYPE, iri(LILA + "Lemma")),
            quad(node, WRITTEN_REP, text(entry.sicilian, "scn")),
            quad(node, HAS_POS, iri(LILA + pos)),
            quad(node, IS_PART_OF, bank),
            sample_marker(node),
        ]
        for italian in entry.italian:
            lexicon.translate(index.ensure(italian, pos), node.value)
    return counts
