"""The execution metric on fixed result sets, and on the real store for LIMIT and errors."""

from nl2sparql.data.dataset import AnswerVariables
from nl2sparql.eval.scoring.metric import compare, execution_score, strip_slice
from nl2sparql.kb.results import QueryResult, Term

INT = "http://www.w3.org/2001/XMLSchema#integer"
DEC = "http://www.w3.org/2001/XMLSchema#decimal"


def lit(value, datatype=None):
    return Term("literal", str(value), None, datatype)


def iri(value):
    return Term("uri", value)


def result(variables, rows):
    return QueryResult(tuple(variables), tuple(tuple(r) for r in rows))


GOLD = result(["lemma", "word"], [[iri("l:1"), lit("casa")], [iri("l:2"), lit("cane")]])
WORDS = AnswerVariables(answer=("word",), ids=("lemma",))


def test_renamed_and_reordered_columns_with_an_extra_id_column_match():
    predicted = result(["x", "w", "extra"], [[iri("l:9"), lit("cane"), lit("a")], [iri("l:8"), lit("casa"), lit("b")]])
    score = compare(GOLD, WORDS, predicted)
    assert score.exact and score.f1 == 1.0


def test_missing_and_extra_rows_give_partial_scores():
    predicted = result(["word"], [[lit("casa")], [lit("gatto")], [lit("topo")]])
    score = compare(GOLD, WORDS, predicted)
    assert (round(score.precision, 3), score.recall, score.exact) == (0.333, 0.5, False)
    assert round(score.f1, 3) == 0.4


def test_aggregates_compare_after_numeric_normalisation():
    gold = result(["n"], [[lit(42, INT)]])
    assert compare(gold, AnswerVariables(aggregates=("n",)), result(["count"], [[lit("42.0", DEC)]])).exact
    assert not compare(gold, AnswerVariables(aggregates=("n",)), result(["count"], [[lit(41, INT)]])).exact


def test_ask_compares_booleans_and_refuses_a_select():
    gold = QueryResult((), boolean=True)
    assert compare(gold, AnswerVariables(), QueryResult((), boolean=True)).exact
    assert not compare(gold, AnswerVariables(), QueryResult((), boolean=False)).exact
    assert compare(gold, AnswerVariables(), GOLD).f1 == 0.0


def test_strip_slice_removes_only_the_outer_limit():
    assert strip_slice("SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x LIMIT 10 OFFSET 5") == \
        "SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x"
    inner = "SELECT ?x WHERE { { SELECT ?x WHERE { ?x ?p ?o } LIMIT 3 } }"
    assert strip_slice(inner) == inner


def test_on_the_store_limit_is_ignored_and_a_failing_prediction_scores_zero(endpoint):
    gold = ('PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\n'
            'SELECT ?w WHERE { GRAPH <http://liita.it/data> { ?l ontolex:writtenRep ?w FILTER(STRSTARTS(STR(?w), "casal")) } }')
    variables = AnswerVariables(answer=("w",))
    assert execution_score(endpoint, gold, variables, gold + " LIMIT 2").exact
    broken = execution_score(endpoint, gold, variables, "SELECT ?w WHERE { ?w }")
    assert broken.f1 == 0.0 and broken.error
    assert execution_score(endpoint, gold, variables, "DROP ALL").f1 == 0.0


def test_group_concat_columns_compare_as_sets_whatever_the_separator(endpoint):
    gold = ('SELECT ?pos (GROUP_CONCAT(?w; SEPARATOR=", ") AS ?words) WHERE { VALUES (?pos ?w) { ("n" "casa") '
            '("n" "cane") ("v" "correre") } } GROUP BY ?pos')
    reordered = ('SELECT ?pos (GROUP_CONCAT(?w; SEPARATOR=" | ") AS ?list) WHERE { VALUES (?pos ?w) { ("v" "correre") '
                 '("n" "cane") ("n" "casa") } } GROUP BY ?pos')
    missing = ('SELECT ?pos (GROUP_CONCAT(?w; SEPARATOR=", ") AS ?words) WHERE { VALUES (?pos ?w) { ("n" "casa") '
               '("v" "correre") } } GROUP BY ?pos')
    variables = AnswerVariables(answer=("pos",), aggregates=("words",))
    assert execution_score(endpoint, gold, variables, reordered).exact
    assert not execution_score(endpoint, gold, variables, missing).exact
    # without GROUP_CONCAT in the gold, a concatenated string is compared as it is
    plain = 'SELECT ?words WHERE { VALUES ?words { "casa, cane" } }'
    assert not execution_score(endpoint, plain, AnswerVariables(answer=("words",)),
                               'SELECT ?words WHERE { VALUES ?words { "cane, casa" } }').exact
