"""A question's time: its deadline, what each LM call spent, and a progress line for whoever is watching.

The program makes one `Clock` per question (`ProgramSettings.deadline_s`, a `progress` callback passed to
`forward`). Around each LM call, `Clock.lm_call()` makes an `LMCall` current for the thread: the local engine
reads its `stop_at` (it ends generation then) and adds what its grammar refused and the seconds that cost.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterator

# Kept at the end of a question's time (at most 5% of it) for what follows the last LM call or query.
FINISH_RESERVE_S = 1.5

_CURRENT: ContextVar[LMCall | None] = ContextVar("nl2sparql_lm_call", default=None)


@dataclass
class LMCall:
    """One LM call as the program sees it: when it must stop, and what it spent."""

    stop_at: float | None = None  # a time.perf_counter() value; None: no limit
    seconds: float = 0.0
    grammar_refused: int = 0  # choices the grammar turned down
    grammar_seconds: float = 0.0  # time spent finding an allowed token after a refusal
    cut: bool = False  # generation was ended by the deadline

    def remaining(self) -> float | None:
        return None if self.stop_at is None else max(0.0, self.stop_at - time.perf_counter())


def current_call() -> LMCall | None:
    """The LM call the program is making on this thread, if any (read by the local engine)."""
    return _CURRENT.get()


@dataclass
class Clock:
    """When a question must be answered by, and the steps it goes through (`progress` hears each name)."""

    deadline_s: float | None = None  # None or 0: no deadline
    progress: Callable[[str], None] | None = None
    started: float = field(default_factory=time.perf_counter)
    stopped_early: bool = False

    @property
    def stop_at(self) -> float | None:
        """When LM calls and queries stop: the deadline less a short reserve in which the answer is read out
        (labels, the reading) and a prompt still being read is given up (`modules/llama_abort.py`), so the whole
        question ends by the deadline."""
        if not self.deadline_s:
            return None
        return self.started + self.deadline_s - min(FINISH_RESERVE_S, self.deadline_s * 0.05)

    def passed(self) -> bool:
        """Whether the deadline has passed (then the caller skips what is left and says so)."""
        if self.stop_at is not None and time.perf_counter() >= self.stop_at:
            self.stopped_early = True
        return self.stopped_early

    def step(self, name: str) -> None:
        if self.progress is not None:
            self.progress(name)

    @contextmanager
    def lm_call(self, name: str) -> Iterator[LMCall]:
        """Time one LM call, with the rest of the question's time as its limit."""
        self.step(name)
        call = LMCall(stop_at=self.stop_at)
        token = _CURRENT.set(call)
        started = time.perf_counter()
        try:
            yield call
        finally:
            call.seconds = time.perf_counter() - started
            _CURRENT.reset(token)
            if call.cut:
                self.stopped_early = True
