"""Answers a linguist can trust: every answer says what it was understood as; an empty answer, a zero count, a "no"
and a close call say they may be wrong, explain an empty set from the plan's prefixes and offer the enumerator's other
readings with their answers (the generator written by DummyLM, the knowledge base real); the tables go out as CSV."""

from __future__ import annotations

import csv
import io
import json

import dspy
import pytest
from click.testing import CliRunner
from dspy.utils.dummies import DummyLM
from rich.console import Console

from conftest import PREFIXES
from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.modules.answer import answer_table, prediction_json
from nl2sparql.modules.doubt import doubt_kind, explain_empty, plan_prefixes
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.ranker import Ranker
from nl2sparql.modules.runtime import Runtime
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.modules.understood import describe_query, read_plan, understood_as

SAD_VERBS = Plan(words=Words(pos=("verb",)), joins=(Join("elita", emotions=("Tristezza",)),), columns=(),
                 operator="count", aggregates=(Aggregate("count", "lemma", "count", distinct=True),))
# The part of speech asked inside the ELITA graph, where no lemma has one: a count of 0 (the follow-up).
POS_IN_ELITA = PREFIXES + """SELECT (COUNT(DISTINCT ?lemma) AS ?count) WHERE {
  GRAPH <http://w3id.org/elita> { ?entry elita:HasEmotion elita:Tristezza ; ontolex:canonicalForm ?lemma .
                                  ?lemma lila:hasPOS lila:verb } }"""
LIST_IN_ELITA = PREFIXES + """SELECT DISTINCT ?italianWord WHERE {
  GRAPH <http://w3id.org/elita> { ?entry elita:HasEmotion elita:Tristezza ; ontolex:canonicalForm ?lemma .
                                  ?lemma lila:hasPOS lila:verb ; ontolex:writtenRep ?italianWord } }"""
NO_SUCH_WORDS = PREFIXES + """SELECT ?italianWord WHERE {
  GRAPH <http://liita.it/data> { ?lemma lila:hasPOS lila:verb ; ontolex:writtenRep ?italianWord }
  ?entry ontolex:canonicalForm ?lemma ; elita:HasEmotion elita:Tristezza .
  FILTER(STRSTARTS(?italianWord, "zzq")) }"""


def _program(endpoint, answers, **settings):
    dspy.configure(lm=DummyLM([{"sparql": a} for a in answers]))
    options = {"examples_k": 0, "ontology_k": 0, "ground_entities": False, "check_scope": False, "max_repairs": 0,
               **settings}
    return NL2SPARQL(ProgramSettings(**options), Runtime(endpoint=endpoint))


def test_an_answer_says_what_it_was_understood_as_in_the_question_language(endpoint):
    out = _program(endpoint, [compile_plan(SAD_VERBS)])("Quanti verbi esprimono tristezza in ELITA?")
    assert out.ok and out.doubt is None  # a count above zero is not in doubt
    assert out.understood_as.startswith("Verbi italiani") and "Tristezza" in out.understood_as
    assert out.understood_as.endswith("contati")
    english = _program(endpoint, [compile_plan(SAD_VERBS)])("How many verbs express sadness in ELITA?")
    assert english.understood_as.startswith("Italian verbs") and english.understood_as.endswith("counted")
    assert prediction_json(english)["understood_as"] == english.understood_as


def test_a_query_no_plan_covers_is_described_from_its_text():
    text = describe_query(POS_IN_ELITA, "en")
    assert text.startswith("A query that reads ELITA emotions") and "count" in text and "aggregated" in text
    assert describe_query(POS_IN_ELITA, "it").startswith("Una query che legge le emozioni di ELITA")
    assert understood_as("", "en") == ""


def test_a_zero_count_gets_the_doubt_line_and_a_reading_that_counts_something(endpoint):
    out = _program(endpoint, [POS_IN_ELITA])("Quanti verbi esprimono tristezza?")
    assert out.ok and out.rows == [("0",)]
    # The plan reader takes it for "verbs with Tristezza, counted", but that plan counts more than 0: the line
    # describes what the query really reads instead of what it seems to ask.
    assert verbalize(read_plan(POS_IN_ELITA), "it").startswith("Verbi italiani")
    assert out.understood_as.startswith("Una query che legge le emozioni di ELITA")
    doubt = out.doubt
    assert doubt["kind"] == "zero" and doubt["line"].startswith("Il conteggio è 0")
    assert doubt["alternatives"], "the enumerator reads the question as verbs with Tristezza in ELITA"
    first = doubt["alternatives"][0]
    assert first["answer"] not in ("Risposta: 0.", "Nessun risultato.") and first["sparql"] and first["reading"]
    assert json.loads(json.dumps(prediction_json(out)))["doubt"]["kind"] == "zero"


def test_an_empty_answer_is_explained_by_the_block_that_empties_it(endpoint):
    out = _program(endpoint, [NO_SUCH_WORDS])("Quali verbi che iniziano per zzq esprimono tristezza?")
    assert out.ok and out.rows == [] and out.doubt["kind"] == "empty"
    assert out.doubt["line"].startswith("Nessun risultato")
    explanation = out.doubt["explanation"]
    assert explanation.startswith("Perché:") and "«zzq»" in explanation and "nessuno" in explanation
    assert "Tristezza" in explanation.split(", ma")[0]  # the set before the filter is named, with its count
    assert out.doubt["alternatives"] == []  # every reading of the question keeps its «zzq»: none is made up


