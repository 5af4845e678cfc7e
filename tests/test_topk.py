"""Top-k questions keep their LIMIT: the gold's first k rows, ties at the k-th sort key accepted."""

import pytest

from nl2sparql.data.dataset import AnswerVariables
from nl2sparql.eval.scoring.metric import execution_score
from nl2sparql.eval.scoring.topk import TopK, top_k

# The longest Sicilian words of the store: 14, 12 and 11 letters, then six words of 10 letters.
LONGEST = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>
PREFIX lime: <http://www.w3.org/ns/lemon/lime#>
PREFIX vartrans: <http://www.w3.org/ns/lemon/vartrans#>
SELECT DISTINCT ?sicilianWord {projection} WHERE {{
  <http://liita.it/data/id/LexicalReources/DialettoSiciliano/Lexicon> lime:entry ?italianEntry .
  ?italianEntry vartrans:translatableAs ?sicilianEntry .
  ?sicilianEntry ontolex:canonicalForm ?sicilianLemma .
  ?sicilianLemma ontolex:writtenRep ?sicilianWord .
}}
ORDER BY {order}
"""
WORD_AND_LENGTH = AnswerVariables(answer=("sicilianWord",), aggregates=("length",))
WORD = AnswerVariables(answer=("sicilianWord",))


def by_length(tiebreak: str = "") -> str:
    return LONGEST.format(projection="(STRLEN(?sicilianWord) AS ?length)", order=f"DESC(?length) {tiebreak}")


def by_expression(tiebreak: str = "") -> str:
    return LONGEST.format(projection="", order=f"DESC(STRLEN(?sicilianWord)) {tiebreak}")


GOLDS = [(by_length, WORD_AND_LENGTH), (by_expression, WORD)]


@pytest.mark.parametrize("text, expected", [
    ("SELECT ?w WHERE { ?x ?p ?w } ORDER BY DESC(?n) ?w LIMIT 5 OFFSET 2", TopK(("DESC(?n)", "?w"), 5, 2)),
    ("SELECT ?w WHERE { ?x ?p ?w } ORDER BY DESC (STRLEN(?w)) LIMIT 3", TopK(("DESC(STRLEN(?w))",), 3)),
    ("SELECT ?w WHERE { ?x ?p ?w } ORDER BY ?w", None),
    ("SELECT ?w WHERE { ?x ?p ?w } LIMIT 3", None),
    ("SELECT ?w WHERE { { SELECT ?w WHERE { ?x ?p ?w } ORDER BY ?w LIMIT 3 } } LIMIT 5", None),
])
def test_the_final_order_and_slice_are_read(text, expected):
    assert top_k(text) == expected


@pytest.mark.parametrize("gold, variables", GOLDS)
def test_a_correct_top_k_with_another_row_tied_at_the_kth_key_scores_exact(endpoint, gold, variables):
    gold_query = gold() + "LIMIT 4"
    # The same order broken by the word, backwards: its 4th word is another of the six 10-letter words.
    other_tie = gold("DESC(?sicilianWord)") + "LIMIT 4"
    assert endpoint.execute(other_tie).rows[3] != endpoint.execute(gold_query).rows[3]
    assert execution_score(endpoint, gold_query, variables, other_tie).exact
    assert execution_score(endpoint, gold_query, variables, gold_query).exact


@pytest.mark.parametrize("gold, variables", GOLDS)
def test_a_wrong_top_k_under_limit_is_not_exact(endpoint, gold, variables):
    gold_query = gold() + "LIMIT 4"
    shortest = gold_query.replace("DESC(", "ASC(", 1)
    shifted = gold() + "LIMIT 4 OFFSET 1"
    every_row = gold()  # the right order, no LIMIT: once scored exact, as the LIMIT was dropped
    one_too_many = gold() + "LIMIT 5"
    for predicted in (shortest, shifted, every_row, one_too_many):
        assert not execution_score(endpoint, gold_query, variables, predicted).exact, predicted
    assert execution_score(endpoint, gold_query, variables, one_too_many).recall == 1.0
