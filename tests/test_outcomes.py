"""Outcome classes of scored questions, fed by the real execution metric's scores."""

import pytest

from nl2sparql.data.dataset import AnswerVariables
from nl2sparql.eval.scoring.metric import Score, compare
from nl2sparql.eval.scoring.outcomes import Outcome
from nl2sparql.eval.scoring.scored import ScoredQuestion, count_outcomes
from nl2sparql.kb.results import QueryResult, Term

SELECT_GOLD = "PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nSELECT ?word WHERE { ?l ontolex:writtenRep ?word }"
ASK_GOLD = "# is it there?\nPREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\n  ASK { ?l ontolex:writtenRep \"cane\"@it }"


def words(*values):
    return QueryResult(("word",), tuple((Term("literal", v),) for v in values))


def scored(score: Score, rows: int, valid: bool = True, gold: str = SELECT_GOLD) -> ScoredQuestion:
    return ScoredQuestion(id="q", language="it", question="?", patterns=(), gold_sparql=gold, exact=score.exact,
                          valid=valid, error=score.error, f1=score.f1, rows=rows)


def outcome(question: ScoredQuestion) -> str:
    return question.outcome.value


GOLD = words("casa", "cane")
WORD = AnswerVariables(answer=("word",))
TWO_COLUMNS = QueryResult(("word", "pos"), ((Term("literal", "casa"), Term("literal", "noun")),))
ASK_TRUE = QueryResult((), boolean=True)


@pytest.mark.parametrize("gold, predicted, rows, expected", [
    (GOLD, words("cane", "casa"), 2, "exact"),
    (GOLD, words("casa", "gatto"), 2, "partial"),
    (GOLD, words("gatto"), 1, "wrong_answer"),
    (GOLD, words(), 0, "empty"),
    (TWO_COLUMNS, words("casa"), 1, "missing_column"),
    (ASK_TRUE, words("casa"), 1, "query_form"),
    (GOLD, ASK_TRUE, 0, "query_form"),
])
def test_each_score_of_the_metric_falls_in_its_outcome(gold, predicted, rows, expected):
    variables = WORD if gold.variables == ("word",) else AnswerVariables(answer=gold.variables)
    assert outcome(scored(compare(gold, variables, predicted), rows)) == expected


def test_a_wrong_ask_boolean_is_a_wrong_answer_not_an_empty_one():
    score = compare(ASK_TRUE, AnswerVariables(), QueryResult((), boolean=False))
    assert outcome(scored(score, 0, gold=ASK_GOLD)) == "wrong_answer"
    assert outcome(scored(score, 0, gold=SELECT_GOLD)) == "empty"


def test_invalid_and_failed_queries():
    assert outcome(scored(Score.zero("syntax: malformed SPARQL"), 0, valid=False)) == "invalid"
    assert outcome(scored(Score.zero("the query timed out after 10 s"), 0)) == "failed"


def test_counts_have_every_outcome_in_order():
    exact = scored(compare(GOLD, WORD, GOLD), 2)
    empty = scored(compare(GOLD, WORD, words()), 0)
    counts = count_outcomes([exact, empty, empty])
    assert list(counts) == [o.value for o in Outcome]
    assert counts["exact"] == 1 and counts["empty"] == 2 and sum(counts.values()) == 3


def test_a_scored_question_keeps_its_outcome_through_json():
    empty = scored(compare(GOLD, WORD, words()), 0)
    again = ScoredQuestion.from_json(empty.to_json())
    assert again == empty and again.outcome is Outcome.EMPTY and empty.to_json()["outcome"] == "empty"
    older = {k: v for k, v in empty.to_json().items() if k != "outcome"}  # reports written before outcomes were kept
    assert ScoredQuestion.from_json(older).outcome is Outcome.EMPTY
