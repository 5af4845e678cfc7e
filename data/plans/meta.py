"""Meta questions: what the knowledge base holds rather than what a word is (the emotions ELITA defines, the
lexicons, the dialect lemma banks and their descriptions, the graphs, the classes). Each is a catalog block: a fixed
subject pattern and the properties a question may show of it."""

from __future__ import annotations

from dataclasses import dataclass

from rdflib.term import URIRef, Variable

from nl2sparql.data.plans.compile import BANKS
from nl2sparql.data.plans.parse import Pattern
from nl2sparql.kb.vocab import ELITA_GRAPH, LIITA_GRAPH, PREFIXES, RDF


@dataclass(frozen=True)
class Catalog:
    """`subject` role; `required`: (predicate, object) pairs of the subject (an object starting with ? is a role);
    `properties`: predicate → role a question may show; `graph`: the graph it lives in (None: the default graph,
    "?graph": any named graph, its name a role)."""

    subject: str
    required: tuple[tuple[str, str], ...]
    properties: tuple[tuple[str, str], ...] = ()
    graph: str | None = None


CATALOGS = {
    "emotions": Catalog("emotion", (("a", "elita:Emotion"),), (("rdfs:label", "emotionLabel"),), ELITA_GRAPH),
    "lexicons": Catalog("lexicon", (("a", "lime:Lexicon"),), (("lime:language", "language"), ("lime:entry", "entry"))),
    "lemma_banks": Catalog("dialectLemma", (("dcterms:isPartOf", "?lemmaBank"), ("a", "lila:Lemma"))),
    "bank_metadata": Catalog("lemmaBank", (), (("dcterms:title", "title"), ("dcterms:description", "description"),
                                                ("dcterms:contributor", "contributor"), ("dcterms:license", "license"))),
    "classes": Catalog("resource", (("a", "?class"),)),
    "lemma_bank_types": Catalog("resource", (("a", "?type"),), (), LIITA_GRAPH),
    "graphs": Catalog("s", (("?p", "?o"),), (), "?graph"),
    # a written form wherever it is used: the resources written so, and the named graphs that hold them
    "written_forms": Catalog("resource", (("ontolex:writtenRep", "?writtenForm"),)),
    # the Italian lemmas each dialect lexicon translates (through its entries)
    "lexicon_lemmas": Catalog("italianEntry", (("^lime:entry", "?lexicon"), ("ontolex:canonicalForm", "?lemma"),
                                               ("vartrans:translatableAs", "?dialectEntry"))),
    "word_graphs": Catalog("resource", (("ontolex:writtenRep", "?writtenForm"),), (), "?graph"),
    # the properties a resource's entries use ("quali proprietà hanno le voci di ELITA")
    "elita_properties": Catalog("elitaEntry", (("elita:HasEmotion", "?emotion"), ("?property", "?value")), (),
                                ELITA_GRAPH),
    "sentix_properties": Catalog("sentixEntry", (("marl:hasPolarity", "?sentixPolarity"), ("?property", "?value"))),
    "lemma_properties": Catalog("lemma", (("a", "lila:Lemma"), ("?property", "?value")), (), LIITA_GRAPH),
}


def _expand(term: str) -> str:
    if term == "a":
        return RDF + "type"
    if term.startswith("^") or "/" in term:  # a property path: no single predicate of a parsed triple is it
        return ""
    prefix, _, local = term.partition(":")
    return PREFIXES[prefix] + local


def meta_lines(catalog_name: str, bank: str | None, roles: set[str]) -> list[str]:
    catalog = CATALOGS[catalog_name]
    subject = f"<{BANKS[bank]}>" if catalog_name == "bank_metadata" and bank else f"?{catalog.subject}"
    parts = [f"{p} {o}" for p, o in catalog.required]
    parts += [f"{p} ?{role}" for p, role in catalog.properties if role in roles]
    body = f"{subject} {' ; '.join(parts)}"
    if catalog.graph == "?graph":
        return [f"GRAPH ?graph {{ {body} }}"]
    return [f"GRAPH <{catalog.graph}> {{ {body} }}"] if catalog.graph else [body + " ."]


def recognize_meta(pattern: Pattern, roles: dict) -> tuple[str, str | None] | None:
    """(catalog, lemma bank) when the pattern is exactly one catalog block; the roles of its variables in `roles`."""
    triples = [tuple(t) for t in pattern.triples]
    if pattern.service or pattern.optional or pattern.not_exists or pattern.minus or pattern.values or not triples:
        return None
    subjects = {t[0] for t in triples}
    if len(subjects) != 1:
        return None
    subject = subjects.pop()
    bank = next((name for name, iri in BANKS.items() if subject == URIRef(iri)), None)
    graphs = {pattern.graph_of.get(t) for t in triples}
    for name, catalog in CATALOGS.items():
        if catalog.graph not in (None, "?graph") and graphs - {catalog.graph, None}:
            continue
        if catalog.graph is None and graphs != {None}:
            continue
        found = _match(catalog, subject, triples, bank)
        if found is not None and (pattern.graph_var is not None) == (catalog.graph == "?graph"):
            roles.update(found)
            if pattern.graph_var is not None:
                roles[pattern.graph_var] = "graph"
            return name, bank
    return None


def _match(catalog: Catalog, subject, triples: list[tuple], bank: str | None) -> dict | None:
    if (catalog.subject == "lemmaBank") != (bank is not None):
        return None
    found = {} if bank else {subject: catalog.subject}
    if bank is None and not isinstance(subject, Variable):
        return None
    left = list(triples)
    for predicate, obj in catalog.required:
        if predicate.startswith("?"):
            match = next((t for t in left if isinstance(t[1], Variable)), None)
        else:
            match = next((t for t in left if str(t[1]) == _expand(predicate)), None)
        if match is None:
            return None
        if predicate.startswith("?"):
            found[match[1]] = predicate[1:]
        if obj.startswith("?"):
            if not isinstance(match[2], Variable):
                return None
            found[match[2]] = obj[1:]
        elif str(match[2]) != _expand(obj):
            return None
        left.remove(match)
    for t in left:
        role = next((r for p, r in catalog.properties if str(t[1]) == _expand(p)), None)
        if role is None or not isinstance(t[2], Variable):
            return None
        found[t[2]] = role
    return found
