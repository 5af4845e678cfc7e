"""Query limits: length, triple patterns and nesting depth, checked before a query reaches a store."""

from __future__ import annotations

import os
from dataclasses import dataclass

from nl2sparql.errors import QueryRejected


@dataclass(frozen=True)
class QueryLimits:
    """The largest query the guard lets through. The defaults leave room above every gold query of the
    dataset (at most 1,157 characters, 15 triple patterns, depth 4)."""

    max_chars: int = 20_000
    max_triple_patterns: int = 60
    max_depth: int = 10

    @classmethod
    def from_env(cls) -> QueryLimits:
        """NL2SPARQL_MAX_QUERY_CHARS, NL2SPARQL_MAX_TRIPLE_PATTERNS, NL2SPARQL_MAX_QUERY_DEPTH override."""
        def number(name: str, default: int) -> int:
            raw = os.environ.get(name)
            if raw is None:
                return default
            if not raw.isdigit() or int(raw) < 1:
                raise QueryRejected(f"{name} must be a positive whole number, not '{raw}'")
            return int(raw)

        base = cls()
        return cls(number("NL2SPARQL_MAX_QUERY_CHARS", base.max_chars),
                   number("NL2SPARQL_MAX_TRIPLE_PATTERNS", base.max_triple_patterns),
                   number("NL2SPARQL_MAX_QUERY_DEPTH", base.max_depth))

    def check_length(self, text: str) -> None:
        if len(text) > self.max_chars:
            raise QueryRejected(f"query too long: {len(text):,} characters, the limit is {self.max_chars:,}")

    def check_shape(self, triple_patterns: int, depth: int) -> None:
        if triple_patterns > self.max_triple_patterns:
            raise QueryRejected(f"query too large: {triple_patterns} triple patterns, the limit is "
                                f"{self.max_triple_patterns}")
        if depth > self.max_depth:
            raise QueryRejected(f"query nested too deep: {depth} levels of {{ }}, the limit is {self.max_depth}")


def count_triple_patterns(tree) -> int:
    """Triple patterns in rdflib's parse tree, wherever they are (OPTIONAL, FILTER EXISTS, SERVICE, …)."""
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    total = 0
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            if node.name == "TriplesBlock":
                total += sum(len(chunk) // 3 for chunk in node.get("triples", []))
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, ParseResults)):
            stack.extend(node)
    return total


def nesting_depth(text: str) -> int:
    """The deepest level of group braces, outside strings, IRIs and comments."""
    from nl2sparql.kb.lexer import tokens

    depth = deepest = 0
    for tok in tokens(text):
        if tok.kind == "brace":
            depth += 1 if tok.text == "{" else -1
            deepest = max(deepest, depth)
    return deepest
