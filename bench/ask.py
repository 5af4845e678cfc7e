"""Baseline of the uncompiled program on a split, with a real LM (the offline local model by default).

    python bench/ask.py [--lm local/qwen-1.5b] [--split dev] [--limit N] [--version uncompiled]
                        [--store DIR] [--threads N] [--json FILE]

Questions alternate between Italian (even positions) and English (odd). Prints execution accuracy
(exact match of result sets, eval/metric.py), mean F1, valid-SPARQL rate (parses, passes the guard,
executes), mean LM calls per question, p50 seconds per question, and prompt/completion tokens per question.
The first question also pays for loading the model (reported apart, as load s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from nl2sparql.data.dataset import load_dataset
from nl2sparql.eval.metric import execution_score
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.modules.lm import resolve_lm


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
    endpoint = program.runtime.endpoint
    rows, started = [], time.perf_counter()
    with Progress() as progress:
        task = progress.add_task("questions", total=len(records))
        for i, record in enumerate(records):
            question = record.question_it if i % 2 == 0 else record.question_en
            out = program(question)
            score = execution_score(endpoint, record.sparql, record.answer_variables, out.sparql) if out.ok else None
            rows.append({"id": record.id, "language": "it" if i % 2 == 0 else "en", "question": question,
                         "sparql": out.sparql, "valid": out.ok, "exact": bool(score and score.exact),
                         "f1": score.f1 if score else 0.0, "calls": out.usage["calls"],
                         "prompt_tokens": out.usage["prompt_tokens"],
                         "completion_tokens": out.usage["completion_tokens"], "seconds": out.seconds,
                         "attempts": [f"{a.step}:{a.outcome}" for a in out.attempts]})
            accuracy = sum(r["exact"] for r in rows) / len(rows)
            progress.update(task, advance=1, description=f"accuracy {accuracy:.2f}")
    engine = getattr(lm, "engine", None)
    load_s = getattr(engine, "load_seconds", 0.0)
    n = len(rows)
    summary = {
        "lm": lm.model, "version": args.version, "split": args.split, "questions": n,
        "execution_accuracy": sum(r["exact"] for r in rows) / n, "mean_f1": statistics.mean(r["f1"] for r in rows),
        "valid_sparql_rate": sum(r["valid"] for r in rows) / n,
        "lm_calls_per_question": statistics.mean(r["calls"] for r in rows),
        "p50_seconds": statistics.median(r["seconds"] for r in rows),
        "prompt_tokens_per_question": statistics.mean(r["prompt_tokens"] for r in rows),
        "completion_tokens_per_question": statistics.mean(r["completion_tokens"] for r in rows),
        "model_load_seconds": round(load_s, 1), "wall_seconds": round(time.perf_counter() - started, 1),
    }
    for key, value in summary.items():
        print(f"{key:32} {value:.3f}" if isinstance(value, float) else f"{key:32} {value}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "questions": rows}, indent=2, ensure_ascii=False))
    program.runtime.close()


if __name__ == "__main__":
    main()
