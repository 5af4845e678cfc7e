"""The prefilled one-field reply's prompt: DSPy's closing request is cut, everything else is kept."""

from __future__ import annotations

import dspy

from nl2sparql.modules.prefill import single_text_field, without_request
from nl2sparql.signatures.followup import RewriteFollowUp


def _rewrite_messages() -> list[dict]:
    return dspy.ChatAdapter().format(dspy.Predict(RewriteFollowUp).signature, [],
                                     {"history": "Question: Quali verbi esprimono gioia?", "question": "E quanti sono?"})


def test_the_closing_request_is_cut_and_nothing_else():
    messages = _rewrite_messages()
    assert single_text_field(messages) == "standalone_question"
    cut = without_request(messages)
    assert cut[:-1] == messages[:-1] and cut[-1]["role"] == "user"
    assert "Respond with the corresponding" in messages[-1]["content"]
    assert "Respond with the corresponding" not in cut[-1]["content"]
    assert messages[-1]["content"].startswith(cut[-1]["content"])
    assert cut[-1]["content"].endswith("E quanti sono?")
    assert single_text_field(cut) is None  # nothing left to cut a second time


def test_a_message_without_the_request_is_left_as_it_is():
    messages = [{"role": "system", "content": "Say yes."}, {"role": "user", "content": "Is 'casa' a noun?"}]
    assert without_request(messages) == messages
