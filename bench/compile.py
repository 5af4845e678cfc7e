"""Does compiling pay? Dev execution accuracy of the uncompiled program against compiled ones, with a real LM
(the offline local model by default).

    python bench/compile.py [--lm local/qwen-1.5b] [--optimizers bootstrap,mipro] [--budget light]
                            [--train-limit 8] [--val-limit 8] [--dev-limit 12] [--json FILE]

Each optimizer compiles from the uncompiled program on the first --train-limit train records (MIPRO and GEPA
pick candidates on the next --val-limit train records, never on dev), then parent and compiled program answer
the first --dev-limit dev questions (Italian and English alternating). Printed per program: execution accuracy
(exact result sets), mean F1, valid-SPARQL rate, LM calls (compile: completions the model ran, answers
already in DSPy's cache not counted; dev: program calls per question), compile and dev wall time.
Nothing is saved as a version: `nl2sparql optimize run` does that.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from nl2sparql.modules.lm import resolve_lm
from nl2sparql.optimize.compile import OPTIMIZERS, CompileConfig, compile_program


def _row(name: str, summary: dict, compile_calls: int | str, compile_s: float | str, dev_s: float) -> dict:
    return {"program": name, "execution_accuracy": summary["execution_accuracy"], "mean_f1": summary["mean_f1"],
            "valid_sparql_rate": summary["valid_sparql_rate"], "compile_lm_calls": compile_calls,
            "dev_lm_calls_per_question": summary["lm_calls_per_question"], "compile_seconds": compile_s,
            "dev_seconds": dev_s}


def _print(rows: list[dict]) -> None:
    header = f"{'program':14} {'exec acc':>8} {'F1':>6} {'valid':>6} {'compile calls':>13} {'dev calls/q':>11} " \
             f"{'compile s':>9} {'dev s':>7}"
    print(header)
    for r in rows:
        compile_s = r["compile_seconds"] if isinstance(r["compile_seconds"], str) else f"{r['compile_seconds']:.0f}"
        print(f"{r['program']:14} {r['execution_accuracy']:8.3f} {r['mean_f1']:6.3f} {r['valid_sparql_rate']:6.3f} "
              f"{r['compile_lm_calls']!s:>13} {r['dev_lm_calls_per_question']:11.2f} {compile_s:>9} "
              f"{r['dev_seconds']:7.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm", default=None)
    parser.add_argument("--optimizers", default="bootstrap,mipro")
    parser.add_argument("--budget", default="light", help="light|medium|heavy or a number of metric calls")
    parser.add_argument("--train-limit", type=int, default=8)
    parser.add_argument("--val-limit", type=int, default=8)
    parser.add_argument("--dev-limit", type=int, default=12)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the local model")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures and per-question results")
    args = parser.parse_args()
    optimizers = [o.strip() for o in args.optimizers.split(",") if o.strip()]
    unknown = [o for o in optimizers if o not in OPTIMIZERS]
    if unknown:
        parser.error(f"unknown optimizer {', '.join(unknown)}: choose from {', '.join(OPTIMIZERS)}")

    lm = resolve_lm(args.lm, cache=True, n_threads=args.threads)
    rows: list[dict] = []
    details: dict[str, list] = {}
    failed: list[str] = []
    started = time.perf_counter()
    for optimizer in optimizers:
        config = CompileConfig(optimizer=optimizer, lm=args.lm, budget=args.budget, train_limit=args.train_limit,
                               val_limit=args.val_limit, dev_limit=args.dev_limit)
        try:
            result = compile_program(config, lm_object=lm)
        except Exception as error:  # one optimizer failing still leaves the others' figures
            failed.append(optimizer)
            print(f"\n{optimizer} failed: {type(error).__name__}: {error}", flush=True)
            continue
        dev_seconds = {name: sum(q.seconds for q in score.questions)
                       for name, score in (("parent", result.parent_dev), ("compiled", result.dev))}
        compile_calls = "?" if result.lm_calls is None else result.lm_calls
        if not rows:
            rows.append(_row("uncompiled", result.parent_dev.summary(), "-", "-", dev_seconds["parent"]))
            details["uncompiled"] = [q.to_json() for q in result.parent_dev.questions]
        rows.append(_row(optimizer, result.dev.summary(), compile_calls, result.seconds, dev_seconds["compiled"]))
        details[optimizer] = [q.to_json() for q in result.dev.questions]
        print(f"\n{optimizer}: {len(result.dev.questions)} dev questions, {config.train_limit} train "
              f"({config.val_limit} val for mipro/gepa), budget {config.budget}, options {result.optimizer_config}")
        _print(rows)
        result.program.close()
    summary = {"lm": lm.model, "budget": args.budget, "train_limit": args.train_limit, "val_limit": args.val_limit,
               "dev_limit": args.dev_limit, "failed": failed, "wall_seconds": round(time.perf_counter() - started, 1), "rows": rows}
    print(f"\nwall time {summary['wall_seconds']:.0f} s with {lm.model}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "questions": details}, indent=2, ensure_ascii=False))
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
