"""Training pairs from the follow-up chains, train split only: the follow-up step's rewrite (follow-up + gold
history → the gold standalone question), the generate step inside the conversation (the earlier turns as chat
turns, their gold queries as the answers → the follow-up's gold query), and the generate step on every turn's
standalone question."""

from __future__ import annotations

from typing import Callable

import dspy
from nl2sparql.data.chains import Chain
from nl2sparql.errors import DatasetError
from nl2sparql.modules.followup import FollowUp, describe_history, gold_histories, needs_history
from nl2sparql.modules.prefill import without_request
from nl2sparql.optimize.finetune.examples import TrainExample

SOURCE = "followup"  # the rewrite examples, counted apart from the gold generate examples in the manifest
CHAT_SOURCE = "followup-chat"  # the generate examples that read the conversation (ProgramSettings.followup_mode)
MODES = ("rewrite", "chat", "both")


def chain_examples(program, chains: list[Chain], *, answer_sparql: Callable[[str], str] | None = None,
                   followup: FollowUp | None = None, mode: str = "rewrite",
                   standalone: bool = True) -> list[TrainExample]:
    """Per follow-up that reaches the follow-up step (a cue-less one never does): with mode rewrite (or both), its
    rewrite prompt as the local engine sends it (DSPy's closing request left out, as `modules/prefill.py` leaves
    it out) answered by its gold standalone question; with mode chat (or both), the generate prompt after the
    earlier turns as chat turns answered by its gold query. And, with `standalone`, each turn's standalone
    question as a generate example."""
    if any(c.split != "train" for c in chains):
        raise DatasetError("fine-tuning examples may only come from the train chains")
    if mode not in MODES:
        raise ValueError(f"follow-up mode must be one of {', '.join(MODES)}, not {mode!r}")
    settings = getattr(program, "settings", None)
    followup = followup or FollowUp(with_sparql=getattr(settings, "followup_sparql", True),
                                    rows=getattr(settings, "followup_rows", 3))
    predict = followup.rewrite
    adapter = dspy.settings.adapter or dspy.ChatAdapter()
    examples = []
    for chain in chains:
        for index, (turn, history) in enumerate(zip(chain.turns, gold_histories(chain, program.runtime.endpoint))):
            turn_id = chain.turn_id(index)
            sparql = answer_sparql(turn.sparql) if answer_sparql else turn.sparql.strip()
            followed = index and needs_history(turn.question, has_history=True)
            if followed and mode in ("chat", "both"):
                earlier = chain.turns[max(0, index - followup.keep_turns):index]
                chat = program.chat_history([(t.question, t.sparql) for t in earlier])
                examples.append(TrainExample(turn_id, chain.language, turn.question,
                                             tuple(program.generate_messages(turn.question, exclude_ids=(turn_id,),
                                                                             history=chat)),
                                             program.generate_answer(sparql), source=CHAT_SOURCE))
            if followed and mode in ("rewrite", "both"):
                shown = describe_history(history, followup.keep_turns, followup.with_sparql, followup.rows)
                inputs = {"history": shown, "question": turn.question}
                answer = adapter.format_assistant_message_content(predict.signature,
                                                                  {"standalone_question": turn.standalone})
                examples.append(TrainExample(turn_id, chain.language, turn.question,
                                             tuple(without_request(adapter.format(predict.signature, predict.demos,
                                                                                  inputs))), answer,
                                             source=SOURCE))
            if not standalone:
                continue
            examples.append(TrainExample(turn_id, chain.language, turn.standalone,
                                         tuple(program.generate_messages(turn.standalone, exclude_ids=(turn_id,))),
                                         program.generate_answer(sparql)))
    return examples
