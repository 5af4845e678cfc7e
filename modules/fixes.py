"""Deterministic repairs, tried before any LM repair: cheap, explainable, and never a new query."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nl2sparql.kb import vocab
from nl2sparql.kb.lexer import prefixes, tokens, undeclared_prefixes

_FENCE = re.compile(r"```[ \t]*(?:sparql|SPARQL|rq)?[ \t]*\n(.*?)(?:```|$)", re.DOTALL)
_START = re.compile(r"^\s*(PREFIX|BASE|SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE | re.MULTILINE)
_MARKER = re.compile(r"\[\[\s*##\s*\w+\s*##\s*\]\]")
# FILTER(?x = "v"), FILTER(STR(?x) = "v"@it) and the mirrored forms: exact, case-sensitive equality.
_EQUALITY = re.compile(
    r"FILTER\s*\(\s*(?:STR\s*\(\s*)?\?(?P<var>\w+)\s*\)?\s*=\s*\"(?P<value>[^\"\\]*)\"(?:@[\w-]+|\^\^\S+)?\s*\)",
    re.IGNORECASE)
_EQUALITY_MIRRORED = re.compile(
    r"FILTER\s*\(\s*\"(?P<value>[^\"\\]*)\"(?:@[\w-]+)?\s*=\s*(?:STR\s*\(\s*)?\?(?P<var>\w+)\s*\)?\s*\)",
    re.IGNORECASE)


@dataclass(frozen=True)
class Fix:
    """A deterministic change to a query: its name, the new text, and what was done."""

    name: str
    sparql: str
    note: str


def extract_query(text: str) -> str:
    """The SPARQL inside an LM answer: without markdown fences, field markers or prose around it."""
    text = _MARKER.sub("", text or "").strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start = _START.search(text)
    if start:
        text = text[start.start():]
    return _balanced(text.strip().rstrip("`").strip())


def _balanced(text: str) -> str:
    """Cut trailing prose after the brace that closes the query body (LIMIT/ORDER clauses kept)."""
    depth, last_close = 0, None
    for tok in tokens(text):
        if tok.kind == "brace":
            depth += 1 if tok.text == "{" else -1
            if depth == 0:
                last_close = tok.end
    if last_close is None:
        return text
    tail = text[last_close:]
    modifiers = re.match(r"(\s*(?:GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET|VALUES)\b[^\n]*)*", tail,
                         re.IGNORECASE)
    return (text[:last_close] + (modifiers.group(0) if modifiers else "")).strip()


def strip_fences(sparql: str) -> Fix | None:
    cleaned = extract_query(sparql)
    if cleaned != sparql.strip():
        return Fix("strip-fences", cleaned, "removed markdown fences or prose around the query")
    return None


def add_missing_prefixes(sparql: str) -> Fix | None:
    """Declare known LiITA prefixes the query uses without declaring, and correct wrong namespace IRIs."""
    declared = prefixes(sparql)
    missing = sorted(name for name in undeclared_prefixes(sparql) if name in vocab.PREFIXES)
    text, notes = sparql, []
    for name, iri in declared.items():
        expected = vocab.PREFIXES.get(name)
        if expected and iri != expected:
            text = re.sub(rf"(PREFIX\s+{re.escape(name)}:\s*)<{re.escape(iri)}>", rf"\g<1><{expected}>", text,
                          flags=re.IGNORECASE)
            notes.append(f"{name}: → <{expected}>")
    if missing:
        text = "".join(f"PREFIX {name}: <{vocab.PREFIXES[name]}>\n" for name in missing) + text
        notes.append("declared " + ", ".join(f"{name}:" for name in missing))
    return Fix("prefixes", text, "; ".join(notes)) if notes else None


def case_insensitive_filters(sparql: str) -> Fix | None:
    """Exact string equality in a FILTER → case-insensitive (for an empty answer: "Rabbia" vs "rabbia")."""
    def replace(match: re.Match) -> str:
        value = match.group("value").replace("\\", "\\\\")
        return f'FILTER(LCASE(STR(?{match.group("var")})) = LCASE("{value}"))'

    text = _EQUALITY.sub(replace, sparql)
    text = _EQUALITY_MIRRORED.sub(replace, text)
    if text != sparql:
        return Fix("case-insensitive", text, "made exact string FILTERs case-insensitive")
    return None


_HAVING = re.compile(r"\bHAVING\s+(?!\()(?P<expr>[^\n{}]+?)\s*(?=(?:ORDER\s+BY|LIMIT|OFFSET)\b|$)",
                     re.IGNORECASE | re.MULTILINE)
_NOT_CALL = re.compile(r"\bNOT\s+(?!EXISTS\b|IN\b)(?=[A-Za-z_]+\s*\()", re.IGNORECASE)
_MODIFIER = re.compile(r"^\s*(GROUP\s+BY|HAVING|ORDER\s+BY|LIMIT|OFFSET)\b", re.IGNORECASE)


def having_parentheses(sparql: str) -> Fix | None:
    """`HAVING COUNT(?x) > 2` → `HAVING (COUNT(?x) > 2)`: SPARQL wants the constraint bracketed."""
    text = _HAVING.sub(lambda m: f"HAVING ({m.group('expr').strip()})" + (" " if m.end() < len(sparql)
                                                                         and not sparql[m.end():].startswith("\n")
                                                                         else ""), sparql)
    return Fix("having", text, "bracketed the HAVING constraint") if text != sparql else None


def not_function(sparql: str) -> Fix | None:
    """`FILTER(NOT STRSTARTS(…))` → `FILTER(!STRSTARTS(…))`: SPARQL negates with `!` (NOT only before EXISTS/IN)."""
    text = _NOT_CALL.sub("!", sparql)
    return Fix("not", text, "wrote NOT f(…) as !f(…)") if text != sparql else None


def modifiers_outside(sparql: str) -> Fix | None:
    """GROUP BY / HAVING / ORDER BY / LIMIT written inside the last brace of WHERE → moved after it."""
    closes = [t for t in tokens(sparql) if t.kind == "brace" and t.text == "}"]
    if not closes:
        return None
    last = closes[-1].start
    body = sparql[:last]
    lines = body.rstrip().split("\n")
    moved = []
    while lines and _MODIFIER.match(lines[-1]):
        moved.insert(0, lines.pop().strip())
    if not moved:
        return None
    text = "\n".join(lines).rstrip() + "\n}\n" + "\n".join(moved) + sparql[last + 1:]
    return Fix("modifiers", text.rstrip(), "moved GROUP BY / ORDER BY / LIMIT after the WHERE block")


_SELECT_CLAUSE = re.compile(r"\bSELECT\s+(?:DISTINCT\s+|REDUCED\s+)?(?P<vars>.*?)(?=\bWHERE\b|\{)",
                            re.IGNORECASE | re.DOTALL)
_AGGREGATE_START = re.compile(r"\b(COUNT|SUM|AVG|MIN|MAX|SAMPLE|GROUP_CONCAT)\s*\(", re.IGNORECASE)
_ALIAS = re.compile(r"\s+AS\s+(\?\w+)", re.IGNORECASE)


def select_aggregates(sparql: str) -> Fix | None:
    """`SELECT COUNT(?x) WHERE` → `SELECT (COUNT(?x) AS ?count) WHERE`; `COUNT(?x) AS ?n` gets its brackets."""
    clause = _SELECT_CLAUSE.search(sparql)
    if not clause:
        return None
    text, out, i, changed = clause.group("vars"), [], 0, False
    while i < len(text):
        match = _AGGREGATE_START.search(text, i)
        if not match:
            out.append(text[i:])
            break
        before = text[i:match.start()]
        out.append(before)
        depth, j = 0, match.end() - 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                break
        call = text[match.start():j]
        if before.rstrip().endswith("("):  # already bracketed
            out.append(call)
            i = j
            continue
        alias = _ALIAS.match(text, j)
        name = alias.group(1) if alias else "?" + match.group(1).lower()
        out.append(f"({call} AS {name})")
        i = alias.end() if alias else j
        changed = True
    if not changed:
        return None
    fixed = sparql[:clause.start("vars")] + "".join(out) + sparql[clause.end("vars"):]
    return Fix("select-aggregates", fixed, "bracketed aggregates in SELECT with an AS name")


def retag_dialect_words(sparql: str, literals: dict[str, str]) -> Fix | None:
    """`"rezdôra"@it` (or untagged) → `"rezdôra"@roa` for words grounded as dialect forms (an empty answer
    from a dialect word written with the Italian tag)."""
    text = sparql
    for form, literal in literals.items():  # untagged only as a written form: STR(?w) = "…" must stay plain
        text = re.sub(rf'"{re.escape(form)}"@it\b', lambda _: literal, text, flags=re.IGNORECASE)
        text = re.sub(rf'(writtenRep\s+)"{re.escape(form)}"(?![@^])', lambda m: m.group(1) + literal, text,
                      flags=re.IGNORECASE)
    return Fix("dialect-tag", text, "gave dialect words their language tag") if text != sparql else None


SYNTAX_FIXES = (strip_fences, add_missing_prefixes)
# Tried only when the query does not parse (they rewrite shapes a valid query may legitimately have).
PARSE_FIXES = (having_parentheses, not_function, modifiers_outside, select_aggregates)
EMPTY_RESULT_FIXES = (case_insensitive_filters,)


def apply_fixes(sparql: str, fixes=SYNTAX_FIXES) -> tuple[str, list[Fix]]:
    applied = []
    for fix in fixes:
        result = fix(sparql)
        if result is not None:
            applied.append(result)
            sparql = result.sparql
    return sparql, applied
