"""The plan enumerator on the test KB: signals read from a question, known plans found for a handful of questions,
an empty set pruned before any operator is tried on it, every candidate a read-only query that ran."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nl2sparql.kb.guard import check
from nl2sparql.retrieval.enumerate import enumerate_plans
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def signals(question, lexicons):
    return read_signals(question, *lexicons)


def test_signals_name_the_blocks_a_question_asks_for(lexicons):
    s = signals("Quali aggettivi che finiscono in -oso esprimono paura?", lexicons)
    assert s.pos == ("adjective",) and s.emotions == ("Paura",) and ("suffix", "oso") in s.affixes
    assert "elita" in s.resources and "ask" not in s.operators
    s = signals("Which ten Sentix words have a polarity of at least 0.8?", lexicons)
    assert "sentix" in s.resources and 10.0 in s.numbers and 0.8 in s.numbers and s.comparison == ">="
    assert "ask" in signals("La parola «gatto» ha una traduzione in siciliano?", lexicons).operators
    s = signals("What are the synonyms of 'paura'?", lexicons)
    assert s.relations == ("synonym",) and s.forms == ("paura",) and "complit" in s.resources


@pytest.mark.parametrize("question, plan_text", [
    ("Quali verbi esprimono tristezza in ELITA?", "verb words | with elita (Tristezza) | list italianWord"),
    ("Come si dice «cane» in siciliano?", "words written 'cane' | with sicilian | list sicilianWord"),
    ("Quanti nomi esprimono gioia in ELITA?", "noun words | with elita (Gioia) | count count distinct(lemma) as count"),
    ("Which adjectives ending in -oso express fear?",
     "adjective words | with elita (Paura) | italianWord ends with 'oso' | list italianWord"),
    ("Is 'terrore' a word of fear in ELITA?", "words written 'terrore' | with elita (Paura) | ask"),
    ("What are the synonyms of the noun 'paura'?",
     "words written 'paura' | CompL-it senses (noun) | synonyms | list synonymWord"),
])
def test_the_enumerator_finds_the_plan_a_question_means(question, plan_text, endpoint, lexicons):
    found = enumerate_plans(signals(question, lexicons), endpoint)
    texts = [c.plan.text() for c in found.candidates]
    assert plan_text in texts, texts
    for candidate in found.candidates:
        assert check(candidate.sparql).form in ("SELECT", "ASK")  # read-only and within the limits
        assert candidate.rows or candidate.boolean is not None
    assert len({c.fingerprint for c in found.candidates}) == len(found.candidates)  # one candidate per answer


def test_an_empty_set_is_pruned_before_its_operators(endpoint, lexicons):
    found = enumerate_plans(signals("Quali interiezioni esprimono disgusto in ELITA?", lexicons), endpoint)
    assert found.sets_pruned >= 1
    assert not any("interjection" in c.plan.text() for c in found.candidates)
    assert any(c.plan.text().startswith("words | with elita (Disgusto)") for c in found.candidates)


def test_plan_command_shows_candidates_as_json(kb_store):
    from nl2sparql.cli import main

    result = CliRunner().invoke(main, ["plan", "Quali verbi esprimono tristezza in ELITA?", "--store", str(kb_store),
                                       "--json", "--top", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["signals"]["emotions"] == ["Tristezza"] and len(data["candidates"]) == 3
    first = data["candidates"][0]
    assert first["en"].startswith("Italian verbs, that express Tristezza in ELITA") and first["rows"] > 0
    assert first["it"].startswith("Verbi italiani") and "SELECT" in first["sparql"]


def test_quoted_letters_after_a_cue_are_the_affix_and_the_words_between_name_nothing(lexicons):
    s = signals("Quali parole siciliane contengono il nesso «gn»?", lexicons)
    assert s.affixes == (("contains", "gn"),) and "nesso" not in s.forms
    s = signals("Quanti lemmi iniziano per ri e finiscono in «zione»?", lexicons)  # a quote further on is not its
    assert s.affixes == (("prefix", "ri"), ("suffix", "zione"))
    s = signals("Il lemmario parmigiano contiene la parola «càn»?", lexicons)  # a word named, not letters
    assert ("contains", "càn") not in s.affixes


def test_a_part_of_speech_whose_cue_is_inside_another_is_not_named_twice(lexicons):
    assert signals("Which proper nouns express joy?", lexicons).pos == ("proper_noun",)
    assert signals("Quali nomi propri esprimono gioia?", lexicons).pos == ("proper_noun",)
    assert signals("Quanti nomi e nomi propri esprimono gioia?", lexicons).pos == ("noun", "proper_noun")


def test_several_parts_of_speech_are_asked_together_and_counted_per_part(endpoint, lexicons):
    found = enumerate_plans(signals("Quanti nomi e verbi esprimono tristezza in ELITA?", lexicons), endpoint)
    texts = [c.plan.text() for c in found.candidates]
    assert texts[0].startswith("noun/verb words"), texts
    assert "noun/verb words | with elita (Tristezza) | group by pos count distinct(lemma) as count" in texts, texts


def test_a_named_word_that_leaves_nothing_is_read_again_without_it(endpoint, lexicons):
    question = "Quali verbi del cane esprimono tristezza in ELITA?"  # «cane» is no verb: every set with it is empty
    s = signals(question, lexicons)
    assert s.forms == ("cane",)
    texts = [c.plan.text() for c in enumerate_plans(s, endpoint).candidates]
    assert "verb words | with elita (Tristezza) | list italianWord" in texts, texts
    assert not any("cane" in t for t in texts)
