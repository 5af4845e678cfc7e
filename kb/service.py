"""SERVICE handling: read the endpoints a query federates to from the parse tree, answer CompL-it locally.

The targets come from rdflib's parse tree, never from a text scan: an escaped character in a prefixed name
(`ex:a\\'b`) or a `\\u0053ERVICE` escape once let a text scan miss a SERVICE clause that the store then ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from nl2sparql.errors import QueryRejected
from nl2sparql.kb.lexer import tokens
from nl2sparql.kb.parser import parse_query
from nl2sparql.kb.vocab import COMPLIT_SERVICE

_PN_LOCAL_ESCAPE = re.compile(r"\\(.)")
_UNPLACED = (f"the SERVICE clauses of this query cannot be told apart from its text: write each as "
             f"SERVICE <{COMPLIT_SERVICE}> {{ … }}")


@dataclass(frozen=True)
class ServiceCall:
    """One `SERVICE [SILENT] <iri>` clause: where it starts and ends in the text, and its IRI."""

    iri: str
    start: int
    end: int


def service_targets(tree: Any) -> list[str]:
    """The IRI of every SERVICE clause in rdflib's parse tree; refuses a variable target."""
    declared = _declared_prefixes(tree[0]) if len(tree) else {}
    targets = []
    for node in _service_nodes(tree):
        term = _field(node, "term")
        if getattr(term, "name", None) == "pname":
            name = _field(term, "prefix") or ""
            if name not in declared:
                raise QueryRejected(f"SERVICE uses undeclared prefix '{name}:'; add a PREFIX line")
            targets.append(declared[name] + _PN_LOCAL_ESCAPE.sub(r"\1", _field(term, "localname") or ""))
        elif type(term).__name__ == "URIRef":
            targets.append(str(term))
        else:
            raise QueryRejected(f"SERVICE {term} is not allowed: name the CompL-it endpoint <{COMPLIT_SERVICE}>")
    return targets


def check_targets(targets: list[str]) -> None:
    """Only CompL-it may be federated to; anything else would leave the knowledge base."""
    for iri in targets:
        if iri != COMPLIT_SERVICE:
            raise QueryRejected(f"SERVICE <{iri}> is not allowed: the only federated endpoint is CompL-it "
                                f"<{COMPLIT_SERVICE}>")


def locate_services(query: str, expected: int) -> list[ServiceCall]:
    """Where the `expected` SERVICE clauses (all CompL-it, checked on the parse tree) sit in the text.

    Refuses the query when the text scan and the parser disagree on their number: a rewrite on a
    misread text could leave a SERVICE behind.
    """
    toks = [t for t in tokens(query) if t.kind not in ("comment", "string")]
    calls = []
    for i, tok in enumerate(toks):
        if tok.kind != "word" or tok.text.upper() != "SERVICE":
            continue
        j = i + 1
        if j < len(toks) and toks[j].kind == "word" and toks[j].text.upper() == "SILENT":
            j += 1
        if j < len(toks):
            calls.append(ServiceCall(COMPLIT_SERVICE, tok.start, toks[j].end))
    if len(calls) != expected:
        raise QueryRejected(_UNPLACED)
    return calls


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


def local_query(query: str, calls: list[ServiceCall]) -> str:
    """The query with its CompL-it SERVICE clauses rewritten as GRAPH, parsed again to prove that no SERVICE
    is left for the store to send over the network."""
    if not calls:
        return query
    rewritten = rewrite_services_as_graph(query, calls)
    if next(_service_nodes(parse_query(rewritten)), None) is not None:
        raise QueryRejected(_UNPLACED)
    return rewritten


def _declared_prefixes(prologue: Any) -> dict[str, str]:
    found = {}
    for decl in prologue:
        if getattr(decl, "name", None) == "PrefixDecl":
            found[_field(decl, "prefix") or ""] = str(_field(decl, "iri"))
    return found


def _field(node: Any, key: str) -> Any:
    """A parse-tree node's field, None when absent (CompValue.get answers a missing key with the key's name)."""
    return dict.get(node, key)


def _service_nodes(tree: Any) -> Iterator[Any]:
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            if node.name == "ServiceGraphPattern":
                yield node
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, ParseResults)):
            stack.extend(node)
