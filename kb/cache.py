"""An LRU cache of query results, keyed by the data behind the endpoint and the normalised query text."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Callable

from nl2sparql.kb.lexer import tokens
from nl2sparql.kb.results import QueryResult

DEFAULT_CACHE_SIZE = 256


def normalise(query: str) -> str:
    """The query without comments and with runs of whitespace collapsed, strings and IRIs kept verbatim:
    two texts that differ only in layout are one key."""
    out: list[str] = []
    gap, position = "", 0
    for tok in tokens(query):
        gap += query[position:tok.start]
        position = tok.end
        if tok.kind == "comment":
            gap += " "
            continue
        out.append(re.sub(r"\s+", " ", gap))
        out.append(tok.text)
        gap = ""
    out.append(re.sub(r"\s+", " ", gap + query[position:]))
    return "".join(out).strip()


class ResultCache:
    """Thread-safe LRU of complete results (a timed-out or truncated result is never kept)."""

    def __init__(self, size: int = DEFAULT_CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], QueryResult] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, fingerprint: str, query: str) -> QueryResult | None:
        key = (fingerprint, normalise(query))
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found

    def put(self, fingerprint: str, query: str, result: QueryResult) -> None:
        if self.size <= 0 or result.timed_out or result.truncated:
            return
        key = (fingerprint, normalise(query))
        with self._lock:
            self._items[key] = result
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def fetch(self, fingerprint: str, query: str, run: Callable[[], QueryResult]) -> QueryResult:
        """The cached result of `query`, or `run()`'s, kept for next time."""
        found = self.get(fingerprint, query)
        if found is not None:
            return found
        result = run()
        self.put(fingerprint, query, result)
        return result
