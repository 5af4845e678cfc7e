"""Blocks from the design half of `bench/outside/round4` (pairs written for query features): a per-word entry with
its several-valued columns in one cell (GROUP_CONCAT beside single-valued keys), a group per named affix of a list
(a VALUES list of prefixes or suffixes), a count per emotion of a list, an optional example beside a definition."""

from __future__ import annotations

import pytest

from nl2sparql.data.dataset import AnswerVariables
from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.eval.scoring.metric import execution_score
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def _texts(enumerated, question: str) -> list[str]:
    return [c.plan.text() for c in enumerated(question)]


def test_a_concatenated_cell_separates_its_items_so_the_metric_reads_them_as_a_set(endpoint):
    plan = Plan(words=Words(forms=("odio", "pace")), joins=(Join("elita"),), operator="group",
                columns=("italianWord",), aggregates=(Aggregate("group_concat", "emotionLabel", "emotions", True),))
    sparql = compile_plan(plan)
    assert 'separator=", "' in sparql
    cells = {row[0].value: row[1].value for row in endpoint.execute(sparql).rows}
    assert set(cells["odio"].split(", ")) == {"Disgusto", "Rabbia"}
    gold = sparql.replace('separator=", "', 'separator=" | "')  # another separator, the same sets: exact
    assert execution_score(endpoint, gold, AnswerVariables(answer=("italianWord",), aggregates=("emotions",)),
                           sparql).exact


@pytest.mark.parametrize("question", ["Verbi in -are presenti in ELITA: emozioni raggruppate e, se c'è, il punteggio "
                                      "Sentix.", "ELITA verbs ending in -are: list their emotions together and show "
                                      "the Sentix score when Sentix has the verb."])
def test_an_entry_keeps_single_valued_columns_as_keys_and_lists_the_emotions_in_one_cell(enumerated, question):
    texts = _texts(enumerated, question)
    assert any(t.startswith("verb words | with elita | optionally with sentix") and
               t.endswith("group by italianWord, sentixValue group_concat distinct(emotionLabel) as emotionLabelList")
               for t in texts)


def test_how_many_and_which_counts_and_lists_the_translations_past_a_threshold(enumerated):
    texts = _texts(enumerated, "Verbi italiani con almeno quattro traduzioni in parmigiano: numero e lista.")
    assert any(t.endswith("group by italianWord count distinct(parmigianoWord) as count, group_concat distinct("
                          "parmigianoWord) as parmigianoWordList | having count >= 4") for t in texts)


def test_a_group_per_named_suffix_counts_a_word_under_each_suffix_of_the_list(endpoint):
    plan = Plan(words=Words(pos=("noun",)), filters=(Filter("italianWord", "suffix_in", "zione|mento|tà"),),
                operator="group", columns=("suffix",), aggregates=(Aggregate("count", "lemma", "count", True),))
    sparql = compile_plan(plan)
    assert 'VALUES ?suffix { "zione" "mento" "tà" }' in sparql and "STRENDS(STR(?italianWord), ?suffix)" in sparql
    counts = {row[0].value: int(row[1].value) for row in endpoint.execute(sparql).rows}
    assert set(counts) == {"zione", "mento", "tà"} and all(n > 0 for n in counts.values())
    one = compile_plan(Plan(words=Words(pos=("noun",)), filters=(Filter("italianWord", "suffix", "mento"),),
                            operator="count", columns=(), aggregates=(Aggregate("count", "lemma", "count", True),)))
    assert int(endpoint.execute(one).rows[0][0].value) == counts["mento"]
    assert "ends with one of" in plan.text() and "«mento»" in verbalize(plan, "it") and verbalize(plan, "en")


@pytest.mark.parametrize("question, kind", [
    ("Suffix lesson: for -zione, -mento, -tà and -ezza, how many Italian nouns with that ending have a Parmigiano "
     "translation?", "suffix"),
    ("verbi che iniziano con ri-, dis- e s-: quanti ne ha Sentix per ciascun prefisso?", "prefix")])
def test_a_hyphenated_list_of_affixes_is_the_only_reading_of_its_kind(lexicons, question, kind):
    s = read_signals(question, *lexicons)
    named = [v for k, v in s.affixes if k == kind]
    assert named == (["zione", "mento", "tà", "ezza"] if kind == "suffix" else ["ri", "dis", "s"])


def test_the_enumerator_groups_per_named_prefix_with_the_mean_polarity(enumerated):
    texts = _texts(enumerated, "Looking at verbs starting with ri-, dis- and s-: for each prefix, how many are scored "
                               "in Sentix and what's their average polarity?")
    assert any("starts with one of 'ri|dis|s' | group by prefix count distinct(lemma) as count, avg(polarityValue)"
               in t for t in texts)


def test_a_count_for_each_emotion_of_a_list_groups_by_the_emotion(enumerated):
    texts = _texts(enumerated, "In ELITA, how many words longer than 8 letters are there for fear, for disgust and "
                               "for surprise?")
    assert any("with elita (Paura or Disgusto or Sorpresa)" in t and "group by emotion count distinct(lemma)" in t
               for t in texts)


def test_letters_max_after_the_number_is_an_upper_bound(lexicons):
    s = read_signals("nouns starting with pan- (7 letters max) and all their Parmigiano dialect words", *lexicons)
    assert s.bounds == ((7.0, "<="),)


