"""Domain lint: each rule fires on the pitfall it names, and gold queries lint clean."""

import pytest

from nl2sparql.data.dataset import PATTERNS, load_dataset
from nl2sparql.kb.lint import lint
from nl2sparql.kb.vocab import PREFIXES as NAMESPACES

P = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in NAMESPACES.items())
COMPLIT = "SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/>"


@pytest.mark.parametrize("rule,query", [
    ("elita-graph", P + "SELECT ?e WHERE { ?e elita:HasEmotion elita:Gioia }"),
    ("elita-graph", P + "SELECT ?l WHERE { ?l lila:hasPOS lila:noun FILTER NOT EXISTS { ?e elita:HasEmotion ?x } }"),
    ("service-scope", P + f"SELECT ?e WHERE {{ {COMPLIT} {{ ?e elita:HasEmotion ?x }} }}"),
    ("service-scope", P + f"SELECT ?t WHERE {{ {COMPLIT} {{ ?e vartrans:translatableAs ?t }} }}"),
    ("service-iri", P + "SELECT ?x WHERE { SERVICE <http://example.org/sparql> { ?x ?p ?o } }"),
    ("service-filter", P + "SELECT ?d WHERE { ?l ontolex:writtenRep ?w . " + COMPLIT
     + " { ?x ontolex:canonicalForm [ ontolex:writtenRep ?y ] ; ontolex:sense [ skos:definition ?d ] "
       "FILTER(STR(?y) = STR(?w)) } }"),
    ("iri-and-literal", P + "SELECT ?w WHERE { ?l ontolex:writtenRep ?w . ?w lila:hasPOS lila:noun }"),
    ("pos-namespace", P + "SELECT ?l WHERE { ?l lila:hasPOS lexinfo:adjective }"),
    ("shared-entry", P + "SELECT ?a ?b WHERE { ?e vartrans:translatableAs ?a . ?e vartrans:translatableAs ?b }"),
    ("prefix", "PREFIX elita: <http://w3id.org/elita/ontology#>\n"
               "SELECT ?e WHERE { GRAPH <http://w3id.org/elita> { ?e elita:HasEmotion ?x } }"),
])
def test_rule_fires_with_an_actionable_message(rule, query):
    findings = lint(query)
    assert rule in {f.rule for f in findings}, findings
    assert all(len(f.message) > 30 for f in findings)


def test_correct_shapes_lint_clean():
    assert lint(P + "SELECT ?e WHERE { GRAPH <http://w3id.org/elita> { ?e elita:HasEmotion elita:Gioia } }") == []
    assert lint(P + "SELECT ?d WHERE { ?l ontolex:writtenRep ?w . " + COMPLIT
                + " { ?x ontolex:canonicalForm [ ontolex:writtenRep ?w ] ; ontolex:sense [ skos:definition ?d ] } }"
                ) == []


def test_gold_queries_lint_clean():
    """Three gold queries per pattern (the full set is 497 queries, ~10 s)."""
    records = load_dataset()
    sample = {r.id: r for p in PATTERNS for r in [r for r in records if p in r.patterns][:3]}
    offenders = {rid: lint(r.sparql) for rid, r in sample.items() if lint(r.sparql)}
    assert offenders == {}
