"""Domain lint for LiITA queries: deterministic rules with messages a person or an LM can act on.

The guard (kb/guard.py) decides what may run; lint says what will probably answer wrongly on the
live LiITA even though it runs. Rules read rdflib's algebra (and, inside SERVICE, its parse tree).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from rdflib.term import URIRef, Variable

from nl2sparql.kb import vocab
from nl2sparql.kb.lexer import prefixes

ELITA_GRAPH = URIRef(vocab.ELITA_GRAPH)
COMPLIT = URIRef(vocab.COMPLIT_SERVICE)

# Properties whose object is a literal, and ones whose object is a resource.
LITERAL_PROPERTIES = {URIRef(iri) for iri in (
    vocab.ONTOLEX + "writtenRep", vocab.RDFS + "label", vocab.SKOS + "definition", vocab.MARL + "hasPolarityValue",
    vocab.SKOS + "example", vocab.LEXINFO + "senseExample", vocab.DCTERMS + "title", vocab.DCTERMS + "description",
)}
RESOURCE_PROPERTIES = {URIRef(iri) for iri in (
    vocab.ONTOLEX + "canonicalForm", vocab.ONTOLEX + "sense", vocab.ONTOLEX + "lexicalForm",
    vocab.ONTOLEX + "otherForm", vocab.LILA + "hasPOS", vocab.VARTRANS + "translatableAs", vocab.LIME + "entry",
    vocab.DCTERMS + "isPartOf", vocab.ELITA + "HasEmotion", vocab.RDF + "type", vocab.LEXINFO + "hypernym",
    vocab.LEXINFO + "hyponym", vocab.LEXINFO + "partMeronym", vocab.LEXINFO + "antonym", vocab.MARL + "hasPolarity",
)}
# Namespaces that never belong inside the CompL-it SERVICE.
_NOT_IN_COMPLIT = {vocab.ELITA: "emotions (ELITA)", vocab.MARL: "polarity (ELITA, Sentix)",
                   vocab.VARTRANS: "dialect translations", vocab.LIME: "dialect lexicons"}
_LILA_POS = {"adjective", "noun", "verb", "adverb"}


@dataclass(frozen=True)
class Finding:
    """One lint finding: the rule's name and a message that says what to change."""

    rule: str
    message: str


@dataclass
class _Context:
    graph: Any = None
    service: Any = None


@dataclass
class _Collected:
    triples: list[tuple[tuple, _Context]] = field(default_factory=list)
    filters: list[tuple[Any, _Context]] = field(default_factory=list)


def lint(query: str) -> list[Finding]:
    """Every finding for a query that already parses (run the guard first)."""
    from nl2sparql.kb.parser import query_algebra

    findings = _prefix_findings(query)
    try:
        algebra = query_algebra(query)
    except Exception:  # the guard reports parse errors; lint has nothing to add
        return findings
    collected = _Collected()
    _walk(algebra, _Context(), collected)
    findings += _elita_outside_graph(collected)
    findings += _service_findings(collected)
    findings += _iri_and_literal(collected)
    findings += _lexinfo_pos(collected)
    findings += _shared_translation_entry(collected)
    return _unique(findings)


