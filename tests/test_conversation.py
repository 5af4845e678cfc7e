"""Conversations with DummyLM: a follow-up is rewritten against the last turn and answered as a standalone
question; a question that needs no history passes through without an LM call; turns are kept, saved, cleared."""

from __future__ import annotations

import json

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.modules.followup import FollowUp, TurnSummary, describe_history, needs_history
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime

from conftest import PREFIXES

SADNESS = PREFIXES + ("SELECT DISTINCT ?lemma ?italianWord WHERE { GRAPH <http://w3id.org/elita> { ?e "
                      "elita:HasEmotion elita:Tristezza ; ontolex:canonicalForm ?lemma } ?lemma ontolex:writtenRep "
                      "?italianWord }")
SADNESS_COUNT = PREFIXES + ("SELECT (COUNT(DISTINCT ?lemma) AS ?wordCount) WHERE { GRAPH <http://w3id.org/elita> "
                            "{ ?e elita:HasEmotion elita:Tristezza ; ontolex:canonicalForm ?lemma } }")
CANE = PREFIXES + 'SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "cane"@it } }'


def chat_with(endpoint, answers: list[dict]):
    lm = DummyLM(answers)
    dspy.configure(lm=lm)
    program = NL2SPARQL(ProgramSettings(examples_k=0, ontology_k=0, ground_entities=False), Runtime(endpoint=endpoint))
    return program.conversation(), lm


def test_a_follow_up_is_answered_as_the_standalone_question(endpoint):
    chat, lm = chat_with(endpoint, [{"sparql": SADNESS},
                                    {"standalone_question": "Quante parole ELITA esprimono tristezza?"},
                                    {"sparql": SADNESS_COUNT}])
    first = chat.ask("Quali parole ELITA esprimono tristezza?")
    second = chat.ask("E quante sono?")
    assert first.built_on is None and first.standalone_question == "Quali parole ELITA esprimono tristezza?"
    assert second.built_on == 0 and second.turn == 1
    assert second.standalone_question == "Quante parole ELITA esprimono tristezza?"
    assert second.rows == [("66",)] and second.usage["calls"] == 2  # the rewrite and the generate step
    rewrite_prompt = lm.history[1]["messages"][-1]["content"]
    assert "E quante sono?" in rewrite_prompt and "66 rows" in rewrite_prompt and "Tristezza" in rewrite_prompt
    assert "Quante parole ELITA" in lm.history[2]["messages"][-1]["content"]
    assert [t.row_count for t in chat.turns] == [66, 1]


def test_a_question_that_needs_no_history_passes_through_unchanged(endpoint):
    chat, lm = chat_with(endpoint, [{"sparql": SADNESS}, {"sparql": CANE}])
    chat.ask("Quali parole ELITA esprimono tristezza?")
    out = chat.ask("Qual è il lemma di «cane» nel lemmario di LiITA?")
    assert out.standalone_question == "Qual è il lemma di «cane» nel lemmario di LiITA?" and out.built_on is None
    assert len(lm.history) == 2 and out.usage["calls"] == 1


def test_turns_are_saved_as_json_and_new_starts_over(endpoint, tmp_path):
    chat, _ = chat_with(endpoint, [{"sparql": CANE}])
    chat.ask("Qual è il lemma di «cane» nel lemmario di LiITA?")
    chat.save(tmp_path / "chat.json")
    saved = json.loads((tmp_path / "chat.json").read_text(encoding="utf-8"))
    assert saved["conversation_id"] == chat.id and saved["turns"][0]["row_count"] == 1
    assert chat.last_sparql == CANE
    chat.new()
    assert chat.turns == [] and chat.last_sparql == ""


@pytest.mark.parametrize("question, follow_up", [
    ("E quanti sono?", True), ("Solo i verbi.", True), ("And in Parmigiano?", True),
    ("Quali sono i primi dieci in ordine alfabetico?", True), ("What are their Parmigiano translations?", True),
    ("Ordinali dal più numeroso.", True),
    ("Quali definizioni dà CompL-it per il sostantivo «cane»?", False),
    ("Which emotions does ELITA attach to the word 'paura'?", False),
])
def test_follow_up_cues(question, follow_up):
    assert needs_history(question, has_history=True) is follow_up
    assert needs_history(question, has_history=False) is False


