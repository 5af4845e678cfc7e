"""SERVICE handling: find the endpoints a query federates to, and answer CompL-it locally."""

from __future__ import annotations

from dataclasses import dataclass

from nl2sparql.errors import QueryRejected
from nl2sparql.kb.lexer import prefixes, tokens
from nl2sparql.kb.vocab import COMPLIT_SERVICE


@dataclass(frozen=True)
class ServiceCall:
    """One `SERVICE [SILENT] <iri>` clause: where it starts and ends in the text, and its IRI."""

    iri: str
    start: int
    end: int


def find_services(query: str) -> list[ServiceCall]:
    """Every SERVICE clause of the query, with its IRI resolved (prefixed names included)."""
    declared = prefixes(query)
    toks = [t for t in tokens(query) if t.kind not in ("comment", "string")]
    calls = []
    for i, tok in enumerate(toks):
        if tok.kind != "word" or tok.text.upper() != "SERVICE":
            continue
        j = i + 1
        if j < len(toks) and toks[j].kind == "word" and toks[j].text.upper() == "SILENT":
            j += 1
        if j >= len(toks):
            raise QueryRejected("SERVICE without an endpoint IRI")
        target = toks[j]
        if target.kind == "iri":
            iri = target.text[1:-1]
        elif target.kind == "word" and ":" in target.text:
            name, local = target.text.split(":", 1)
            if name not in declared:
                raise QueryRejected(f"SERVICE uses undeclared prefix '{name}:'; add a PREFIX line")
            iri = declared[name] + local
        else:
            raise QueryRejected(
                f"SERVICE {target.text} is not allowed: name the CompL-it endpoint <{COMPLIT_SERVICE}>"
            )
        calls.append(ServiceCall(iri, tok.start, target.end))
    return calls


def check_services(calls: list[ServiceCall]) -> None:
    """Only CompL-it may be federated to; anything else would leave the knowledge base."""
    for call in calls:
        if call.iri != COMPLIT_SERVICE:
            raise QueryRejected(
                f"SERVICE <{call.iri}> is not allowed: the only federated endpoint is CompL-it "
                f"<{COMPLIT_SERVICE}>"
            )


def rewrite_services_as_graph(query: str, calls: list[ServiceCall]) -> str:
    """Turn each CompL-it SERVICE into a GRAPH over the local copy of CompL-it.

    A SERVICE block and a GRAPH block are both group patterns joined with their surroundings,
    and a FILTER inside either sees only the block's own variables, so OPTIONAL, FILTER and
    aggregates keep their meaning (tests/test_service.py checks each).
    """
    out, last = [], 0
    for call in sorted(calls, key=lambda c: c.start):
        out.append(query[last:call.start])
        out.append(f"GRAPH <{call.iri}>")
        last = call.end
    out.append(query[last:])
    return "".join(out)
