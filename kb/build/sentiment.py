"""Sentix polarity entries (real data) and the ELITA emotion graph (our marked sample)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from nl2sparql.kb.build.lemmabank import LemmaIndex
from nl2sparql.kb.build.rdf import CANONICAL, TYPE, decimal, iri, quad, sample_marker, text
from nl2sparql.kb.build.sources import EmotionEntry, Polarity
from nl2sparql.kb.vocab import ELITA, ELITA_GRAPH, MARL, MINTED, ONTOLEX, RDFS, UPOS_TO_LILA

EMOTIONS = ("Gioia", "Tristezza", "Rabbia", "Paura", "Disgusto", "Sorpresa", "Fiducia", "Aspettativa", "Amore")
LABEL = ox.NamedNode(RDFS + "label")
POLARITY_VALUE = ox.NamedNode(MARL + "hasPolarityValue")


@dataclass
class SentimentCounts:
    entries: int = 0
    skipped: int = 0
    quads: list[ox.Quad] = field(default_factory=list, repr=False)


def polarity_class(value: float) -> ox.NamedNode:
    if value > 0:
        return iri(MARL + "Positive")
    if value < 0:
        return iri(MARL + "Negative")
    return iri(MARL + "Neutral")


def sentix(polarities: list[Polarity], index: LemmaIndex, pos_hint: dict[str, str]) -> SentimentCounts:
    """One lexical entry per Sentix lemma we can place in the lemma bank (by form, else by wordnet POS)."""
    counts = SentimentCounts()
    for number, item in enumerate(polarities, start=1):
        lemma = index.find_any(item.lemma)
        if lemma is None and item.lemma in pos_hint:
            lemma = index.ensure(item.lemma, pos_hint[item.lemma])
        if lemma is None:
            counts.skipped += 1
            continue
        node = iri(f"{MINTED}sentix/entry/{number}")
        counts.quads += [
            quad(node, TYPE, iri(ONTOLEX + "LexicalEntry")),
            quad(node, CANONICAL, iri(lemma)),
            quad(node, POLARITY_VALUE, decimal(item.value)),
            quad(node, iri(MARL + "hasPolarity"), polarity_class(item.value)),
        ]
        counts.entries += 1
    return counts


def elita(entries: list[EmotionEntry], index: LemmaIndex) -> SentimentCounts:
    """The ELITA graph: the emotions, and entries pointing into the lemma bank (sample data)."""
    graph = iri(ELITA_GRAPH)
    counts = SentimentCounts()
    for name in EMOTIONS:
        counts.quads += [
            quad(iri(ELITA + name), TYPE, iri(ELITA + "Emotion"), graph),
            quad(iri(ELITA + name), LABEL, text(name), graph),
        ]
    for number, entry in enumerate(entries, start=1):
        unknown = [e for e in entry.emotions if e not in EMOTIONS]
        if unknown:
            raise ValueError(f"ELITA sample row {number + 1}: unknown emotion {unknown[0]!r}")
        node = iri(f"{MINTED}elita/entry/{number}")
        lemma = index.ensure(entry.lemma, UPOS_TO_LILA.get(entry.upos, "other"))
        counts.quads += [
            quad(node, TYPE, iri(ONTOLEX + "LexicalEntry"), graph),
            quad(node, LABEL, text(entry.lemma), graph),
            quad(node, CANONICAL, iri(lemma), graph),
            quad(node, POLARITY_VALUE, decimal(entry.polarity), graph),
            # The live ELITA uses marl:Polarity as a property (SCHEMA.md); we keep that quirk.
            quad(node, iri(MARL + "Polarity"), polarity_class(entry.polarity), graph),
            sample_marker(node, graph),
        ]
        counts.quads += [quad(node, iri(ELITA + "HasEmotion"), iri(ELITA + e), graph) for e in entry.emotions]
        counts.entries += 1
    return counts
