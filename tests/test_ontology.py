from nl2sparql.kb.vocab import PREFIXES
from nl2sparql.retrieval.ontology import format_terms, load_ontology


def test_catalog_ids_match_their_iris():
    terms = load_ontology()
    assert len(terms) >= 60
    for term in terms:
        prefix, local = term.id.split(":", 1)
        assert term.iri == PREFIXES[prefix] + local, term.id


def test_catalog_states_the_hypernym_direction_and_the_elita_namespace():
    by_id = {t.id: t for t in load_ontology()}
    assert "broader" in by_id["lexinfo:hypernym"].description
    assert by_id["elita:HasEmotion"].iri == "http://w3id.org/elita/HasEmotion"
    assert "lexinfo:hypernym" in format_terms([by_id["lexinfo:hypernym"]])
