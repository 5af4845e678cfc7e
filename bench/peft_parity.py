"""Does a version's adapter exported in peft's form decode as its GGUF adapter does in llama.cpp?

    python bench/peft_parity.py --version v14 [--tokens 16] [--out bench/load-runs]

Exports the version's answering adapter (`artifacts export --peft`, into a temporary folder), loads it with peft on
the base model de-quantised from the same GGUF by transformers (CPU, float32), and decodes a few prompts greedily
both ways: llama.cpp with the GGUF adapter, transformers with the peft one. Prints and writes, per prompt, how many
of the first N tokens agree (llama.cpp multiplies Q4 weights by 8-bit activations, transformers the de-quantised
weights in float32, so a near tie may fall the other way).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PROMPTS = ["PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nSELECT ?lemma WHERE {",
           "<|im_start|>user\nQuali lemmi esprimono tristezza?<|im_end|>\n<|im_start|>assistant\n",
           "<|im_start|>user\nWhich Sicilian words translate 'casa'?<|im_end|>\n<|im_start|>assistant\n"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="v14")
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--out", type=Path, default=BENCH / "load-runs")
    args = parser.parse_args()

    import torch
    from peft import PeftModel

    from nl2sparql.artifacts.store import resolve_version
    from nl2sparql.files import write_text_atomic
    from nl2sparql.modules.adapter import LoraAdapter
    from nl2sparql.modules.llama_load import load_params, open_llama
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.optimize.finetune.lora import LoraSettings, load_base_model
    from nl2sparql.optimize.finetune.peft_export import export_peft

    found = resolve_version(args.version)
    adapter = LoraAdapter.from_manifest(found.path, found.manifest) if found else None
    if adapter is None:
        parser.error(f"version {args.version} has no adapter")
    adapter.verify()
    gguf = assemble(LOCAL_MODELS[adapter.base_model])
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        exported = export_peft(adapter.path, Path(scratch) / "answer", adapter.base_model)
        started = time.perf_counter()
        llama = open_llama(str(gguf), load_params(), n_ctx=1024, seed=0, verbose=False, lora_path=str(adapter.path))
        model = PeftModel.from_pretrained(load_base_model(gguf, LoraSettings()), str(exported))
        model.eval()
        load_seconds = time.perf_counter() - started
        for prompt in PROMPTS:
            ids = llama.tokenize(prompt.encode(), add_bos=False, special=True)
            llama.reset()
            by_llama = []
            for token in llama.generate(ids, temp=0.0, top_k=1):
                by_llama.append(token)
                if len(by_llama) == args.tokens:
                    break
            with torch.no_grad():
                by_peft = model.generate(torch.tensor([ids]), max_new_tokens=args.tokens,
                                         do_sample=False)[0, len(ids):].tolist()
            agree = next((i for i, (a, b) in enumerate(zip(by_llama, by_peft)) if a != b), min(len(by_llama),
                                                                                              len(by_peft)))
            rows.append({"prompt": prompt, "tokens": args.tokens, "same_prefix": agree,
                         "same": by_llama == by_peft, "llama_cpp": llama.detokenize(by_llama).decode("utf-8", "replace"),
                         "peft": llama.detokenize(by_peft).decode("utf-8", "replace")})
            print(f"{agree}/{args.tokens} first tokens agree: {rows[-1]['llama_cpp']!r} / {rows[-1]['peft']!r}")
        llama.close()
    report = {"version": found.name, "base_model": adapter.base_model, "prompts": rows,
              "all_same": all(r["same"] for r in rows), "load_seconds": round(load_seconds, 1)}
    write_text_atomic(args.out / f"peft-parity-{found.name}.json", json.dumps(report, indent=2, ensure_ascii=False)
                      + "\n")


if __name__ == "__main__":
    main()
