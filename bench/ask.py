"""Baseline of the uncompiled program on a split, with a real LM (the offline local model by default).

    python bench/ask.py [--lm local/qwen-1.5b] [--split dev] [--limit N] [--version uncompiled]
                        [--store DIR] [--threads N] [--json FILE]

Questions alternate between Italian (even positions) and English (odd). Prints execution accuracy
(exact match of result sets, eval/scoring/metric.py), mean F1, valid-SPARQL rate (parses, passes the guard,
executes), mean LM calls per question, p50 seconds per question, and prompt/completion tokens per question.
The first question also pays for loading the model (reported apart, as load s).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from nl2sparql.data.dataset import load_dataset
from nl2sparql.eval.scoring.gold import GoldCache
from nl2sparql.eval.scoring.program import score_program
from nl2sparql.modules.lm import resolve_lm
from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric, examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm", default=None)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--version", default="uncompiled")
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write per-question results here")
    args = parser.parse_args()

    from rich.progress import Progress

    from nl2sparql.artifacts.load import load

    records = [r for r in load_dataset() if r.split == args.split][: args.limit]
    lm = resolve_lm(args.lm, cache=False, n_threads=args.threads)
    program = load(args.version, store=args.store, lm_object=lm)
    metric = ExecutionMetric({r.id: r for r in records}, GoldCache(program.runtime.endpoint))
    started = time.perf_counter()
    with Progress() as progress:
        task = progress.add_task("questions", total=len(records))

        def on_result(item, scores):
            progress.update(task, advance=1, description=f"accuracy {scores.summary()['execution_accuracy']:.2f}")

        scores = score_program(program, examples(records), metric, on_result=on_result)
    summary = {"lm": lm.model, "version": args.version, "split": args.split, **scores.summary(),
               "model_load_seconds": round(getattr(lm.engine, "load_seconds", 0.0), 1),
               "wall_seconds": round(time.perf_counter() - started, 1)}
    for key, value in summary.items():
        print(f"{key:32} {value:.3f}" if isinstance(value, float) else f"{key:32} {value}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "questions": [q.to_json() for q in scores.questions]}, indent=2,
                                        ensure_ascii=False))
    program.close()


if __name__ == "__main__":
    main()
