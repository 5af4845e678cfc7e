"""Latency of 20 representative LiITA queries on the embedded store, and the build time.

    python bench/kb.py [--store DIR] [--repeat 5] [--build]

--build rebuilds the store first (into --store) and reports the build time; without it the
build time recorded in the store's manifest is printed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from nl2sparql.kb.build.store import build_store, default_source
from nl2sparql.kb.embedded import EmbeddedEndpoint, read_manifest
from nl2sparql.kb.endpoint import EndpointConfig, default_store_path
from nl2sparql.kb.vocab import PREFIXES

HEAD = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items())
PARM = "<http://liita.it/data/id/LexicalReources/DialettoParmigiano/Lexicon>"
SIC = "<http://liita.it/data/id/LexicalReources/DialettoSiciliano/Lexicon>"
CL = "SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/>"

QUERIES = {
    "lemma lookup": 'SELECT ?lemma ?pos WHERE { ?lemma ontolex:writtenRep "casa"@it ; lila:hasPOS ?pos }',
    "POS filter": "SELECT ?wr WHERE { GRAPH <http://liita.it/data> { ?l a lila:Lemma ; lila:hasPOS lila:adverb ; ontolex:writtenRep ?wr } } LIMIT 50",
    "prefix regex": 'SELECT ?wr WHERE { GRAPH <http://liita.it/data> { ?l lila:hasPOS lila:verb ; ontolex:writtenRep ?wr } FILTER(STRSTARTS(STR(?wr), "ridi")) }',
    "count per POS": "SELECT ?pos (COUNT(?l) AS ?n) WHERE { GRAPH <http://liita.it/data> { ?l a lila:Lemma ; lila:hasPOS ?pos } } GROUP BY ?pos",
    "graphs": "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
    "emotion words": 'SELECT ?wr WHERE { GRAPH <http://w3id.org/elita> { ?e elita:HasEmotion elita:Paura ; ontolex:canonicalForm ?l } ?l ontolex:writtenRep ?wr }',
    "emotion counts": "SELECT ?label (COUNT(?e) AS ?n) WHERE { GRAPH <http://w3id.org/elita> { ?e elita:HasEmotion ?em . ?em rdfs:label ?label } } GROUP BY ?label",
    "emotion of a word": 'SELECT ?label WHERE { ?l ontolex:writtenRep "paura"@it . GRAPH <http://w3id.org/elita> { ?e ontolex:canonicalForm ?l ; elita:HasEmotion ?em . ?em rdfs:label ?label } }',
    "polarity of a word": 'SELECT ?v WHERE { ?l ontolex:writtenRep "felicità"@it . ?e ontolex:canonicalForm ?l ; marl:hasPolarityValue ?v }',
    "negative words": "SELECT ?e ?v WHERE { ?e marl:hasPolarity marl:Negative ; marl:hasPolarityValue ?v } LIMIT 20",
    "Parmigiano of a word": f'SELECT ?pw WHERE {{ ?l ontolex:writtenRep "cane"@it . ?it ontolex:canonicalForm ?l ; vartrans:translatableAs ?pe . {PARM} lime:entry ?it . ?pe ontolex:canonicalForm [ ontolex:writtenRep ?pw ] }}',
    "Sicilian of a word": f'SELECT ?sw WHERE {{ ?l ontolex:writtenRep "casa"@it . ?it ontolex:canonicalForm ?l ; vartrans:translatableAs ?se . {SIC} lime:entry ?it . ?se ontolex:canonicalForm [ ontolex:writtenRep ?sw ] }}',
    "both dialects": f"SELECT ?wr ?pw ?sw WHERE {{ ?pi ontolex:canonicalForm ?l ; vartrans:translatableAs ?pe . {PARM} lime:entry ?pi . ?si ontolex:canonicalForm ?l ; vartrans:translatableAs ?se . {SIC} lime:entry ?si . ?l ontolex:writtenRep ?wr . ?pe ontolex:canonicalForm [ ontolex:writtenRep ?pw ] . ?se ontolex:canonicalForm [ ontolex:writtenRep ?sw ] }} LIMIT 20",
    "emotion + polarity": "SELECT ?wr ?v WHERE { GRAPH <http://w3id.org/elita> { ?ee elita:HasEmotion elita:Gioia ; ontolex:canonicalForm ?l } ?se ontolex:canonicalForm ?l ; marl:hasPolarityValue ?v . ?l ontolex:writtenRep ?wr }",
    "definition": f'SELECT ?def WHERE {{ {CL} {{ ?w ontolex:canonicalForm [ ontolex:writtenRep "cellula"@it ] ; ontolex:sense [ skos:definition ?def ] }} }}',
    "sense count": f'SELECT (COUNT(?s) AS ?n) WHERE {{ {CL} {{ ?w ontolex:canonicalForm [ ontolex:writtenRep "testa"@it ] ; ontolex:sense ?s }} }}',
    "hyponyms": f'SELECT DISTINCT ?hw WHERE {{ {CL} {{ ?w ontolex:canonicalForm [ ontolex:writtenRep "animale"@it ] ; ontolex:sense ?g . ?g lexinfo:hypernym ?h . ?x ontolex:sense ?h ; ontolex:canonicalForm [ ontolex:writtenRep ?hw ] }} }}',
    "meronyms": f'SELECT DISTINCT ?pw WHERE {{ {CL} {{ ?w ontolex:canonicalForm [ ontolex:writtenRep "albero"@it ] ; ontolex:sense ?whole . ?p lexinfo:partMeronym ?whole . ?x ontolex:sense ?p ; ontolex:canonicalForm [ ontolex:writtenRep ?pw ] }} }}',
    "word joined to lemma bank": f'SELECT ?lemma WHERE {{ {CL} {{ ?w ontolex:canonicalForm [ ontolex:writtenRep "cellula"@it ] }} ?w ontolex:canonicalForm ?lemma }}',
    "ASK": 'ASK { ?l ontolex:writtenRep "gatto"@it ; lila:hasPOS lila:noun }',
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=default_store_path())
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build", action="store_true")
    args = parser.parse_args()
    if args.build:
        started = time.perf_counter()
        build_store(default_source(), args.store)
        print(f"build: {time.perf_counter() - started:.1f} s")
    else:
        print(f"build (from the manifest): {read_manifest(args.store)['build_seconds']} s")
    timings: list[float] = []
    with EmbeddedEndpoint(EndpointConfig(store_path=args.store, cache_size=0)) as endpoint:
        endpoint.execute("ASK { ?s ?p ?o }")  # start the worker
        for name, body in QUERIES.items():
            result = endpoint.execute(HEAD + body)
            runs = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                endpoint.execute(HEAD + body)
                runs.append((time.perf_counter() - started) * 1000)
            timings += runs
            size = result.boolean if result.boolean is not None else len(result.rows)
            print(f"{name:<28} {statistics.median(runs):8.1f} ms  rows={size}")
    timings.sort()
    p95 = timings[min(len(timings) - 1, int(round(0.95 * len(timings))) - 1)]
    print(f"queries={len(QUERIES)} runs={len(timings)} p50={statistics.median(timings):.1f} ms p95={p95:.1f} ms")


if __name__ == "__main__":
    main()
