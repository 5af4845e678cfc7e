"""Where a follow-up turn's seconds go, against a first turn's: every LM call timed by llama.cpp's own counters.

    python bench/followup_latency.py --version v11 --split followup-dev   # the artifact root as `eval run` uses it
    python bench/followup_latency.py --show followup-dev-v11              # print a saved run again

The version is looked up in the artifact root, as by `eval run`: for the versions under bench/eval-runs, point
the root there, as the README's eval commands do.

Each turn of the split's chains is answered with the gold history (as `eval run --split followup-…` does), by
the version's own LM and settings. Per turn: seconds, first turn or follow-up. Per LM call: its step (`rewrite`:
the follow-up step; `sparql`: generate or repair; `other`), seconds, prompt tokens evaluated (those the prompt
cache did not hold) with their milliseconds, and tokens generated with theirs. The table gives p50 / p90 / max
for each. The run is saved as bench/followup-latency-runs/<label>.json, with the code fingerprint. Run it with
nothing else on the machine: the figures are seconds.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parent / "followup-latency-runs"  # not latency-runs: bench/results.py tables those
COUNTERS = ("prompt_eval_tokens", "prompt_eval_ms", "generated_tokens", "generation_ms")


def step_of(messages: list[dict], engine) -> str:
    from nl2sparql.modules.prefill import single_text_field

    if single_text_field(messages) == "standalone_question":
        return "rewrite"
    return "sparql" if engine.constrains(messages) else "other"


def record_calls(engine, calls: list[dict]) -> None:
    """Wrap the engine's `complete` so that each call appends its step, seconds and llama.cpp counters."""
    from nl2sparql.modules.local_lm import chat_messages

    complete = engine.complete

    def timed(request):
        before = {k: getattr(engine.timings, k) for k in COUNTERS}
        started = time.perf_counter()
        try:
            return complete(request)
        finally:
            calls.append({"step": step_of(chat_messages(request), engine),
                          "seconds": round(time.perf_counter() - started, 3),
                          **{k: round(getattr(engine.timings, k) - before[k], 1) for k in COUNTERS}})

    engine.complete = timed


def run(args) -> dict:
    from rich.progress import track

    from nl2sparql.artifacts.load import load
    from nl2sparql.eval.followup import ChainProgram, followup_examples
    from nl2sparql.eval.journal import code_fingerprint
    from nl2sparql.modules.lm import resolve_lm

    # As `eval run` does: no DSPy cache, so that every call is run and timed.
    program = load(args.version, lm_object=resolve_lm(args.lm, cache=False))
    engine = program.generate.predict.lm.engine
    calls: list[dict] = []
    record_calls(engine, calls)
    answerer = ChainProgram(program, "gold")
    examples = followup_examples(args.split)[: args.limit or None]
    turns = []
    for example in track(examples, description="turns"):
        start = len(calls)
        started = time.perf_counter()
        answerer(**example.inputs())
        turns.append({"id": example.record_id, "follow_up": example.turn_index > 0,
                      "seconds": round(time.perf_counter() - started, 3), "calls": calls[start:]})
    return {"label": args.label or f"{args.split}-{args.version}", "version": args.version, "split": args.split,
            "limit": args.limit, "code_fingerprint": code_fingerprint(), "turns": turns}


def spread(values: list[float]) -> str:
    """p50 / p90 / max, as the eval reports compute them."""
    from nl2sparql.eval.scoring.scored import percentile

    if not values:
        return "–"
    return f"{percentile(values, 0.5):.2f} / {percentile(values, 0.9):.2f} / {max(values):.2f}"


def show(result: dict) -> None:
    code = f", code {result['code_fingerprint'][:8]}" if result.get("code_fingerprint") else ""
    print(f"{result['label']}: version {result['version']}, {result['split']}, {len(result['turns'])} turns{code} "
          f"(p50 / p90 / max)")
    print("| turns | n | seconds | " + " | ".join(f"{step} {what}" for step in ("rewrite", "sparql")
                                                for what in ("s", "prompt tok", "prompt ms", "gen tok", "gen ms"))
          + " |")
    print("|" + "---|" * 13)
    for name, follow in (("first", False), ("follow-up", True)):
        chosen = [t for t in result["turns"] if t["follow_up"] == follow]
        cells = [name, str(len(chosen)), spread([t["seconds"] for t in chosen])]
        for step in ("rewrite", "sparql"):
            # Per turn, the step's calls summed (a repair adds a second sparql call).
            per_turn = [[c for c in t["calls"] if c["step"] == step] for t in chosen]
            per_turn = [c for c in per_turn if c]
            for key in ("seconds", *COUNTERS):
                cells.append(spread([sum(c[key] for c in group) for group in per_turn]))
        print("| " + " | ".join(cells) + " |")
    first = [t["seconds"] for t in result["turns"] if not t["follow_up"]]
    follow = [t["seconds"] for t in result["turns"] if t["follow_up"]]
    if first and follow:
        from nl2sparql.eval.scoring.scored import percentile

        print(f"p50 follow-up / p50 first turn: {percentile(follow, 0.5) / percentile(first, 0.5):.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="latest")
    parser.add_argument("--split", default="followup-dev", help="followup-train, followup-dev or followup-test")
    parser.add_argument("--lm", default=None, help="model string for a version without an adapter (default: the project's default LM); "
                        "a fine-tuned version runs its own base model and adapter")
    parser.add_argument("--limit", type=int, default=0, help="the first N turns only (0: all)")
    parser.add_argument("--label", default="",
                        help="saved as bench/followup-latency-runs/LABEL.json (default: split-version)")
    parser.add_argument("--show", metavar="LABEL", help="print a saved run and stop")
    args = parser.parse_args()
    if args.show:
        show(json.loads((RUNS / f"{args.show}.json").read_text(encoding="utf-8")))
        return
    from nl2sparql.files import write_text_atomic

    result = run(args)
    write_text_atomic(RUNS / f"{result['label']}.json", json.dumps(result, indent=1) + "\n")
    show(result)


if __name__ == "__main__":
    main()
