"""RemoteEndpoint: a SPARQL 1.1 protocol endpoint over HTTP (e.g. https://liita.it/sparql).

The timeout is wall-clock: the request runs on a daemon thread that the caller stops waiting for at the
deadline, and the body is read in chunks against the same deadline and a size cap, so a server that
trickles bytes cannot hold a caller past `timeout_s`.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
import urllib.error

from nl2sparql.errors import EndpointError
from nl2sparql.kb.cache import ResultCache
from nl2sparql.kb.endpoint import EndpointConfig, time_allowed
from nl2sparql.kb.guard import check
from nl2sparql.kb.results import QueryResult, Term


_CHUNK = 65_536


def max_body_bytes(row_cap: int) -> int:
    """The largest answer read: 4 KB a row up to the row cap, and never under 8 MB."""
    return max(8 * 2**20, row_cap * 4096)


class _PastDeadline(Exception):
    """The answer did not arrive before the deadline."""


class RemoteEndpoint:
    """Guarded queries sent with SPARQLWrapper; SERVICE clauses go through untouched."""

    def __init__(self, config: EndpointConfig) -> None:
        if not config.url:
            raise EndpointError("a remote endpoint needs a URL (--endpoint URL)")
        self.config = config
        self._cache = ResultCache(config.cache_size)
        self.url = config.url

    def fingerprint(self) -> str:
        return "remote:" + hashlib.sha256(self.url.encode()).hexdigest()[:16]

    def execute(self, query: str) -> QueryResult:
        started = time.perf_counter()  # the guard's parse counts against the timeout too
        allowed = time_allowed(self.config.timeout_s, started)
        checked = check(query, self.config.limits)
        return self._cache.fetch(self.fingerprint(), checked.text, lambda: self._send(checked.text, started, allowed))

    def _send(self, text: str, started: float, allowed: float) -> QueryResult:
        deadline = started + allowed
        if allowed <= 0:
            return QueryResult((), truncated=True, timed_out=True, elapsed_s=0.0)
        outcome: dict = {}

        def fetch() -> None:
            try:
                outcome["raw"] = self._fetch(text, deadline)
            except BaseException as error:  # handed to the waiting caller
                outcome["error"] = error

        worker = threading.Thread(target=fetch, name="nl2sparql-remote", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.perf_counter()))
        if worker.is_alive() or isinstance(outcome.get("error"), _PastDeadline):
            return QueryResult((), truncated=True, timed_out=True, elapsed_s=time.perf_counter() - started)
        if "error" in outcome:
            raise outcome["error"]
        return self._parse(outcome["raw"], started)

    def _fetch(self, text: str, deadline: float) -> bytes:
        from SPARQLWrapper import JSON, POST, SPARQLWrapper
        from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

        client = SPARQLWrapper(self.url)
        client.setQuery(text)
        client.setMethod(POST)
        client.setReturnFormat(JSON)
        client.setTimeout(max(1, int(deadline - time.perf_counter() + 0.999)))
        try:
            return self._read(client.query().response, deadline)
        except (socket.timeout, TimeoutError):
            raise _PastDeadline() from None
        except urllib.error.HTTPError as error:
            raise EndpointError(f"{self.url} answered HTTP {error.code}: {error.reason}") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (socket.timeout, TimeoutError)):
                raise _PastDeadline() from None
            raise EndpointError(f"cannot reach {self.url}: {error.reason}") from None
        except SPARQLWrapperException as error:
            raise EndpointError(f"{self.url} refused the query: {str(error).splitlines()[0]}") from None
        except OSError as error:
            raise EndpointError(f"cannot reach {self.url}: {error}") from None

    def _read(self, response, deadline: float) -> bytes:
        """The body, read in chunks until the deadline or the size cap."""
        limit = max_body_bytes(self.config.row_cap)
        chunks, size = [], 0
        try:
            while True:
                if time.perf_counter() > deadline:
                    raise _PastDeadline()
                chunk = response.read1(_CHUNK) if hasattr(response, "read1") else response.read(_CHUNK)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    raise EndpointError(f"{self.url} sent more than {limit // 2**20} MB for one answer: add a "
                                        "LIMIT to the query (or lower the row cap)")
        finally:
            response.close()

    def close(self) -> None:
        return None

    def _parse(self, raw: bytes, started: float) -> QueryResult:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            raise EndpointError(f"{self.url} did not answer with SPARQL JSON results") from None
        elapsed = time.perf_counter() - started
        if "boolean" in data:
            return QueryResult((), boolean=bool(data["boolean"]), elapsed_s=elapsed)
        variables = tuple(data.get("head", {}).get("vars", []))
        bindings = data.get("results", {}).get("bindings", [])
        cap = self.config.row_cap
        rows = tuple(
            tuple(Term.from_json(b[v]) if v in b else None for v in variables) for b in bindings[:cap]
        )
        return QueryResult(variables, rows, truncated=len(bindings) > cap, elapsed_s=elapsed)