def test_an_empty_list_gets_the_readings_that_find_something(endpoint):
    """The issue's "Solo i verbi": the part of speech asked inside the ELITA graph lists nothing."""
    out = _program(endpoint, [LIST_IN_ELITA])("Quali verbi esprimono tristezza?")
    assert out.ok and out.rows == [] and out.doubt["kind"] == "empty"
    first = out.doubt["alternatives"][0]
    assert first["reading"].startswith("Verbi italiani, che esprimono Tristezza in ELITA") and first["count"] > 0
    assert "piangere" in {row[0] for row in first["rows"]}


def test_the_prefixes_add_one_block_at_a_time_and_the_explanation_names_the_last(endpoint):
    import time

    plan = Plan(words=Words(pos=("noun",)), joins=(Join("elita", emotions=("Gioia",)),),
                filters=(Filter("italianWord", "suffix", "qqz"),))
    steps = plan_prefixes(plan)
    assert [len(p.joins) + len(p.filters) for p, _ in steps] == [0, 1, 2]
    text = explain_empty(plan, endpoint, "en", time.perf_counter() + 30)
    assert text.startswith("Why: “Italian nouns, that express Gioia in ELITA” finds ") and text.endswith(
        "ending in «qqz»” finds none.")
    assert explain_empty(Plan(words=Words(forms=("zzqqzz",))), endpoint, "en", time.perf_counter() + 30) == \
        "Why: “Italian words written «zzqqzz»” finds nothing."


def test_doubt_kinds():
    from nl2sparql.kb.results import QueryResult, Term

    assert doubt_kind(QueryResult(variables=("x",), rows=[])) == "empty"
    assert doubt_kind(QueryResult(variables=("n",), rows=[(Term("literal", "0"),)])) == "zero"
    assert doubt_kind(QueryResult(variables=("n",), rows=[(Term("literal", "3"),)])) is None
    assert doubt_kind(QueryResult(variables=(), rows=[], boolean=False)) == "no"
    assert doubt_kind(QueryResult(variables=(), rows=[], boolean=True)) is None


def test_two_close_readings_that_disagree_are_a_doubt(endpoint):
    program = _program(endpoint, [], rank=True, rank_accept=0.0)
    program.ranker = Ranker.zeros()  # every candidate equally likely: the two best are as close as can be
    out = program("Quanti verbi esprimono tristezza in ELITA?")
    assert out.choice["answered_by"] == "plan" and out.doubt["kind"] == "close"
    assert out.doubt["line"].startswith("Non è certo") and out.doubt["alternatives"]
    assert all(a["probability"] is not None for a in out.doubt["alternatives"])


def test_doubt_can_be_turned_off(endpoint):
    out = _program(endpoint, [POS_IN_ELITA], doubt=False)("Quanti verbi esprimono tristezza?")
    assert out.doubt is None and out.understood_as


def test_chat_shows_another_reading_with_alt_and_saves_its_table_as_csv(endpoint, tmp_path):
    from nl2sparql.serve.commands.chat import chat_loop

    program = _program(endpoint, [POS_IN_ELITA, compile_plan(SAD_VERBS)])
    conversation = program.conversation()
    lines = iter(["Quanti verbi esprimono tristezza?", "/alt 2", f"/save {tmp_path / 'alt.csv'}",
                  f"/save {tmp_path / 'chat.json'}", "/alt 9"])

    def read(_prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    console = Console(record=True, width=200)
    chat_loop(conversation, console, read=read)
    screen = console.export_text()
    assert "Inteso come:" in screen and "Il conteggio è 0" in screen and "2. " in screen
    assert "error: /alt takes a number from 1 to" in screen
    rows = list(csv.reader(io.StringIO((tmp_path / "alt.csv").read_text(encoding="utf-8"))))
    assert len(rows) >= 2 and rows[1] != ["0"]  # the other reading's table, header first
    saved = json.loads((tmp_path / "chat.json").read_text(encoding="utf-8"))
    assert saved["turns"][0]["sparql"] != POS_IN_ELITA  # follow-ups now build on the reading chosen


def test_answer_tables_go_out_as_csv_and_tsv():
    from nl2sparql.kb.export import delimited, live_url

    text = delimited(["word", "note"], [["casa", 'a "home", house'], ["tab", "a\tb"]], "csv")
    assert list(csv.reader(io.StringIO(text))) == [["word", "note"], ["casa", 'a "home", house'], ["tab", "a\tb"]]
    assert delimited(["word", "note"], [["tab", "a\tb\nc"]], "tsv") == "word\tnote\ntab\ta b c\n"
    with pytest.raises(ValueError):
        delimited(["x"], [], "xlsx")
    assert live_url("ASK { ?s ?p ?o }").startswith("https://liita.it/sparql?query=ASK+%7B")


def test_kb_query_writes_csv(kb_store):
    from nl2sparql.cli import main

    query = PREFIXES + 'SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } }'
    result = CliRunner().invoke(main, ["kb", "query", "-", "--store", str(kb_store), "--format", "csv"], input=query)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["lemma"] and any(r[0].startswith("http://liita.it/data/id/lemma/") for r in rows[1:])


def test_answer_table_of_a_yes_no(endpoint):
    ask = PREFIXES + 'ASK { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } }'
    out = _program(endpoint, [ask])("Esiste il lemma «casa»?")
    assert answer_table(out) == (["ask"], [["true"]]) and out.doubt is None
