"""Several users at once (the web page and the MCP server serve many): the guard, the embedded endpoint and
the toolbox give every caller its own right answer."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from nl2sparql.kb.embedded import EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.kb.guard import check
from nl2sparql.kb.lint import lint
from nl2sparql.modules.runtime import Runtime, RuntimeConfig
from nl2sparql.serve.tools import Toolbox

THREADS, CALLS = 6, 20


def many(task) -> list:
    """task(thread, call) for every pair, from THREADS threads at once; each outcome or the error it raised."""
    def worker(thread: int) -> list:
        out = []
        for call in range(CALLS):
            try:
                out.append(task(thread, call))
            except Exception as error:  # kept: a failure must show up as a wrong answer, not stop the thread
                out.append(error)
        return out

    with ThreadPoolExecutor(THREADS) as pool:
        return [item for chunk in pool.map(worker, range(THREADS)) for item in chunk]


def test_guard_and_lint_from_many_threads():
    def task(thread: int, call: int):
        # distinct texts, so the guard's cache does not hide the parser
        body = " . ".join(f"?s{i} <http://p/{thread}> ?o{i}" for i in range(call % 5 + 1))
        checked = check(f"SELECT * WHERE {{ {body} }} # {thread}-{call}")
        lint(checked.text)
        return checked.triple_patterns == call % 5 + 1 and checked.form == "SELECT"

    outcomes = many(task)
    assert outcomes == [True] * (THREADS * CALLS)
    assert check("ASK { ?s ?p ?o }").form == "ASK"  # the parser still works afterwards


def test_embedded_endpoint_gives_each_caller_its_own_rows(kb_store):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store, cache_size=0)) as endpoint:
        def task(thread: int, call: int):
            token = f"t{thread}-c{call}"
            result = endpoint.execute(
                'PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#> SELECT ?token ?wr WHERE { '
                f'VALUES ?token {{ "{token}" }} ?l ontolex:writtenRep ?wr FILTER(?wr = "cane"@it) }}')
            return [str(row[0]) for row in result.rows] == [token] * len(result.rows) and len(result.rows) >= 1

        outcomes = many(task)
    assert outcomes == [True] * (THREADS * CALLS)


def test_toolbox_from_many_threads(kb_store):
    box = Toolbox(runtime=Runtime(RuntimeConfig(endpoint=EndpointConfig(store_path=kb_store, cache_size=0))))
    try:
        def task(thread: int, call: int):
            query = f'SELECT ?n WHERE {{ VALUES ?n {{ {thread * 1000 + call} }} ?s ?p ?o }} LIMIT 1'
            if call % 2:
                return box.validate_sparql(query)["valid"] is True
            return box.execute_sparql(query)["rows"] == [[str(thread * 1000 + call)]]

        outcomes = many(task)
    finally:
        box.close()
    assert outcomes == [True] * (THREADS * CALLS)
