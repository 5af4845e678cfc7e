"""The embedded endpoint: read-only, limits, graph visibility, and SERVICE meaning kept."""

import time
from collections import Counter

import pytest
import pyoxigraph as ox

from conftest import PREFIXES, run
from nl2sparql.errors import QueryRejected, QuerySyntaxError, StoreNotFound
from nl2sparql.kb.embedded import STORE_DIR, EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig, stop_by
from hostile_cases import NOWHERE, UPDATES, fill

COMPLIT = "https://klab.ilc.cnr.it/graphdb-compl-it/"
COUNT_ALL = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"


def test_updates_are_refused_and_the_store_is_unchanged(endpoint, kb_store):
    before = endpoint.execute(COUNT_ALL).values()
    for name, template in UPDATES.items():
        update = fill(template, NOWHERE)
        with pytest.raises(QueryRejected, match="read-only"):
            endpoint.execute(update)
    assert endpoint.execute(COUNT_ALL).values() == before
    assert endpoint.execute("ASK { GRAPH <http://liita.it/data> { ?s ?p ?o } }").boolean is True


def test_row_cap_truncates_with_a_flag(kb_store):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store, row_cap=7)) as capped:
        result = capped.execute("SELECT ?s WHERE { ?s ?p ?o } LIMIT 100")
    assert len(result.rows) == 7 and result.truncated and not result.timed_out


def test_timeout_stops_a_runaway_query_and_the_endpoint_recovers(kb_store):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store, timeout_s=1.0)) as slow:
        result = slow.execute("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }")
        assert result.timed_out and result.truncated and result.rows == ()
        assert result.elapsed_s < 5
        assert slow.execute("ASK { ?s ?p ?o }").boolean is True


def test_a_callers_stop_time_ends_a_query_before_the_endpoints_timeout(kb_store):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store, timeout_s=30.0)) as store:
        started = time.perf_counter()
        with stop_by(started + 1.0):
            result = store.execute("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }")
        assert result.timed_out and time.perf_counter() - started < 4
        with stop_by(time.perf_counter() - 1):  # already past: not even started
            assert store.execute("ASK { ?s ?p ?o }").timed_out
        assert store.execute("ASK { ?s ?p ?o }").boolean is True  # outside: the endpoint's own timeout again


def test_a_stop_inside_another_only_tightens_it(kb_store):
    from nl2sparql.kb.endpoint import time_allowed

    now = time.perf_counter()
    with stop_by(now + 1.0):
        with stop_by(now + 50.0):  # later than the outer stop: the outer one holds
            assert time_allowed(30.0, now) == pytest.approx(1.0)
        with stop_by(now + 0.5):
            assert time_allowed(30.0, now) == pytest.approx(0.5)
        with stop_by(None):
            assert time_allowed(30.0, now) == pytest.approx(1.0)
    assert time_allowed(30.0, now) == 30.0


def test_the_runtime_enumerates_on_two_store_workers_and_closes_its_own(kb_store):
    from nl2sparql.modules.runtime import Runtime

    store = EmbeddedEndpoint(EndpointConfig(store_path=kb_store))
    runtime = Runtime(endpoint=store)
    pool = runtime.enumeration_endpoint
    assert pool.width == 2 and pool.endpoints[0] is store and runtime.enumeration_endpoint is pool
    assert pool.execute("ASK { ?s ?p ?o }").boolean is True
    extra = pool.endpoints[1]
    assert extra.execute("ASK { ?s ?p ?o }").boolean is True and extra._process is not None
    runtime.close()
    assert extra._process is None and store._process is None
    other = object()
    assert Runtime(endpoint=other).enumeration_endpoint is other  # a remote endpoint is asked as it is


def test_malformed_query_is_one_line(endpoint):
    with pytest.raises(QuerySyntaxError) as caught:
        endpoint.execute("SELECT ?x WHERE { ?x ?y }}")
    assert "\n" not in str(caught.value)


