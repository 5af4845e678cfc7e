"""Latency and validity of local generation on the same questions, one setting at a time.

    python bench/latency.py --label before --no-grammar            # run one setting, save bench/latency-runs/before.json
    python bench/latency.py --label after [--examples-k 1] [--prompt-lookup 10] [--max-tokens 384]
    python bench/latency.py --label tuned --version v2 --as-compiled  # a fine-tuned version: base + adapter
    python bench/latency.py --table before after                  # print the saved runs side by side
    python bench/latency.py --label n8 --version v4 --as-compiled --split generalization --ids dia-057 \
        --fallback-after 8 --deadline 0 --runs /tmp/runs             # one question, the grammar's fallback at 8

Each run answers the first --limit questions of --split (alternating Italian and English) with a fresh local
model and prints p50/p95 seconds per question, prompt and completion tokens, prompt-evaluation and
generation tokens/s (llama.cpp's own timings; prompt tokens reused from its cache are not evaluated),
LM calls, how often the first query parsed and passed the guard, the valid rate after repair, and
execution accuracy, with the grammar's refused tokens and the seconds they cost (max seconds too).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parent / "latency-runs"


def run(args) -> dict:
    from rich.progress import Progress

    from nl2sparql.artifacts.load import load
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.eval.scoring.gold import GoldCache
    from nl2sparql.modules.lm import resolve_lm
    from nl2sparql.modules.program import ProgramSettings
    from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric, examples

    records = [r for r in load_dataset() if r.split == args.split]
    chosen = [e for e in examples(records) if not args.ids or e.record_id in args.ids.split(",")][: args.limit]
    records = [r for r in records if r.id in {e.record_id for e in chosen}]
    lm = resolve_lm(args.lm, cache=False, n_threads=args.threads, max_tokens=args.max_tokens)
    if args.as_compiled:  # the version's own LM (a fine-tuned one: base + adapter) and its own settings
        program = load(args.version, store=args.store, lm_object=lm)
        program.settings = dataclasses.replace(program.settings, max_repairs=args.max_repairs,
                                               candidates=args.candidates, deadline_s=args.deadline or None)
        lm = program.generate.predict.lm
        args.lm = lm.model
    else:
        settings = ProgramSettings(examples_k=args.examples_k, ontology_k=args.ontology_k,
                                   use_constraints=not args.no_constraints, max_repairs=args.max_repairs,
                                   demo_prefixes=not args.no_demo_prefixes, candidates=args.candidates,
                                   deadline_s=args.deadline or None)
        program = load(args.version, store=args.store, lm_object=lm, settings=settings)
    lm.engine.settings.grammar = args.grammar
    lm.engine.settings.prompt_lookup = args.prompt_lookup
    lm.engine.settings.grammar_fallback_after = args.fallback_after
    metric = ExecutionMetric({r.id: r for r in records}, GoldCache(program.runtime.endpoint))
    rows = []
    with Progress() as progress:
        task = progress.add_task("questions", total=len(records))
        for example in chosen:
            before = _snapshot(lm.engine.timings)
            started = time.perf_counter()
            try:
                out = program(**example.inputs())
                score = metric.score(example, out)
                row = {"calls": out.usage["calls"], "prompt_tokens": out.usage["prompt_tokens"],
                       "completion_tokens": out.usage["completion_tokens"],
                       "first_parses": out.attempts[0].outcome not in ("syntax", "rejected"), "valid": bool(out.ok),
                       "exact": bool(score.exact), "sparql": out.sparql,
                       "stopped_early": bool(out.get("stopped_early", False))}
            except Exception as error:  # a crash is a wrong, invalid answer, and the run goes on
                row = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "first_parses": False,
                       "valid": False, "exact": False, "error": f"{type(error).__name__}: {error}"}
            rows.append({"id": example.record_id, "seconds": round(time.perf_counter() - started, 2), **row,
                         **_delta(before, lm.engine.timings)})
            progress.update(task, advance=1)
    setting = {k: getattr(args, k) for k in ("lm", "split", "limit", "version", "grammar", "prompt_lookup",
                                              "examples_k", "ontology_k", "no_constraints", "no_demo_prefixes", "max_tokens",
                                              "max_repairs", "as_compiled", "candidates", "deadline",
                                              "fallback_after", "ids")}
    if args.as_compiled:
        setting["program_settings"] = dataclasses.asdict(program.settings)
    return {"label": args.label, "setting": setting, "model_load_seconds": round(lm.engine.load_seconds, 1),
            "summary": summarise(rows), "questions": rows}


def _snapshot(timings) -> dict:
    return dict(vars(timings))


def _delta(before: dict, timings) -> dict:
    now = vars(timings)
    return {key: round(now[key] - before[key], 3) for key in (
        "prompt_eval_tokens", "prompt_eval_ms", "generated_tokens", "generation_ms", "grammar_refused",
        "grammar_seconds", "cut")}


def summarise(rows: list[dict]) -> dict:
    seconds = sorted(r["seconds"] for r in rows)
    total = {k: sum(r[k] for r in rows) for k in ("prompt_eval_tokens", "prompt_eval_ms", "generated_tokens",
                                                 "generation_ms")}
    n = len(rows)
    return {"questions": n, "p50_s": round(statistics.median(seconds), 2),
            "p95_s": round(seconds[min(n - 1, round(0.95 * (n - 1)))], 2), "max_s": seconds[-1],
            "grammar_refused": sum(r.get("grammar_refused", 0) for r in rows),
            "grammar_seconds": round(sum(r.get("grammar_seconds", 0.0) for r in rows), 2),
            "prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in rows)),
            "completion_tokens": round(statistics.mean(r["completion_tokens"] for r in rows)),
            "prompt_eval_tok_s": round(total["prompt_eval_tokens"] / max(total["prompt_eval_ms"], 1) * 1000, 1),
            "generation_tok_s": round(total["generated_tokens"] / max(total["generation_ms"], 1) * 1000, 1),
            "lm_calls": round(statistics.mean(r["calls"] for r in rows), 2),
            "first_query_parses": round(sum(r["first_parses"] for r in rows) / n, 3),
            "valid_after_repair": round(sum(r["valid"] for r in rows) / n, 3),
            "execution_accuracy": round(sum(r["exact"] for r in rows) / n, 3)}


def table(labels: list[str], folder: Path = RUNS) -> None:
    runs = [json.loads((folder / f"{label}.json").read_text(encoding="utf-8")) for label in labels]
    keys = list(runs[0]["summary"])
    print("| " + " | ".join(["figure", *labels]) + " |")
    print("|" + "---|" * (len(labels) + 1))
    for key in keys:
        print("| " + " | ".join([key, *(str(r["summary"].get(key, "")) for r in runs)]) + " |")
    for run_ in runs:
        print(f"{run_['label']}: {json.dumps(run_['setting'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", nargs="+", metavar="LABEL", help="print saved runs side by side and stop")
    parser.add_argument("--label", default="run")
    parser.add_argument("--lm", default="local/qwen-1.5b")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--version", default="uncompiled")
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--no-grammar", dest="grammar", action="store_false")
    parser.add_argument("--prompt-lookup", type=int, default=0)
    parser.add_argument("--examples-k", type=int, default=3)
    parser.add_argument("--ontology-k", type=int, default=4)
    parser.add_argument("--no-constraints", action="store_true")
    parser.add_argument("--no-demo-prefixes", action="store_true", help="examples (and so answers) without PREFIX lines")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--max-repairs", type=int, default=2)
    parser.add_argument("--candidates", type=int, default=0,
                        help="execution-guided choice: queries sampled when the first fails or returns nothing")
    parser.add_argument("--ids", default="", help="only these question ids (comma-separated) of --split")
    parser.add_argument("--deadline", type=float, default=60.0, help="seconds per question (0: no limit)")
    parser.add_argument("--fallback-after", type=int, default=None,
                        help="refused tokens tested one by one before the grammar's whole-vocabulary pass")
    parser.add_argument("--runs", type=Path, default=RUNS, help="folder the run is saved in")
    parser.add_argument("--as-compiled", action="store_true",
                        help="run --version on its own LM (a fine-tuned one: base + adapter) and its own settings")
    args = parser.parse_args()
    if args.table:
        table(args.table, args.runs)
        return
    result = run(args)
    args.runs.mkdir(exist_ok=True)
    (args.runs / f"{args.label}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    for key, value in result["summary"].items():
        print(f"{key:22} {value}")


if __name__ == "__main__":
    main()
