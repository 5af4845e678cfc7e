"""EmbeddedEndpoint: the on-disk pyoxigraph store, answering like the live LiITA endpoint.

The default graph is the union of the default graph and every named graph (GraphDB's behaviour),
except CompL-it, which the live endpoint does not hold: it is reachable only through
`SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/>`, rewritten to a local GRAPH.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

from nl2sparql import errors
from nl2sparql.kb.cache import ResultCache
from nl2sparql.kb.endpoint import EndpointConfig, time_allowed
from nl2sparql.kb.guard import check
from nl2sparql.kb.results import QueryResult, Term
from nl2sparql.kb.service import local_query
from nl2sparql.kb.vocab import COMPLIT_SERVICE

STORE_DIR = "oxigraph"
MANIFEST = "build.json"
_START_TIMEOUT_S = 60.0


def read_manifest(store_path: Path) -> dict:
    """The build manifest of a store; StoreNotFound when there is none."""
    manifest = store_path / MANIFEST
    if not manifest.is_file() or not (store_path / STORE_DIR).is_dir():
        raise errors.StoreNotFound(
            f"no knowledge base at {store_path}: run 'nl2sparql kb build' first"
        )
    try:
        return json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise errors.StoreNotFound(f"unreadable build manifest {manifest}: {error}") from None


class EmbeddedEndpoint:
    """Runs guarded queries on the embedded store through a worker process (real timeouts).

    One worker answers one query at a time: callers on several threads (the web page, the MCP server) take
    turns, so nobody reads another caller's rows.
    """

    def __init__(self, config: EndpointConfig | None = None) -> None:
        config = config or EndpointConfig()
        self.config = config
        self._cache = ResultCache(config.cache_size)
        self.path = config.resolved_store_path
        self.manifest = read_manifest(self.path)
        self._process: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()
        self.isolated = False  # whether the worker runs without a network (known once it started)

    def fingerprint(self) -> str:
        return self.manifest["fingerprint"]

    def execute(self, query: str) -> QueryResult:
        started = time.perf_counter()  # the guard's parse and the wait for the worker count against the timeout
        allowed = time_allowed(self.config.timeout_s, started)
        checked = check(query, self.config.limits)
        return self._cache.fetch(self.fingerprint(), checked.text, lambda: self._run(checked, started, allowed))

    def _run(self, checked, started: float, allowed: float) -> QueryResult:
        text = local_query(checked.text, list(checked.services))
        remaining = started + allowed - time.perf_counter()
        if remaining <= 0 or not self._lock.acquire(timeout=remaining):
            return self._result([], [], started, truncated=True, timed_out=True)
        try:
            before = time.perf_counter()
            conn = self._ensure_worker()
            started += time.perf_counter() - before  # starting the worker (once) is not the query's time
            conn.send((text, self.config.row_cap, bool(checked.services)))
            return self._collect(conn, started, allowed)
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            try:
                self._process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process, self._conn = None, None

    def __enter__(self) -> EmbeddedEndpoint:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._close()
        except Exception:
            pass

    def _ensure_worker(self) -> Connection:
        if self._process is not None and self._process.poll() is None:
            return self._conn
        ours, theirs = socket.socketpair()
        process = subprocess.Popen(
            [sys.executable, "-m", "nl2sparql.kb.worker", str(theirs.fileno()),
             str(self.path / STORE_DIR), COMPLIT_SERVICE],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
        )
        theirs.close()
        conn = Connection(ours.detach())
        if not conn.poll(_START_TIMEOUT_S):
            process.kill()
            raise errors.EndpointError(f"the store worker did not start within {_START_TIMEOUT_S:.0f} s")
        try:
            message = conn.recv()
        except EOFError:
            process.wait()
            raise errors.EndpointError(f"the store worker exited with code {process.returncode}") from None
        if message[0] == "error":
            process.wait()
            raise getattr(errors, message[1])(message[2])
        self._process, self._conn = process, conn
        self.isolated = bool(message[2])
        return conn

    def _collect(self, conn, started: float, allowed: float) -> QueryResult:
        deadline = started + allowed
        variables: list[str] = []
        rows: list[tuple] = []
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or not conn.poll(remaining):
                self._kill_worker()
                return self._result(variables, rows, started, truncated=True, timed_out=True)
            try:
                message = conn.recv()
            except EOFError:
                self._kill_worker()
                raise errors.EndpointError("the store worker stopped while answering") from None
            kind = message[0]
            if kind == "error":
                raise getattr(errors, message[1])(message[2])
            if kind == "boolean":
                return QueryResult((), boolean=message[1], elapsed_s=time.perf_counter() - started)
            if kind == "head":
                variables = message[1]
            elif kind == "rows":
                rows.extend(message[1])
            elif kind == "done":
                return self._result(variables, rows, started, truncated=message[1], timed_out=False)

    def _result(self, variables, rows, started, *, truncated: bool, timed_out: bool) -> QueryResult:
        typed = tuple(tuple(None if t is None else Term(*t) for t in row) for row in rows)
        return QueryResult(
            tuple(variables), typed, truncated=truncated, timed_out=timed_out,
            elapsed_s=time.perf_counter() - started,
        )

    def _kill_worker(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn = None, None
