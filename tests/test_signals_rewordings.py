"""Other people's wordings of the blocks the cues know: "il numero totale di", "polysemous", "per first letter",
"the bottom 10", "quanto è positivo", "voci gergali"; a terse question's word at its start ("Comprare in siciliano?");
"di una sola parola" is no count of one; a word in English single quotes is no emotion; "un lemma, un ipolemma o
entrambi" asks for the type and is no yes/no question."""

from __future__ import annotations

import pytest

from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signal_words import reworded
from nl2sparql.retrieval.signals import load_cues, read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def test_rewrites_keep_the_question_case_and_words_they_do_not_name():
    rules = load_cues()["rewrites"]["rules"]
    assert reworded("Qual è il numero totale di nomi in LiITA?", rules) == "Qual è il numero di nomi in LiITA?"
    assert reworded("Quali parole hanno una glossa?", rules) == "Quali parole hanno una definizione?"
    assert reworded("Quali parole hanno «glossa» nel nome?", rules) == "Quali parole hanno «glossa» nel nome?"
    assert reworded("Quanti sensi ha «cane»?", rules) == "Quanti sensi ha «cane»?"
    noted = "Quali voci sono marcate come gergali (nota «Usage: Voce gergale»)?"
    assert reworded(noted, rules) == noted  # a quoted note is the note's own text
    assert reworded("Lemmas with 'qq' in them", rules) == "Lemmas containing 'qq'"


def test_a_total_is_a_count_and_polysemy_is_senses(lexicons):
    total = read_signals("Qual è il numero totale di nomi in LiITA?", *lexicons)
    assert "count" in total.operators and total.pos == ("noun",)
    polysemous = read_signals("Top 10 most polysemous nouns, please.", *lexicons)
    assert "complit" in polysemous.resources and {"top", "descending"} <= polysemous.operators
    assert polysemous.numbers == (10.0,)


def test_a_first_letter_is_a_group_key_not_a_top(lexicons):
    s = read_signals("Give the number of lemmas per first letter.", *lexicons)
    assert "initial" in s.computed and "group" in s.operators and "top" not in s.operators


def test_the_bottom_of_a_ranking_is_its_lowest(lexicons):
    s = read_signals("Rank ELITA words by polarity and give me the bottom 10.", *lexicons)
    assert {"top", "ascending"} <= s.operators and "group" not in s.operators and s.numbers == (10.0,)
    italian = read_signals("Classifica le parole tristi di ELITA per polarità Sentix e dammi le ultime cinque.",
                           *lexicons)
    assert italian.emotions == ("Tristezza",) and "group" not in italian.operators and 5.0 in italian.numbers


def test_how_positive_asks_for_the_value_and_a_quoted_word_is_no_emotion(lexicons):
    english = read_signals("How positive or negative is 'felicità' according to Sentix?", *lexicons)
    assert english.forms == ("felicità",) and english.emotions == () and english.resources == ("sentix",)
    italian = read_signals("Quanto è positivo il nome «felicità» secondo Sentix?", *lexicons)
    assert italian.polarity == () and "count" not in italian.operators and italian.forms == ("felicità",)


def test_a_terse_question_names_its_first_word(lexicons):
    assert read_signals("Comprare in siciliano?", *lexicons).forms == ("comprare",)
    assert read_signals("Fratello: Parmigiano vs Sicilian.", *lexicons).forms == ("fratello",)
    assert read_signals("Quali verbi esprimono rabbia?", *lexicons).forms == ()


def test_a_single_word_is_no_count_of_one_and_more_letters_is_the_length(lexicons):
    s = read_signals("Quale nome di una sola parola ha più lettere?", *lexicons)
    assert s.single_word and s.numbers == () and "length" in s.computed and "top" in s.operators


def test_lemma_or_hypolemma_asks_for_the_type(lexicons):
    s = read_signals("«Letto» è un lemma, un ipolemma o entrambi?", *lexicons)
    assert s.asks_type and "ask" not in s.operators and s.lemma_kind is None


def test_slang_entries_are_the_usage_note(lexicons):
    s = read_signals("Voci gergali del parmigiano e relativa parola italiana.", *lexicons)
    assert s.notes == ("Usage: Voce gergale",) and s.resources == ("parmigiano",)


@pytest.mark.parametrize("question, plan_text", [
    ("Comprare in siciliano?", "words written 'comprare' | with sicilian | list sicilianWord"),
    ("Quale nome di una sola parola ha più lettere?",
     "noun words | italianWord not contains ' ' | list italianWord | order length desc, italianWord | limit 1"),
])
def test_the_enumerator_reads_the_rewording(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_some_n_words_are_the_first_n(lexicons, enumerated):
    s = read_signals("Show 20 verbs whose lemma contains a space.", *lexicons)
    assert "alphabetical" in s.operators and s.numbers == (20.0,)
    assert "alphabetical" not in read_signals("Quanti verbi contengono uno spazio?", *lexicons).operators
    texts = [c.plan.text() for c in enumerated("Dammi dieci pronomi.")]
    assert "pronoun words | list italianWord | order italianWord | limit 10" in texts, texts[:12]


def test_a_dialect_word_for_an_unquoted_italian_one(lexicons):
    for question in ("Quale è il verbo siciliano per comprare?", 'Quale è il verbo siciliano che significa "comprare"?'):
        s = read_signals(question, *lexicons)
        assert s.forms == ("comprare",) and s.resources == ("sicilian",), question
