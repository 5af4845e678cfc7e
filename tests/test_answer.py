"""Readable answers from fixed rows, in Italian and English, with labels for IRIs."""

from nl2sparql.kb.results import QueryResult, Term
from nl2sparql.modules.answer import fetch_labels, local_name, render

LITA = "http://liita.it/data/id/lemma/"


def lit(value, lang=None):
    return Term("literal", value, lang)


def iri(value):
    return Term("iri", value)


def result(variables, *rows):
    return QueryResult(tuple(variables), tuple(tuple(r) for r in rows))


def test_empty_ask_and_single_value():
    assert render(result(["w"]), "it").text == "Nessun risultato."
    assert render(result(["w"]), "en").text == "No results."
    assert render(QueryResult((), boolean=True), "it").text == "Sì."
    assert render(QueryResult((), boolean=False), "en").text == "No."
    assert render(result(["n"], [lit("13")]), "it").text == "Risposta: 13."


def test_words_are_counted_listed_and_cut_after_the_first_n():
    rows = [[lit(w, "it")] for w in ("casa", "cane", "gatto", "luna", "mare")]
    assert render(result(["word"], *rows), "en", first=3).text == "5 results: casa, cane, gatto, … (and 2 more)."
    assert render(result(["word"], *rows), "it", first=3).text == "5 risultati: casa, cane, gatto, … (e altri 2)."


def test_pairs_and_groups_by_emotion_or_dialect():
    pairs = result(["italianWord", "sicilianWord"], [lit("cane"), lit("cani")], [lit("freddo"), lit("friddu")])
    assert render(pairs, "en").text == "2 results: cane – cani, freddo – friddu."
    emotions = result(["emotion", "word"], [iri("http://w3id.org/elita/Gioia"), lit("festa")],
                      [iri("http://w3id.org/elita/Gioia"), lit("sorriso")],
                      [iri("http://w3id.org/elita/Paura"), lit("buio")])
    labels = {"http://w3id.org/elita/Gioia": "Gioia"}
    assert render(emotions, "it", labels).text == "3 risultati, emotion: Gioia (2): festa, sorriso; Paura (1): buio."
    counts = result(["dialect", "n"], [lit("parmigiano"), lit("8394")], [lit("siciliano"), lit("120")])
    assert render(counts, "en").text == "2 results, dialect: parmigiano 8394; siciliano 120."


def test_one_row_names_every_value_and_iris_show_labels_or_local_names():
    row = result(["lemma", "pos"], [iri(LITA + "casa_1"), iri("http://lexinfo.net/ontology/3.0/lexinfo#noun")])
    assert render(row, "en", {LITA + "casa_1": "casa"}).text == "1 result: lemma casa, pos noun."
    assert local_name("http://w3id.org/elita/Tristezza") == "Tristezza"


def test_labels_come_from_the_store(endpoint):
    from conftest import PREFIXES

    found = endpoint.execute(PREFIXES + 'SELECT ?l WHERE { GRAPH <http://liita.it/data> { ?l ontolex:writtenRep "casa"@it } }')
    labels = fetch_labels(endpoint, found)
    assert list(labels.values()) == ["casa"]
    assert render(found, "it", labels).text == "Risposta: casa."
