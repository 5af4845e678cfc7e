"""The evidence a relevance check reads, without an LM: words of what LiITA holds, signs of another subject
(data/scope.json), and how close the question is to the questions the program was trained on."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.retrieval.patterns import _QUOTED

SCOPE_FILE = Path(__file__).resolve().parents[1] / "data" / "scope.json"


@dataclass(frozen=True)
class ScopeCues:
    strong: re.Pattern
    weak: re.Pattern
    off_topic: dict[str, tuple[re.Pattern, str]]  # kind → (words, the reason told to the user)
    intro: dict[str, str]
    resources: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class ScopeEvidence:
    """What a question names: LiITA words (strong: only LiITA has them; weak: common but telling), the kinds
    of other subjects it shows signs of (outside quotes: a quoted word is what the question is about), and
    whether it quotes a word."""

    strong: tuple[str, ...]
    weak: tuple[str, ...]
    off_topic: tuple[str, ...]
    quoted: bool


def _alternation(words: list[str]) -> re.Pattern:
    return re.compile("|".join(rf"(?<!\w)(?:{w})(?!\w)" for w in words))


@functools.lru_cache(maxsize=2)
def load_scope_cues(path: Path = SCOPE_FILE) -> ScopeCues:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ScopeCues(_alternation(data["domain"]["strong"]), _alternation(data["domain"]["weak"]),
                         {kind: (_alternation(c["words"]), c["reason"]) for kind, c in data["off_topic"].items()},
                         dict(data["answer"]["intro"]), tuple(data["answer"]["resources"]))
    except (OSError, json.JSONDecodeError, KeyError, TypeError, re.error) as error:
        raise Nl2SparqlError(f"unreadable scope catalog {path}: {error}") from None


def scope_evidence(question: str, cues: ScopeCues | None = None) -> ScopeEvidence:
    cues = cues or load_scope_cues()
    text = " ".join(question.lower().split())
    outside = " ".join(_QUOTED.sub(" « » ", text).split())
    kinds = tuple(kind for kind, (words, _) in cues.off_topic.items() if words.search(outside))
    return ScopeEvidence(_found(cues.strong, outside), _found(cues.weak, outside), kinds,
                         bool(_QUOTED.search(question)))


def _found(pattern: re.Pattern, text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.group(0) for m in pattern.finditer(text)))


@dataclass(frozen=True)
class QuestionIndex:
    """Questions of one kind (those LiITA cannot answer) as unit vectors, to measure how close a question is."""

    texts: tuple[str, ...]
    vectors: np.ndarray

    @classmethod
    def build(cls, texts: list[str], embedder) -> QuestionIndex:
        return cls(tuple(texts), embedder.encode_passages(list(texts)))

    def nearest(self, vector: np.ndarray) -> float:
        return float((self.vectors @ vector).max()) if len(self.texts) else -1.0


def similarity_margin(question: str, retriever, off_topic: QuestionIndex) -> tuple[float, float]:
    """How close the question is to the closest question the retriever indexes (ones LiITA answers) and to the
    closest known off-topic question (cosine similarities); the first minus the second is the margin."""
    vector = retriever.embedder.encode_queries([question])
    similarities, _ = retriever.index.search(vector, 1)
    return float(similarities[0][0]), off_topic.nearest(vector[0])


def off_topic_answer(language: str, cues: ScopeCues | None = None) -> str:
    """The reply to a question LiITA cannot answer: what it holds, one example question per resource."""
    cues = cues or load_scope_cues()
    language = language if language in cues.intro else "en"
    lines = [cues.intro[language]] + [f"- {r[language]}: {r['example_' + language]}" for r in cues.resources]
    return "\n".join(lines)
