"""Follow-ups in chat mode (ProgramSettings.followup_mode = "chat"): the generate step reads the earlier turns as
chat turns and answers in one LM call; the fine-tune teaches it from the train chains with the gold history."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.errors import DatasetError
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings, without_prefix_lines
from nl2sparql.modules.runtime import Runtime

from test_conversation import CANE, SADNESS, SADNESS_COUNT


def chat_program(endpoint, answers: list[dict], **settings) -> tuple[NL2SPARQL, DummyLM]:
    lm = DummyLM(answers)
    dspy.configure(lm=lm)
    options = {"examples_k": 0, "ontology_k": 0, "ground_entities": False, "followup_mode": "chat", **settings}
    return NL2SPARQL(ProgramSettings(**options), Runtime(endpoint=endpoint)), lm


def test_a_follow_up_is_one_generate_call_that_reads_the_earlier_turn(endpoint):
    program, lm = chat_program(endpoint, [{"sparql": SADNESS}, {"sparql": SADNESS_COUNT}], compact_prompt=True)
    chat = program.conversation()
    first = chat.ask("Quali parole ELITA esprimono tristezza?")
    second = chat.ask("E quante sono?")
    assert first.built_on is None and second.built_on == 0
    assert second.standalone_question == "E quante sono?"  # kept as asked: the query is what it made of it
    assert second.rows == [("66",)] and second.usage["calls"] == 1 and len(lm.history) == 2
    messages = lm.history[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "Quali parole ELITA esprimono tristezza?" in messages[1]["content"]
    assert "elita:Tristezza" in messages[2]["content"] and "[[ ## sparql ## ]]" in messages[2]["content"]
    assert "E quante sono?" in messages[3]["content"] and "Tristezza" not in messages[3]["content"]
    # With the compact prompt of a fine-tuned version, the first turn's request is the head of the follow-up's,
    # word for word: the engine's prompt cache holds it.
    assert lm.history[0]["messages"][:2] == messages[:2]


def test_chat_mode_still_passes_a_standalone_question_through_alone(endpoint):
    program, lm = chat_program(endpoint, [{"sparql": SADNESS}, {"sparql": CANE}])
    chat = program.conversation()
    chat.ask("Quali parole ELITA esprimono tristezza?")
    out = chat.ask("Qual è il lemma di «cane» nel lemmario di LiITA?")
    assert out.built_on is None and out.rows and len(lm.history[1]["messages"]) == 2  # system + the question


def test_the_rewrite_mode_is_unchanged_by_the_chat_mode(endpoint):
    program, lm = chat_program(endpoint, [{"sparql": SADNESS},
                                          {"standalone_question": "Quante parole ELITA esprimono tristezza?"},
                                          {"sparql": SADNESS_COUNT}], followup_mode="rewrite")
    chat = program.conversation()
    chat.ask("Quali parole ELITA esprimono tristezza?")
    out = chat.ask("E quante sono?")
    assert out.usage["calls"] == 2 and out.standalone_question == "Quante parole ELITA esprimono tristezza?"
    assert all(len(h["messages"]) == 2 for h in lm.history)  # no chat turns in any request


def test_train_chains_teach_the_chat_mode_with_the_gold_history_and_only_train_chains(endpoint):
    from nl2sparql.data.chains import load_chains
    from nl2sparql.optimize.finetune.followups import CHAT_SOURCE, chain_examples
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    chains = load_chains()
    program = NL2SPARQL(FinetuneConfig(compact_prompt=True).program_settings(), Runtime(endpoint=endpoint))
    [chain] = [c for c in chains if c.split == "train"][:1]
    chat = chain_examples(program, [chain], answer_sparql=without_prefix_lines, mode="chat")
    both = chain_examples(program, [chain], answer_sparql=without_prefix_lines, mode="both")
    turns = [e for e in chat if e.source == CHAT_SOURCE]
    assert len(turns) == len(chain.turns) - 1 and not [e for e in chat if e.source == "followup"]
    assert len(both) == len(chat) + len(turns)  # both: the rewrites too
    last, earlier = turns[-1], chain.turns[-3:-1] if len(chain.turns) > 2 else chain.turns[:1]
    assert [m["role"] for m in last.messages] == ["system"] + ["user", "assistant"] * len(earlier) + ["user"]
    assert chain.turns[-1].question in last.messages[-1]["content"]
    assert without_prefix_lines(chain.turns[-2].sparql) in last.messages[-2]["content"]  # the gold history
    assert without_prefix_lines(chain.turns[-1].sparql) in last.answer and "[[ ## sparql ## ]]" in last.answer
    # Each turn alone is asked the way a first turn is: the conversation only adds turns before it.
    alone = program.generate_messages(chain.turns[-2].question)
    assert last.messages[0] == alone[0] and last.messages[-3]["content"] == alone[1]["content"]
    with pytest.raises(DatasetError, match="train chains"):
        chain_examples(program, [c for c in chains if c.split == "test"][:1], mode="chat")
    with pytest.raises(ValueError, match="follow-up mode"):
        chain_examples(program, [chain], mode="sideways")
