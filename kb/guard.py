"""The read-only guard shared by every endpoint: parse first, refuse Updates, check SERVICE use.

The text that passes is the text that runs: \\u escapes expanded (as every SPARQL parser does before
parsing) and the standard prefixes the live endpoint predeclares (rdf:, rdfs:, owl:, xsd:) declared.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from nl2sparql.errors import QueryRejected, QuerySyntaxError
from nl2sparql.kb.lexer import undeclared_prefixes
from nl2sparql.kb.limits import QueryLimits, count_triple_patterns, nesting_depth
from nl2sparql.kb.parser import parse_query, parse_update
from nl2sparql.kb.service import ServiceCall, check_targets, locate_services, service_targets
from nl2sparql.kb.vocab import STANDARD_PREFIXES

QueryForm = Literal["SELECT", "ASK", "CONSTRUCT", "DESCRIBE"]

_FORMS: dict[str, QueryForm] = {
    "SelectQuery": "SELECT", "AskQuery": "ASK", "ConstructQuery": "CONSTRUCT",
    "DescribeQuery": "DESCRIBE",
}

_UPDATE_NAMES = {
    "InsertData": "INSERT DATA", "DeleteData": "DELETE DATA", "DeleteWhere": "DELETE WHERE",
    "Modify": "INSERT/DELETE … WHERE", "Load": "LOAD", "Clear": "CLEAR", "Drop": "DROP",
    "Create": "CREATE", "Add": "ADD", "Move": "MOVE", "Copy": "COPY",
}


@dataclass(frozen=True)
class CheckedQuery:
    """A query that passed the guard: its text, its form, its SERVICE clauses, its size, and the standard
    prefixes the guard declared for it."""

    text: str
    form: QueryForm
    services: tuple[ServiceCall, ...]
    triple_patterns: int = 0
    depth: int = 0
    declared: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """What the guard added, for the user ('' when nothing)."""
        if not self.declared:
            return ""
        names = ", ".join(f"{name}:" for name in self.declared)
        return f"declared {names} as the live LiITA endpoint does"


DEFAULT_LIMITS = QueryLimits()


def check(query: str, limits: QueryLimits | None = None) -> CheckedQuery:
    """Parse the query and refuse what must never run or is too big; raises QuerySyntaxError or QueryRejected."""
    limits = limits or DEFAULT_LIMITS
    text = query.strip()
    limits.check_length(text)  # before parsing: a huge text is refused without the parser's time
    checked = _check_cached(text)
    limits.check_shape(checked.triple_patterns, checked.depth)
    return checked


@functools.lru_cache(maxsize=2048)
def _check_cached(text: str) -> CheckedQuery:
    if not text:
        raise QuerySyntaxError("empty query: write a SELECT, ASK, CONSTRUCT or DESCRIBE query")
    text = _expand_escapes(text)
    text, declared = _declare_standard_prefixes(text)
    form, tree = _parse(text)
    targets = service_targets(tree)
    check_targets(targets)
    calls = locate_services(text, len(targets))
    return CheckedQuery(text, form, tuple(calls), count_triple_patterns(tree), nesting_depth(text), declared)


def _expand_escapes(text: str) -> str:
    """\\uXXXX and \\UXXXXXXXX are characters before parsing (SPARQL 1.1, 19.2): `\\u0053ERVICE` is SERVICE."""
    if "\\u" not in text and "\\U" not in text:
        return text
    from rdflib.plugins.sparql.parser import expandUnicodeEscapes

    try:
        return expandUnicodeEscapes(text)
    except ValueError as error:
        raise QuerySyntaxError(f"malformed SPARQL: {error}") from None


def _parse(text: str):
    from pyparsing import ParseException

    try:
        parsed = parse_query(text)
    except ParseException as query_error:
        try:
            update = parse_update(text)
        except ParseException:
            raise QuerySyntaxError(_one_line(query_error)) from None
        if "request" not in update:  # PREFIX/BASE lines alone parse as an empty Update
            raise QuerySyntaxError("no query after the PREFIX lines: write a SELECT, ASK, CONSTRUCT or DESCRIBE "
                                   "query") from None
        raise QueryRejected(
            f"{_update_kind(update)} is an Update: the knowledge base is read-only, "
            "so only SELECT, ASK, CONSTRUCT and DESCRIBE run"
        ) from None
    except Exception as error:  # rdflib raises plain exceptions for e.g. undeclared prefixes
        raise QuerySyntaxError(f"malformed SPARQL: {str(error).splitlines()[0]}") from None
    return _FORMS[parsed[1].name], parsed


def _declare_standard_prefixes(text: str) -> tuple[str, tuple[str, ...]]:
    """Declare rdf:, rdfs:, owl:, xsd: where used undeclared (the live GraphDB predeclares them); refuse any
    other undeclared prefix (rdflib would parse it silently and the stores fail later, more vaguely)."""
    missing = undeclared_prefixes(text)
    for name in missing:
        if name not in STANDARD_PREFIXES:
            raise QuerySyntaxError(f"undeclared prefix '{name}:': add a PREFIX {name}: <…> line")
    if not missing:
        return text, ()
    lines = "".join(f"PREFIX {name}: <{STANDARD_PREFIXES[name]}>\n" for name in missing)
    return lines + text, tuple(missing)


def _update_kind(update) -> str:
    names = [_UPDATE_NAMES.get(getattr(r, "name", ""), "an Update") for r in update["request"]]
    return ", ".join(dict.fromkeys(names)) or "an Update"


def _one_line(error) -> str:
    return f"malformed SPARQL at line {error.lineno}, column {error.col}: {error.msg}"
