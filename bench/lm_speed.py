"""Prompt and generation tokens/s of a local model with llama.cpp's extra buffer types on and off.

    python bench/lm_speed.py [--model qwen-1.5b] [--prompt-tokens 300] [--new-tokens 80] [--repeats 5]
                             [--modes auto,on,off] [--out bench/lm-speed-runs/NAME.json]

For each mode (auto: what nl2sparql chooses for this CPU; on / off: forced), the model is loaded once and a prompt
of about --prompt-tokens tokens is evaluated from an empty cache, then --new-tokens tokens are generated greedily
(end of text suppressed, so every run generates the same count), --repeats times. It prints p50 / min / max
tokens/s of each phase from llama.cpp's own counters, the CPU and its AMX flags, and writes the figures as JSON.
The spread between repeats of one mode is the run-to-run noise. Run it with nothing else on the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

TEXT = ("Quali lemmi italiani esprimono tristezza secondo ELITA, e quali di questi hanno una traduzione nel dialetto "
        "siciliano o parmigiano? Which Italian nouns have a positive polarity in Sentix and a definition in "
        "CompL-it? ")


def run_mode(path: str, mode: str, prompt_tokens: int, new_tokens: int, repeats: int, threads: int) -> dict:
    import llama_cpp
    import numpy as np

    from nl2sparql.modules.llama_load import load_params, open_llama

    params = load_params(extra_buffers={"auto": None, "on": True, "off": False}[mode])
    llama = open_llama(path, params, n_ctx=1024, n_threads=threads, n_threads_batch=threads, seed=0, verbose=False)
    tokens = llama.tokenize(TEXT.encode() * 20, add_bos=False)[:prompt_tokens]
    prompt = llama.detokenize(tokens).decode("utf-8", "ignore")
    eos = llama.token_eos()

    def no_eos(input_ids, scores):
        scores = np.asarray(scores)
        scores[eos] = -np.inf
        return scores

    prompt_rates, generation_rates = [], []
    for _ in range(repeats):
        llama.reset()
        llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
        llama.create_completion(prompt, max_tokens=new_tokens, temperature=0.0,
                                logits_processor=llama_cpp.LogitsProcessorList([no_eos]))
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
        prompt_rates.append(perf.n_p_eval / perf.t_p_eval_ms * 1000)
        generation_rates.append(perf.n_eval / perf.t_eval_ms * 1000)
        evaluated, generated = perf.n_p_eval, perf.n_eval
    llama.close()

    def figures(rates: list[float]) -> dict:
        return {"p50": round(statistics.median(rates), 1), "min": round(min(rates), 1), "max": round(max(rates), 1),
                "spread_pct": round((max(rates) - min(rates)) / statistics.median(rates) * 100, 1)}

    return {"mode": mode, "extra_buffers": params.extra_buffers, "reason": params.reason,
            "prompt_tokens": evaluated, "generated_tokens": generated,
            "prompt_tps": figures(prompt_rates), "generation_tps": figures(generation_rates)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen-1.5b")
    parser.add_argument("--prompt-tokens", type=int, default=300)
    parser.add_argument("--new-tokens", type=int, default=80)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--modes", default="auto,on,off")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    import os

    import llama_cpp

    from nl2sparql.files import write_text_atomic
    from nl2sparql.modules.llama_load import AMX_FLAGS, cpu_flags, cpu_name
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble

    path = str(assemble(LOCAL_MODELS[args.model]))
    threads = args.threads or os.cpu_count() or 1
    flags = cpu_flags()
    runs = [run_mode(path, mode, args.prompt_tokens, args.new_tokens, args.repeats, threads)
            for mode in args.modes.split(",")]
    report = {"model": args.model, "cpu": cpu_name(), "threads": threads,
              "amx_flags": sorted(AMX_FLAGS & flags), "avx512": sorted(f for f in flags if f.startswith("avx512")),
              "llama_cpp": llama_cpp.__version__, "repeats": args.repeats, "runs": runs}
    for run in runs:
        print(f"{run['mode']:>4} (extra buffers {'on' if run['extra_buffers'] else 'off'}): prompt "
              f"{run['prompt_tps']['p50']} tok/s (min {run['prompt_tps']['min']}, max {run['prompt_tps']['max']}), "
              f"generation {run['generation_tps']['p50']} tok/s (min {run['generation_tps']['min']}, "
              f"max {run['generation_tps']['max']}); {run['prompt_tokens']} + {run['generated_tokens']} tokens")
    print(f"CPU: {report['cpu']}, {threads} threads; AMX flags: {report['amx_flags'] or 'none'}")
    if args.out:
        write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
