"""Training pairs from the follow-up chains, train split only: the follow-up step's rewrite (follow-up + gold
history → the gold standalone question) and the generate step on every turn's standalone question."""

from __future__ import annotations

from typing import Callable

import dspy
from nl2sparql.data.chains import Chain
from nl2sparql.errors import DatasetError
from nl2sparql.modules.followup import FollowUp, describe_history, gold_histories, needs_history
from nl2sparql.modules.prefill import without_request
from nl2sparql.optimize.finetune.examples import TrainExample

SOURCE = "followup"  # the rewrite examples, counted apart from the gold generate examples in the manifest


def chain_examples(program, chains: list[Chain], *, answer_sparql: Callable[[str], str] | None = None,
                   followup: FollowUp | None = None) -> list[TrainExample]:
    """The rewrite prompt of each follow-up as the local engine sends it (a cue-less one never reaches it; DSPy's
    closing request left out, as `modules/prefill.py` leaves it out), answered by its gold standalone question;
    and each turn's standalone question as a generate example."""
    if any(c.split != "train" for c in chains):
        raise DatasetError("fine-tuning examples may only come from the train chains")
    settings = getattr(program, "settings", None)
    followup = followup or FollowUp(with_sparql=getattr(settings, "followup_sparql", True),
                                    rows=getattr(settings, "followup_rows", 3))
    predict = followup.rewrite
    adapter = dspy.settings.adapter or dspy.ChatAdapter()
    examples = []
    for chain in chains:
        for index, (turn, history) in enumerate(zip(chain.turns, gold_histories(chain, program.runtime.endpoint))):
            turn_id = chain.turn_id(index)
            if index and needs_history(turn.question, has_history=True):
                shown = describe_history(history, followup.keep_turns, followup.with_sparql, followup.rows)
                inputs = {"history": shown, "question": turn.question}
                answer = adapter.format_assistant_message_content(predict.signature,
                                                                  {"standalone_question": turn.standalone})
                examples.append(TrainExample(turn_id, chain.language, turn.question,
                                             tuple(without_request(adapter.format(predict.signature, predict.demos,
                                                                                  inputs))), answer,
                                             source=SOURCE))
            sparql = answer_sparql(turn.sparql) if answer_sparql else turn.sparql.strip()
            examples.append(TrainExample(turn_id, chain.language, turn.standalone,
                                         tuple(program.generate_messages(turn.standalone, exclude_ids=(turn_id,))),
                                         program.generate_answer(sparql)))
    return examples
