"""The Endpoint protocol and its configuration; `open_endpoint` picks embedded or remote."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from nl2sparql.kb.cache import DEFAULT_CACHE_SIZE
from nl2sparql.kb.limits import QueryLimits
from nl2sparql.kb.results import QueryResult

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_ROW_CAP = 10_000


def default_home() -> Path:
    """Where nl2sparql keeps built things: $NL2SPARQL_HOME, else ~/.nl2sparql."""
    return Path(os.environ.get("NL2SPARQL_HOME") or Path.home() / ".nl2sparql")


def default_store_path() -> Path:
    return default_home() / "kb"


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