def test_the_step_without_history_makes_no_lm_call():
    lm = DummyLM([])
    dspy.configure(lm=lm)
    out = FollowUp()(question="E quanti sono?", history=())
    assert out.standalone_question == "E quanti sono?" and out.built_on is None and lm.history == []


def test_history_shows_only_the_last_query():
    turns = [TurnSummary("q1", "first question", "SELECT 1"), TurnSummary("q2", "second question", "SELECT 2")]
    text = describe_history(turns)
    assert "first question" in text and "SELECT 1" not in text and "SELECT 2" in text


def test_history_without_sparql_keeps_questions_and_answers():
    turns = [TurnSummary("q1", "first question", "SELECT 1"), TurnSummary("q2", "second question", "SELECT 2")]
    text = describe_history(turns, with_sparql=False)
    assert "first question" in text and "second question" in text and "Answer: 0 rows" in text
    assert "SELECT" not in text and "SPARQL" not in text


def test_history_shows_as_many_first_rows_as_asked():
    turn = TurnSummary("q", "Quali parole?", "SELECT 1", ("italianWord",), 47, (("abbraccio",), ("aiuto",), ("amico",)))
    assert "first: abbraccio; aiuto; amico" in describe_history([turn])
    assert "first: abbraccio" in describe_history([turn], rows=1) and "aiuto" not in describe_history([turn], rows=1)
    text = describe_history([turn], rows=0)
    assert "Answer: 47 rows of (italianWord)" in text and "first" not in text and "abbraccio" not in text


def test_the_followup_sparql_setting_reaches_the_rewrite_prompt(endpoint):
    answers = [{"sparql": SADNESS}, {"standalone_question": "Quante parole ELITA esprimono tristezza?"},
               {"sparql": SADNESS_COUNT}]
    prompts = {}
    for with_sparql in (True, False):
        lm = DummyLM(list(answers))
        dspy.configure(lm=lm)
        settings = ProgramSettings(examples_k=0, ontology_k=0, ground_entities=False, followup_sparql=with_sparql)
        chat = NL2SPARQL(settings, Runtime(endpoint=endpoint)).conversation()
        chat.ask("Quali parole ELITA esprimono tristezza?")
        assert chat.ask("E quante sono?").rows == [("66",)]
        prompts[with_sparql] = lm.history[1]["messages"][-1]["content"]
    assert "elita:Tristezza" in prompts[True] and "66 rows" in prompts[True]
    assert "elita:Tristezza" not in prompts[False] and "66 rows" in prompts[False]
    assert "Quali parole ELITA esprimono tristezza?" in prompts[False]


def test_the_step_compiles_and_saves_like_the_others(endpoint, tmp_path):
    from nl2sparql.data.chains import load_chains
    from nl2sparql.modules.followup import rewrite_examples

    trainset = rewrite_examples([c for c in load_chains() if c.split == "train"][:2], endpoint)
    assert trainset and all(ex.history and ex.standalone_question != ex.question for ex in trainset)
    dspy.configure(lm=DummyLM({f"]]\n{ex.question}\n": {"standalone_question": ex.standalone_question}
                               for ex in reversed(trainset)}))
    compiled = dspy.BootstrapFewShot(metric=lambda ex, pred, trace=None: pred.standalone_question
                                     == ex.standalone_question, max_bootstrapped_demos=2,
                                     max_labeled_demos=0).compile(FollowUp(), trainset=trainset)
    assert len(compiled.rewrite.demos) == 2 and "Question:" in compiled.rewrite.demos[0]["history"]
    compiled.save(str(tmp_path / "followup.json"))
    fresh = FollowUp()
    fresh.load(str(tmp_path / "followup.json"))
    assert [d["standalone_question"] for d in fresh.rewrite.demos] == [
        d["standalone_question"] for d in compiled.rewrite.demos]
