"""CompL-it stand-in from Italian MultiWordNet: words, senses, definitions, semantic relations.

Its triples live in a named graph named by the CompL-it SERVICE IRI, which the embedded endpoint
hides from the default graph, so they are reached only through SERVICE, as on the live side.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import pyoxigraph as ox

from nl2sparql.kb.build.lemmabank import LemmaIndex
from nl2sparql.kb.build.rdf import TYPE, iri, quad, text
from nl2sparql.kb.build.wordnet import POS, LemmaSense, Relation, Synset
from nl2sparql.kb.vocab import COMPLIT_SERVICE, LEXINFO, MINTED, ONTOLEX, RDFS, SKOS

GRAPH = ox.NamedNode(COMPLIT_SERVICE)
MAX_SYNONYM_SET = 12

# MultiWordNet says "A @ B" for "A's hypernym is B". CompL-it states it the other way round:
# the subject of lexinfo:hypernym is the broader sense. "A %p B" means "B is a part of A"; in
# lexinfo:partMeronym the part is the subject and the whole the object.
_RELATIONS: dict[str, list[tuple[str, bool]]] = {
    "@": [("hypernym", True), ("hyponym", False)],
    "%p": [("partMeronym", True)],
    "%m": [("partMeronym", True)],
    "%s": [("partMeronym", True)],
    "&": [("approximateSynonym", False)],
    "!": [("antonym", False)],
}


@dataclass
class CompLitCounts:
    words: int = 0
    senses: int = 0
    definitions: int = 0
    relations: int = 0
    quads: list[ox.Quad] = field(default_factory=list, repr=False)


def complit(synsets: dict[str, Synset], senses: list[LemmaSense], relations: list[Relation],
            index: LemmaIndex) -> CompLitCounts:
    counts = CompLitCounts()
    emit = counts.quads.append
    lexinfo = {name: iri(LEXINFO + name) for name in (*POS.values(), "partOfSpeech")}
    for name in POS.values():
        emit(quad(lexinfo[name], iri(RDFS + "label"), text(name), GRAPH))
    words: dict[tuple[str, str], ox.NamedNode] = {}
    by_synset: dict[str, list[ox.NamedNode]] = defaultdict(list)
    for item in senses:
        key = (item.lemma, item.pos)
        word = words.get(key)
        if word is None:
            word = words[key] = _word(counts, key, lexinfo, index)
        counts.senses += 1
        sense = iri(f"{MINTED}complit/sense/{counts.senses}")
        by_synset[item.synset].append(sense)
        emit(quad(word, iri(ONTOLEX + "sense"), sense, GRAPH))
        emit(quad(sense, TYPE, iri(ONTOLEX + "LexicalSense"), GRAPH))
        emit(quad(sense, iri(ONTOLEX + "isLexicalizedSenseOf"),
                  iri(f"{MINTED}complit/concept/{item.synset.replace('#', '-')}"), GRAPH))
        synset = synsets.get(item.synset)
        if synset and synset.definition:
            emit(quad(sense, iri(SKOS + "definition"), text(synset.definition, "it"), GRAPH))
            counts.definitions += 1
        for example in synset.examples if synset else ():
            emit(quad(sense, iri(SKOS + "example"), text(example, "it"), GRAPH))
    _relations(counts, by_synset, relations)
    return counts


def _word(counts: CompLitCounts, key: tuple[str, str], lexinfo: dict, index: LemmaIndex) -> ox.NamedNode:
    lemma, pos = key
    counts.words += 1
    word = iri(f"{MINTED}complit/word/{counts.words}")
    form = iri(f"{MINTED}complit/form/{counts.words}")
    counts.quads += [
        quad(word, TYPE, iri(ONTOLEX + "Word"), GRAPH),
        quad(word, lexinfo["partOfSpeech"], lexinfo[POS[pos]], GRAPH),
        quad(word, iri(ONTOLEX + "canonicalForm"), form, GRAPH),
        quad(form, TYPE, iri(ONTOLEX + "Form"), GRAPH),
        quad(form, iri(ONTOLEX + "writtenRep"), text(lemma, "it"), GRAPH),
        # CompL-it words share IRIs with LiITA lexical entries: the LiITA side links them to lemmas.
        quad(word, TYPE, iri(ONTOLEX + "LexicalEntry")),
        quad(word, iri(ONTOLEX + "canonicalForm"), iri(index.ensure(lemma, POS[pos]))),
    ]
    return word


def _relations(counts: CompLitCounts, by_synset: dict[str, list[ox.NamedNode]],
               relations: list[Relation]) -> None:
    emit = counts.quads.append
    for members in by_synset.values():
        if 1 < len(members) <= MAX_SYNONYM_SET:
            for a in members:
                for b in members:
                    if a != b:
                        emit(quad(a, iri(LEXINFO + "synonym"), b, GRAPH))
                        counts.relations += 1
    for relation in relations:
        sources, targets = by_synset.get(relation.source), by_synset.get(relation.target)
        if not sources or not targets:
            continue
        for name, flipped in _RELATIONS[relation.kind]:
            prop = iri(LEXINFO + name)
            for s in sources:
                for t in targets:
                    emit(quad(t, prop, s, GRAPH) if flipped else quad(s, prop, t, GRAPH))
                    counts.relations += 1
