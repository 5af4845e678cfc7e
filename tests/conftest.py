"""Shared fixtures: the full embedded store, built once per test session from the real open data."""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sparql.kb.build.store import build_store, default_source
from nl2sparql.kb.embedded import EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.paths import SOURCE_ENV

PREFIXES = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>
PREFIX lila: <http://lila-erc.eu/ontologies/lila/>
PREFIX lime: <http://www.w3.org/ns/lemon/lime#>
PREFIX vartrans: <http://www.w3.org/ns/lemon/vartrans#>
PREFIX lexinfo: <http://www.lexinfo.net/ontology/3.0/lexinfo#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX elita: <http://w3id.org/elita/>
PREFIX marl: <http://www.gsi.upm.es/ontologies/marl/ns#>
"""


@pytest.fixture(scope="session")
def kb_store(tmp_path_factory) -> Path:
    source = default_source()
    assert source.is_dir(), f"LiITA open data not found at {source} (set {SOURCE_ENV})"
    out = tmp_path_factory.mktemp("kb") / "store"
    build_store(source, out)
    return out


@pytest.fixture(scope="session")
def endpoint(kb_store):
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store)) as ep:
        yield ep


def run(endpoint, body: str):
    return endpoint.execute(PREFIXES + body)


@pytest.fixture(scope="session")
def enumerated(kb_store, endpoint):
    """question → the enumerator's candidates on the embedded KB, with no query dropped for a busy machine."""
    from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans, enumeration_endpoint
    from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
    from nl2sparql.retrieval.signals import read_signals

    lexicons = Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)

    def candidates(question: str) -> list:
        with enumeration_endpoint(kb_store, timeout_s=10) as pool:
            return enumerate_plans(read_signals(question, *lexicons), pool, EnumerationConfig(budget_s=20)).candidates
    return candidates
