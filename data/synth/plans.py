"""Pairs drawn as query plans: a witness word's facts choose the blocks (its part of speech, its resources, its
emotion or polarity class, the letters it starts or ends with), an operator is drawn, and the plan gives both the
query (`compile_plan`) and the questions (`verbalize`, in our conventions). Nothing here writes SPARQL or a question
as a string: a pair is only as right as the plan's compiler and verbalizer, which the curated gold checks
(`nl2sparql data plans`)."""

from __future__ import annotations

import random

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.data.synth.pools import CORE_POS, Pools, WordFacts
from nl2sparql.data.synth.rules import RESOURCE_SLOTS, Candidate, Rules
from nl2sparql.data.synth.text import sentence

JOINABLE = ("elita", "sentix", "sicilian", "parmigiano")
OPERATORS = (("list", 5), ("count", 3), ("group", 2), ("ask", 2), ("top", 1))
COLUMNS = {"elita": "emotionLabel", "sentix": "polarityValue", "sicilian": "sicilianWord",
           "parmigiano": "parmigianoWord"}
PATTERNS = {"elita": "emotion", "sentix": "polarity", "sicilian": "translation", "parmigiano": "translation"}


def compose_plan(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> Candidate | None:
    resources = tuple(sorted(rng.sample(JOINABLE, rng.choices([0, 1, 2], weights=[2, 5, 3])[0]),
                             key=JOINABLE.index))
    key = ("plan", resources)
    if key not in cache:
        cache[key] = pools.lemmas_with(resources)
    if not cache[key]:
        return None
    witness = pools.words[rng.choice(cache[key])]
    operator = rng.choices([o for o, _ in OPERATORS], weights=[w for _, w in OPERATORS])[0]
    if "plain" not in cache:
        cache["plain"] = pools.plain_words()
    other = rng.choice(cache["plain"]) if rng.random() < 0.5 else None  # a yes/no question about another word
    plan = draw_plan(witness, resources, operator, rng, asked=other)
    return plan_candidate(plan, resources)


def draw_plan(witness: WordFacts, resources: tuple[str, ...], operator: str, rng: random.Random,
              asked: str | None = None) -> Plan:
    """The blocks a witness has, so the plan's set holds at least that word. A yes/no question names the witness,
    or `asked`, another word, whose answer may be no."""
    pos = sorted(p for p in witness.pos if p in CORE_POS)
    words = Words(pos=(rng.choice(pos),) if pos and rng.random() < 0.6 else ())
    joins = tuple(_join(r, witness, rng) for r in resources)
    filters: tuple[Filter, ...] = ()
    if operator != "ask" and rng.random() < 0.4:
        kind = rng.choice(["prefix", "suffix"])
        n = rng.choice([2, 3])
        value = witness.word[:n] if kind == "prefix" else witness.word[-n:]
        filters = (Filter("italianWord", kind, value),)
    if not joins and not words.pos and not filters:  # every word of the bank: too broad to ask about
        filters = (Filter("italianWord", "prefix", witness.word[:3]),)
    plan = Plan(words=words, joins=joins, filters=filters)
    if operator == "ask":
        return plan.with_block(words=Words(forms=(asked or witness.word,), pos=words.pos), operator="ask", columns=())
    if operator == "count":
        return plan.with_block(operator="count", columns=(), aggregates=(Aggregate("count", "lemma", "count", True),))
    if operator in ("group", "top"):
        keys = (["pos"] if not words.pos else []) + (["emotionLabel"] if resources[:1] == ("elita",) and
                                                      not joins[0].emotions else [])
        if not keys:
            return plan.with_block(columns=("italianWord",))
        count = Aggregate("count", "lemma", "count", True)
        plan = plan.with_block(operator="group", columns=(rng.choice(keys),), aggregates=(count,))
        return plan if operator == "group" else plan.with_block(order=(("count", True),), limit=rng.choice([1, 3]))
    shown = ["italianWord"] + [COLUMNS[r] for r in resources if rng.random() < 0.7]
    return plan.with_block(columns=tuple(shown))


def _join(resource: str, witness: WordFacts, rng: random.Random) -> Join:
    if resource == "elita" and witness.emotions and rng.random() < 0.7:
        return Join("elita", emotions=(rng.choice(sorted(witness.emotions)),))
    if resource == "sentix" and witness.polarity_class and rng.random() < 0.5:
        return Join("sentix", polarity=witness.polarity_class)
    return Join(resource)


def plan_candidate(plan: Plan, resources: tuple[str, ...]) -> Candidate:
    """The plan as a pair of our synthetic format: its query, its two questions, its answer columns and the values
    every rewording must keep."""
    answer = () if plan.operator in ("count", "ask") else plan.columns
    keep = [RESOURCE_SLOTS[r] for r in resources]
    keep += [f for f in plan.words.forms] + [str(f.value) for f in plan.filters]
    keep += [e for j in plan.joins for e in j.emotions]
    return Candidate(shape=f"plan:{plan.operator}", operator={"list": "select", "count": "count_distinct",
                                                              "group": "group_by", "ask": "ask"}[plan.operator],
                     form="ASK" if plan.operator == "ask" else "SELECT", resources=resources,
                     sparql=compile_plan(plan), question_it=sentence(verbalize(plan, "it")),
                     question_en=sentence(verbalize(plan, "en")), patterns=plan_patterns(plan),
                     answer=tuple(answer), aggregates=tuple(a.name for a in plan.aggregates), slots=tuple(keep))


def plan_patterns(plan: Plan) -> tuple[str, ...]:
    found = {PATTERNS[j.resource] for j in plan.joins}
    if any(j.polarity for j in plan.joins):
        found.add("polarity")
    if plan.words.pos or "pos" in plan.columns:
        found.add("pos_filter")
    if plan.filters:
        found.add("morphology_regex")
    if plan.operator in ("count", "group"):
        found.add("counting_grouping")
    if plan.operator == "ask":
        found.add("ask")
    if len(plan.joins) >= 2:
        found.add("multi_entry")
    if len(found) >= 4:
        found.add("compositional")
    return tuple(sorted(found or {"lemma_lookup"}))
