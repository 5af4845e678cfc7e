"""BM25 over questions with a tokenizer for Italian and English."""

from __future__ import annotations

import re

import numpy as np

_APOSTROPHE = re.compile(r"['’`]")
_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens; accents kept; apostrophes split ("dell'acqua" → dell, acqua)."""
    return _WORD.findall(_APOSTROPHE.sub(" ", text.lower()))


class BM25Index:
    def __init__(self, texts: list[str]) -> None:
        from rank_bm25 import BM25Okapi

        self._bm25 = BM25Okapi([tokenize(t) or ["_"] for t in texts])

    def scores(self, query: str) -> np.ndarray:
        return np.asarray(self._bm25.get_scores(tokenize(query) or ["_"]), dtype="float32")
