"""rdflib's SPARQL parser behind one lock: pyparsing keeps parser state that concurrent threads corrupt.

Every parse of ours goes through here (the guard, lint, the SERVICE finder), so the web page and the MCP
server can serve several users at once.
"""

from __future__ import annotations

import threading
from typing import Any

_LOCK = threading.RLock()


def parse_query(text: str) -> Any:
    """rdflib's parse tree of a query (\\u escapes expanded first, as SPARQL 1.1 requires)."""
    from rdflib.plugins.sparql.parser import parseQuery

    with _LOCK:
        return parseQuery(text)


def parse_update(text: str) -> Any:
    from rdflib.plugins.sparql.parser import parseUpdate

    with _LOCK:
        return parseUpdate(text)


def query_algebra(text: str) -> Any:
    """rdflib's algebra of a query (prefixed names resolved)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    with _LOCK:
        return translateQuery(parseQuery(text)).algebra
