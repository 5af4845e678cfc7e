"""The enumerator's newer blocks on the test KB: letters named in words, yes/no questions that use "come", counts
over catalogs, the top k of a count per word, HAVING over groups, keys and orders computed from the written form,
classes counted per class, "but not" between emotions, words listed after a named one, optional usage notes, a
relation read both ways; and the pool of store workers, which must give the same candidates as one worker."""

from __future__ import annotations

import pytest

from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans, enumeration_endpoint
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


@pytest.mark.parametrize("question, affix", [
    ("Quanti lemmi contengono un apostrofo?", ("contains", "'")),
    ("Quanti lemmi iniziano con una lettera maiuscola?", ("regex", "^[A-Z]")),
    ("Which lemmas contain digits?", ("regex", "[0-9]")),
    ("Quanti lemmi sono polirematici, cioè contengono uno spazio?", ("contains", " ")),
])
def test_letters_named_in_words_become_a_filter_and_no_article_is_read_as_letters(question, affix):
    s = read_signals(question)
    assert s.affixes == (affix,), s.affixes
    assert "complit" not in s.resources  # a multiword lemma is the lemma bank's, not CompL-it's


def test_come_and_compare_ask_nothing_inside_a_yes_no_question():
    assert "ask" in read_signals("«Scritto» aggettivo compare come ipolemma in LiITA?").operators
    assert "ask" not in read_signals("Come si dice «cane» in siciliano?").operators
    assert "ask" not in read_signals("Con quali parti del discorso compare la forma secondo?").operators
    assert read_signals("Con quali parti del discorso compare la forma secondo?").relations == ()


@pytest.mark.parametrize("question, plan_text", [
    ("Quante voci lessicali ha ciascun lessico?",
     "catalog lexicons | group by lexicon count distinct(entry) as count"),
    ("Quali sono le cinque parole italiane con più traduzioni in parmigiano?",
     "words | with parmigiano | group by italianWord count distinct(parmigianoEntry) as count | order count desc,"
     " italianWord | limit 5"),
    ("Quali categorie grammaticali hanno meno di 20 lemmi?",
     "lemmas | group by pos count distinct(lemma) as count | having count < 20"),
    ("Quanti lemmi ci sono per ogni lettera iniziale?", "lemmas | group by initial count distinct(lemma) as count"),
    ("Which are the three longest verbs?", "verb words | list italianWord, length | order length desc, italianWord | limit 3"),
    ("Quante voci di ELITA sono positive, negative o neutre?",
     "words | with elita | group by polarity count distinct(lemma) as count"),
    ("Parole che ELITA lega all'Amore ma non alla Gioia", "words | with elita (Amore, not Gioia) | list italianWord"),
    ("Confronta il numero di sensi di cane, gatto e cavallo.",
     "words written 'cane' or 'gatto' or 'cavallo' | CompL-it senses | group by italianWord count distinct(sense) as "
     "count"),
    ("Quali sono le traduzioni parmigiane di «testa», con l'eventuale nota d'uso?",
     "words written 'testa' | with parmigiano | list parmigianoWord, usageNote?"),
    ("Quali oggetti hanno una «tastiera» tra le loro parti?",
     "words written 'tastiera' | CompL-it senses | holonyms | list wholeWord"),
    ("Quale emozione ELITA ha più parole associate?",
     "words | with elita | group by emotionLabel count distinct(lemma) as count | order count desc, emotionLabel | limit 1"),
    ("Quanti sostantivi hanno più di dieci sensi?",  # "più di" a threshold, not "the most"
     "words | CompL-it senses (noun) | group by italianWord count distinct(sense) as count | having count > 10"),
    ("Qual è l'emozione più frequente tra i verbi?",
     "verb words | with elita | group by emotionLabel count distinct(lemma) as count | order count desc, emotionLabel"
     " | limit 1"),
    ("Confronta la polarità di «paura» in ELITA e in Sentix.",
     "words written 'paura' | with elita | with sentix | list elitaValue, sentixValue"),
    ("Quale parte del discorso ha più lemmi?",  # the most, with no count word
     "lemmas | group by pos count distinct(lemma) as count | order count desc, pos | limit 1"),
    ("Quali avverbi non finiscono in -mente?", "adverb words | italianWord not ends with 'mente' | list italianWord"),
    ("Quante preposizioni ci sono?", "adposition words | count count distinct(lemma) as count"),
    ("Quali parole hanno più di una voce in ELITA?",
     "words | with elita | group by italianWord count distinct(emotion) as count | having count > 1"),
    ("Quanti sostantivi hanno almeno due sensi?",  # the words that pass a per-word count, counted
     "words | CompL-it senses (noun) | count groups by italianWord count distinct(sense) as count | having count >= 2"),
    ("Come si dicono in siciliano le parole di ELITA?",  # ELITA narrows, the Sicilian word is shown
     "words | with elita | with sicilian | list italianWord, sicilianWord"),
    ("Quale emozione ha le parole mediamente più positive in Sentix?",  # the average's order, not a class
     "words | with elita | with sentix | group by emotionLabel avg(sentixValue) as average | order average desc,"
     " emotionLabel | limit 1"),
    ("Quanti sensi di «cane» hanno un esempio?",
     "words written 'cane' | CompL-it senses | having an example | count count distinct(sense) as count"),
    ("Quali parole siciliane traducono più di una parola italiana?",
     "words | with sicilian | group by sicilianWord count distinct(lemma) as count | having count > 1"),
    ("Quanti iponimi ha animale?",  # the word after "ha" is the one asked about
     "words written 'animale' | CompL-it senses | hyponyms | count count distinct(hyponymWord) as count"),
])
def test_the_enumerator_counts_catalogs_ranks_counts_and_filters_groups(question, plan_text, kb_store, lexicons):
    with enumeration_endpoint(kb_store) as pool:
        found = enumerate_plans(read_signals(question, *lexicons), pool, EnumerationConfig(budget_s=20))
    texts = [c.plan.text() for c in found.candidates]
    assert plan_text in texts, texts


