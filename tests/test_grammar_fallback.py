"""The grammar's fallback: when it refuses the best tokens, a few are tried one by one, then one pass over the
whole vocabulary, and the token chosen is the one a full walk in score order would choose."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from nl2sparql.modules.grammar import FALLBACK_AFTER, GreedyGrammar, SampledGrammar, catalog_grammar
from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
from nl2sparql.paths import MODELS_ENV

VOCAB = 151_936


class ToyRule:
    """A grammar's verdicts without llama.cpp: `allowed` per token, each single check counted."""

    def __init__(self, allowed: np.ndarray) -> None:
        self.allowed = allowed
        self.checks = 0

    def install(self, grammar: GreedyGrammar, fallback_after: int = FALLBACK_AFTER) -> GreedyGrammar:
        grammar._eos, grammar._fallback_after, grammar._stop_at = 0, fallback_after, None
        grammar.refused, grammar.fallback_seconds, grammar.full_passes, grammar.cut = 0, 0.0, 0, False
        grammar._allowed = self.check
        grammar.allowed_mask = lambda n: self.allowed[:n].copy()
        return grammar

    def check(self, token: int) -> bool:
        self.checks += 1
        return bool(self.allowed[token])


def toy_greedy(rule: ToyRule, **options) -> GreedyGrammar:
    return rule.install(GreedyGrammar.__new__(GreedyGrammar), **options)


def full_walk(logits: np.ndarray, allowed: np.ndarray) -> int:
    """What the grammar check did before: every token in score order (ties by id) until one is allowed."""
    return next(int(t) for t in np.argsort(-logits, kind="stable") if allowed[t])


def refusing_the_best(n_refused: int, seed: int = 0, ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A logits row whose `n_refused` best tokens the grammar refuses (with many tied scores when `ties`)."""
    rng = np.random.default_rng(seed)
    logits = (rng.integers(0, 400, VOCAB) if ties else rng.normal(size=VOCAB)).astype(np.float32)
    allowed = np.ones(VOCAB, dtype=bool)
    allowed[np.argsort(-logits, kind="stable")[:n_refused]] = False
    allowed[rng.random(VOCAB) < 0.5] = False  # and half of the rest
    return logits, allowed


@pytest.mark.parametrize("ties", [False, True])
def test_a_row_whose_first_100000_tokens_are_refused_costs_one_pass_and_picks_the_full_walks_token(ties):
    logits, allowed = refusing_the_best(100_000, ties=ties)
    rule = ToyRule(allowed)
    grammar = toy_greedy(rule)
    started = time.perf_counter()
    choice = grammar._pick(logits)
    assert time.perf_counter() - started < 0.5
    assert choice == full_walk(logits, allowed)
    assert rule.checks == 1 + FALLBACK_AFTER and grammar.full_passes == 1
    assert grammar.refused == 1 and grammar.fallback_seconds > 0


def test_a_refusal_close_to_the_top_is_found_one_by_one_without_the_whole_pass():
    logits, allowed = refusing_the_best(5)
    grammar = toy_greedy(ToyRule(allowed), fallback_after=8)
    assert grammar._pick(logits) == full_walk(logits, allowed)
    assert grammar.full_passes == 0 and grammar.refused == 1


def test_the_best_token_allowed_is_taken_at_once_and_nothing_counts_as_refused():
    logits, allowed = refusing_the_best(0)
    allowed[int(np.argmax(logits))] = True
    grammar = toy_greedy(ToyRule(allowed))
    assert grammar._pick(logits) == int(np.argmax(logits))
    assert grammar.refused == 0 and grammar.fallback_seconds == 0.0


def test_nothing_allowed_ends_the_answer():
    logits, _ = refusing_the_best(0)
    grammar = toy_greedy(ToyRule(np.zeros(VOCAB, dtype=bool)))
    assert grammar._pick(logits) == grammar._eos


def test_a_sample_whose_top_k_are_all_refused_takes_the_best_allowed_token_in_one_pass():
    logits, allowed = refusing_the_best(100_000, seed=3)
    rule = ToyRule(allowed)
    sampled = SampledGrammar.__new__(SampledGrammar)
    rule.install(sampled)
    sampled._temperature, sampled._top_k, sampled._rng = 0.7, 40, np.random.default_rng(1)
    started = time.perf_counter()
    assert sampled._pick(logits) == full_walk(logits, allowed)
    assert time.perf_counter() - started < 0.5
    assert rule.checks == 40 and sampled.full_passes == 1 and sampled.refused == 1


@pytest.fixture(scope="module")
def vocab_model(tmp_path_factory):
    from llama_cpp import Llama

    folder = Path(os.environ.get(MODELS_ENV) or tmp_path_factory.mktemp("models"))
    llama = Llama(model_path=str(assemble(LOCAL_MODELS["qwen-0.5b"], folder)), vocab_only=True, verbose=False)
    yield llama
    llama.close()


@pytest.mark.parametrize("written", ["", "[[ ## sparql ## ]]\nSELECT ?w WHERE { ?l ontolex:"])
def test_llama_cpps_one_pass_allows_exactly_what_the_token_by_token_check_allows(vocab_model, written):
    """The whole-vocabulary pass through llama.cpp's grammar sampler agrees with the single-token check on
    every token, and both fallbacks choose the full walk's token on a random logits row."""
    import llama_cpp

    grammar = GreedyGrammar(vocab_model, catalog_grammar(), fallback_after=4)
    try:
        for token in vocab_model.tokenize(written.encode(), add_bos=False, special=False):
            assert grammar._allowed(token)
            llama_cpp.llama_sampler_accept(grammar._sampler, token)
        n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(vocab_model._model.model))
        mask = grammar.allowed_mask(n_vocab)
        single = np.array([grammar._allowed(t) for t in range(n_vocab)])
        assert 0 < mask.sum() < n_vocab // 10 and (mask == single).all()
        logits = np.random.default_rng(0).normal(size=n_vocab).astype(np.float32)
        assert grammar._pick(logits) == full_walk(logits, single)
    finally:
        grammar.close()


def test_past_its_deadline_the_grammar_ends_the_answer_without_checking_anything():
    logits, allowed = refusing_the_best(100_000)
    rule = ToyRule(allowed)
    grammar = toy_greedy(rule)
    grammar._stop_at = time.perf_counter() - 1.0
    masked = grammar(None, logits)
    assert np.isfinite(masked).sum() == 1 and np.isfinite(masked[grammar._eos])
    assert grammar.cut and rule.checks == 0
