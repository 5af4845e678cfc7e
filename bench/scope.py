"""Does the relevance step send off-topic questions away, and only those? One run of a version's program:

    python bench/scope.py [--version shipped] [--label v4]     # save bench/scope-runs/LABEL.json
    python bench/scope.py --table                              # print the saved runs

Off topic: the test split of data/off_topic.jsonl, each answered by the whole program (an off-topic answer is
timed from the question to the reply; one kept in scope is not sent on to generate). In scope: every dev and
test question of the dataset in Italian and in English (the targets), and the generalization split (reported),
through the relevance step alone. The retriever and the off-topic index load before the clock starts, so
the seconds are those of a program already in use.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parent / "scope-runs"
TARGETS = {"off_topic_share": 0.95, "refused_share": 0.02, "p50_s": 2.0}
STAGES = ("words", "similarity", "lm")  # where the relevance step decided (modules/scope.py)


def run(args) -> dict:
    import dspy

    from nl2sparql.artifacts.load import load
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.data.off_topic import load_off_topic

    from nl2sparql.modules.lm import resolve_lm

    # DSPy's answer cache off, so an LM stage is timed as a user meets it; a fine-tuned version swaps in its own
    # base model and adapter, with the cache still off.
    program = load(args.version, lm_object=resolve_lm(cache=False))
    lm = program.generate.predict.lm
    started = time.perf_counter()
    _ = program.runtime.retriever, program.runtime.off_topic  # loaded before the clock starts
    warm_up = time.perf_counter() - started
    off_topic = []
    for q in (q for q in load_off_topic() if q.split == "test"):
        started = time.perf_counter()
        with dspy.context(lm=lm):
            scope = program.scope(question=q.question)
        row = {"id": q.id, "kind": q.kind, "language": q.language, "in_scope": scope.in_scope,
               "stage": scope.stage, "reason": scope.reason}
        if not scope.in_scope:
            started = time.perf_counter()
            out = program(q.question)
            row["answer_starts"] = out.answer.split("\n", 1)[0][:60]
        row["seconds"] = round(time.perf_counter() - started, 4)
        off_topic.append(row)
    in_scope = []
    for record in load_dataset():
        if record.split not in ("dev", "test", "generalization"):
            continue
        for language, question in (("it", record.question_it), ("en", record.question_en)):
            started = time.perf_counter()
            with dspy.context(lm=lm):
                scope = program.scope(question=question)
            in_scope.append({"id": record.id, "split": record.split, "language": language,
                             "in_scope": scope.in_scope, "stage": scope.stage, "reason": scope.reason,
                             "seconds": round(time.perf_counter() - started, 4)})
    return {"label": args.label, "setting": {"version": program.version, "lm": lm.model},
            "warm_up_seconds": round(warm_up, 2), "summary": summarise(off_topic, in_scope),
            "off_topic": off_topic, "in_scope": in_scope}


def summarise(off_topic: list[dict], in_scope: list[dict]) -> dict:
    answered = [r for r in off_topic if not r["in_scope"]]
    seconds = sorted(r["seconds"] for r in answered) or [0.0]
    targeted = [r for r in in_scope if r["split"] in ("dev", "test")]
    general = [r for r in in_scope if r["split"] == "generalization"]
    return {
        "off_topic_questions": len(off_topic), "answered_off_topic": len(answered),
        "off_topic_share": round(len(answered) / max(len(off_topic), 1), 3),
        "in_scope_questions": len(targeted), "refused": sum(not r["in_scope"] for r in targeted),
        "refused_share": round(sum(not r["in_scope"] for r in targeted) / max(len(targeted), 1), 3),
        "generalization_questions": len(general), "generalization_refused": sum(not r["in_scope"] for r in general),
        "p50_s": round(statistics.median(seconds), 4), "p90_s": round(seconds[int(0.9 * (len(seconds) - 1))], 4),
        "max_s": round(seconds[-1], 4),
        "stages_off_topic": {stage: sum(r["stage"] == stage for r in off_topic) for stage in STAGES},
        "stages_in_scope": {stage: sum(r["stage"] == stage for r in in_scope) for stage in STAGES},
        "in_scope_mean_s": round(statistics.fmean(r["seconds"] for r in in_scope), 3) if in_scope else 0.0,
    }


def show(runs: list[dict]) -> None:
    for data in runs:
        s = data["summary"]
        print(f"{data['label']} ({data['setting']['version']}, {data['setting']['lm']}; warm-up "
              f"{data['warm_up_seconds']} s)")
        print(f"  off-topic test questions answered as off-topic: {s['answered_off_topic']}/{s['off_topic_questions']}"
              f" = {s['off_topic_share']:.3f} (target >= {TARGETS['off_topic_share']})")
        print(f"  in-scope dev + test questions refused: {s['refused']}/{s['in_scope_questions']} = "
              f"{s['refused_share']:.3f} (target <= {TARGETS['refused_share']}); generalization: "
              f"{s['generalization_refused']}/{s['generalization_questions']}")
        print(f"  seconds for an off-topic answer: median {s['p50_s']}, p90 {s['p90_s']}, max {s['max_s']} "
              f"(target median <= {TARGETS['p50_s']})")
        print(f"  decided by words / similarity / the LM: off-topic {_stages(s['stages_off_topic'])}, in scope "
              f"{_stages(s['stages_in_scope'])}; mean relevance step on an in-scope question {s['in_scope_mean_s']} s")
        for row in data["off_topic"]:
            if row["in_scope"]:
                print(f"  kept in scope: {row['id']} ({row['stage']}: {row['reason']})")
        for row in data["in_scope"]:
            if not row["in_scope"]:
                print(f"  refused: {row['id']} {row['language']} ({row['stage']}: {row['reason']})")


def _stages(counts: dict) -> str:
    return " / ".join(str(counts[stage]) for stage in STAGES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="shipped")
    parser.add_argument("--label", default="v4")
    parser.add_argument("--table", action="store_true", help="print the saved runs and exit")
    args = parser.parse_args()
    if args.table:
        show([json.loads(p.read_text(encoding="utf-8")) for p in sorted(RUNS.glob("*.json"))])
        return
    data = run(args)
    RUNS.mkdir(exist_ok=True)
    path = RUNS / f"{args.label}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    show([data])
    print(f"saved {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
