"""Values the generator samples, read from the knowledge base once: words with their part of speech, emotions,
polarity, translations and CompL-it senses, CompL-it relation pairs, and dialect lemmas."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kb.endpoint import Endpoint, EndpointConfig
from nl2sparql.kb.vocab import LILA, MARL, PREFIXES

# A word a person would type in a question: lower-case letters, at least three of them.
_PLAIN = re.compile(r"^[a-zàèéìíòóùú]{3,}$")
CORE_POS = ("noun", "verb", "adjective", "adverb")
# Pools of (word, other word) per relation; each pair of names shares one query, read in both directions.
RELATIONS = {
    "hypernym": "?sense lexinfo:hypernym ?otherSense .",   # word: the broader sense's word; other: a hyponym
    "synonym": "?sense lexinfo:synonym ?otherSense .",
    "antonym": "?sense lexinfo:antonym ?otherSense .",
    "part": "?sense lexinfo:partMeronym ?otherSense .",    # word: the part; other: the whole
}
REVERSED = {"hyponym": "hypernym", "whole": "part"}  # hyponym: the narrower word, other its hypernym
_COMPLIT = "SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/>"
QUERIES = {
    "lemma": "SELECT ?lemma ?italianWord ?pos WHERE { GRAPH <http://liita.it/data> { ?lemma a lila:Lemma ; "
             "ontolex:writtenRep ?italianWord ; lila:hasPOS ?pos } }",
    "elita": "SELECT ?lemma ?emotionLabel WHERE { GRAPH <http://w3id.org/elita> { ?elitaEntry ontolex:canonicalForm "
             "?lemma ; elita:HasEmotion ?emotion . ?emotion rdfs:label ?emotionLabel } }",
    "sentix": "SELECT ?lemma ?polarityValue ?polarity WHERE { ?sentixEntry ontolex:canonicalForm ?lemma ; "
              "marl:hasPolarityValue ?polarityValue ; marl:hasPolarity ?polarity . }",
    "sicilian": "SELECT ?lemma ?dialectWord WHERE { ?italianEntry ontolex:canonicalForm ?lemma ; "
                "vartrans:translatableAs ?dialectEntry . "
                "<http://liita.it/data/id/LexicalReources/DialettoSiciliano/Lexicon> lime:entry ?italianEntry . ?dialectEntry ontolex:canonicalForm [ ontolex:writtenRep ?dialectWord ] }",
    "parmigiano": "SELECT ?lemma ?dialectWord WHERE { ?italianEntry ontolex:canonicalForm ?lemma ; "
                  "vartrans:translatableAs ?dialectEntry . "
                  "<http://liita.it/data/id/LexicalReources/DialettoParmigiano/Lexicon> lime:entry ?italianEntry . ?dialectEntry ontolex:canonicalForm [ ontolex:writtenRep ?dialectWord ] }",
    "complit": f"SELECT DISTINCT ?lemma ?pos WHERE {{ {_COMPLIT} {{ ?word a ontolex:Word ; lexinfo:partOfSpeech "
               "[ rdfs:label ?pos ] ; ontolex:sense ?sense . ?sense skos:definition ?definition } "
               "?word ontolex:canonicalForm ?lemma }",
    "dialect_lemma": "SELECT ?bank ?dialectWord ?pos WHERE { ?dialectLemma dcterms:isPartOf ?bank ; "
                     "ontolex:writtenRep ?dialectWord ; lila:hasPOS ?pos . "
                     "FILTER(?bank IN (<http://liita.it/data/id/DialettoSiciliano/lemma/LemmaBank>, "
                     "<http://liita.it/data/id/DialettoParmigiano/lemma/LemmaBank>)) }",
}


def relation_query(relation: str) -> str:
    """Pairs whose first word has a CompL-it definition: questions about words a dictionary explains (and a third
    of the time of reading every pair)."""
    return (f"SELECT DISTINCT ?writtenRep ?otherRep WHERE {{ {_COMPLIT} {{ ?definedSense skos:definition ?definition . "
            "?word ontolex:sense ?definedSense ; ontolex:canonicalForm [ ontolex:writtenRep ?writtenRep ] ; "
            f"ontolex:sense ?sense . {RELATIONS[relation]} ?otherEntry ontolex:sense ?otherSense ; "
            "ontolex:canonicalForm [ ontolex:writtenRep ?otherRep ] } }")


@dataclass
class WordFacts:
    """What the knowledge base says about one lemma-bank lemma."""

    word: str
    pos: set[str] = field(default_factory=set)
    emotions: set[str] = field(default_factory=set)
    polarity: float | None = None
    polarity_class: str | None = None
    sicilian: set[str] = field(default_factory=set)
    parmigiano: set[str] = field(default_factory=set)
    complit_pos: set[str] = field(default_factory=set)

    def has(self, resource: str) -> bool:
        return bool({"elita": self.emotions, "sentix": self.polarity is not None, "sicilian": self.sicilian,
                     "parmigiano": self.parmigiano, "complit": self.complit_pos}[resource])


@dataclass
class Pools:
    """Sorted, deterministic pools: the same store gives the same pools, so a seed gives the same pairs."""

    words: dict[str, WordFacts]
    relations: dict[str, list[tuple[str, str]]]
    dialect_lemmas: dict[str, list[tuple[str, str]]]

    def lemmas_with(self, resources: tuple[str, ...]) -> list[str]:
        return [lemma for lemma, facts in self.words.items()
                if _PLAIN.match(facts.word) and all(facts.has(r) for r in resources)]

    def plain_words(self) -> list[str]:
        return sorted({f.word for f in self.words.values() if _PLAIN.match(f.word) and f.pos})


def run(endpoint: Endpoint, body: str) -> list[tuple[str | None, ...]]:
    query = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items()) + body
    result = endpoint.execute(query)
    if result.truncated:
        raise Nl2SparqlError("sampling the knowledge base was cut short (timeout or row cap): raise the limits")
    return sorted(result.values(), key=lambda row: tuple(v or "" for v in row))


_LOADED: dict[str, Pools] = {}  # by store fingerprint: the same store always gives the same pools


def load_pools(endpoint: Endpoint) -> Pools:
    """The pools of the store behind the endpoint, read once per process (about 25 s on 2 cores)."""
    fingerprint = endpoint.fingerprint()
    if fingerprint not in _LOADED:
        _LOADED[fingerprint] = _read_pools(endpoint)
    return _LOADED[fingerprint]


def open_pools(store_path: Path | None = None) -> Pools:
    """The pools of an embedded store, read with wide limits: a handful of big queries, not candidates."""
    from nl2sparql.kb.embedded import EmbeddedEndpoint

    config = EndpointConfig(store_path=store_path, timeout_s=300, row_cap=1_000_000, cache_size=0)
    with EmbeddedEndpoint(config) as endpoint:
        return load_pools(endpoint)


def _read_pools(endpoint: Endpoint) -> Pools:
    words: dict[str, WordFacts] = {}
    for lemma, word, pos in run(endpoint, QUERIES["lemma"]):
        words.setdefault(lemma, WordFacts(word)).pos.add(pos.removeprefix(LILA))
    for lemma, label in run(endpoint, QUERIES["elita"]):
        if lemma in words:
            words[lemma].emotions.add(label)
    for lemma, value, polarity in run(endpoint, QUERIES["sentix"]):
        if lemma in words:
            words[lemma].polarity, words[lemma].polarity_class = float(value), polarity.removeprefix(MARL)
    for dialect in ("sicilian", "parmigiano"):
        for lemma, dialect_word in run(endpoint, QUERIES[dialect]):
            if lemma in words:
                getattr(words[lemma], dialect).add(dialect_word)
    for lemma, pos in run(endpoint, QUERIES["complit"]):
        if lemma in words:
            words[lemma].complit_pos.add(pos)
    relations = {name: [(a, b) for a, b in run(endpoint, relation_query(name))
                        if _PLAIN.match(a) and _PLAIN.match(b) and a != b] for name in RELATIONS}
    for name, source in REVERSED.items():
        relations[name] = sorted((b, a) for a, b in relations[source])
    dialect_lemmas: dict[str, list[tuple[str, str]]] = {"sicilian": [], "parmigiano": []}
    for bank, word, pos in run(endpoint, QUERIES["dialect_lemma"]):
        if pos.removeprefix(LILA) in CORE_POS:
            dialect_lemmas["sicilian" if "Siciliano" in bank else "parmigiano"].append((word, pos.removeprefix(LILA)))
    return Pools(words=dict(sorted(words.items())), relations=relations, dialect_lemmas=dialect_lemmas)
