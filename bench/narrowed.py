"""How long train's gold plans with a dialect join take with the lexicon's membership joined everywhere, against
the compiler's rule (`data/plans/compile.py: _narrowed`: a test where something else narrows the set).

    python bench/narrowed.py [--split train]

Each plan is compiled both ways and run on the embedded KB (no result cache), the two in turn; prints the plans
counted, the seconds of each way in all, and how many plans gave the same answer both ways (a LIMIT without an
ORDER BY may keep other rows).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="train")
    args = parser.parse_args()

    import nl2sparql.data.plans.compile as compiler
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.data.plans.parse import Unparsed, parse_plan
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    plans = []
    for record in load_dataset():
        if record.split != args.split:
            continue
        try:
            plan = parse_plan(record.sparql)
        except Unparsed:
            continue
        if any(j.resource in ("parmigiano", "sicilian") and j.mode == "has" for j in plan.joins):
            plans.append(plan)
    rule = compiler._narrowed
    ways = {"joined": lambda plan, join: False, "rule": rule}
    seconds, same = dict.fromkeys(ways, 0.0), 0
    try:
        with EmbeddedEndpoint(EndpointConfig(timeout_s=30, cache_size=0)) as endpoint:
            endpoint.execute("ASK { ?s ?p ?o }")  # the worker started before any timing
            for plan in plans:
                answers = []
                for name, narrowed in ways.items():
                    compiler._narrowed = narrowed
                    query = compiler.compile_plan(plan)
                    began = time.perf_counter()
                    result = endpoint.execute(query)
                    seconds[name] += time.perf_counter() - began
                    answers.append(result.boolean if result.boolean is not None else set(result.rows))
                same += answers[0] == answers[1]
    finally:
        compiler._narrowed = rule
    print(f"{len(plans)} {args.split} plans with a dialect join: joined everywhere {seconds['joined']:.1f} s, "
          f"the rule {seconds['rule']:.1f} s; same answer both ways {same}")


if __name__ == "__main__":
    main()
