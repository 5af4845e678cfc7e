"""The read-only guard shared by every endpoint: parse first, refuse Updates, check SERVICE use."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from nl2sparql.errors import QueryRejected, QuerySyntaxError
from nl2sparql.kb.lexer import prefixes, tokens
from nl2sparql.kb.limits import QueryLimits, count_triple_patterns, nesting_depth
from nl2sparql.kb.service import ServiceCall, check_services, find_services

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
    """A query that passed the guard: its text, its form, its SERVICE clauses and its size."""

    text: str
    form: QueryForm
    services: tuple[ServiceCall, ...]
    triple_patterns: int = 0
    depth: int = 0


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
    form, tree = _parse(text)
    _check_prefixes(text)
    calls = find_services(text)
    check_services(calls)
    return CheckedQuery(text, form, tuple(calls), count_triple_patterns(tree), nesting_depth(text))


def _parse(text: str):
    from pyparsing import ParseException
    from rdflib.plugins.sparql.parser import parseQuery, parseUpdate

    try:
        parsed = parseQuery(text)
    except ParseException as query_error:
        try:
            update = parseUpdate(text)
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


def _check_prefixes(text: str) -> None:
    """rdflib parses undeclared prefixes silently; the stores would fail later with a vaguer message."""
    declared = prefixes(text)
    for tok in tokens(text):
        if tok.kind == "word" and ":" in tok.text:
            name = tok.text.split(":", 1)[0]
            if name not in declared and name.upper() != "PREFIX":
                raise QuerySyntaxError(f"undeclared prefix '{name}:': add a PREFIX {name}: <…> line")


def _update_kind(update) -> str:
    names = [_UPDATE_NAMES.get(getattr(r, "name", ""), "an Update") for r in update["request"]]
    return ", ".join(dict.fromkeys(names)) or "an Update"


def _one_line(error) -> str:
    return f"malformed SPARQL at line {error.lineno}, column {error.col}: {error.msg}"
