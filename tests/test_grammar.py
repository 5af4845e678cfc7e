"""The SPARQL grammar of local generation, checked by llama.cpp's own grammar engine over a real vocabulary."""

from __future__ import annotations

import os
from pathlib import Path

import dspy
import pytest

from nl2sparql.data.dataset import load_dataset
from nl2sparql.modules.grammar import GrammarChecker, asks_for_sparql, catalog_grammar
from nl2sparql.modules.local_lm import LOCAL_MODELS, LlamaCppEngine, LlamaSettings, assemble
from nl2sparql.modules.program import without_prefix_lines
from nl2sparql.signatures import AnalyzeQuestion, GenerateSparql, RepairSparql
from nl2sparql.paths import MODELS_ENV


def answer(query: str) -> str:
    """A completion in DSPy's ChatAdapter format, as the model writes it."""
    return f"[[ ## sparql ## ]]\n{query}\n\n[[ ## completed ## ]]"


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    from llama_cpp import Llama

    folder = Path(os.environ.get(MODELS_ENV) or tmp_path_factory.mktemp("models"))
    llama = Llama(model_path=str(assemble(LOCAL_MODELS["qwen-0.5b"], folder)), vocab_only=True, verbose=False)
    yield GrammarChecker(llama, catalog_grammar())
    llama.close()


@pytest.mark.slow
def test_every_gold_query_is_accepted_with_and_without_prefix_lines(checker):
    records = load_dataset()
    assert len(records) >= 455
    refused = [r.id for r in records if not checker.accepts(answer(r.sparql.strip()))]
    refused += [r.id + " (no PREFIX lines)" for r in records if not checker.accepts(answer(without_prefix_lines(r.sparql)))]
    assert refused == []


GOOD = "PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nSELECT ?w WHERE { ?l ontolex:writtenRep ?w }"


@pytest.mark.parametrize("name,text", [
    ("an Update", answer("INSERT DATA { <http://a> <http://b> <http://c> }")),
    ("an Update after prefixes", answer("PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nCLEAR ALL")),
    ("an unknown prefix", answer("SELECT ?w WHERE { ?l foo:writtenRep ?w }")),
    ("a term not in the catalog", answer("SELECT ?w WHERE { ?l ontolex:spelling ?w }")),
    ("a prefix bound elsewhere", answer("PREFIX ontolex: <http://example.org/>\nSELECT ?w WHERE { ?l ontolex:writtenRep ?w }")),
    ("unbalanced braces", answer("SELECT ?w WHERE { ?l ontolex:writtenRep ?w")),
    ("one brace too many", answer("SELECT ?w WHERE { ?l ontolex:writtenRep ?w } }")),
    ("a foreign SERVICE", answer("SELECT ?w WHERE { SERVICE <http://example.org/sparql> { ?l ontolex:writtenRep ?w } }")),
    ("markdown fences", answer("```sparql\n" + GOOD + "\n```")),
    ("prose before the query", answer("Here is the query:\n" + GOOD)),
    ("no end marker", f"[[ ## sparql ## ]]\n{GOOD}"),
    ("a missing space before a keyword", answer("SELECT ?w WHERE { ?l ontolex:writtenRep ?wFILTER(?w = 'a') }")),
])
def test_what_cannot_parse_or_leaves_the_schema_is_refused(name, text, checker):
    assert checker.accepts(answer(GOOD))
    assert not checker.accepts(text), name


def requests(signature, inputs: dict) -> list[dict]:
    return dspy.ChatAdapter().format(signature, demos=[], inputs=inputs)


GENERATE = requests(GenerateSparql, dict(constraints="c", schema_notes="s", examples="e", analysis="a", question="q"))
REPAIR = requests(RepairSparql, dict(constraints="c", question="q", failed_sparql="f", diagnosis="d", history="h"))
ANALYZE = requests(AnalyzeQuestion, dict(question="q", hints="h"))


def test_only_requests_for_the_sparql_field_get_the_grammar():
    assert asks_for_sparql(GENERATE) and asks_for_sparql(REPAIR)
    assert not asks_for_sparql(ANALYZE)
    engine = LlamaCppEngine("qwen-0.5b")
    assert engine.constrains(GENERATE) and engine.constrains(REPAIR) and not engine.constrains(ANALYZE)
    assert not LlamaCppEngine("qwen-0.5b", LlamaSettings(grammar=False)).constrains(GENERATE)
    assert engine._llama is None  # deciding loads no model


