"""What the prompt cache's save and restore cost per completion: llama-cpp-python's own against modules/llama_state.py.

    python bench/llama_state.py [--model qwen-1.5b] [--tokens 600] [--repeats 10]

Loads the local model, evaluates a prompt of about --tokens tokens, then times --repeats saves and restores of its
state each way (p50 / max milliseconds), and checks that a greedy reply after either restore is the same. Run it
with nothing else on the machine: the figures are milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time


def timed(action, repeats: int) -> list[float]:
    """Milliseconds of each of `repeats` calls of `action`."""
    millis = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        millis.append((time.perf_counter() - started) * 1000)
    return millis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen-1.5b")
    parser.add_argument("--tokens", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()

    from llama_cpp import Llama

    from nl2sparql.modules import llama_state
    from nl2sparql.modules.local_lm import LlamaCppEngine, LlamaSettings

    engine = LlamaCppEngine(args.model, LlamaSettings())
    llama = engine._load()
    words = " ".join(f"parola{i % 50}" for i in range(args.tokens))
    prompt = llama.tokenize(f"Elenca: {words}".encode("utf-8"))[: args.tokens]
    llama.reset()
    llama.eval(prompt)
    print(f"{args.model}: state of {llama.n_tokens} tokens, logits buffer {llama.scores.nbytes / 1e6:.0f} MB")
    replies = {}
    for name, save, load in (("llama-cpp-python", Llama.save_state, Llama.load_state),
                             ("lean", llama_state.save_state, llama_state.load_state)):
        state = save(llama)
        saving = timed(lambda: save(llama), args.repeats)
        loading = timed(lambda: load(llama, state), args.repeats)
        load(llama, state)
        out = llama.create_completion(prompt=prompt, max_tokens=12, temperature=0.0)
        replies[name] = out["choices"][0]["text"]
        print(f"{name}: save p50 {statistics.median(saving):.1f} ms, max {max(saving):.1f}; "
              f"restore p50 {statistics.median(loading):.1f} ms, max {max(loading):.1f}; "
              f"state {state.llama_state_size / 1e6:.1f} MB")
    print("same reply after either restore:", len(set(replies.values())) == 1)
    engine.close()


if __name__ == "__main__":
    main()
