"""Query limits in the guard (length, triple patterns, depth) and the LRU result cache of the endpoints."""

import pytest
from conftest import PREFIXES

from nl2sparql.errors import QueryRejected
from nl2sparql.kb.cache import ResultCache, normalise
from nl2sparql.kb.embedded import EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.kb.guard import check
from nl2sparql.kb.limits import QueryLimits
from nl2sparql.kb.results import QueryResult

CASA = PREFIXES + 'SELECT ?l WHERE { GRAPH <http://liita.it/data> { ?l ontolex:writtenRep "casa"@it } }'


def chain(n: int) -> str:
    return PREFIXES + "SELECT * WHERE { " + " ".join(f"?x{i} ontolex:sense ?x{i + 1} ." for i in range(n)) + " }"


def nested(depth: int) -> str:
    return PREFIXES + "SELECT * WHERE " + "{ " * depth + "?l ontolex:sense ?s " + "} " * depth


def test_triple_patterns_and_depth_are_counted_everywhere_in_the_query():
    query = PREFIXES + """SELECT ?l WHERE { ?l ontolex:writtenRep ?w ; ontolex:sense ?s , ?t .
      OPTIONAL { ?s skos:definition ?d } FILTER NOT EXISTS { ?l ontolex:sense ?u }
      SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/> { ?a ontolex:sense ?b . ?b skos:definition ?c } }"""
    checked = check(query)
    assert checked.triple_patterns == 7 and checked.depth == 2


def test_each_limit_refuses_with_one_line():
    limits = QueryLimits(max_chars=2_000, max_triple_patterns=5, max_depth=3)
    with pytest.raises(QueryRejected, match=r"^query too long: 2,\d{3} characters, the limit is 2,000$"):
        check(CASA + " " * 1500 + "#" * 600, limits)
    with pytest.raises(QueryRejected, match=r"^query too large: 6 triple patterns, the limit is 5$"):
        check(chain(6), limits)
    with pytest.raises(QueryRejected, match=r"^query nested too deep: 4 levels of \{ \}, the limit is 3$"):
        check(nested(4), limits)
    assert check(chain(5), limits).triple_patterns == 5 and check(nested(3), limits).depth == 3


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("NL2SPARQL_MAX_TRIPLE_PATTERNS", "2")
    assert QueryLimits.from_env().max_triple_patterns == 2
    monkeypatch.setenv("NL2SPARQL_MAX_QUERY_DEPTH", "deep")
    with pytest.raises(QueryRejected, match="NL2SPARQL_MAX_QUERY_DEPTH must be a positive whole number"):
        QueryLimits.from_env()


def test_endpoint_applies_its_limits(kb_store):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store, limits=QueryLimits(max_triple_patterns=3))) as ep:
        with pytest.raises(QueryRejected, match="4 triple patterns"):
            ep.execute(chain(4))


def test_normalise_ignores_layout_and_comments_but_not_strings():
    a = normalise('SELECT ?x   WHERE {\n  ?x ?p "a  b" # note\n}')
    assert a == normalise('SELECT ?x WHERE { ?x ?p "a  b" }')
    assert a != normalise('SELECT ?x WHERE { ?x ?p "a b" }')


def test_cache_hit_skips_execution(kb_store, monkeypatch):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store)) as ep:
        first = ep.execute(CASA)
        assert len(first) == 1

        def no_worker():
            raise AssertionError("the store was asked again")

        monkeypatch.setattr(ep, "_ensure_worker", no_worker)
        again = ep.execute(CASA.replace(" WHERE {", "\nWHERE   {  # same query, other layout\n"))
        assert again == first and ep._cache.hits == 1
        with pytest.raises(AssertionError, match="asked again"):
            ep.execute(CASA.replace('"casa"', '"cane"'))


def test_cache_is_lru_and_keeps_no_incomplete_result():
    cache = ResultCache(size=2)
    for name in ("a", "b", "c"):
        cache.put("fp", f"ASK {{ <urn:{name}> ?p ?o }}", QueryResult((), boolean=True))
    assert cache.get("fp", "ASK { <urn:a> ?p ?o }") is None
    assert cache.get("fp", "ASK { <urn:c> ?p ?o }") is not None
    assert cache.get("other", "ASK { <urn:c> ?p ?o }") is None  # another store's data is another key
    cache.put("fp", "ASK { <urn:d> ?p ?o }", QueryResult((), timed_out=True, truncated=True))
    assert cache.get("fp", "ASK { <urn:d> ?p ?o }") is None
