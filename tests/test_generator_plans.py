"""The generator as one voice among the candidates: its query parsed into a plan, and the plan's one-block neighbours
run on the KB, so that a query with one block wrong still puts the right answer among the candidates."""

from __future__ import annotations

from nl2sparql.data.dataset import AnswerVariables
from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Senses, Words
from nl2sparql.data.plans.neighbours import neighbours, one_block_changes
from nl2sparql.eval.scoring.metric import execution_score
from nl2sparql.retrieval.enumerate import fingerprint
from nl2sparql.retrieval.generator_plans import generator_candidates

_ANSWER = AnswerVariables((), (), ("count",))
_COUNT = (Aggregate("count", "lemma", "count", distinct=True),)


def test_neighbours_change_one_block_each_and_include_the_gold_negatives():
    plan = Plan(words=Words(pos=("verb",)), joins=(Join("sicilian"),), filters=(Filter("italianWord", "length", 5, ">"),),
                operator="count", columns=(), aggregates=_COUNT)
    around = neighbours(plan)
    assert set(one_block_changes(plan)) <= set(around)
    assert plan not in around and len(around) == len(set(around))
    assert plan.with_block(words=Words(pos=("noun",))) in around  # another part of speech
    assert plan.with_block(filters=(Filter("italianWord", "length", 5, ">="),)) in around  # the bound's strictness
    assert plan.with_block(aggregates=(Aggregate("count", "italianWord", "count", distinct=True),)) in around
    assert plan.with_block(aggregates=(Aggregate("count", "lemma", "count"),)) in around  # DISTINCT dropped
    for changed in around:  # one block each (an operator with the columns and aggregates it implies), and compiles
        assert sum(getattr(changed, f) != getattr(plan, f) for f in plan.__dataclass_fields__) <= 3
        assert "SELECT" in compile_plan(changed)


def test_a_relation_is_flipped_with_its_column_and_a_list_gets_the_joined_resource_shown():
    plan = Plan(words=Words(forms=("cane",)), senses=Senses(relation="hypernym"), columns=("hypernymWord",))
    flipped = plan.with_block(senses=Senses(relation="hyponym"), columns=("hyponymWord",))
    assert flipped in neighbours(plan)
    assert plan.with_block(senses=Senses(relation="meronym"), columns=("partWord",)) in neighbours(plan)  # another
    listed = Plan(words=Words(pos=("noun",)), joins=(Join("elita", emotions=("Gioia",)),))
    assert listed.with_block(columns=("italianWord", "emotionLabel")) in neighbours(listed)
    valued = Plan(words=Words(forms=("batticuore",)), joins=(Join("elita"),), columns=("emotionLabel", "elitaValue"))
    assert valued.with_block(columns=("emotionLabel", "elitaPolarity", "elitaValue")) in neighbours(valued)


def test_a_generator_query_with_the_wrong_part_of_speech_has_the_right_answer_among_its_neighbours(endpoint):
    def counted(pos: str) -> Plan:
        return Plan(words=Words(pos=(pos,)), filters=(Filter("italianWord", "suffix", "zione"),), operator="count",
                    columns=(), aggregates=_COUNT)

    gold, written = compile_plan(counted("noun")), compile_plan(counted("verb"))
    assert not execution_score(endpoint, gold, _ANSWER, written).exact  # the generator's own answer is wrong
    around = generator_candidates(written, endpoint, budget_s=30)
    assert around.plan_text is not None and "verb" in around.plan_text
    assert around.candidates[0].plan == counted("verb")  # its own plan first
    assert any(execution_score(endpoint, gold, _ANSWER, c.sparql).exact for c in around.candidates)
    assert len({c.fingerprint for c in around.candidates}) == len(around.candidates)  # no answer twice


def test_answers_the_enumerator_already_offers_are_not_repeated(endpoint):
    plan = Plan(words=Words(pos=("adverb",)), filters=(Filter("italianWord", "suffix", "mente"),), operator="count",
                columns=(), aggregates=_COUNT)
    known = fingerprint(endpoint.execute(compile_plan(plan)))
    around = generator_candidates(compile_plan(plan), endpoint, budget_s=30, known=frozenset({known}))
    assert around.tried > 1 and known not in {c.fingerprint for c in around.candidates}


def test_a_query_no_plan_says_offers_nothing_and_says_why(endpoint):
    around = generator_candidates("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", endpoint)
    assert around.plan_text is None and around.why_not and around.candidates == []
    broken = generator_candidates("SELEKT nothing", endpoint)
    assert broken.plan_text is None and "rdflib" in broken.why_not
