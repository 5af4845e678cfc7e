"""Query plans: each operator compiles to SPARQL that runs and reads back as words; gold queries round-trip through
a plan with the same answer; a query outside what plans say names the block it lacks."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nl2sparql.data.dataset import load_dataset
from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Senses, Words
from nl2sparql.data.plans.parse import Unparsed, parse_plan
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.eval.plan_coverage import round_trip
from nl2sparql.kb.guard import check

SADNESS = Join("elita", emotions=("Tristezza",))
COUNT_WORDS = (Aggregate("count", "lemma", "wordCount", distinct=True),)
OPERATORS = {
    "list": Plan(words=Words(pos=("noun",)), joins=(SADNESS,), columns=("italianWord",), order=(("italianWord", False),)),
    "count": Plan(joins=(SADNESS,), operator="count", columns=(), aggregates=COUNT_WORDS),
    "ask": Plan(words=Words(forms=("cane",)), joins=(Join("sicilian"),), operator="ask", columns=()),
    "group": Plan(words=Words(kind="Lemma"), columns=("pos",), operator="group",
                  aggregates=(Aggregate("count", "lemma", "lemmaCount"),), having=Filter("lemmaCount", "value", 20, "<")),
    "top": Plan(joins=(Join("sentix"),), columns=("italianWord", "polarityValue"),
                order=(("polarityValue", True), ("italianWord", False)), limit=5),
    "absent": Plan(words=Words(pos=("verb",)), joins=(SADNESS, Join("sicilian", mode="absent")), operator="count",
                   columns=(), aggregates=COUNT_WORDS),
    "minus": Plan(words=Words(pos=("verb",)), joins=(SADNESS, Join("sicilian", mode="absent_minus")),
                  operator="count", columns=(), aggregates=COUNT_WORDS),
    "optional": Plan(words=Words(forms=("cane",)), joins=(Join("parmigiano"),),
                     columns=("parmigianoWord", "usageNote"), optional_roles=("usageNote",)),
    "filters": Plan(words=Words(kind="Lemma", pos=("adjective",)), columns=("italianWord",),
                    filters=(Filter("italianWord", "suffix", "oso"), Filter("italianWord", "length", 6, "<="))),
    "complit": Plan(words=Words(forms=("cane",)), senses=Senses(pos="noun", relation="hypernym"),
                    columns=("hypernymWord",)),
    "meta": Plan(meta="emotions", columns=("emotionLabel",)),
    "dialect bank": Plan(words=Words(bank="sicilian", pos=("verb",)), columns=("sicilianWord",),
                         filters=(Filter("sicilianWord", "suffix", "ari"),)),
    "count groups": Plan(senses=Senses(pos="noun"), operator="count_groups", columns=("italianWord",),
                         aggregates=(Aggregate("count", "sense", "count", distinct=True),),
                         having=Filter("count", "value", 2, ">=")),
    "extreme": Plan(words=Words(pos=("adjective",)), joins=(Join("sentix"),), operator="extreme",
                    columns=("italianWord",), order=(("polarityValue", False),)),
    "count and average": Plan(joins=(Join("sentix"),), filters=(Filter("italianWord", "prefix", "dis"),),
                              operator="count", columns=(), aggregates=(
                                  Aggregate("count", "sentixEntry", "count", distinct=True),
                                  Aggregate("avg", "polarityValue", "average"))),
}


@pytest.mark.parametrize("name", list(OPERATORS))
def test_each_operator_compiles_runs_and_reads_back(name, endpoint):
    plan = OPERATORS[name]
    sparql = compile_plan(plan)
    checked = check(sparql)  # parses, read-only, within the limits
    result = endpoint.execute(sparql)
    assert (result.boolean is True) if plan.operator == "ask" else result.rows, sparql
    assert checked.form == ("ASK" if plan.operator == "ask" else "SELECT")
    for lang in ("en", "it"):
        assert verbalize(plan, lang) and verbalize(plan, lang)[0].isupper()
    assert plan.text() == OPERATORS[name].text()  # stable


def test_blocks_change_answers_as_they_say(endpoint):
    def count(plan):
        return int(endpoint.execute(compile_plan(plan)).rows[0][0].value)

    sad = count(OPERATORS["count"])
    verbs = count(OPERATORS["count"].with_block(words=Words(pos=("verb",))))
    without, minus = count(OPERATORS["absent"]), count(OPERATORS["minus"])
    assert sad == 66 and 0 < verbs < sad and without == minus <= verbs
    assert verbalize(OPERATORS["count"], "it") == "Parole italiane, che esprimono Tristezza in ELITA, contati"


def test_a_narrowed_parmigiano_join_tests_the_lexicon_and_reads_back_as_the_same_join(endpoint):
    named = Plan(words=Words(forms=("cane",)), joins=(Join("parmigiano"),), columns=("parmigianoWord",))
    sparql = compile_plan(named)
    assert "FILTER EXISTS { <http://liita.it/data/id/LexicalReources/DialettoParmigiano/Lexicon> lime:entry" in sparql
    assert parse_plan(sparql) == named
    joined = sparql.replace("FILTER EXISTS { ", "").replace("?italianEntry }", "?italianEntry .")
    assert "FILTER EXISTS" not in joined and parse_plan(joined) == named
    rows = endpoint.execute(sparql).rows
    assert rows and set(rows) == set(endpoint.execute(joined).rows)
    unnamed = Plan(joins=(Join("parmigiano"),), columns=("italianWord",))  # no narrowing: the plain join
    assert "FILTER EXISTS" not in compile_plan(unnamed) and parse_plan(compile_plan(unnamed)) == unnamed
    sicilian = named.with_block(joins=(Join("sicilian"),), columns=("sicilianWord",))
    assert "FILTER EXISTS" not in compile_plan(sicilian)


def test_groups_counted_are_the_rows_of_the_same_group_and_read_back(endpoint):
    counted = OPERATORS["count groups"]
    groups = endpoint.execute(compile_plan(counted.with_block(operator="group"))).rows
    sparql = compile_plan(counted)
    assert "GROUP BY ?italianWord" in sparql and sparql.count("SELECT") == 2
    assert int(endpoint.execute(sparql).rows[0][0].value) == len(groups) > 0
    assert parse_plan(sparql) == counted
    assert verbalize(counted, "en").endswith("how many groups by written form have a count >= 2")


GOLD = ["sns-038", "dia-002", "dia-008", "dia-023", "sen-004", "sen-007", "sen-022", "sen-038", "sen-049", "lem-029", "lem-035",
        "lem-053", "lem-068", "sns-001", "sns-025", "sns-048", "sns-095", "sns-114", "lem-071", "lem-074",
        "dia-080", "lem-102"]  # a dialect word written as its Italian one: a comparison of two roles


@pytest.mark.parametrize("record_id", GOLD)
def test_gold_queries_round_trip_with_the_same_answer(record_id, endpoint):
    record = next(r for r in load_dataset() if r.id == record_id)
    assert record.split in ("train", "dev")  # designed on train and dev only
    result = round_trip(record, endpoint)
    assert result.parsed and result.round_trip, (result.reason, result.plan)
    assert parse_plan(compile_plan(parse_plan(record.sparql))) == parse_plan(record.sparql)  # a fixed point


@pytest.mark.parametrize("sparql, missing", [
    ("SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 1 } }", "a subquery"),
    ("SELECT ?w (STRLEN(?w) AS ?n) WHERE { ?l <http://www.w3.org/ns/lemon/ontolex#writtenRep> ?w }",
     "a computed column"),
    ("PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#> SELECT ?w WHERE { ?l ontolex:writtenRep ?w ; "
     "<http://example.org/p> ?o }", "outside the known blocks: \\?l <http://example.org/p> \\?o"),
    ("SELECT ?s WHERE { ?s <http://example.org/p> ?o }", "no single Italian lemma variable"),
    ("PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#> SELECT (MAX(STRLEN(STR(?w))) AS ?n) WHERE { "
     "?lemma ontolex:writtenRep ?w }", "an aggregate over an expression"),
])
def test_a_query_plans_cannot_say_names_the_missing_block(sparql, missing):
    with pytest.raises(Unparsed, match=missing):
        parse_plan(sparql)


def test_data_plans_reports_counts_per_pattern(kb_store):
    from nl2sparql.cli import main

    result = CliRunner().invoke(main, ["data", "plans", "--split", "dev", "--store", str(kb_store), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["total"] == 72 and report["round_trip"] <= report["parsed"] <= report["total"]
    assert report["round_trip"] >= 0.9 * report["total"]
    assert sum(p["total"] for p in report["per_pattern"].values()) == 72
    assert all(r["split"] == "dev" for r in report["records"])