def test_a_pool_of_workers_gives_the_candidates_of_one_worker_in_the_same_order(kb_store, endpoint, lexicons):
    question = "Quali verbi che esprimono tristezza in ELITA hanno una traduzione siciliana?"
    generous = EnumerationConfig(budget_s=30, query_timeout_s=10)
    alone = enumerate_plans(read_signals(question, *lexicons), endpoint, generous)
    with enumeration_endpoint(kb_store, timeout_s=10, width=2) as pool:
        assert pool.width == 2
        pooled = enumerate_plans(read_signals(question, *lexicons), pool, generous)
    assert [c.fingerprint for c in pooled.candidates] == [c.fingerprint for c in alone.candidates]
    assert len(alone.candidates) >= 3 and (pooled.sets_tried, pooled.sets_pruned) == (alone.sets_tried,
                                                                                      alone.sets_pruned)


def test_an_average_without_groups_is_one_row_and_a_verb_is_no_word_asked_about(endpoint, lexicons):
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.retrieval.blocks import operators
    from nl2sparql.retrieval.enumerate import candidate_sets

    signals = read_signals("Qual è la media della polarità Sentix degli avverbi?", *lexicons)
    plans = [p for base in candidate_sets(signals)[:1] for p in operators(base, signals)]
    average = next(p for p in plans if p.operator == "count" and p.aggregates[0].func == "avg")
    assert average.text() == "adverb words | with sentix | count avg(polarityValue) as average"
    value = float(endpoint.execute(compile_plan(average)).rows[0][0].value)
    assert -1 < value < 1
    assert read_signals("Quale parola ha più sensi in CompL-it?", *lexicons).forms == ()
    assert read_signals("Che cosa significa «ha»?", *lexicons).forms == ("ha",)  # quoted: asked about


def test_letters_doubled_in_words_and_conjunctions_of_both_kinds():
    assert read_signals("Quante parole contengono la doppia z?").affixes == (("contains", "zz"),)
    assert read_signals("Which words contain a double t?").affixes == (("contains", "tt"),)
    assert read_signals("Quali congiunzioni ci sono?").pos == ("coordinating_conjunction", "subordinating_conjunction")
    assert read_signals("Quali risorse lessicali sono presenti?").catalogs == ("lexicons",)
