"""The hybrid retriever finds paraphrases and cross-language twins, and never returns excluded ids."""

import pytest

from nl2sparql.data.dataset import AnswerVariables, Record
from nl2sparql.retrieval.bm25 import tokenize
from nl2sparql.retrieval.hybrid import HybridRetriever, RetrieverConfig


def _record(id_, it, en, patterns, paraphrases=None):
    return Record(id_, it, en, "ASK { ?s ?p ?o }", tuple(patterns), "simple", AnswerVariables(), "train",
                  paraphrases=paraphrases or {})


RECORDS = [
    _record("tr", "Come si dice «casa» in dialetto siciliano?", "What is the Sicilian word for 'house'?",
            ["translation"], {"it": ["Qual è la traduzione siciliana di «casa»?"]}),
    _record("em", "Quali emozioni esprime la parola «paura»?", "Which emotions are linked to the word 'paura'?",
            ["emotion"]),
    _record("hy", "Quali sono gli iperonimi di «cane»?", "What are the broader terms of 'cane'?",
            ["semantic_relation"]),
    _record("ct", "Quanti verbi ci sono nel lemmario?", "How many verbs does the lemma bank contain?",
            ["counting_grouping", "pos_filter"]),
    _record("df", "Qual è la definizione di «cellula»?", "Give me the definition of 'cellula'.", ["sense_definition"]),
]


@pytest.fixture(scope="module", params=["e5", "minilm"])
def retriever(request, tmp_path_factory):
    config = RetrieverConfig(embedder=request.param, cache_dir=tmp_path_factory.mktemp("index"))
    return HybridRetriever.build(RECORDS, config)


def test_paraphrase_retrieves_its_record_first(retriever):
    found = retriever.retrieve("Traduci in siciliano la parola casa")
    assert found[0].record.id == "tr"


def test_italian_question_retrieves_its_english_twin(retriever):
    english_only = HybridRetriever.build(RECORDS, RetrieverConfig(embedder=retriever.config.embedder,
                                                                  languages=("en",)), retriever.embedder)
    assert english_only.retrieve("Qual è la definizione di «cellula»?")[0].record.id == "df"


def test_exclude_by_id_never_returns_the_question_itself(retriever):
    found = retriever.retrieve(RECORDS[1].question_it, top_k=5, exclude_ids={"em"})
    assert "em" not in {e.record.id for e in found} and len(found) == 4


def test_scores_are_normalised_and_sorted(retriever):
    found = retriever.retrieve("Quante parole esprimono paura?", top_k=5)
    assert all(0.0 <= e.dense <= 1.0 and 0.0 <= e.bm25 <= 1.0 and 0.0 <= e.pattern <= 1.0 for e in found)
    assert [e.score for e in found] == sorted((e.score for e in found), reverse=True)


def test_index_is_cached_on_disk(retriever):
    cache = retriever.config.cache_dir
    assert len(list(cache.glob(f"{retriever.config.embedder}-*.npy"))) == 1


def test_tokenizer_keeps_accents_and_splits_apostrophes():
    assert tokenize("Cos'è la Felicità dell'uomo?") == ["cos", "è", "la", "felicità", "dell", "uomo"]
