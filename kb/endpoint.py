"""The Endpoint protocol and its configuration; `open_endpoint` picks embedded or remote."""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol, runtime_checkable

from nl2sparql.errors import EndpointError
from nl2sparql.kb.cache import DEFAULT_CACHE_SIZE
from nl2sparql.kb.limits import QueryLimits
from nl2sparql.kb.results import QueryResult

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_ROW_CAP = 10_000
MAX_TIMEOUT_S = 3600.0
MAX_ROW_CAP = 1_000_000


def check_timeout(seconds: float) -> None:
    """A timeout is a finite number of seconds above zero, at most an hour."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or not 0 < seconds <= MAX_TIMEOUT_S:
        raise EndpointError(f"the timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}, "
                            f"not {seconds!r}")


_STOP_AT: ContextVar[float | None] = ContextVar("nl2sparql_query_stop_at", default=None)


@contextmanager
def stop_by(stop_at: float | None) -> Iterator[None]:
    """Queries executed inside end by `stop_at` (a `time.perf_counter()` value; None: the endpoint's own
    timeout only): the caller's deadline, so a query cannot run past the question it answers. A stop inside
    another only tightens it: the sooner of the two holds."""
    outer = _STOP_AT.get()
    if outer is not None:
        stop_at = outer if stop_at is None else min(outer, stop_at)
    token = _STOP_AT.set(stop_at)
    try:
        yield
    finally:
        _STOP_AT.reset(token)


def time_allowed(timeout_s: float, started: float) -> float:
    """Seconds a query started at `started` may run: the endpoint's timeout, or less when the caller must stop
    sooner (`stop_by`); 0 when that time has already passed."""
    stop_at = _STOP_AT.get()
    if stop_at is None:
        return timeout_s
    return max(0.0, min(timeout_s, stop_at - started))


def check_url(url: str) -> None:
    """A remote endpoint is an http(s) URL with a host."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # raises on a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url):
        raise EndpointError(f"'{url}' is not an endpoint URL: give one like https://liita.it/sparql")


def default_store_path() -> Path:
    from nl2sparql.paths import resolve

    return resolve().kb


@dataclass(frozen=True)
class EndpointConfig:
    """Where queries go (`url` for a remote SPARQL endpoint, else the embedded store), limits, and how many
    results are kept in the LRU cache (0: none)."""

    url: str | None = None
    store_path: Path | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    row_cap: int = DEFAULT_ROW_CAP
    limits: QueryLimits = field(default_factory=QueryLimits.from_env)
    cache_size: int = DEFAULT_CACHE_SIZE

    def __post_init__(self) -> None:
        check_timeout(self.timeout_s)
        if isinstance(self.row_cap, bool) or not isinstance(self.row_cap, int) or not 1 <= self.row_cap <= MAX_ROW_CAP:
            raise EndpointError(f"the row cap must be a whole number from 1 to {MAX_ROW_CAP:,}, not {self.row_cap!r}")
        if self.url is not None:
            check_url(self.url)

    @property
    def resolved_store_path(self) -> Path:
        return self.store_path or default_store_path()


@runtime_checkable
class Endpoint(Protocol):
    """Runs a read-only SPARQL query and returns typed rows."""

    def execute(self, query: str) -> QueryResult: ...

    def fingerprint(self) -> str:
        """Identifies the data behind the endpoint, for caching results."""
        ...

    def close(self) -> None: ...


def open_endpoint(config: EndpointConfig) -> Endpoint:
    if config.url:
        from nl2sparql.kb.remote import RemoteEndpoint

        return RemoteEndpoint(config)
    from nl2sparql.kb.embedded import EmbeddedEndpoint

    return EmbeddedEndpoint(config)


class EndpointPool:
    """Several endpoints used as one: each query borrows a free one, so `width` callers on threads run at once
    (the embedded store answers one query at a time per worker process)."""

    def __init__(self, endpoints: list) -> None:
        import queue

        self.endpoints = list(endpoints)
        self.width = len(self.endpoints)
        self._free: queue.Queue = queue.Queue()
        for endpoint in self.endpoints:
            self._free.put(endpoint)

    def execute(self, query: str):
        endpoint = self._free.get()
        try:
            return endpoint.execute(query)
        finally:
            self._free.put(endpoint)

    def close(self) -> None:
        for endpoint in self.endpoints:
            endpoint.close()

    def __enter__(self) -> EndpointPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
