"""Small constructors for the quads the build writes (pyoxigraph terms)."""

from __future__ import annotations

import pyoxigraph as ox

from nl2sparql.kb.vocab import DCTERMS, ONTOLEX, RDF, SAMPLE_SOURCE, XSD

DEFAULT = ox.DefaultGraph()
TYPE = ox.NamedNode(RDF + "type")
CANONICAL = ox.NamedNode(ONTOLEX + "canonicalForm")


def iri(value: str) -> ox.NamedNode:
    return ox.NamedNode(value)


def text(value: str, lang: str | None = None) -> ox.Literal:
    return ox.Literal(value, language=lang) if lang else ox.Literal(value)


def decimal(value: float) -> ox.Literal:
    return ox.Literal(f"{value:.4f}".rstrip("0").rstrip(".") if "." in f"{value:.4f}" else str(value),
                      datatype=ox.NamedNode(XSD + "decimal"))


def quad(subject, predicate, obj, graph=DEFAULT) -> ox.Quad:
    return ox.Quad(subject, predicate, obj, graph)


def sample_marker(subject, graph=DEFAULT) -> ox.Quad:
    """Marks a resource as coming from our hand-authored sample, not the published resource."""
    return ox.Quad(subject, ox.NamedNode(DCTERMS + "source"), ox.Literal(SAMPLE_SOURCE), graph)
