"""RemoteEndpoint: a SPARQL 1.1 protocol endpoint over HTTP (e.g. https://liita.it/sparql)."""

from __future__ import annotations

import hashlib
import json
import socket
import time
import urllib.error

from nl2sparql.errors import EndpointError
from nl2sparql.kb.cache import ResultCache
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.kb.guard import check
from nl2sparql.kb.results import QueryResult, Term


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
        checked = check(query, self.config.limits)
        return self._cache.fetch(self.fingerprint(), checked.text, lambda: self._send(checked.text))

    def _send(self, text: str) -> QueryResult:
        from SPARQLWrapper import JSON, POST, SPARQLWrapper
        from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

        client = SPARQLWrapper(self.url)
        client.setQuery(text)
        client.setMethod(POST)
        client.setReturnFormat(JSON)
        client.setTimeout(max(1, int(self.config.timeout_s)))
        started = time.perf_counter()
        try:
            raw = client.query().response.read()
        except (socket.timeout, TimeoutError):
            return QueryResult((), truncated=True, timed_out=True, elapsed_s=time.perf_counter() - started)
        except urllib.error.HTTPError as error:
            raise EndpointError(f"{self.url} answered HTTP {error.code}: {error.reason}") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (socket.timeout, TimeoutError)):
                return QueryResult((), truncated=True, timed_out=True, elapsed_s=time.perf_counter() - started)
            raise EndpointError(f"cannot reach {self.url}: {error.reason}") from None
        except SPARQLWrapperException as error:
            raise EndpointError(f"{self.url} refused the query: {str(error).splitlines()[0]}") from None
        except OSError as error:
            raise EndpointError(f"cannot reach {self.url}: {error}") from None
        return self._parse(raw, started)

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
