"""The query worker: a child process that owns the read-only pyoxigraph store.

Running queries in a child process is what makes the timeout real: a query that never yields a
row (a huge cross product under ORDER BY) is stopped by killing the process, which an in-process
thread could not do. Rows come back in batches, so a timeout still returns what was found.

The worker first leaves the network (a network namespace of its own, where Linux allows it): pyoxigraph
answers SERVICE over HTTP, and the embedded store must never reach out, whatever slipped past the guard.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

BATCH = 256
_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000


def leave_network() -> bool:
    """Move this process into an empty network namespace (no interface but a down loopback); True on
    success. Must run before any thread starts (a user namespace needs a single-threaded process)."""
    if not os.path.exists("/proc/self/ns/net"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    for flags in (_CLONE_NEWNET, _CLONE_NEWUSER | _CLONE_NEWNET):
        if libc.unshare(flags) == 0:
            return True
    return False


def serve(store_path: str, hidden_graph: str, conn: Any, isolated: bool = False) -> None:
    """Answer queries read from `conn` until it closes; each reply is a stream of messages."""
    import pyoxigraph as ox

    try:
        store = ox.Store.read_only(store_path)
    except OSError as error:
        conn.send(("error", "EndpointError", f"cannot open the store at {store_path}: {error}"))
        return
    hidden = ox.NamedNode(hidden_graph)
    visible = [g for g in store.named_graphs() if g != hidden]
    default_graph = [ox.DefaultGraph(), *visible]
    conn.send(("ready", len(visible), isolated))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        text, row_cap, uses_service = request
        try:
            _answer(store, text, row_cap, default_graph, visible + [hidden] if uses_service else visible, conn)
        except SyntaxError as error:
            conn.send(("error", "QuerySyntaxError", f"malformed SPARQL: {str(error).splitlines()[0]}"))
        except Exception as error:  # an evaluation error inside the store
            conn.send(("error", "EndpointError", f"query failed in the store: {str(error).splitlines()[0]}"))


def _answer(store, text, row_cap, default_graph, named_graphs, conn) -> None:
    import pyoxigraph as ox

    result = store.query(text, default_graph=default_graph, named_graphs=named_graphs)
    if isinstance(result, ox.QueryBoolean):
        conn.send(("boolean", bool(result)))
        return
    if isinstance(result, ox.QuerySolutions):
        variables = [v.value for v in result.variables]
        conn.send(("head", variables))
        rows_of = ((_term(s[v]) for v in variables) for s in result)
    else:
        conn.send(("head", ["subject", "predicate", "object"]))
        rows_of = ((_term(t.subject), _term(t.predicate), _term(t.object)) for t in result)
    batch, count = [], 0
    for row in rows_of:
        if count >= row_cap:
            conn.send(("rows", batch))
            conn.send(("done", True))
            return
        batch.append(tuple(row))
        count += 1
        if len(batch) >= BATCH:
            conn.send(("rows", batch))
            batch = []
    conn.send(("rows", batch))
    conn.send(("done", False))


def _term(term) -> tuple | None:
    import pyoxigraph as ox

    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return ("iri", term.value, None, None)
    if isinstance(term, ox.BlankNode):
        return ("bnode", term.value, None, None)
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value
        if term.language:
            return ("literal", term.value, term.language, None)
        if datatype == "http://www.w3.org/2001/XMLSchema#string":
            datatype = None
        return ("literal", term.value, None, datatype)
    return ("triple", str(term), None, None)


def exit_with_parent(interval_s: float = 0.5) -> None:
    """A watchdog thread: when the process that started the worker dies (a killed eval, server or shell), the
    worker exits too, even in the middle of a query, instead of running on alone."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        os._exit(3)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def main(argv: list[str]) -> None:
    from multiprocessing.connection import Connection

    fd, store_path, hidden_graph = argv
    isolated = leave_network()  # before any thread starts
    exit_with_parent()
    conn = Connection(int(fd))
    try:
        serve(store_path, hidden_graph, conn, isolated)
    finally:
        conn.close()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
