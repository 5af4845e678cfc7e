import pytest

from hostile_cases import NOWHERE, UPDATES, fill

from nl2sparql.errors import QueryRejected, QuerySyntaxError
from nl2sparql.kb.guard import check
from nl2sparql.kb.service import rewrite_services_as_graph


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_every_update_form_is_rejected(name):
    with pytest.raises(QueryRejected, match="read-only") as caught:
        check(fill(UPDATES[name], NOWHERE))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("query", ["SELECT ?x WHERE { ?x ", "SELEC * WHERE { }", "", "ASK { ?s ex:p ?o }"])
def test_malformed_query_gives_one_line_syntax_error(query):
    with pytest.raises(QuerySyntaxError) as caught:
        check(query)
    assert str(caught.value) and "\n" not in str(caught.value)


def test_prefix_lines_without_a_query_are_a_syntax_error_not_an_update():
    # A small model may write only PREFIX lines; they parse as an empty Update request.
    with pytest.raises(QuerySyntaxError, match="no query after the PREFIX lines"):
        check("PREFIX lila: <http://lila-erc.eu/ontologies/lila/>\nPREFIX lila: <http://lila-erc.eu/ontologies/lila/>")


@pytest.mark.parametrize("query,form", [
    ("SELECT * WHERE { ?s ?p ?o }", "SELECT"), ("ASK { ?s ?p ?o }", "ASK"),
    ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "CONSTRUCT"), ("DESCRIBE <http://a>", "DESCRIBE"),
])
def test_read_forms_pass_with_their_form(query, form):
    assert check(query).form == form


def test_undeclared_prefix_is_named_in_the_error():
    with pytest.raises(QuerySyntaxError, match="undeclared prefix 'lila:'"):
        check("SELECT ?l WHERE { ?l a lila:Lemma }")


def test_foreign_service_is_rejected():
    with pytest.raises(QueryRejected, match="only federated endpoint is CompL-it"):
        check("SELECT * WHERE { SERVICE <https://query.wikidata.org/sparql> { ?s ?p ?o } }")


def test_service_by_prefixed_name_is_resolved():
    query = "PREFIX c: <https://klab.ilc.cnr.it/graphdb-compl-it/> SELECT * WHERE { SERVICE c: { ?s ?p ?o } }"
    assert [call.iri for call in check(query).services] == ["https://klab.ilc.cnr.it/graphdb-compl-it/"]


def test_service_keyword_inside_a_string_or_comment_is_ignored():
    query = 'SELECT * WHERE { ?s ?p "SERVICE <http://x> { }" } # SERVICE <http://y> { }'
    assert check(query).services == ()


def test_rewrite_turns_only_the_service_clause_into_a_graph():
    query = ('SELECT * WHERE { ?w ?p "SERVICE <x>" . SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/> '
             '{ ?w ?q ?o } FILTER(?o) }')
    rewritten = rewrite_services_as_graph(query, list(check(query).services))
    assert rewritten == ('SELECT * WHERE { ?w ?p "SERVICE <x>" . GRAPH <https://klab.ilc.cnr.it/graphdb-compl-it/> '
                         '{ ?w ?q ?o } FILTER(?o) }')
