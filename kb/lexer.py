"""A small SPARQL lexer: finds keywords and IRIs outside string literals and comments."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A prefixed name's local part, with its backslash escapes (`ex:a\'b` is one name, not a string opening).
_LOCAL = r"(?:[\w\-.:%]|\\[_~.\-!$&'()*+,;=/?#@%])*"
_TOKEN = re.compile(
    r'(?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')'
    r'|(?P<iri><[^<>"{}|^`\\\s]*>)'
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<var>[?$]\w+)"
    r"|(?P<brace>[{}])"
    r"|(?P<word>(?:[^\W\d]|_)[\w\-]*(?::" + _LOCAL + r")?|:" + _LOCAL + ")",
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


def tokens(query: str) -> list[Token]:
    """Strings, IRIs, comments, variables, braces and words (keywords, prefixed names), in order."""
    return [Token(m.lastgroup or "", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(query)]


def undeclared_prefixes(query: str) -> list[str]:
    """The prefixes the query's prefixed names use without a PREFIX line, in order of first use."""
    declared = prefixes(query)
    found: list[str] = []
    for tok in tokens(query):
        if tok.kind == "word" and ":" in tok.text:
            name = tok.text.split(":", 1)[0]
            if name not in declared and name not in found and name.upper() != "PREFIX":  # `PREFIX:` typed as one word
                found.append(name)
    return found


def prefixes(query: str) -> dict[str, str]:
    """The PREFIX declarations of a query, name → namespace IRI."""
    found: dict[str, str] = {}
    toks = [t for t in tokens(query) if t.kind != "comment"]
    for i, tok in enumerate(toks[:-2]):
        if tok.kind == "word" and tok.text.upper() == "PREFIX" and toks[i + 2].kind == "iri":
            found[toks[i + 1].text.rstrip(":").split(":")[0]] = toks[i + 2].text[1:-1]
    return found