def test_examples_without_prefix_lines_get_them_back_after_generation():
    """demo_prefixes=False shows examples without PREFIX lines; every gold query written that way is declared
    again by the deterministic fix and passes the guard."""
    from nl2sparql.kb.guard import check
    from nl2sparql.modules.fixes import add_missing_prefixes
    from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
    from nl2sparql.modules.runtime import Runtime

    record = load_dataset()[0]
    assert "PREFIX" in NL2SPARQL(ProgramSettings(), Runtime())._demo_sparql(record.sparql)
    bare = NL2SPARQL(ProgramSettings(demo_prefixes=False), Runtime())._demo_sparql(record.sparql)
    assert "PREFIX" not in bare and bare.split()[0] in ("SELECT", "ASK")
    for record in load_dataset():
        query = without_prefix_lines(record.sparql)
        fixed = add_missing_prefixes(query)
        check(fixed.sparql if fixed else query)


@pytest.mark.slow
def test_greedy_grammar_writes_what_llama_cpps_grammar_sampler_writes(tmp_path_factory):
    """The lazy check (best token first, the next ones only when refused) chooses as the full grammar pass
    does, on a real model; each run reads the prompt afresh (no prompt cache), so both see the same logits."""
    from llama_cpp import LlamaGrammar, LogitsProcessorList

    from nl2sparql.modules.grammar import GreedyGrammar
    from nl2sparql.modules.llama_load import open_llama

    folder = Path(os.environ.get(MODELS_ENV) or tmp_path_factory.mktemp("models"))
    llama = open_llama(str(assemble(LOCAL_MODELS["qwen-0.5b"], folder)), n_ctx=2048, seed=0, verbose=False)
    messages = requests(GenerateSparql, dict(constraints="Use lila:Lemma and ontolex:writtenRep.", schema_notes="",
                                             examples="", analysis="", question="Quanti lemmi ci sono?"))

    def complete(**options) -> str:
        llama.reset()
        out = llama.create_chat_completion(messages=messages, max_tokens=200, temperature=0.0, **options)
        return out["choices"][0]["message"]["content"]

    try:
        greedy = GreedyGrammar(llama, catalog_grammar())
        lazy = complete(logits_processor=LogitsProcessorList([greedy]))
        greedy.close()
        full = complete(grammar=LlamaGrammar.from_string(catalog_grammar(), verbose=False))
    finally:
        llama.close()
    assert lazy == full
    assert lazy.startswith("[[ ## sparql ## ]]\nSELECT") and lazy.endswith("[[ ## completed ## ]]")


@pytest.mark.slow
def test_sampling_under_the_grammar_writes_different_answers_the_grammar_accepts(tmp_path_factory):
    """SampledGrammar at a temperature: each seed draws its own answer, and every answer is in the grammar."""
    from llama_cpp import LogitsProcessorList

    from nl2sparql.modules.grammar import GrammarChecker, SampledGrammar
    from nl2sparql.modules.llama_load import open_llama

    folder = Path(os.environ.get(MODELS_ENV) or tmp_path_factory.mktemp("models"))
    llama = open_llama(str(assemble(LOCAL_MODELS["qwen-0.5b"], folder)), n_ctx=2048, seed=0, verbose=False)
    messages = requests(GenerateSparql, dict(constraints="", schema_notes="", examples="", analysis="",
                                             question="Quali lemmi esprimono gioia?"))
    answers = []
    try:
        for seed in (1, 2, 3):
            sampled = SampledGrammar(llama, catalog_grammar(), temperature=1.0, seed=seed)
            out = llama.create_chat_completion(messages=messages, max_tokens=120, temperature=1.0,
                                               logits_processor=LogitsProcessorList([sampled]))
            sampled.close()
            answers.append((out["choices"][0]["message"]["content"], out["choices"][0]["finish_reason"]))
        checker = GrammarChecker(llama, catalog_grammar())
        for text, finish in answers:
            assert text.startswith("[[ ## sparql ## ]]\n")
            if finish == "stop":
                assert checker.accepts(text), text
    finally:
        llama.close()
    assert len({text for text, _ in answers}) > 1
