"""Statistics over a word set and computed keys, read from the question into plan blocks: the minimum, maximum or
mean length ("la lunghezza minima e massima dei verbi", per part of speech too), a polarity value's extreme, the
words per ending of n letters ("le 3 terminazioni di 2 lettere più frequenti"); and the cue words around them
("contati", "il numero dei", "al loro interno", letters quoted after a cue are no dialect word)."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Plan, Words
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def test_extremes_are_operators_but_a_bound_is_not(lexicons):
    both = read_signals("Qual è la lunghezza minima e quella massima dei verbi?", *lexicons)
    assert {"min", "max"} <= both.operators and "length" in both.keys
    assert not {"min", "max"} & read_signals("Quali nomi hanno al massimo cinque lettere?", *lexicons).operators


def test_the_letters_of_an_ending_are_a_key_not_a_suffix(lexicons):
    s = read_signals("Quali sono le 3 terminazioni di 2 lettere più frequenti tra i nomi?", *lexicons)
    assert "ending2" in s.computed and not s.affixes and not s.length and "top" in s.operators
    assert "ending3" in read_signals("Con quali 3 lettere finiscono più spesso gli aggettivi?", *lexicons).computed
    assert not read_signals("Quali nomi finiscono in «di»?", *lexicons).computed


def test_cue_words_for_counts_sequences_and_quoted_letters(lexicons):
    assert "count" in read_signals("Verbi italiani che finiscono in «re», contati", *lexicons).operators
    assert "count" in read_signals("Qual è il numero dei nomi che compaiono in Sentix?", *lexicons).operators
    inside = read_signals("Quante parole hanno al loro interno la sequenza «ssa»?", *lexicons)
    assert ("contains", "ssa") in inside.affixes
    letters = read_signals("Quanti nomi cominciano con «in»?", *lexicons)
    assert letters.affixes == (("prefix", "in"),) and not letters.dialect_forms and not letters.forms


def test_length_statistics_compile_and_agree_with_the_lengths(endpoint):
    from collections import defaultdict

    verbs = Words(pos=("verb",))
    rows = endpoint.execute(compile_plan(Plan(words=verbs, columns=("lemma", "italianWord")))).rows
    lengths = [len(form.value) for _, form in rows]
    stats = Plan(words=verbs, operator="count", columns=(), aggregates=(
        Aggregate("min", "length", "minLength"), Aggregate("max", "length", "maxLength")))
    (low, high), = [tuple(int(t.value) for t in row) for row in endpoint.execute(compile_plan(stats)).rows]
    assert lengths and (low, high) == (min(lengths), max(lengths))
    per_ending = Plan(words=verbs, filters=(Filter("italianWord", "length", 2, ">"),), operator="group",
                      columns=("ending2",), aggregates=(Aggregate("count", "lemma", "count", distinct=True),),
                      order=(("count", True), ("ending2", False)), limit=1)
    (ending, count), = [tuple(t.value for t in row) for row in endpoint.execute(compile_plan(per_ending)).rows]
    lemmas = defaultdict(set)  # the same count, made here from the written forms
    for lemma, form in rows:
        if len(form.value) > 2:
            lemmas[form.value[-2:]].add(lemma.value)
    assert int(count) == max(len(v) for v in lemmas.values()) == len(lemmas[ending])


@pytest.mark.parametrize("question, plan_text", [
    ("Qual è la lunghezza minima e quella massima dei verbi?",
     "verb words | count min(length) as minLength, max(length) as maxLength"),
    ("Per ogni parte del discorso, qual è la lunghezza massima delle parole?",
     "words | group by pos max(length) as maxLength | order pos"),
    ("Quali sono le 2 terminazioni di 3 lettere più frequenti tra i verbi?",
     "verb words | italianWord length > 3 | group by ending3 count distinct(lemma) as count | order count desc, "
     "ending3 | limit 2"),
    ("Lunghezza media dei lemmi per nomi, verbi e aggettivi",  # several parts of speech named: one mean each
     "noun/verb/adjective lemmas | group by pos avg(length) as average | order pos"),
    ("Qual è il numero massimo di emozioni che ha una singola parola in ELITA?",
     "words | with elita | maximum over groups by italianWord count distinct(emotion) as count"),
    ("Come si distribuiscono i verbi di Sentix tra polarità positiva e negativa?",
     "verb words | with sentix | group by polarity count distinct(lemma) as count"),
    ("In media quante emozioni ha una parola in ELITA, e qual è il massimo?",  # both over the same per-word counts
     "words | with elita | average and maximum over groups by italianWord count distinct(emotion) as count"),
    ("Parole che finiscono con la lettera a in ELITA",
     "words | with elita | italianWord ends with 'a' | list italianWord"),
])
def test_the_enumerator_finds_each_statistic(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_a_count_bound_is_no_length_and_six_letters_is_a_number(lexicons):
    from nl2sparql.retrieval.filter_blocks import filter_sets

    counts = read_signals("Per quali lunghezze ci sono più di 500 aggettivi, e quanti?", *lexicons)
    assert 500 in counts.numbers and not any(f.kind == "length" for fs in filter_sets(counts, "italianWord", None)
                                             for f in fs)
    assert 6 in read_signals("Sinonimi di 'rapido' in sei lettere?", *lexicons).numbers
    assert 6 not in read_signals("Sei sicuro che 'rapido' abbia sinonimi?", *lexicons).numbers
    one_cell = read_signals("Traduzioni siciliane di ogni parola in c, elencale in una riga", *lexicons)
    assert one_cell.concat and "singolo" not in read_signals(
        "Qual è il numero massimo di traduzioni che ha un singolo verbo?", *lexicons).forms


def test_the_highest_count_per_word_is_the_highest_of_the_per_word_counts(endpoint):
    from collections import Counter

    from nl2sparql.data.plans.model import Join
    from nl2sparql.data.plans.verbalize import verbalize

    words = Plan(words=Words(), joins=(Join("elita"),))  # emotions per word: one to several
    rows = endpoint.execute(compile_plan(words.with_block(columns=("lemma", "emotion")))).rows
    per_lemma = Counter(lemma for lemma, _ in {tuple(t.value for t in r) for r in rows})
    assert max(per_lemma.values()) > min(per_lemma.values())
    for func, expected in (("max", max(per_lemma.values())), ("min", min(per_lemma.values()))):
        plan = words.with_block(operator=f"{func}_groups", columns=("lemma",),
                                aggregates=(Aggregate("count", "emotion", "count", distinct=True),))
        (value,), = [tuple(int(t.value) for t in row) for row in endpoint.execute(compile_plan(plan)).rows]
        assert value == expected and f"{func}imum over groups by lemma" in plan.text()
        assert ("highest" if func == "max" else "lowest") in verbalize(plan, "en")
    both = words.with_block(operator="average_max_groups", columns=("lemma",),
                            aggregates=(Aggregate("count", "emotion", "count", distinct=True),))
    (mean, high), = [tuple(float(t.value) for t in row) for row in endpoint.execute(compile_plan(both)).rows]
    assert high == max(per_lemma.values()) and mean == pytest.approx(sum(per_lemma.values()) / len(per_lemma))
    assert "la media e il massimo" in verbalize(both, "it")


def test_lengths_with_more_words_than_a_bound_are_a_having_on_the_length_groups(lexicons):
    from nl2sparql.retrieval.computed_blocks import computed

    s = read_signals("Per quali lunghezze ci sono più di 500 aggettivi, e quanti?", *lexicons)
    texts = [p.text() for p in computed(Plan(words=Words(pos=("adjective",))), s, "lemma")]
    assert "adjective words | group by length count distinct(lemma) as count | having count > 500 | order length" \
        in texts, texts


def test_a_named_words_related_words_are_counted_and_listed_in_one_row(lexicons):
    from nl2sparql.data.plans.model import Senses
    from nl2sparql.retrieval.computed_blocks import concatenated

    s = read_signals("Di quante parti è fatto l'«albero»? Elencale in una riga.", *lexicons)
    base = Plan(words=Words(forms=("albero",)), senses=Senses(relation="meronym"))
    texts = [p.text() for p in concatenated(base, s, [("partWord",)])]
    assert ("words written 'albero' | CompL-it senses | meronyms | count count distinct(partWord) as count, "
            "group_concat distinct(partWord) as partWordList") in texts, texts


def test_a_set_showing_both_values_is_ordered_by_each():
    from nl2sparql.retrieval.blocks import _valued

    both = ("italianWord", "elitaValue", "sentixValue")
    assert [r for shown, r in _valued([both]) if shown == both] == ["sentixValue", "elitaValue"]
