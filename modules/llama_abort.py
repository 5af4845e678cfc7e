"""Ending a local completion's prompt evaluation at the question's deadline.

The deadline cuts a completion token by token (a logits processor picks the end of text once it has passed), but
llama.cpp evaluates the whole prompt before the first token is picked, and on a busy machine a long prompt takes tens
of seconds: a repair begun just before the deadline ran 20 s past it. llama.cpp asks an abort callback between the
operations of every evaluation. Ours is libc's `strlen` over a two-byte flag, so llama.cpp reads the flag without
entering Python (no lock taken per operation, whatever other threads do), and a timer raises the flag a grace after
the deadline: a completion already past its prompt is cut first by its logits processor, keeping what it wrote, and
only a prompt still being read is aborted. Where libc cannot be reached, nothing is aborted (the token cut remains).
"""

from __future__ import annotations

import ctypes
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

GRACE_S = 1.0  # after the deadline: a generated token takes less, so the logits processor ends a completion first


class PromptAbort:
    """An abort flag on one llama.cpp context, raised by a timer at a deadline plus `grace_s`."""

    def __init__(self, llama: Any, grace_s: float = GRACE_S) -> None:
        import llama_cpp

        self.grace_s = grace_s
        self.raised = False  # the flag went up during the current call
        self._flag = ctypes.create_string_buffer(2)  # "\0": go on; "x": abort (strlen is 1)
        try:
            strlen = ctypes.cast(ctypes.CDLL(None).strlen, ctypes.c_void_p).value
        except (OSError, AttributeError):
            self._callback = None
            return
        self._callback = llama_cpp.ggml_abort_callback(strlen)  # kept: llama.cpp holds only its address
        llama_cpp.llama_set_abort_callback(llama._ctx.ctx, self._callback,
                                           ctypes.cast(self._flag, ctypes.c_void_p))

    @property
    def available(self) -> bool:
        return self._callback is not None

    @contextmanager
    def until(self, stop_at: float | None) -> Iterator[None]:
        """Within the block, llama.cpp stops evaluating once `stop_at` (a perf_counter value) + the grace passed."""
        self._lower()
        if stop_at is None or not self.available:
            yield
            return
        timer = threading.Timer(max(0.0, stop_at + self.grace_s - time.perf_counter()), self._raise)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            self._flag[0] = b"\0"

    def _raise(self) -> None:
        self.raised = True
        self._flag[0] = b"x"

    def _lower(self) -> None:
        self.raised = False
        self._flag[0] = b"\0"


def empty_completion() -> dict:
    """What an aborted completion answers: no text (as a completion cut at its first token)."""
    return {"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0}}
