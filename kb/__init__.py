"""Execution layer: endpoints (embedded pyoxigraph, remote SPARQL), the read-only guard, the KB build."""

from nl2sparql.kb.endpoint import Endpoint, EndpointConfig
from nl2sparql.kb.results import QueryResult, Term

__all__ = ["Endpoint", "EndpointConfig", "QueryResult", "Term"]
