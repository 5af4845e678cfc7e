"""Retrieval quality and speed on the dev split, with train as the index.

    python bench/retrieval.py [--dataset DIR] [--embedders e5,minilm]

Prints, per embedder and per mode (hybrid 0.4/0.3/0.3, BM25 alone, embeddings alone):
recall@5 of at least one example sharing the question's main pattern (and any pattern), MRR of the record's own
twin (its paraphrase, or its question in the other language) with train+dev indexed, p50
retrieval latency with a warm index, and index build time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from nl2sparql.data.dataset import load_dataset
from nl2sparql.retrieval.embedders import load_embedder
from nl2sparql.retrieval.hybrid import HybridRetriever, RetrieverConfig
from nl2sparql.retrieval.patterns import analyze_patterns

MODES = {"hybrid": (0.4, 0.3, 0.3), "bm25": (0.0, 1.0, 0.0), "dense": (1.0, 0.0, 0.0)}


def _mrr(retriever, queries) -> float:
    ranks = []
    for text, target in queries:
        ids = [e.record.id for e in retriever.retrieve(text, top_k=len(retriever.records))]
        ranks.append(1.0 / (ids.index(target) + 1) if target in ids else 0.0)
    return statistics.mean(ranks) if ranks else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default=None)
    parser.add_argument("--embedders", default="e5,minilm")
    args = parser.parse_args()
    records = load_dataset(None if args.dataset is None else __import__("pathlib").Path(args.dataset))
    train = [r for r in records if r.split == "train"]
    dev = [r for r in records if r.split == "dev"]
    both = train + dev
    print(f"train={len(train)} dev={len(dev)}")
    paraphrases = [(text, r.id) for r in dev for lang in ("it", "en") for text in r.paraphrases.get(lang, ())]
    print(f"{'embedder':<8} {'mode':<7} {'R@5 main':>8} {'R@5 any':>8} {'MRR para':>8} {'IT->IT':>7} {'EN->EN':>7} "
          f"{'IT->EN':>7} {'EN->IT':>7} {'p50 ms':>7} {'build s':>7}")
    for name in args.embedders.split(","):
        embedder = load_embedder(name)
        for mode, (dw, bw, pw) in MODES.items():
            config = RetrieverConfig(embedder=name, dense_weight=dw, bm25_weight=bw, pattern_weight=pw)
            index = HybridRetriever.build(train, config, embedder)
            hits, any_hits, latencies = 0, 0, []
            for record in dev:
                for _, question in record.questions()[:2]:
                    started = time.perf_counter()
                    found = index.retrieve(question, analysis=analyze_patterns(question))
                    latencies.append((time.perf_counter() - started) * 1000)
                    hits += any(e.record.patterns[0] == record.patterns[0] for e in found)
                    any_hits += any(set(e.record.patterns) & set(record.patterns) for e in found)
            recall = hits / max(1, 2 * len(dev))
            recall_any = any_hits / max(1, 2 * len(dev))
            full = HybridRetriever.build(both, config, embedder)
            para = _mrr(full, paraphrases)
            by_lang = {}
            for source, target in (("it", "it"), ("en", "en"), ("it", "en"), ("en", "it")):
                # Index one language only; a same-language query uses a paraphrase of its own record.
                indexed = HybridRetriever.build(both, replace(config, languages=(target,)), embedder)
                if source == target:
                    queries = [(t, r.id) for r in dev for t in r.paraphrases.get(source, ())]
                else:
                    queries = [(r.question_it if source == "it" else r.question_en, r.id) for r in dev]
                by_lang[(source, target)] = _mrr(indexed, queries)
            print(f"{name:<8} {mode:<7} {recall:8.3f} {recall_any:8.3f} {para:8.3f} {by_lang[('it', 'it')]:7.3f} "
                  f"{by_lang[('en', 'en')]:7.3f} {by_lang[('it', 'en')]:7.3f} {by_lang[('en', 'it')]:7.3f} "
                  f"{statistics.median(latencies):7.1f} {index.build_seconds:7.1f}")


if __name__ == "__main__":
    main()
