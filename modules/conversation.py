"""Conversations: questions asked one after another, each follow-up read against the turns before it.

    with nl2sparql.load("latest") as program:
        chat = program.conversation()
        chat.ask("Quali lemmi esprimono tristezza?")
        chat.ask("E quanti sono?")        # → "Quanti lemmi esprimono tristezza?"

Conversations live in memory; `save(path)` writes one as JSON when asked to.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Sequence

import dspy
from nl2sparql.files import write_text_atomic
from nl2sparql.modules.followup import FollowUp, TurnSummary, needs_history


class FollowUpProgram(dspy.Module):
    """The follow-up step in front of a program: the question is made standalone against `history`, then
    answered by the program unchanged; or, with `ProgramSettings.followup_mode = "chat"`, the program's generate
    step reads the earlier turns itself (one LM call, the question kept as asked). The prediction adds
    `standalone_question` and `built_on` (the index of the turn it built on, or None)."""

    def __init__(self, program, followup: FollowUp | None = None):
        super().__init__()
        self.program = program
        settings = getattr(program, "settings", None)
        self.followup = followup or FollowUp(with_sparql=getattr(settings, "followup_sparql", True),
                                             rows=getattr(settings, "followup_rows", 3))
        if self.followup.rewrite.lm is None and hasattr(program, "generate"):
            self.followup.rewrite.lm = program.generate.predict.lm  # the program's LM unless given its own

    @property
    def followup_mode(self) -> str:
        return getattr(getattr(self.program, "settings", None), "followup_mode", "rewrite")

    @property
    def runtime(self):
        return self.program.runtime

    @property
    def generate(self):
        return self.program.generate

    def close(self) -> None:
        self.program.close()

    def forward(self, question: str, history: Sequence[TurnSummary] = (),
                exclude_ids: tuple[str, ...] | frozenset = ()) -> dspy.Prediction:
        from dspy.utils.usage_tracker import UsageTracker

        started = time.perf_counter()
        if self.followup_mode == "chat" and needs_history(question.strip(), bool(history)):
            shown = list(history)[-self.followup.keep_turns:]
            chat = self.program.chat_history([(t.question, t.sparql) for t in shown])
            prediction = self.program(question=question, exclude_ids=exclude_ids, history=chat)
            prediction.standalone_question, prediction.built_on = prediction.question, len(history) - 1
            prediction.seconds = time.perf_counter() - started
            return prediction
        tracker = UsageTracker()
        with dspy.context(usage_tracker=tracker):
            try:
                step = self.followup(question=question, history=tuple(history))
            except Exception as error:  # a shared LM server that stopped answering is its one line
                from nl2sparql.modules.server_lm import server_failure

                failure = server_failure(error)
                if failure is None:
                    raise
                raise failure from None
        prediction = self.program(question=step.standalone_question, exclude_ids=exclude_ids)
        prediction.question = question
        prediction.standalone_question = step.standalone_question
        prediction.built_on = step.built_on
        prediction.usage = _add_usage(prediction.usage, step.calls, tracker)
        prediction.seconds = time.perf_counter() - started
        return prediction


def _add_usage(usage: dict, calls: int, tracker) -> dict:
    out = dict(usage)
    out["calls"] = out.get("calls", 0) + calls
    for entries in tracker.usage_data.values():
        for entry in entries:
            out["prompt_tokens"] = out.get("prompt_tokens", 0) + int(entry.get("prompt_tokens") or 0)
            out["completion_tokens"] = out.get("completion_tokens", 0) + int(entry.get("completion_tokens") or 0)
    return out


class Conversation:
    """The turns asked so far of one program; `ask` answers a question in their light, `new` starts over."""

    def __init__(self, program, followup: FollowUp | None = None, conversation_id: str | None = None):
        self.answerer = program if isinstance(program, FollowUpProgram) else FollowUpProgram(program, followup)
        self.id = conversation_id or uuid.uuid4().hex[:12]
        self.turns: list[TurnSummary] = []

    def ask(self, question: str) -> dspy.Prediction:
        prediction = self.answerer(question=question, history=tuple(self.turns))
        prediction.turn = len(self.turns)
        prediction.conversation_id = self.id
        self.turns.append(TurnSummary.of(question, prediction.standalone_question, prediction.sparql or "",
                                         prediction.result))
        return prediction

    def new(self) -> None:
        self.turns.clear()

    def replace_last(self, sparql: str, variables: Sequence[str], rows: Sequence[Sequence[str]], count: int) -> None:
        """The last turn answered by another reading (`/alt N`): later follow-ups build on its query and rows."""
        if not self.turns:
            return
        last = self.turns[-1]
        first = tuple(tuple(r) for r in rows[:3])
        boolean = {"true": True, "false": False}.get(rows[0][0]) if list(variables) == ["ask"] and rows else None
        self.turns[-1] = TurnSummary(last.question, last.standalone_question, sparql,
                                     () if boolean is not None else tuple(variables), count, first if boolean is None
                                     else (), boolean)

    @property
    def last_sparql(self) -> str:
        return self.turns[-1].sparql if self.turns else ""

    def to_json(self) -> dict:
        return {"conversation_id": self.id, "turns": [t.to_json() for t in self.turns]}

    def save(self, path: Path) -> None:
        """The turns as JSON, written atomically (nothing else about a conversation reaches the disk)."""
        write_text_atomic(Path(path), json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n")
