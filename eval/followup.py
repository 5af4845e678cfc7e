"""Follow-up splits (`followup-train|dev|test`): every turn of every chain scored with the execution metric.

The history a turn sees is a mode, written after the split name:
  `followup-test`          the earlier turns' gold (standalone questions, queries, answers): a miss does not cascade;
  `followup-test:own`      the system's own earlier turns (the end-to-end figure; `eval run --own-history`);
  `followup-test:alone`    none: the follow-up asked as if alone (a naive baseline);
  `followup-test:concat`   none, the earlier questions and the follow-up joined into one question (a naive baseline).
First turns and follow-ups are reported apart (the patterns `turn:first`, `turn:follow-up`, `kind:…`).
"""

from __future__ import annotations

from typing import Sequence

import dspy
from nl2sparql.data.chains import chains_of_split, turn_record
from nl2sparql.data.dataset import Record
from nl2sparql.errors import DatasetError
from nl2sparql.modules.conversation import FollowUpProgram
from nl2sparql.modules.followup import TurnSummary

MODES = ("gold", "own", "alone", "concat")


def parse_split(split: str) -> tuple[str, str]:
    """`followup-test:own` → (`followup-test`, `own`); no mode → gold history."""
    name, _, mode = split.partition(":")
    mode = mode or "gold"
    if mode not in MODES:
        raise DatasetError(f"unknown history mode {mode!r} in {split!r}; known: {', '.join(MODES)}")
    return name, mode


def followup_records(split: str) -> list[Record]:
    return [turn_record(chain, i) for chain in chains_of_split(parse_split(split)[0])
            for i in range(len(chain.turns))]


def followup_examples(split: str) -> list[dspy.Example]:
    """One example per turn, in chain order, carrying the gold history of the turns before it."""
    out = []
    for chain in chains_of_split(parse_split(split)[0]):
        for index, turn in enumerate(chain.turns):
            history = tuple((t.question, t.standalone, t.sparql) for t in chain.turns[:index])
            out.append(dspy.Example(
                question=turn.question, history=history, exclude_ids=(chain.turn_id(index),),
                chain_id=chain.id, turn_index=index, record_id=chain.turn_id(index), language=chain.language,
                gold_sparql=turn.sparql).with_inputs("question", "history", "exclude_ids", "chain_id", "turn_index"))
    return out


class ChainProgram(FollowUpProgram):
    """The follow-up step and the program, fed the history the mode asks for."""

    def __init__(self, program, mode: str = "gold", followup=None):
        super().__init__(program, followup)
        self.mode = mode
        self._chain: str | None = None
        self._own: list[TurnSummary] = []
        self._gold: dict[str, TurnSummary] = {}

    def forward(self, question: str, history: Sequence[tuple[str, str, str]] = (), exclude_ids=(),
                chain_id: str = "", turn_index: int = 0) -> dspy.Prediction:
        if chain_id != self._chain or turn_index == 0:
            self._chain, self._own = chain_id, []
        if self.mode == "alone":
            return self._alone(question, question, exclude_ids)
        if self.mode == "concat":
            return self._alone(question, " ".join([*(q for q, _, _ in history), question]), exclude_ids)
        # A resumed own-history run that lost the earlier turns answers with no history rather than wrong one.
        turns = self._own if self.mode == "own" else [self._summary(*h) for h in history]
        prediction = super().forward(question, turns if len(turns) == turn_index else (), exclude_ids)
        self._own.append(TurnSummary.of(question, prediction.standalone_question, prediction.sparql or "",
                                        prediction.result))
        return prediction

    def _alone(self, question: str, asked: str, exclude_ids) -> dspy.Prediction:
        prediction = self.program(question=asked, exclude_ids=exclude_ids)
        prediction.question, prediction.standalone_question, prediction.built_on = question, asked, None
        return prediction

    def _summary(self, question: str, standalone: str, sparql: str) -> TurnSummary:
        if sparql not in self._gold:
            result = self.program.runtime.endpoint.execute(sparql)
            self._gold[sparql] = TurnSummary.of(question, standalone, sparql, result)
        return self._gold[sparql]
