"""The MCP/web toolbox keeps conversations apart by id: a follow-up sees its own conversation only."""

from __future__ import annotations

import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.errors import InputError
from nl2sparql.modules.program import ProgramSettings
from nl2sparql.serve.tools import Toolbox, ToolboxConfig

from test_conversation import CANE, SADNESS, SADNESS_COUNT


def test_two_conversations_are_kept_apart(kb_store):
    lm = DummyLM([{"sparql": SADNESS}, {"sparql": CANE},
                  {"standalone_question": "Quante parole ELITA esprimono tristezza?"}, {"sparql": SADNESS_COUNT}])
    settings = ProgramSettings(examples_k=0, ontology_k=0, ground_entities=False, max_repairs=0)
    toolbox = Toolbox(ToolboxConfig(version="uncompiled", store=kb_store, settings=settings), lm_object=lm)
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
