"""Hybrid example retriever: dense embeddings (FAISS), BM25, and a pattern-overlap boost.

Both the Italian and the English question (and paraphrases) of every record are indexed, so a
question meets its own language; a record scores the best of its wordings.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nl2sparql.files import atomic_open
from nl2sparql.data.dataset import Record, dataset_hash
from nl2sparql.retrieval.bm25 import BM25Index
from nl2sparql.retrieval.embedders import DEFAULT_EMBEDDER, Embedder, load_embedder
from nl2sparql.retrieval.patterns import PatternAnalysis, analyze_patterns


@dataclass(frozen=True)
class RetrieverConfig:
    embedder: str = DEFAULT_EMBEDDER
    dense_weight: float = 0.4
    bm25_weight: float = 0.3
    pattern_weight: float = 0.3
    top_k: int = 5
    cache_dir: Path | None = None
    languages: tuple[str, ...] = ("it", "en")


@dataclass(frozen=True)
class RetrievedExample:
    record: Record
    score: float
    dense: float
    bm25: float
    pattern: float


@dataclass
class HybridRetriever:
    records: list[Record]
    config: RetrieverConfig
    embedder: Embedder
    owners: np.ndarray = field(repr=False)
    index: object = field(repr=False)
    bm25: BM25Index = field(repr=False)
    build_seconds: float = 0.0

    @classmethod
    def build(cls, records: list[Record], config: RetrieverConfig = RetrieverConfig(),
              embedder: Embedder | None = None) -> HybridRetriever:
        """Embed every wording (cached on disk by dataset hash + model) and index it."""
        import time

        import faiss

        started = time.perf_counter()
        embedder = embedder or load_embedder(config.embedder)
        texts, owners = [], []
        for position, record in enumerate(records):
            for language, text in record.questions():
                if language not in config.languages:
                    continue
                texts.append(text)
                owners.append(position)
        vectors = _cached_vectors(texts, records, embedder, config.cache_dir)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        return cls(records, config, embedder, np.asarray(owners), index, BM25Index(texts),
                   time.perf_counter() - started)

    def retrieve(self, question: str, top_k: int | None = None, exclude_ids: set[str] | frozenset = frozenset(),
                 analysis: PatternAnalysis | None = None) -> list[RetrievedExample]:
        analysis = analysis or analyze_patterns(question)
        count = len(self.records)
        query = self.embedder.encode_queries([question])
        similarities, positions = self.index.search(query, self.index.ntotal)
        dense = np.full(count, -1.0, dtype="float32")
        np.maximum.at(dense, self.owners[positions[0]], similarities[0])
        bm25 = np.zeros(count, dtype="float32")
        np.maximum.at(bm25, self.owners, self.bm25.scores(question))
        labels = set(analysis.labels)
        pattern = np.array([_overlap(labels, set(r.patterns)) for r in self.records], dtype="float32")
        keep = np.array([r.id not in exclude_ids for r in self.records])
        dense_n, bm25_n = _normalise(dense, keep), _normalise(bm25, keep)
        total = (self.config.dense_weight * dense_n + self.config.bm25_weight * bm25_n
                 + self.config.pattern_weight * pattern)
        total[~keep] = -np.inf
        order = np.argsort(-total, kind="stable")[: top_k or self.config.top_k]
        return [RetrievedExample(self.records[i], float(total[i]), float(dense_n[i]), float(bm25_n[i]),
                                 float(pattern[i])) for i in order if keep[i]]


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _normalise(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Min-max to [0, 1] over the records that may be returned."""
    if not keep.any():
        return np.zeros_like(values)
    low, high = values[keep].min(), values[keep].max()
    if high <= low:
        return np.zeros_like(values)
    return np.clip((values - low) / (high - low), 0.0, 1.0)


def _cached_vectors(texts: list[str], records: list[Record], embedder: Embedder, cache_dir: Path | None) -> np.ndarray:
    if cache_dir is None:
        return embedder.encode_passages(texts)
    key = hashlib.sha256(("\n".join(texts) + dataset_hash(records)).encode()).hexdigest()[:16]
    path = cache_dir / f"{embedder.name}-{key}.npy"
    if path.is_file():
        return np.load(path)
    vectors = embedder.encode_passages(texts)
    with atomic_open(path, "wb") as out:
        np.save(out, vectors)
    return vectors