def _unique(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            out.append(finding)
    return out


def _prefix_findings(query: str) -> list[Finding]:
    out = []
    for name, iri in prefixes(query).items():
        expected = vocab.PREFIXES.get(name)
        if expected and iri != expected:
            out.append(Finding("prefix", f"PREFIX {name}: is bound to <{iri}> but LiITA uses <{expected}>"))
        elif not expected and name not in ("owl", "foaf", "dc", "schema") and iri not in vocab.PREFIXES.values():
            out.append(Finding("prefix", f"PREFIX {name}: <{iri}> is not a LiITA namespace; use one of "
                                         f"{', '.join(sorted(vocab.PREFIXES))}"))
    return out


def _walk(node: Any, context: _Context, out: _Collected) -> None:
    name = getattr(node, "name", None)
    if name in ("Graph", "GraphGraphPattern"):
        context = _Context(graph=node.get("term"), service=context.service)
    elif name == "ServiceGraphPattern":
        context = _Context(graph=context.graph, service=node.get("term"))
    if name in ("BGP", "TriplesBlock"):
        for triple in node.get("triples") or []:
            if len(triple) == 3:
                out.triples.append((tuple(triple), context))
    if name == "Filter" and node.get("expr") is not None:
        out.filters.append((node.get("expr"), context))
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("_vars", "PV"):
                continue
            if key == "expr" and name == "Filter":
                _walk_expr(value, context, out)
            else:
                _walk(value, context, out)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _walk(item, context, out)


def _walk_expr(expr: Any, context: _Context, out: _Collected) -> None:
    """EXISTS / NOT EXISTS patterns inside a FILTER carry graph patterns of their own."""
    if isinstance(expr, dict):
        if getattr(expr, "name", "") in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            _walk(expr.get("graph"), context, out)
            return
        for value in expr.values():
            _walk_expr(value, context, out)
    elif isinstance(expr, (list, tuple)):
        for item in expr:
            _walk_expr(item, context, out)


def _variables(expr: Any) -> Iterator[Variable]:
    if isinstance(expr, Variable):
        yield expr
    elif isinstance(expr, dict):
        for key, value in expr.items():
            if key != "_vars":
                yield from _variables(value)
    elif isinstance(expr, (list, tuple)):
        for item in expr:
            yield from _variables(item)


def _in_elita(term: Any) -> bool:
    return isinstance(term, URIRef) and str(term).startswith(vocab.ELITA)


def _elita_outside_graph(collected: _Collected) -> list[Finding]:
    for (s, p, o), context in collected.triples:
        if (_in_elita(p) or _in_elita(o)) and context.graph != ELITA_GRAPH and context.service is None:
            return [Finding("elita-graph", "ELITA triples (elita:HasEmotion, elita:Emotion …) must sit inside "
                                           "GRAPH <http://w3id.org/elita> { … }")]
    return []


def _service_findings(collected: _Collected) -> list[Finding]:
    out = []
    services = {context.service for _, context in collected.triples if context.service is not None}
    for service in sorted(services - {COMPLIT}):
        out.append(Finding("service-iri", f"SERVICE <{service}> is not CompL-it: the only federated endpoint is "
                                          f"SERVICE <{vocab.COMPLIT_SERVICE}>"))
    for (s, p, o), context in collected.triples:
        if context.service != COMPLIT:
            continue
        for term in (p, o):
            for namespace, what in _NOT_IN_COMPLIT.items():
                if isinstance(term, URIRef) and str(term).startswith(namespace):
                    out.append(Finding("service-scope", f"{what} are not in CompL-it: move the triples with "
                                                        f"<{term}> out of the SERVICE block"))
    inside: dict[Any, set[Variable]] = {}
    for (s, p, o), context in collected.triples:
        if context.service is not None:
            inside.setdefault(context.service, set()).update(t for t in (s, p, o) if isinstance(t, Variable))
    for expr, context in collected.filters:
        if context.service is None:
            continue
        outside = sorted(set(_variables(expr)) - inside.get(context.service, set()))
        if outside:
            names = ", ".join(f"?{v}" for v in outside)
            out.append(Finding("service-filter", f"the FILTER inside SERVICE uses {names}, bound only outside it, "
                                                 "where the remote endpoint cannot see it: join on a shared variable "
                                                 "(e.g. the written form) or move the FILTER outside"))
    return out


def _iri_and_literal(collected: _Collected) -> list[Finding]:
    literal, resource = set(), set()
    for (s, p, o), _ in collected.triples:
        if isinstance(s, Variable):
            resource.add(s)
        if isinstance(o, Variable):
            if p in LITERAL_PROPERTIES:
                literal.add(o)
            elif p in RESOURCE_PROPERTIES:
                resource.add(o)
    return [Finding("iri-and-literal", f"?{v} is used both as a literal (a written form or label) and as a "
                                       "resource: use two variables") for v in sorted(literal & resource)]


def _lexinfo_pos(collected: _Collected) -> list[Finding]:
    has_pos = URIRef(vocab.LILA + "hasPOS")
    for (s, p, o), _ in collected.triples:
        if p == has_pos and isinstance(o, URIRef) and str(o).startswith(vocab.LEXINFO):
            local = str(o)[len(vocab.LEXINFO):]
            hint = f"lila:{local}" if local in _LILA_POS else "a lila: part of speech"
            return [Finding("pos-namespace", f"lila:hasPOS takes lila: individuals: write {hint}, not lexinfo:{local}")]
    return []


def _shared_translation_entry(collected: _Collected) -> list[Finding]:
    translatable = URIRef(vocab.VARTRANS + "translatableAs")
    targets: dict[Variable, set] = {}
    for (s, p, o), _ in collected.triples:
        if p == translatable and isinstance(s, Variable):
            targets.setdefault(s, set()).add(o)
    return [Finding("shared-entry", f"?{v} translates into {len(t)} dialect entries: each dialect lexicon has its "
                                    "own Italian entry, so use one Italian entry variable per dialect, joined on "
                                    "the lemma") for v, t in targets.items() if len(t) > 1]
