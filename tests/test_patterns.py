"""Deterministic pattern analysis on a table of Italian and English questions."""

import pytest

from nl2sparql.retrieval.patterns import analyze_patterns, extract_entities

CASES = [
    ("Come si dice «casa» in siciliano e in parmigiano?", {"translation", "multi_entry"}, ("casa",), ("sicilian", "parmigiano")),
    ("How do you say 'dog' in the Parmigiano dialect?", {"translation"}, ("dog",), ("parmigiano",)),
    ("Quanti verbi iniziano con 'ri'?", {"pos_filter", "morphology_regex", "counting_grouping"}, ("ri",), ()),
    ("Which emotions does the word amore express?", {"emotion"}, ("amore",), ()),
    ("È vero che la parola «gioia» ha polarità positiva?", {"polarity", "ask"}, ("gioia",), ()),
    ("What are the hyponyms of the word 'animale' whose definition mentions poison?",
     {"semantic_relation", "sense_definition", "compositional"}, ("animale",), ()),
    ("Quali grafi contiene la base di conoscenza?", {"meta"}, (), ()),
    ("Dammi la definizione del nome cellula", {"sense_definition"}, ("cellula",), ()),
    ("Quanti sensi ha la parola «testa»?", {"sense_count"}, ("testa",), ()),
    ("Which words expressing fear have a Sicilian translation?", {"emotion", "translation", "multi_entry"}, (), ("sicilian",)),
    ("Quali sono gli iperonimi di 'cane' che sono anche aggettivi?", {"semantic_relation", "pos_filter", "service_integration"}, ("cane",), ()),
    ("Is there a lemma 'gatto' in the lemma bank?", {"lemma_lookup", "ask"}, ("gatto",), ()),
]


@pytest.mark.parametrize("question,expected,entities,dialects", CASES)
def test_pattern_analysis_finds_the_expected_labels(question, expected, entities, dialects):
    analysis = analyze_patterns(question)
    assert expected <= set(analysis.labels), analysis.labels
    assert analysis.entities == entities
    assert analysis.dialects == dialects
    assert all(0.0 <= s <= 1.0 for s in analysis.scores.values())


def test_plain_question_gets_no_strong_labels():
    assert analyze_patterns("Buongiorno a tutti").labels == ()


def test_italian_apostrophes_are_not_quotes():
    assert extract_entities("Qual è l'emozione della parola amore?") == ("amore",)


@pytest.mark.parametrize("question,entities", [
    ("Quali parole siciliane traducono ragazzo?", ("ragazzo",)),
    ("Which Sicilian words translate ragazzo?", ("ragazzo",)),
    ("In quanti modi diversi si dice donna in parmigiano?", ("donna",)),
    ("Come si traduce acqua in parmigiano?", ("acqua",)),
    ("Is picciottu a Sicilian translation of ragazzo?", ("ragazzo",)),
    ("Quali parole siciliane traducono più di una parola italiana?", ()),  # question words are not entities
    ("Qual è il lemma siciliano che traduce uomo?", ("uomo",)),
])
def test_translation_cues_name_the_word_to_translate(question, entities):
    assert extract_entities(question) == entities
