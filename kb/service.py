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
    body_end: int = -1


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
        calls.append(ServiceCall(iri, tok.start, target.end, _block_end(toks, j + 1)))
    return calls


def _block_end(toks, index: int) -> int:
    """The end offset of the `{ … }` group opening at toks[index] (-1 when it does not open one)."""
    if index >= len(toks) or toks[index].text != "{":
        return -1
    depth = 0
    for tok in toks[index:]:
        if tok.kind == "brace":
            depth += 1 if tok.text == "{" else -1
            if depth == 0:
                return tok.end
    return -1


def check_services(calls: list[ServiceCall]) -> None:
    """Only CompL-it may be federated to; anything else would leave the knowledge base."""
    for call in calls:
        if call.iri != COMPLIT_SERVICE:
            raise QueryRejected(
                f"SERVICE <{call.iri}> is not allowed: the only federated endpoint is CompL-it "
                f"<{COMPLIT_SERVICE}>"
            )


def rewrite_services_as_graph(query: str, calls: list[ServiceCall]) -> str:
    """Turn each CompL-it SERVICE into a sub-SELECT over a GRAPH holding the local copy of CompL-it.

    A SERVICE block is evaluated on its own and then joined with its surroundings; a sub-SELECT
    of a GRAPH block has the same meaning (a FILTER inside sees only the block's own variables), so
    OPTIONAL, FILTER and aggregates around it keep their meaning. The sub-SELECT also keeps the
    store from interleaving the CompL-it patterns with the outer ones, which can be very slow.
    """
    out, last = [], 0
    for call in sorted(calls, key=lambda c: c.start):
        if call.body_end < 0:
            raise QueryRejected("SERVICE must be followed by a { … } group")
        out.append(query[last:call.start])
        out.append(f"{{ SELECT * WHERE {{ GRAPH <{call.iri}> {query[call.end:call.body_end]} }} }}")
        last = call.body_end
    out.append(query[last:])
    return "".join(out)
