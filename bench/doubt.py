"""What the answers' "understood as" and doubt give on a saved eval report's predictions, without an LM.

    python bench/doubt.py [--report bench/eval-runs/v14/reports/dev-….json] [--limit N] [--out bench/doubt-runs]

Each question's predicted query (from the report) runs again on the embedded KB and goes through the program's own
steps after the answer: the plan it reads back into (kept only when that plan gives the same answer), the line it is
understood as, and, for an empty answer, a zero count or a "no", the doubt: why it is empty and the enumerator's other
readings. Prints and writes how many answers read back as a plan, how many are in doubt (by kind, and how many of
those the report scored wrong), how many get an explanation and an alternative, how often an alternative is exactly
the gold answer (the eval metric), and p50 / p90 / max seconds of these steps. Design on train and dev only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def newest_report(version: str = "v14", split: str = "dev") -> Path:
    found = sorted((BENCH / "eval-runs" / version / "reports").glob(f"{split}-*.json"),
                   key=lambda p: json.loads(p.read_text(encoding="utf-8")).get("created_at", ""))
    if not found:
        raise SystemExit(f"error: no {split} report of {version} in bench/eval-runs")
    return found[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", type=Path, default=None, help="a saved eval report (default: v14's newest dev)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=BENCH / "doubt-runs")
    args = parser.parse_args()

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.eval.journal import code_fingerprint
    from nl2sparql.eval.scoring.metric import execution_score, strip_slice
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.modules.doubt import doubt_kind, find_doubt
    from nl2sparql.modules.plan_choice import ShortQueries
    from nl2sparql.modules.program import ProgramSettings
    from nl2sparql.modules.runtime import Runtime
    from nl2sparql.modules.understood import faithful_plan, understood_as

    path = args.report or newest_report()
    report = json.loads(path.read_text(encoding="utf-8"))
    if report["split"] in ("test", "generalization"):
        parser.error("held-out splits are scored once per version by eval: design this on train and dev")
    records = {r.id: r for r in load_dataset()}
    rows = []
    with EmbeddedEndpoint(EndpointConfig()) as endpoint:
        runtime = Runtime(endpoint=endpoint)
        settings = ProgramSettings()
        for q in report["questions"][: args.limit]:
            record, sparql, language = records[q["id"]], q["sparql"], q["language"]
            try:
                result = endpoint.execute(sparql)
            except Nl2SparqlError:
                continue  # no answer to understand
            started = time.perf_counter()
            plan = faithful_plan(sparql, result, ShortQueries(endpoint, 2.0))
            line = understood_as(sparql, language, plan)
            kind = doubt_kind(result)
            doubt = find_doubt(q["question"], result, plan, None, runtime, settings, None, language) if kind else None
            seconds = time.perf_counter() - started
            gold = endpoint.execute(strip_slice(record.sparql))
            right = [a for a in (doubt.alternatives if doubt else [])
                     if execution_score(endpoint, record.sparql, record.answer_variables, a.sparql,
                                        gold_result=gold).exact]
            exact = q["exact"] in (True, "True")
            rows.append({"id": q["id"], "language": language, "exact": exact, "read_as_plan": plan is not None,
                         "understood_as": line, "doubt": kind, "explained": bool(doubt and doubt.explanation),
                         "alternatives": len(doubt.alternatives) if doubt else 0, "alternative_right": bool(right),
                         "seconds": round(seconds, 3)})
            print(f"{q['id']} {language}: {'plan' if plan else 'text'}; {kind or 'no doubt'}"
                  + (f", {len(doubt.alternatives)} alternatives{' (one right)' if right else ''}" if doubt else "")
                  + f"; {seconds:.2f} s", flush=True)
    doubtful = [r for r in rows if r["doubt"]]
    seconds, doubt_seconds = [r["seconds"] for r in rows], [r["seconds"] for r in doubtful]
    out = {"report": path.relative_to(BENCH.parent).as_posix() if path.is_relative_to(BENCH.parent) else str(path),
           "version": report["version"], "split": report["split"], "questions": len(rows),
           "read_as_plan": sum(r["read_as_plan"] for r in rows),
           "doubtful": len(doubtful), "doubtful_by_kind": {k: sum(r["doubt"] == k for r in rows)
                                                           for k in ("empty", "zero", "no")},
           "doubtful_wrong": sum(not r["exact"] for r in doubtful),
           "explained": sum(r["explained"] for r in doubtful),
           "with_alternatives": sum(r["alternatives"] > 0 for r in doubtful),
           "alternative_right_when_wrong": sum(r["alternative_right"] for r in doubtful if not r["exact"]),
           "p50_s": round(percentile(seconds, 0.5), 3), "p90_s": round(percentile(seconds, 0.9), 3),
           "max_s": round(max(seconds, default=0.0), 3),
           "doubt_p50_s": round(percentile(doubt_seconds, 0.5), 3),
           "doubt_max_s": round(max(doubt_seconds, default=0.0), 3), "code": code_fingerprint(), "records": rows}
    print(f"{out['version']} {out['split']}: {out['questions']} answers, {out['read_as_plan']} read back as a plan; "
          f"{out['doubtful']} in doubt {out['doubtful_by_kind']}, {out['doubtful_wrong']} of them wrong; explained "
          f"{out['explained']}, with alternatives {out['with_alternatives']}, an alternative right for "
          f"{out['alternative_right_when_wrong']} of the wrong; seconds p50 {out['p50_s']}, p90 {out['p90_s']}, max "
          f"{out['max_s']} (in doubt: p50 {out['doubt_p50_s']}, max {out['doubt_max_s']})")
    if args.limit is None:
        write_text_atomic(args.out / f"{out['version']}-{out['split']}.json",
                          json.dumps(out, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
