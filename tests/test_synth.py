"""The synthetic data engine: pairs that run and answer what was recorded, reproducibly, from the KB alone."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest
from click.testing import CliRunner

from nl2sparql.cli import main
from nl2sparql.data import dataset as dataset_module
from nl2sparql.data.check import normalise_sparql
from nl2sparql.data.dataset import load_dataset, parse_record
from nl2sparql.data.synth.engine import synthesize
from nl2sparql.data.synth.keep import Keeper, result_fingerprint
from nl2sparql.data.synth.pools import open_pools
from nl2sparql.data.synth.rules import Candidate
from nl2sparql.data.synth.text import fill, keeps_slots
from nl2sparql.kb.guard import check
from nl2sparql.kb.lint import lint
from nl2sparql.kb.results import QueryResult, Term


@pytest.fixture(scope="module")
def pools(kb_store):
    return open_pools(kb_store)


@pytest.fixture(scope="module")
def pairs(endpoint, pools):
    return synthesize(endpoint, 40, seed=7, pools=pools).records


def test_same_seed_gives_the_same_pairs_and_another_seed_others(endpoint, pools, pairs):
    again = synthesize(endpoint, 40, seed=7, pools=pools).records
    assert again == pairs and len(pairs) == 40
    other = synthesize(endpoint, 10, seed=8, pools=pools).records
    assert [r["sparql"] for r in other] != [r["sparql"] for r in pairs[:10]]


def test_every_kept_pair_runs_on_the_kb_and_answers_what_was_recorded(endpoint, pairs):
    for record in pairs:
        parse_record(record, "synth")  # our record fields, valid patterns and complexity
        assert record["split"] == "train" and record["source"] == "synth"
        assert check(record["sparql"]).form == record["trace"]["form"]
        assert lint(record["sparql"]) == []
        result = endpoint.execute(record["sparql"])
        assert result_fingerprint(result) == record["trace"]["answer"], record["id"]
        assert result.boolean is not None or 0 < len(result.rows) <= 60


def test_every_pair_is_inside_the_grammar_the_local_model_writes_under(pairs, tmp_path_factory):
    import os
    from pathlib import Path

    from llama_cpp import Llama

    from nl2sparql.modules.grammar import GrammarChecker, catalog_grammar
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.paths import MODELS_ENV

    folder = Path(os.environ.get(MODELS_ENV) or tmp_path_factory.mktemp("models"))
    llama = Llama(model_path=str(assemble(LOCAL_MODELS["qwen-0.5b"], folder)), vocab_only=True, verbose=False)
    checker = GrammarChecker(llama, catalog_grammar())
    refused = [r["id"] for r in pairs if not checker.accepts(f"[[ ## sparql ## ]]\n{r['sparql'].strip()}\n\n[[ ## completed ## ]]")]
    llama.close()
    assert refused == []


def test_the_pairs_cover_resources_forms_and_operators(pairs):
    resources = Counter(r for record in pairs for r in record["trace"]["resources"])
    operators = Counter(record["trace"]["operator"] for record in pairs)
    assert len(resources) >= 4 and len(operators) >= 5
    booleans = Counter(record["trace"]["boolean"] for record in pairs if record["trace"]["form"] == "ASK")
    assert abs(booleans[True] - booleans[False]) <= 1


def test_the_generator_never_reads_the_curated_dataset(endpoint, pools, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the generator read the curated dataset")

    monkeypatch.setattr(dataset_module, "load_dataset", refuse)
    monkeypatch.setattr(dataset_module, "read_jsonl", refuse)
    assert len(synthesize(endpoint, 8, seed=11, pools=pools).records) == 8


def test_no_synthetic_query_is_a_held_out_gold_query(pairs):
    held_out = {normalise_sparql(r.sparql) for r in load_dataset() if r.split != "train"}
    assert not [r["id"] for r in pairs if normalise_sparql(r["sparql"]) in held_out]


def test_both_wordings_keep_every_slot_value(pairs):
    for record in pairs:
        slots = record["trace"]["slots"]
        assert keeps_slots(record["question_it"], slots) and keeps_slots(record["question_en"], slots), record["id"]
    assert sum(bool(r["trace"]["slots"]) for r in pairs) >= len(pairs) * 0.8


@pytest.mark.parametrize("text,slots,kept", [
    ("Quali parole hanno polarità Sentix superiore a 0,5?", ["sentix", "0.5"], True),
    ("Which words score above 0.5 in Sentix?", ["sentix", "0.5"], True),
    ("Quali verbi siciliani finiscono in «-ari»?", ["~sicilian", "ari"], True),
    ("Which words express joy in ELITA?", ["Gioia|joy"], True),
    ("Which words score highly in Sentix?", ["sentix", "0.5"], False),        # the number was lost
    ("Quali verbi finiscono in «-are»?", ["~sicilian", "are"], False),         # the resource was lost
    ("Come si dice «canestro» in siciliano?", ["cane"], False),               # a word inside another is not it
])
def test_the_slot_check_drops_a_wording_that_lost_a_value(text, slots, kept):
    assert keeps_slots(text, slots) is kept


class _Fixed:
    """An endpoint that answers every query with the result it was given."""

    def __init__(self, result: QueryResult) -> None:
        self.result = result

    def execute(self, query: str) -> QueryResult:
        return self.result


def _candidate(sparql: str, form: str = "SELECT") -> Candidate:
    return Candidate(shape="set:list", operator="select", form=form, resources=(), sparql=sparql,
                     question_it="Quali lemmi?", question_en="Which lemmas?", patterns=("lemma_lookup",),
                     answer=("italianWord",))


QUERY = "PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nSELECT ?italianWord WHERE { ?lemma ontolex:writtenRep ?italianWord }"


def test_duplicates_are_dropped_by_query_and_by_answer():
    rows = QueryResult(("italianWord",), ((Term("literal", "cane", "it"),),))
    keeper = Keeper(_Fixed(rows))
    assert keeper.judge(_candidate(QUERY))[1] is None
    assert keeper.judge(_candidate(QUERY.replace("WHERE {", "WHERE  {\n")))[1] == "duplicate query"
    assert keeper.judge(_candidate(QUERY.replace("?lemma", "?entry")))[1] == "duplicate answer"


def test_yes_no_answers_are_kept_in_balance_and_long_lists_dropped():
    ask = "PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nASK { ?lemma ontolex:writtenRep \"%s\"@it }"
    yes = Keeper(_Fixed(QueryResult((), boolean=True)))
    assert yes.judge(_candidate(ask % "a", "ASK"))[1] is None
    assert yes.judge(_candidate(ask % "b", "ASK"))[1] == "ask true over balance"
    yes.endpoint = _Fixed(QueryResult((), boolean=False))
    assert yes.judge(_candidate(ask % "c", "ASK"))[1] is None
    many = QueryResult(("italianWord",), tuple((Term("literal", f"w{i}"),) for i in range(51)))
    assert Keeper(_Fixed(many)).judge(_candidate(QUERY))[1] == "too many rows"
    lost = replace(_candidate(QUERY), slots=("sentix",))
    assert Keeper(_Fixed(many)).judge(lost)[1] == "wording lost a slot value"


def test_cli_writes_pairs_and_manifest_and_both_commands_read_them(kb_store, pools, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["data", "synth", "--n", "6", "--seed", "3", "--out", str(tmp_path), "--store", str(kb_store)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    lines = (tmp_path / "synth.jsonl").read_text().splitlines()
    assert manifest["kept"] == len(lines) == 6 and manifest["seed"] == 3
    assert sum(manifest["counts"]["form"].values()) == 6
    stats = json.loads(runner.invoke(main, ["data", "synth", "stats", str(tmp_path), "--json"]).output)
    assert stats["counts"] == manifest["counts"]
    checked = runner.invoke(main, ["data", "check", "--file", str(tmp_path / "synth.jsonl"), "--store", str(kb_store), "--json"])
    assert checked.exit_code == 0 and json.loads(checked.output)["records"] == 6


def test_a_rewording_is_kept_only_when_it_keeps_every_slot_value():
    from dspy.utils import DummyLM

    from nl2sparql.data.synth.paraphrase import paraphrase_records
    from nl2sparql.modules.paraphrase import paraphraser

    record = {"question_it": "Quali verbi siciliani finiscono in «-ari»?", "question_en": "Which Sicilian verbs end in '-ari'?",
              "trace": {"slots": ["ari", "~sicilian"]}}
    lm = DummyLM([{"paraphrase": "In siciliano, quali verbi terminano in -ari?"},   # kept
                  {"paraphrase": "Which verbs of Sicilian end in -are?"},          # lost 'ari': dropped
                  {"paraphrase": "I verbi siciliani finiscono in -ari."},          # an assertion: dropped
                  {"paraphrase": "Which Sicilian verbs end in '-ari'?"}])          # the template again: dropped
    report = paraphrase_records([record, dict(record, trace={"slots": ["ari"]})], paraphraser(lm), share=1.0, seed=1)
    assert record["paraphrases"] == {"it": ["In siciliano, quali verbi terminano in -ari?"]}
    assert report["outcome"] == {"kept": 1, "lost a slot value": 1, "no longer a question": 1,
                                 "same as the template": 1}


def test_finetune_examples_mix_in_synthetic_pairs_but_never_a_held_out_query(kb_store, pairs, tmp_path):
    from nl2sparql.artifacts.load import load
    from nl2sparql.optimize.finetune.run import FinetuneConfig, make_examples
    from nl2sparql.optimize.finetune.synth import synth_records

    records = load_dataset()
    leaked = dict(pairs[0], id="syn-leak", sparql=next(r.sparql for r in records if r.split == "test"))
    lines = [leaked, *pairs[:3]]
    (tmp_path / "synth.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))
    assert [r.id for r in synth_records(tmp_path, records, 10)] == [r["id"] for r in pairs[:3]]
    config = FinetuneConfig(train_limit=1, synth=str(tmp_path), synth_ratio=2.0)
    program = load("uncompiled", store=kb_store, settings=config.program_settings(), lm_object=object())
    try:
        examples = make_examples(config, program, records)
    finally:
        program.close()
    synthetic = [e for e in examples if e.source == "synth"]
    assert {e.record_id for e in synthetic} == {r["id"] for r in pairs[:2]}
    assert len(synthetic) == 4 and len(examples) > len(synthetic)  # both wordings of two pairs, plus the gold


def test_a_word_class_names_the_head_and_filters_the_written_form(endpoint):
    import random

    from nl2sparql.data.synth.compose import _Set, _body, _candidate, _choose_class
    from nl2sparql.data.synth.pools import WordFacts
    from nl2sparql.data.synth.rules import load_rules

    rules = load_rules()
    facts = WordFacts("arrabbiarsi", pos={"verb"})
    chosen = _Set((), facts, pos="verb", group_key="pos")
    assert _choose_class(rules, chosen, "arrabbiarsi", random.Random(3))
    form = rules.forms["count"]
    candidate = _candidate(rules, chosen, "count", form, _body(rules, chosen, form), random.Random(3))
    assert 'STRENDS(STR(?italianWord), "rsi")' in candidate.sparql and "lila:verb" in candidate.sparql
    assert "morphology_regex" in candidate.patterns and "pos_filter" in candidate.patterns
    for question in (candidate.question_it, candidate.question_en):
        assert keeps_slots(question, list(candidate.slots)), question
    assert "riflessiv" in candidate.question_it and "reflexive" in candidate.question_en
    assert len(endpoint.execute(candidate.sparql).rows) == 1  # it runs: one count
    # A word in no class of its part of speech gets none (the generic filters are used instead).
    assert not _choose_class(rules, _Set((), WordFacts("casa", pos={"noun"}), pos="noun"), "casa", random.Random(3))


def test_every_word_class_filter_agrees_with_the_test_that_picks_it(endpoint):
    """The SPARQL filter of each class keeps the words its Python pattern matches, and no other."""
    import re

    from nl2sparql.data.synth.rules import load_rules

    head = ("PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\n"
            "PREFIX lila: <http://lila-erc.eu/ontologies/lila/>\n"
            "SELECT DISTINCT ?italianWord WHERE { GRAPH <http://liita.it/data> { ?lemma a lila:Lemma ; "
            "lila:hasPOS lila:%s ; ontolex:writtenRep ?italianWord } %s }")
    matched = 0
    for word_class in load_rules().filters["class"]["classes"]:
        sparql = fill(word_class["sparql"], {})
        query = head % (word_class["pos"], sparql)
        assert lint(query) == [] and check(query).form == "SELECT", word_class["match"]
        kept = [row[0].value for row in endpoint.execute(query).rows]
        assert all(re.search(word_class["match"], w) for w in kept), word_class["match"]
        others = head % (word_class["pos"], sparql.replace("FILTER(", "FILTER(!", 1))
        rows = endpoint.execute(others).rows
        assert not [row[0].value for row in rows if re.search(word_class["match"], row[0].value)]
        matched += len(kept)
    assert matched > 0
