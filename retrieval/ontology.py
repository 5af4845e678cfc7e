"""The ontology catalog (data/ontology.json): classes, properties and individuals, searchable by meaning."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.retrieval.bm25 import BM25Index
from nl2sparql.retrieval.embedders import Embedder

ONTOLOGY_FILE = Path(__file__).resolve().parents[1] / "data" / "ontology.json"


@dataclass(frozen=True)
class Term:
    id: str
    iri: str
    kind: str
    label: str
    description: str
    where: str = ""
    usage: str = ""
    domain: str = ""
    range: str = ""
    inverse: str = ""

    def search_text(self) -> str:
        return f"{self.id} {self.label}: {self.description} {self.usage}"

    def to_prompt(self) -> str:
        extra = ", ".join(f"{k} {v}" for k, v in (("domain", self.domain), ("range", self.range),
                                                   ("inverse", self.inverse)) if v)
        lines = [f"- {self.id} ({self.kind}{', ' + extra if extra else ''}): {self.description}"]
        if self.where:
            lines.append(f"  where: {self.where}")
        if self.usage:
            lines.append(f"  usage: {self.usage}")
        return "\n".join(lines)


@functools.lru_cache(maxsize=4)
def load_ontology(path: Path = ONTOLOGY_FILE) -> tuple[Term, ...]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        fields = set(Term.__dataclass_fields__)
        return tuple(Term(**{k: v for k, v in t.items() if k in fields}) for t in data["terms"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise Nl2SparqlError(f"unreadable ontology catalog {path}: {error}") from None


class OntologySearch:
    """Dense + BM25 search over the catalog's terms (equal weights, each min-max normalised)."""

    def __init__(self, terms: tuple[Term, ...], embedder: Embedder) -> None:
        self.terms = terms
        self.embedder = embedder
        texts = [t.search_text() for t in terms]
        self._vectors = embedder.encode_passages(texts)
        self._bm25 = BM25Index(texts)

    def search(self, question: str, top_k: int = 8) -> list[tuple[Term, float]]:
        dense = self._vectors @ self.embedder.encode_queries([question])[0]
        scores = 0.5 * _minmax(dense) + 0.5 * _minmax(self._bm25.scores(question))
        order = np.argsort(-scores, kind="stable")[:top_k]
        return [(self.terms[i], float(scores[i])) for i in order]


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    return np.zeros_like(values) if high <= low else (values - low) / (high - low)


def format_terms(terms: list[Term]) -> str:
    return "\n".join(t.to_prompt() for t in terms)