def test_missing_store_is_a_clear_error(tmp_path):
    with pytest.raises(StoreNotFound, match="nl2sparql kb build"):
        EmbeddedEndpoint(EndpointConfig(store_path=tmp_path / "nowhere"))


def test_default_graph_is_the_union_of_named_graphs(endpoint):
    outside = run(endpoint, 'SELECT ?e WHERE { ?e a elita:Emotion ; rdfs:label "Gioia" }')
    assert [row[0] for row in outside.values()] == ["http://w3id.org/elita/Gioia"]
    lemma = run(endpoint, 'ASK { ?l a lila:Lemma ; ontolex:writtenRep "abbaiare"@it }')
    assert lemma.boolean is True


def test_complit_is_reachable_only_through_service(endpoint):
    assert run(endpoint, "ASK { ?w a ontolex:Word }").boolean is False
    graphs = {row[0] for row in endpoint.execute("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }").values()}
    assert graphs == {"http://liita.it/data", "http://w3id.org/elita"}
    assert run(endpoint, f"ASK {{ SERVICE <{COMPLIT}> {{ ?w a ontolex:Word }} }}").boolean is True


SERVICE_CASES = {
    "plain": """SELECT ?wr ?definition WHERE { SERVICE <%s> { ?w ontolex:canonicalForm [ ontolex:writtenRep ?wr ] ;
        ontolex:sense [ skos:definition ?definition ] . FILTER(STRSTARTS(?wr, "cell")) } }""",
    "optional inside": """SELECT ?wr ?definition WHERE { SERVICE <%s> { ?w ontolex:canonicalForm [ ontolex:writtenRep ?wr ] ;
        ontolex:sense ?s . OPTIONAL { ?s skos:definition ?definition } FILTER(STRSTARTS(?wr, "gatt")) } }""",
    "group by around": """SELECT ?wr (COUNT(?s) AS ?senses) WHERE { VALUES ?wr { "casa"@it "testa"@it "cane"@it }
        SERVICE <%s> { ?w ontolex:canonicalForm [ ontolex:writtenRep ?wr ] ; ontolex:sense ?s } } GROUP BY ?wr""",
    "optional around": """SELECT ?wr ?w WHERE { VALUES ?wr { "casa"@it "parolainventata"@it }
        OPTIONAL { SERVICE <%s> { ?w ontolex:canonicalForm [ ontolex:writtenRep ?wr ] } } }""",
}


def _direct(kb_store, query: str) -> Counter:
    """The same query run on the store itself, with the SERVICE written as a GRAPH."""
    store = ox.Store.read_only(str(kb_store / STORE_DIR))
    graphs = list(store.named_graphs())
    visible = [g for g in graphs if g.value != COMPLIT]
    rows = store.query(query, default_graph=[ox.DefaultGraph(), *visible], named_graphs=graphs)
    return Counter(tuple(None if s[v] is None else s[v].value for v in rows.variables) for s in rows)


@pytest.mark.parametrize("name", list(SERVICE_CASES))
def test_service_answers_like_the_equivalent_graph_query(endpoint, kb_store, name):
    via_service = Counter(run(endpoint, SERVICE_CASES[name] % COMPLIT).values())
    via_graph = _direct(kb_store, PREFIXES + SERVICE_CASES[name].replace("SERVICE <%s>", f"GRAPH <{COMPLIT}>"))
    assert via_service == via_graph and via_service


def test_optional_service_keeps_rows_without_a_match(endpoint):
    rows = dict(run(endpoint, SERVICE_CASES["optional around"] % COMPLIT).values())
    assert rows["parolainventata"] is None and rows["casa"] is not None


def test_filter_inside_service_does_not_see_outer_variables(endpoint):
    # As on a real SERVICE, ?target is unbound inside the block, so the FILTER removes every row.
    result = run(endpoint, f"""SELECT ?w WHERE {{ VALUES ?target {{ "casa" }}
        SERVICE <{COMPLIT}> {{ ?w ontolex:canonicalForm [ ontolex:writtenRep ?wr ] FILTER(STR(?wr) = ?target) }} }}""")
    assert result.rows == ()
