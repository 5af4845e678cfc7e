"""A rewording must say what its template says: the same operations (count, minimum, maximum, average, share,
grouping, absence; `data/synth/cues.json`) in the same language. The cases are rewordings the local 1.5B model
wrote for `data synth --n 40 --seed 91 --paraphrase 0.5` that kept every slot value but not the question."""

from __future__ import annotations

import pytest

from nl2sparql.data.synth.paraphrase import _verdict, cue_families, in_language


@pytest.mark.parametrize("original, rewording, language, verdict", [
    ("For each part of speech, how many lemmas have a Sentix polarity and are defined in CompL-it?",
     "How many lemmas have a Sentix polarity and are defined in CompL-it?", "en", "changed an operation"),
    ("Lunghezza minima e massima dei nomi che finiscono in «-ale», in numero di caratteri",
     "Quanti nomi finiscono in \"-ale\", in numero di caratteri", "it", "changed an operation"),
    ("Lunghezza media, in caratteri, dei verbi di LiITA, emozione per emozione",
     "Quanto sono lunghi in media i verbi di LiITA?", "it", "changed an operation"),
    ("Quali nomi siciliani non hanno una traduzione parmigiana?",
     "Quali nomi siciliani hanno una traduzione parmigiana?", "it", "changed an operation"),
    ("Find the nouns that translate into Sicilian and start with 'fuo'.",
     "Cerca i nomi che si traducono in siciliano e iniziano con 'fuo'.", "en", "another language"),
    ("Count the lemmas that have a definition in CompL-it.",
     "How many lemmas in CompL-it have a definition?", "en", "kept"),
    ("Qual è il numero dei lemmi che hanno una definizione in CompL-it?",
     "Quanti lemmi hanno una definizione in CompL-it?", "it", "kept"),
    ("Conta i nomi che hanno una polarità in Sentix, per parte del discorso.",
     "Per ogni parte del discorso, quanti nomi hanno una polarità in Sentix?", "it", "kept"),
])
def test_a_rewording_keeps_the_operations_and_the_language(original, rewording, language, verdict):
    assert _verdict(rewording, original, [], language) == verdict


def test_cue_families_and_language():
    assert cue_families("Quante parole, emozione per emozione, non hanno traduzione?", "it") == {
        "count", "grouping", "absence"}
    assert cue_families("Lunghezza massima e minima, in numero di caratteri", "it") == {"maximum", "minimum"}
    assert cue_families("What share, in percent, of the words lack a definition?", "en") == {"share", "absence"}
    assert cue_families("Which Sicilian verbs end in '-ari'?", "en") == frozenset()
    assert in_language("Quali verbi siciliani finiscono in -ari?", "it")
    assert not in_language("Quali verbi siciliani finiscono in -ari?", "en")
    assert in_language("Which of the verbs end in -ari?", "en") and not in_language("Which of the verbs?", "it")
