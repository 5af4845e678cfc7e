"""The prompt cache's save and restore of llama.cpp's state, without the logits buffer.

llama-cpp-python's `save_state` copies `Llama.scores`, an n_batch × vocabulary float buffer (512 × 151,936 for
Qwen2.5: 311 MB), after every completion the prompt cache keeps, and `load_state` writes a saved copy back over it
before every completion that starts from a cached prompt. Without `logits_all` nothing reads that buffer:
sampling reads the logits from llama.cpp's context, and a restored state decodes at least its last prompt token
again before the first sample. So the buffer is neither copied nor written here: the state keeps one row of zeros
in its place (as the cache's `_without_logits` would cut it to), and everything else is saved and restored as
llama-cpp-python does it (`tests/test_local_lm.py` checks that a reply read from a restored state is the same).
"""

from __future__ import annotations

import ctypes
from types import MethodType
from typing import Any


def save_state(llama) -> Any:
    import llama_cpp
    import numpy as np
    from llama_cpp.llama import LlamaState

    size = llama_cpp.llama_state_get_size(llama._ctx.ctx)
    buffer = (ctypes.c_uint8 * int(size))()
    written = llama_cpp.llama_state_get_data(llama._ctx.ctx, buffer, size)
    if int(written) > int(size):
        raise RuntimeError("llama.cpp wrote more state than it asked room for")
    return LlamaState(scores=np.zeros((1, llama.n_vocab()), dtype=np.single), input_ids=llama.input_ids.copy(),
                      n_tokens=llama.n_tokens, llama_state=ctypes.string_at(buffer, int(written)),
                      llama_state_size=int(written), seed=llama._seed)


def load_state(llama, state) -> None:
    import llama_cpp

    llama.input_ids = state.input_ids.copy()
    llama.n_tokens = state.n_tokens
    llama._requires_eval = True  # the last prompt token is decoded again before sampling
    llama._seed = state.seed
    data = (ctypes.c_uint8 * state.llama_state_size).from_buffer_copy(state.llama_state)
    if llama_cpp.llama_state_set_data(llama._ctx.ctx, data, state.llama_state_size) != state.llama_state_size:
        raise RuntimeError("llama.cpp refused the saved state")


def use_lean_state(llama) -> None:
    """Make this `Llama`'s prompt cache save and restore its state with the functions above."""
    llama.save_state = MethodType(save_state, llama)
    llama.load_state = MethodType(load_state, llama)


def counted_cache(base: type) -> type:
    """llama-cpp-python's RAM prompt cache, keeping each saved state without its logits.

    Every state llama-cpp-python saves carries a copy of the logits buffer (n_batch × vocabulary floats: ~311 MB
    for Qwen2.5), which its own size count leaves out (the cache once grew past its capacity until the process ran
    out of memory) and which a restored state never samples from: loading a state marks it for evaluation, and the
    prompt's last token is decoded again before the first sample. So a state is kept with one row of zero logits
    (the restore fills the buffer from it) and its KV cells alone count: the cache then holds the prompts of every
    step (generate, scope, follow-up rewrite) instead of the last two or three."""

    class CountedRAMCache(base):
        @property
        def cache_size(self) -> int:
            return sum(state.llama_state_size + state.scores.nbytes + state.input_ids.nbytes
                       for state in self.cache_state.values())

        def __setitem__(self, key, value) -> None:
            super().__setitem__(key, _without_logits(value))

    return CountedRAMCache


def _without_logits(state):
    import numpy as np

    if getattr(state, "scores", None) is None or state.scores.ndim != 2 or len(state.scores) <= 1:
        return state
    state.scores = np.zeros((1, state.scores.shape[1]), dtype=state.scores.dtype)
    return state
