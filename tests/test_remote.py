"""RemoteEndpoint against a real SPARQL protocol server on 127.0.0.1, started by the test."""

import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyoxigraph as ox
import pytest

from nl2sparql.errors import EndpointError, QueryRejected
from nl2sparql.kb.endpoint import EndpointConfig, open_endpoint, stop_by
from nl2sparql.kb.remote import RemoteEndpoint

DATA = """
@prefix ontolex: <http://www.w3.org/ns/lemon/ontolex#> .
@prefix lila: <http://lila-erc.eu/ontologies/lila/> .
<http://liita.it/data/id/lemma/1> a lila:Lemma ; ontolex:writtenRep "casa"@it ; lila:hasPOS lila:noun .
<http://liita.it/data/id/lemma/2> a lila:Lemma ; ontolex:writtenRep "cane"@it ; lila:hasPOS lila:noun .
<http://liita.it/data/id/lemma/3> a lila:Lemma ; ontolex:writtenRep "correre"@it ; lila:hasPOS lila:verb .
"""


class SparqlServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.store = ox.Store()
        self.store.load(DATA.encode(), format=ox.RdfFormat.TURTLE)
        self.requests = 0
        self.delay_s = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/sparql"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.server.requests += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        query = urllib.parse.parse_qs(body).get("query", [""])[0]
        time.sleep(self.server.delay_s)
        try:
            result = self.server.store.query(query)
        except SyntaxError as error:
            self.send_error(400, str(error).splitlines()[0])
            return
        payload = result.serialize(format=ox.QueryResultsFormat.JSON)
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    server = SparqlServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


QUERY = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#> PREFIX lila: <http://lila-erc.eu/ontologies/lila/>
SELECT ?lemma ?wr WHERE { ?lemma lila:hasPOS lila:noun ; ontolex:writtenRep ?wr } ORDER BY ?wr"""


def test_remote_returns_typed_rows(server):
    endpoint = open_endpoint(EndpointConfig(url=server.url))
    assert isinstance(endpoint, RemoteEndpoint)
    result = endpoint.execute(QUERY)
    assert result.variables == ("lemma", "wr")
    assert result.values() == [("http://liita.it/data/id/lemma/2", "cane"), ("http://liita.it/data/id/lemma/1", "casa")]
    assert result.rows[0][0].kind == "iri" and result.rows[0][1].lang == "it"


def test_remote_ask(server):
    assert RemoteEndpoint(EndpointConfig(url=server.url)).execute("ASK { ?s ?p ?o }").boolean is True


def test_remote_row_cap_truncates(server):
    result = RemoteEndpoint(EndpointConfig(url=server.url, row_cap=1)).execute(QUERY)
    assert len(result.rows) == 1 and result.truncated


def test_remote_update_is_refused_before_anything_is_sent(server):
    with pytest.raises(QueryRejected):
        RemoteEndpoint(EndpointConfig(url=server.url)).execute("DROP ALL")
    assert server.requests == 0


def test_remote_timeout_returns_a_flagged_empty_result(server):
    server.delay_s = 3.0
    started = time.perf_counter()
    result = RemoteEndpoint(EndpointConfig(url=server.url, timeout_s=1)).execute(QUERY)
    assert result.timed_out and result.truncated and time.perf_counter() - started < 2.5


def test_remote_query_ends_at_the_callers_stop_time(server):
    server.delay_s = 3.0
    started = time.perf_counter()
    with stop_by(started + 1.0):
        result = RemoteEndpoint(EndpointConfig(url=server.url, timeout_s=30)).execute(QUERY)
    assert result.timed_out and time.perf_counter() - started < 2.5


def test_unreachable_endpoint_is_a_one_line_error():
    with pytest.raises(EndpointError, match="cannot reach") as caught:
        RemoteEndpoint(EndpointConfig(url="http://127.0.0.1:9/sparql", timeout_s=2)).execute("ASK { ?s ?p ?o }")
    assert "\n" not in str(caught.value)


def test_server_error_is_a_one_line_error(server):
    with pytest.raises(EndpointError) as caught:
        RemoteEndpoint(EndpointConfig(url=server.url)).execute(
            "SELECT * WHERE { SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/> { ?s ?p ?o } }")
    assert "\n" not in str(caught.value)
