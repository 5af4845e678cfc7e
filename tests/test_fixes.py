"""Deterministic fixes: what they change, and that they leave good queries alone."""

import pytest

from nl2sparql.modules.fixes import (
    add_missing_prefixes, case_insensitive_filters, extract_query, strip_fences,
)

Q = 'SELECT ?l WHERE { ?l ontolex:writtenRep "casa"@it }'


def test_extract_query_from_fenced_answer_with_prose():
    text = "Here is the query:\n```sparql\n" + Q + " LIMIT 5\n```\nIt returns the lemma."
    assert extract_query(text) == Q + " LIMIT 5"


def test_extract_query_drops_field_markers_and_trailing_prose():
    assert extract_query("[[ ## sparql ## ]]\n" + Q + "\nThis finds casa.\n[[ ## completed ## ]]") == Q


def test_strip_fences_leaves_a_clean_query_alone():
    assert strip_fences(Q) is None


def test_missing_prefix_declared_and_wrong_namespace_corrected():
    fix = add_missing_prefixes("PREFIX elita: <http://w3id.org/elita/ontology#>\n" + Q)
    assert fix.sparql.startswith("PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\n")
    assert "PREFIX elita: <http://w3id.org/elita/>" in fix.sparql
    assert add_missing_prefixes(fix.sparql) is None


def test_case_insensitive_filter_both_orders():
    fix = case_insensitive_filters('SELECT ?e WHERE { ?e rdfs:label ?x FILTER(?x = "Rabbia") }')
    assert 'FILTER(LCASE(STR(?x)) = LCASE("Rabbia"))' in fix.sparql
    fix = case_insensitive_filters('SELECT ?e WHERE { ?e rdfs:label ?x FILTER("rabbia"@it = STR(?x)) }')
    assert 'FILTER(LCASE(STR(?x)) = LCASE("rabbia"))' in fix.sparql
    assert case_insensitive_filters(Q) is None


def test_parse_fixes_for_shapes_small_models_write():
    from nl2sparql.kb.guard import check
    from nl2sparql.modules.fixes import having_parentheses, modifiers_outside, not_function, select_aggregates

    p = "PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\n"
    cases = [
        (having_parentheses, p + "SELECT ?w WHERE { ?l ontolex:writtenRep ?w }\nGROUP BY ?w\n"
                                 "HAVING COUNT(?l) >= 8\nORDER BY ?w", "HAVING (COUNT(?l) >= 8)"),
        (not_function, p + 'SELECT ?w WHERE { ?l ontolex:writtenRep ?w FILTER(NOT STRSTARTS(STR(?w), "a")) }',
         "FILTER(!STRSTARTS("),
        (modifiers_outside, p + "SELECT ?w WHERE {\n  ?l ontolex:writtenRep ?w\n  GROUP BY ?w\n  LIMIT 5\n}",
         "}\nGROUP BY ?w\nLIMIT 5"),
        (select_aggregates, p + "SELECT COUNT(DISTINCT ?l) WHERE { ?l ontolex:writtenRep ?w }",
         "SELECT (COUNT(DISTINCT ?l) AS ?count) WHERE"),
        (select_aggregates, p + "SELECT ?w COUNT(?l) AS ?n WHERE { ?l ontolex:writtenRep ?w } GROUP BY ?w",
         "SELECT ?w (COUNT(?l) AS ?n) WHERE"),
    ]
    for fix, broken, expected in cases:
        fixed = fix(broken)
        assert fixed is not None and expected in fixed.sparql, (fix.__name__, fixed)
        check(fixed.sparql)
    assert not_function(p + "SELECT ?w WHERE { ?l ontolex:writtenRep ?w FILTER NOT EXISTS { ?l ?p ?o } }") is None
    assert select_aggregates("SELECT (COUNT(?l) AS ?n) WHERE { ?l ?p ?o }") is None


@pytest.mark.parametrize("query,expected", [
    ('?l ontolex:writtenRep "rezdôra"@it .', '?l ontolex:writtenRep "rezdôra"@roa .'),
    ('?l ontolex:writtenRep "rezdôra" .', '?l ontolex:writtenRep "rezdôra"@roa .'),
    ('?l ontolex:writtenRep "rezdôra"@roa .', None),  # already right
    ('?l ontolex:writtenRep "rezdôrass"@it .', None),  # another word
    ('FILTER(STR(?w) = "rezdôra")', None),  # a plain string comparison stays plain
    ('FILTER(?w = "rezdôra"@it)', 'FILTER(?w = "rezdôra"@roa)'),
])
def test_dialect_words_get_their_language_tag(query, expected):
    from nl2sparql.modules.fixes import retag_dialect_words

    fix = retag_dialect_words(query, {"rezdôra": '"rezdôra"@roa'})
    assert (fix.sparql if fix else None) == expected
