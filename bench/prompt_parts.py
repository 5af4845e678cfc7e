"""Where the generate step's prompt tokens go: instructions and field layout, constraints, ontology notes,
examples, analysis and question, counted with the local model's own tokenizer, without any LM call.

    python bench/prompt_parts.py [--split dev] [--limit 20] [--examples-k 3] [--ontology-k 4]
                                 [--no-demo-prefixes] [--lm local/qwen-1.5b]

Prints the mean tokens of each part per question, and how many tokens of the prompt come before the first
part that changes from question to question (the prefix llama.cpp's prompt cache can reuse).
"""

from __future__ import annotations

import argparse
import statistics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--examples-k", type=int, default=3)
    parser.add_argument("--ontology-k", type=int, default=4)
    parser.add_argument("--no-demo-prefixes", action="store_true")
    parser.add_argument("--lm", default="local/qwen-1.5b")
    args = parser.parse_args()

    import dspy
    from llama_cpp import Llama

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
    from nl2sparql.modules.steps import describe
    from nl2sparql.signatures import GenerateSparql

    llama = Llama(model_path=str(assemble(LOCAL_MODELS[args.lm.split("/", 1)[1]])), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(llama.tokenize(text.encode(), add_bos=False, special=False))

    settings = ProgramSettings(examples_k=args.examples_k, ontology_k=args.ontology_k,
                               demo_prefixes=not args.no_demo_prefixes)
    program = NL2SPARQL(settings)
    parts: dict[str, list[int]] = {}
    stable: list[int] = []
    for record in [r for r in load_dataset() if r.split == args.split][: args.limit]:
        analysis = program.analyze(question=record.question_it)
        grounding = program._ground(record.question_it, analysis)
        context = program._context(record.question_it, analysis, frozenset({record.id}), grounding)
        inputs = {"constraints": context.constraints, "schema_notes": context.schema_notes,
                  "examples": context.examples, "analysis": describe(analysis), "question": record.question_it}
        system, user = dspy.ChatAdapter().format(GenerateSparql, demos=[], inputs=inputs)
        sizes = {"instructions and layout": count(system["content"]), **{k: count(v) for k, v in inputs.items()},
                 "whole prompt": count(system["content"]) + count(user["content"])}
        for key, value in sizes.items():
            parts.setdefault(key, []).append(value)
        # the user message starts with the constraints, which depend on the question's patterns
        stable.append(count(system["content"]) + count(user["content"].split(context.constraints)[0]))
    print(f"{'part':26} {'mean tokens':>11} {'max':>6}")
    for key, values in parts.items():
        print(f"{key:26} {statistics.mean(values):11.0f} {max(values):6}")
    print(f"{'stable prefix':26} {statistics.mean(stable):11.0f}")
    program.close()


if __name__ == "__main__":
    main()
