"""Hard negatives for the ranker: the gold plan with one block changed (a relation's direction, OPTIONAL for
required, a part of speech or lemma type more or less, another column set, another resource, another operator),
each executed and labelled like the enumerator's candidates; a change that keeps the gold's answer is a positive."""

from __future__ import annotations

from nl2sparql.data.plans.neighbours import one_block_changes


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
