"""Hostile and careless inputs, as tables shared by tests/test_hostile.py and bench/reliability.py.

`{listener}` in a query stands for the URL of a TCP listener on 127.0.0.1 that counts connections: every case
must be refused before anything connects to it.
"""

from __future__ import annotations

import socket
import threading
import time
from types import SimpleNamespace

COMPLIT = "https://klab.ilc.cnr.it/graphdb-compl-it/"

# SERVICE clauses that leave the knowledge base, written so that a text scan could miss them.
SERVICE_ESCAPES = {
    "escaped quote in a prefixed name": "PREFIX ex: <http://ex.org/> SELECT ?x WHERE { BIND(ex:a\\'b AS ?c) "
                                        "SERVICE <{listener}> { ?x ?p ?o } FILTER(?c != 'x') }",
    "\\u escape of the keyword": "SELECT ?x WHERE { \\u0053ERVICE <{listener}> { ?x ?p ?o } }",
    "\\U escape of the keyword": "SELECT ?x WHERE { \\U00000053ERVICE <{listener}> { ?x ?p ?o } }",
    "\\u escapes inside the IRI": "SELECT ?x WHERE { SERVICE <\\u0068ttp://127.0.0.1:{port}/x> { ?x ?p ?o } }",
    "lower-case silent": "select ?x where { service silent <{listener}> { ?x ?p ?o } }",
    "prefixed-name target": "PREFIX h: <http://127.0.0.1:{port}/> SELECT ?x WHERE { SERVICE h:x { ?x ?p ?o } }",
    "empty-prefix target": "PREFIX : <http://127.0.0.1:{port}/> SELECT ?x WHERE { SERVICE :x { ?x ?p ?o } }",
    "comment between keyword and IRI": "SELECT ?x WHERE { SERVICE # hidden\n <{listener}> { ?x ?p ?o } }",
    "variable target": "SELECT ?x WHERE { BIND(<{listener}> AS ?s) SERVICE ?s { ?x ?p ?o } }",
    "relative IRI with BASE": "BASE <http://127.0.0.1:{port}/> SELECT ?x WHERE { SERVICE <x> { ?x ?p ?o } }",
    "inside FILTER EXISTS": "SELECT ?x WHERE { ?x ?p ?o FILTER EXISTS { SERVICE <{listener}> { ?x ?q ?r } } }",
    "inside a subquery": "SELECT ?x WHERE { { SELECT ?x WHERE { OPTIONAL { SERVICE <{listener}> { ?x ?p ?o } } } } }",
    "CompL-it first, then a foreign one": f"SELECT ?x WHERE {{ SERVICE <{COMPLIT}> {{ ?x ?p ?o }} "
                                          "SERVICE <{listener}> { ?x ?q ?r } }",
    "CompL-it IRI with a suffix": f"SELECT ?x WHERE {{ SERVICE <{COMPLIT}@127.0.0.1:{{port}}> {{ ?x ?p ?o }} }}",
    "string that looks like a string end": "PREFIX ex: <http://ex.org/> SELECT ?x WHERE { ?x ?p ex:it\\'s . "
                                           "SERVICE <{listener}> { ?x ?q ?r } ?x ?p 'a' }",
}

# Every SPARQL Update form; LOAD names the listener too.
UPDATES = {
    "INSERT DATA": "INSERT DATA { <http://a> <http://b> <http://c> }",
    "DELETE DATA": "DELETE DATA { <http://a> <http://b> <http://c> }",
    "DELETE WHERE": "DELETE WHERE { ?s ?p ?o }",
    "INSERT/DELETE": "DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }",
    "LOAD": "LOAD <{listener}>",
    "LOAD SILENT INTO": "LOAD SILENT <{listener}> INTO GRAPH <http://liita.it/data>",
    "CLEAR": "CLEAR ALL",
    "DROP": "DROP GRAPH <http://liita.it/data>",
    "CREATE": "CREATE GRAPH <http://example.org/g>",
    "ADD": "ADD <http://liita.it/data> TO <http://example.org/g>",
    "MOVE": "MOVE <http://liita.it/data> TO <http://example.org/g>",
    "COPY": "COPY <http://liita.it/data> TO <http://example.org/g>",
    "two requests": "CLEAR DEFAULT ; DROP ALL",
    "\\u-escaped CLEAR": "\\u0043LEAR ALL",
}


# An address where nothing listens, for tests that never get as far as connecting.
NOWHERE = SimpleNamespace(url="http://127.0.0.1:9/sparql", port=9)


def fill(template: str, listener: Listener | SimpleNamespace) -> str:
    return template.replace("{listener}", listener.url).replace("{port}", str(listener.port))


class Listener:
    """A TCP listener on 127.0.0.1 that accepts and counts connections (a stand-in for any outside server)."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/sparql"
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._socket.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Trickle:
    """An HTTP server on 127.0.0.1 that sends one byte a second: in the headers or in the body."""

    def __init__(self, in_headers: bool) -> None:
        self.in_headers = in_headers
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(4)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/sparql"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.socket.accept()
        conn.recv(65_536)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\nContent-Length: 100000\r\n\r\n"
        if not self.in_headers:
            conn.sendall(head)
        payload = (head if self.in_headers else b"") + b'{"head": {"vars": ["x"]}, "results": {"bindings": [' * 100
        try:
            for byte in payload:
                conn.sendall(bytes([byte]))
                time.sleep(1.0)
        except OSError:
            pass