def test_a_hyphenated_prefix_that_is_also_a_preposition_is_letters(lexicons):
    s = read_signals("CompL-it adverbs starting with in- and ending in -mente: definitions", *lexicons)
    assert ("prefix", "in") in s.affixes and ("prefix", "and") not in s.affixes


def test_an_example_where_present_beside_each_definition(enumerated):
    texts = _texts(enumerated, "Avverbi in CompL-it che iniziano con 'in' e finiscono in -mente: definizione e, dove "
                               "presente, un esempio d'uso.")
    assert any(t.endswith("list italianWord, definition, example?") for t in texts)


def test_one_resources_value_compared_with_the_others(endpoint):
    plan = Plan(words=Words(), joins=(Join("elita", emotions=("Gioia",)), Join("sentix")),
                filters=(Filter("elitaValue", "compare", "sentixValue", ">"),),
                columns=("italianWord", "elitaValue", "sentixValue"))
    sparql = compile_plan(plan)
    assert "FILTER(?elitaValue > ?sentixValue)" in sparql
    rows = [(float(r[1].value), float(r[2].value)) for r in endpoint.execute(sparql).rows]
    assert rows and all(e > s for e, s in rows)
    everyone = compile_plan(Plan(words=Words(), joins=plan.joins, columns=plan.columns))
    assert len(endpoint.execute(everyone).rows) > len(rows)  # the filter narrows
    assert "elitaValue > sentixValue" in plan.text() and "valore Sentix" in verbalize(plan, "it")


@pytest.mark.parametrize("question, compared", [
    ("Joy words in ELITA that ELITA rates more positively than Sentix does - which are they?", "elitaValue > sentixValue"),
    ("Sentix dà a 'felicità' un punteggio più alto di quello che le dà ELITA?", "sentixValue > elitaValue")])
def test_the_enumerator_compares_the_two_values_a_question_compares(enumerated, question, compared):
    assert any(compared in t for t in _texts(enumerated, question))


def test_the_words_compl_it_lacks_are_the_lemma_banks_less_those_compl_it_has(endpoint):
    from nl2sparql.data.plans.model import Senses

    lacking = Plan(words=Words(), joins=(Join("sicilian"),), senses=Senses(linked="form", absent=True))
    sparql = compile_plan(lacking)
    assert "MINUS { SERVICE" in sparql and "without CompL-it senses" in lacking.text()
    missing = {r[0].value for r in endpoint.execute(sparql).rows}
    every = {r[0].value for r in endpoint.execute(compile_plan(Plan(words=Words(), joins=(Join("sicilian"),)))).rows}
    assert missing and missing < every
    present = every - missing
    word = sorted(present)[0]
    assert endpoint.execute(compile_plan(Plan(words=Words(forms=(word,)), senses=Senses(), operator="ask",
                                              columns=()))).boolean
    assert verbalize(lacking, "it") and verbalize(lacking, "en")


def test_the_enumerator_offers_the_words_compl_it_lacks(enumerated):
    texts = _texts(enumerated, "Quali parole tradotte in siciliano non esistono proprio in CompL-it?")
    assert any(t.startswith("words | without CompL-it senses") and "with sicilian" in t for t in texts)


@pytest.mark.parametrize("question, forms", [
    ("Ho questi nomi: sorella, cavallo, neve, gatto, albero, libro. Come si dicono in siciliano?",
     ("sorella", "cavallo", "neve", "gatto", "albero", "libro")),
    ("For the words paura, gioia, rabbia, sorpresa and nostalgia: which ELITA emotions are they tagged with?",
     ("paura", "gioia", "rabbia", "sorpresa", "nostalgia"))])
def test_a_comma_list_of_known_words_names_every_word_and_no_emotion(lexicons, question, forms):
    s = read_signals(question, *lexicons)
    assert s.forms == forms and s.emotions == ()


@pytest.mark.parametrize("question, emotions", [
    ("Per gioia, tristezza, paura e rabbia: quante parole ha ELITA per ciascuna?", ("Gioia", "Tristezza", "Paura",
                                                                                   "Rabbia")),
    ("Tra nomi, aggettivi, verbi e avverbi, quanti lemmi finiscono in -oso?", ())])
def test_a_list_of_emotion_names_or_of_parts_of_speech_names_no_word(lexicons, question, emotions):
    s = read_signals(question, *lexicons)
    assert s.forms == () and s.emotions == emotions


def test_a_listed_words_translations_are_counted_per_word(enumerated):
    texts = _texts(enumerated, "quante traduzioni in parmigiano hanno mangiare, bambino, paura, cane e casa?")
    assert any(t.startswith("words written 'mangiare' or 'bambino' or 'paura' or 'cane' or 'casa' | with parmigiano")
               and t.endswith("group by italianWord count distinct(parmigianoLemma) as count") for t in texts)


def test_a_list_of_columns_names_no_word(lexicons):
    s = read_signals("Quali parole con polarità negativa in Sentix hanno una traduzione siciliana? Mostra parola, "
                     "traduzione e valore.", *lexicons)
    assert not {"parola", "traduzione", "valore"} & set(s.forms)
