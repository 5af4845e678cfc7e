"""When may a ranked candidate override the generator's own answer? Rules replayed on dev, with no LM call.

    python bench/override.py --version v22 --lists ~/.nl2sparql/ranker/<kb>-<code>/dev.jsonl \
        [--report bench/eval-runs/v14/reports/dev-….json] [--out bench/override-runs]

The choice (`modules/plan_choice.decide`) lets the best candidate answer in place of a valid generator answer it
disagrees with when the ranker's probability reaches `rank_fallback`. Each rule below narrows that override; all
else is the version's choice, replayed on its dev lists (as the program sees them: no gold plan added) and the
parent's dev answers from its eval report, for each fallback of the thresholds' grid (accept never):

- ranked: the version's rule (the override above the fallback);
- signals: only when the candidate's plan uses every signal the question gave (`rank_features.agreement_tokens`:
  no kind named and missed) and the generator's query, read back as a plan, does not (or cannot be read back);
- signals_parsed: the same, but never over a generator query no plan can say;
- failed_only: only when the generator's answer is invalid or empty;
- subset: not when the candidate's answer values are a strict subset of the generator's (it shows fewer columns).

Prints and writes the share right per rule and fallback, and, for the questions where a rule changes the outcome,
which side was right. Design on dev only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

RULES = ("ranked", "signals", "signals_parsed", "failed_only", "subset")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="v22")
    parser.add_argument("--lists", type=Path, required=True, help="the ranker job's dev.jsonl for this code")
    parser.add_argument("--report", type=Path,
                        default=Path("bench/eval-runs/v14/reports/dev-local-qwen-1.5b-lora-9d9696e8-be4f8692af.json"))
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "override-runs")
    args = parser.parse_args()

    import numpy as np

    from nl2sparql.artifacts.store import resolve_version
    from nl2sparql.data.plans.codec import plan_from_json
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.data.plans.parse import Unparsed, parse_plan
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.modules.rank_features import agreement_tokens
    from nl2sparql.modules.ranker import RankerFile
    from nl2sparql.optimize.ranker.job import dev_view, load_featured
    from nl2sparql.optimize.ranker.thresholds import GRID, dev_questions
    from nl2sparql.retrieval.enumerate import answer_values
    from nl2sparql.retrieval.signals import signals_from_json

    found = resolve_version(args.version)
    ranker_file = RankerFile.from_manifest(found.path, found.manifest) if found else None
    if ranker_file is None:
        parser.error(f"version {args.version} has no ranker")
    ranker = ranker_file.load()
    made, lists = load_featured(args.lists, dev_view)
    report = json.loads(args.report.read_text(encoding="utf-8"))["questions"]
    answered = {f"{q['id']}:{q.get('language', 'it')}": q for q in report}

    def complete(plan, signals) -> bool:
        return not any(t.endswith((":some", ":none")) for t in agreement_tokens(plan, signals))

    rows = []
    with EmbeddedEndpoint(EndpointConfig()) as endpoint:
        def values(sparql: str):
            try:
                return answer_values(endpoint.execute(sparql))
            except Nl2SparqlError:
                return None

        questions = iter(dev_questions(ranker, lists, made, report, endpoint))
        for m in made:
            q = answered.get(m["key"])
            if q is None:
                continue
            d = next(questions)
            generated = values(q["sparql"]) if q.get("valid") and q.get("sparql") else None
            signals = signals_from_json(m["signals"])
            try:
                generator_complete = complete(parse_plan(q["sparql"]), signals) if generated else None
            except Unparsed:
                generator_complete = "unparsed"
            top = int(np.argmax(d.probabilities)) if len(d.probabilities) else None
            top_plan = plan_from_json(m["candidates"][top]["plan"]) if top is not None else None
            rows.append({"key": m["key"], "d": d, "top": top, "generated": generated,
                         "top_values": values(compile_plan(top_plan)) if top_plan else None,
                         "top_complete": complete(top_plan, signals) if top_plan else False,
                         "generator_complete": generator_complete})

    def overrides(r: dict, rule: str) -> bool:
        if rule == "ranked" or not r["generated"]:
            return True
        if rule in ("signals", "signals_parsed"):
            g = r["generator_complete"]
            return r["top_complete"] and g is not True and (rule == "signals" or g != "unparsed")
        if rule == "subset":
            return not (r["top_values"] and r["top_values"] < r["generated"])
        return False  # failed_only

    def outcome(r: dict, fallback: float, rule: str) -> bool:
        d, top = r["d"], r["top"]
        if top is None:
            return d.generator_right
        if d.agreeing is not None:
            return bool(d.labels[d.agreeing])
        if d.probabilities[top] >= fallback and overrides(r, rule):
            return bool(d.labels[top])
        return d.generator_right

    table = {rule: {str(f): round(sum(outcome(r, f, rule) for r in rows) / len(rows), 3) for f in GRID}
             for rule in RULES}
    fallback = float(found.manifest["program_settings"].get("rank_fallback", 0.9))
    changed = {rule: [{"key": r["key"], "ranked_right": outcome(r, fallback, "ranked"),
                       "rule_right": outcome(r, fallback, rule)} for r in rows
                      if outcome(r, fallback, rule) != outcome(r, fallback, "ranked")] for rule in RULES[1:]}
    print(f"{len(rows)} dev questions; share right per rule and fallback (the version's fallback: {fallback})")
    for rule, shares in table.items():
        print(f"  {rule:15} " + "  ".join(f"{f}:{s:.3f}" for f, s in shares.items()))
    for rule, keys in changed.items():
        won = sum(c["rule_right"] for c in keys)
        print(f"  {rule} against ranked at {fallback}: won {won}, lost {len(keys) - won}")
    args.out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out / f"{args.version}-dev.json", json.dumps(
        {"version": args.version, "questions": len(rows), "fallback": fallback, "share_right": table,
         "changed": changed}, indent=1) + "\n")


if __name__ == "__main__":
    main()
