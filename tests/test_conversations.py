"""The MCP/web toolbox keeps conversations apart by id: a follow-up sees its own conversation only; the web
page's Conversation tab stacks the turns and starts over on "New conversation"."""

from __future__ import annotations

import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.errors import InputError
from nl2sparql.modules.program import ProgramSettings
from nl2sparql.serve.tools import Toolbox, ToolboxConfig

from test_conversation import CANE, SADNESS, SADNESS_COUNT


def toolbox_with(kb_store, answers: list[dict]) -> tuple[Toolbox, DummyLM]:
    lm = DummyLM(answers)
    settings = ProgramSettings(examples_k=0, ontology_k=0, ground_entities=False, max_repairs=0)
    return Toolbox(ToolboxConfig(version="uncompiled", store=kb_store, settings=settings), lm_object=lm), lm


def test_two_conversations_are_kept_apart(kb_store):
    toolbox, lm = toolbox_with(kb_store, [
        {"sparql": SADNESS}, {"sparql": CANE}, {"standalone_question": "Quante parole ELITA esprimono tristezza?"},
        {"sparql": SADNESS_COUNT}])
    try:
        sadness = toolbox.translate("Quali parole ELITA esprimono tristezza?")
        dog = toolbox.translate("Qual è il lemma di «cane» nel lemmario di LiITA?")
        assert sadness["conversation_id"] != dog["conversation_id"] and sadness["turn"] == dog["turn"] == 0
        count = toolbox.translate("E quante sono?", conversation_id=sadness["conversation_id"])
        assert count["conversation_id"] == sadness["conversation_id"] and count["turn"] == 1
        assert count["built_on"] == 0 and count["standalone_question"] == "Quante parole ELITA esprimono tristezza?"
        assert count["table"]["rows"] == [["66"]]
        rewrite_prompt = lm.history[2]["messages"][-1]["content"]
        assert "Tristezza" in rewrite_prompt and "cane" not in rewrite_prompt
        with pytest.raises(InputError, match="unknown conversation_id"):
            toolbox.translate("E quante sono?", conversation_id="nope")
    finally:
        toolbox.close()


def test_the_web_conversation_stacks_turns_and_starts_over(kb_store):
    from nl2sparql.serve.web_conversation import ask_turn, new_state, transcript

    toolbox, _ = toolbox_with(kb_store, [
        {"sparql": SADNESS}, {"standalone_question": "Quante parole ELITA esprimono tristezza?"},
        {"sparql": SADNESS_COUNT}, {"sparql": CANE}])
    try:
        state = ask_turn(toolbox, "Quali parole ELITA esprimono tristezza?", new_state())
        state = ask_turn(toolbox, "E quante sono?", state)
        shown = transcript(state)
        assert "1. Quali parole ELITA esprimono tristezza?" in shown and "2. E quante sono?" in shown
        assert "→ Quante parole ELITA esprimono tristezza?" in shown and "| 66 |" in shown
        assert "| lemma | italianWord |" in shown and "… 56 more rows" in shown
        state = ask_turn(toolbox, "E quante sono?", new_state())  # after "New conversation": no history
        assert len(state["turns"]) == 1 and state["turns"][0]["built_on"] is None and "2." not in transcript(state)
    finally:
        toolbox.close()
