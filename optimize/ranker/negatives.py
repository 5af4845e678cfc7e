"""Hard negatives for the ranker: the gold plan with one block changed (a relation's direction, OPTIONAL for
required, a part of speech or lemma type more or less, another column set, another resource, another operator),
each executed and labelled like the enumerator's candidates; a change that keeps the gold's answer is a positive."""

from __future__ import annotations

import dataclasses

from nl2sparql.data.plans.model import RELATIONS, Aggregate, Plan

_FLIP = {"hypernym": "hyponym", "hyponym": "hypernym", "meronym": "holonym", "holonym": "meronym",
         "hypernym-by-hyponym": "hyponym-by-hyponym", "hyponym-by-hyponym": "hypernym-by-hyponym"}
_MODES = {"has": "optional", "optional": "has", "absent": "has", "absent_minus": "has", "covered": "has"}
_OTHER = {"elita": "sentix", "sentix": "elita"}


def one_block_changes(plan: Plan) -> list[Plan]:
    r = dataclasses.replace
    out: list[Plan] = []
    s = plan.senses
    if s is not None and s.relation in _FLIP:
        flipped = _FLIP[s.relation]
        column = RELATIONS[s.relation][2]
        columns = tuple(RELATIONS[flipped][2] if c == column else c for c in plan.columns)
        out.append(r(plan, senses=r(s, relation=flipped), columns=columns))
    for i, join in enumerate(plan.joins):
        joins = list(plan.joins)
        joins[i] = r(join, mode=_MODES[join.mode])
        out.append(r(plan, joins=tuple(joins)))
        if join.resource in _OTHER and not join.emotions and not join.polarity:
            joins[i] = r(join, resource=_OTHER[join.resource])
            out.append(r(plan, joins=tuple(joins)))
    words = plan.words
    if plan.meta is None and words.bank == "italian":
        out.append(r(plan, words=r(words, pos=words.pos[:-1] if words.pos else ("noun",))))
        out.append(r(plan, words=r(words, kind=None if words.kind else "Lemma")))
    if plan.operator == "list":
        if len(plan.columns) > 1:
            out.append(r(plan, columns=plan.columns[:-1]))
        if "pos" not in plan.columns and plan.columns:
            out.append(r(plan, columns=(*plan.columns, "pos")))
        out.append(r(plan, operator="count", columns=(),
                     aggregates=(Aggregate("count", "lemma", "count", distinct=True),)))
    elif plan.operator == "count":
        out.append(r(plan, operator="list", columns=("italianWord",), aggregates=()))
    out.append(r(plan, distinct=not plan.distinct))
    return [p for p in dict.fromkeys(out) if p != plan]


def negatives_for(made: dict, gold_sparql: str, answer_variables, endpoint, fast) -> list[dict]:
    """The one-block changes of the list's gold plan that answer something its candidates do not, labelled; each
    runs on `fast` (the enumerator's endpoint, whose queries stop after a second), the gold on `endpoint`."""
    from nl2sparql.data.plans.codec import plan_to_json
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.data.plans.parse import Unparsed, parse_plan
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.eval.scoring.metric import execution_score, strip_slice
    from nl2sparql.retrieval.enumerate import fingerprint

    try:
        gold_plan = parse_plan(gold_sparql)
        gold = endpoint.execute(strip_slice(gold_sparql))
    except (Unparsed, Nl2SparqlError):
        return []
    import json

    seen: set[str] = set()
    known = {json.dumps(c["plan"], sort_keys=True) for c in made["candidates"]}
    out = []
    start = len(made["candidates"])
    for plan in one_block_changes(gold_plan):
        if json.dumps(plan_to_json(plan), sort_keys=True) in known:
            continue
        try:
            sparql = compile_plan(plan)
            result = fast.execute(sparql)
        except Nl2SparqlError:
            continue
        key = fingerprint(result)
        if result.timed_out or key in seen or (result.boolean is None and not result.rows):
            continue
        seen.add(key)
        exact = execution_score(fast, gold_sparql, answer_variables, sparql, gold_result=gold).exact
        out.append({"plan": plan_to_json(plan), "rows": len(result.rows), "boolean": result.boolean,
                    "rank": start + len(out), "label": int(exact), "mutated": True})
    return out
