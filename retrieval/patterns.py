"""Deterministic pattern analysis of an Italian or English question (cue words in data/pattern_cues.json).

It feeds retrieval boosting and constraint selection; the DSPy analyze module may refine it.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

CUES_FILE = Path(__file__).resolve().parents[1] / "data" / "pattern_cues.json"
STRONG, WEAK, LABEL_AT = 1.0, 0.5, 0.75
_QUOTED = re.compile(r"«([^»]+)»|“([^”]+)”|\"([^\"]+)\"|(?:^|(?<=[\s(]))'([^']+)'(?=[\s.,;:?!)]|$)")
_STOP = {"il", "lo", "la", "i", "gli", "le", "un", "una", "uno", "di", "del", "della", "the", "a", "an", "of",
         "che", "which", "that", "is", "è", "in", "per", "for", "con", "with", "quale", "quali", "più", "more",
         "italian", "italiano", "italiana", "italiani", "italiane", "siciliano", "siciliana", "sicilian"}


@dataclass(frozen=True)
class Cues:
    patterns: dict[str, tuple[re.Pattern, re.Pattern | None]]
    dialects: dict[str, re.Pattern]
    entity_cue: re.Pattern


@dataclass(frozen=True)
class PatternAnalysis:
    """Scores in [0, 1] per pattern, the labels above threshold, and what the question names."""

    scores: dict[str, float]
    labels: tuple[str, ...]
    entities: tuple[str, ...] = ()
    dialects: tuple[str, ...] = ()
    compositional: bool = False
    notes: tuple[str, ...] = field(default=())


def _alternation(words: list[str]) -> re.Pattern | None:
    if not words:
        return None
    return re.compile("|".join(f"(?:{w})" if w.startswith("^") else rf"(?<!\w)(?:{w})(?!\w)" for w in words))


@functools.lru_cache(maxsize=4)
def load_cues(path: Path = CUES_FILE) -> Cues:
    data = json.loads(path.read_text(encoding="utf-8"))
    patterns = {name: (_alternation(c["strong"]), _alternation(c["weak"])) for name, c in data["patterns"].items()}
    dialects = {name: _alternation(words) for name, words in data["dialects"].items()}
    entity_cue = re.compile(rf"(?<!\w)(?:{'|'.join(data['entity_cues'])})\s+([\w'’-]+)", re.IGNORECASE)
    return Cues(patterns, dialects, entity_cue)


def analyze_patterns(question: str, cues: Cues | None = None) -> PatternAnalysis:
    cues = cues or load_cues()
    # Quoted words are what the question is about, not cues ("la parola «gioia»" is no emotion cue).
    text = " ".join(_QUOTED.sub(" « » ", question).lower().split())
    scores: dict[str, float] = {}
    for name, (strong, weak) in cues.patterns.items():
        score = STRONG if strong is not None and strong.search(text) else 0.0
        if not score and weak is not None and weak.search(text):
            score = WEAK
        scores[name] = score
    dialects = tuple(name for name, regex in cues.dialects.items() if regex.search(text))
    entities = extract_entities(question, cues)
    _derive(scores, dialects)
    compositional = scores["compositional"] >= LABEL_AT
    labels = tuple(sorted((p for p, s in scores.items() if s >= LABEL_AT), key=lambda p: -scores[p]))
    return PatternAnalysis(scores, labels, entities, dialects, compositional)


def _derive(scores: dict[str, float], dialects: tuple[str, ...]) -> None:
    """Patterns implied by combinations: a query joining two resources, or CompL-it with LiITA data."""
    if dialects:
        scores["translation"] = STRONG
    resources = [p for p in ("emotion", "polarity", "translation") if scores[p] >= LABEL_AT]
    if len(dialects) > 1 or len(resources) > 1:
        scores["multi_entry"] = STRONG
    complit = any(scores[p] >= LABEL_AT for p in ("sense_definition", "sense_count", "semantic_relation"))
    if complit and (resources or scores["pos_filter"] >= LABEL_AT):
        scores["service_integration"] = STRONG
    content = [p for p in ("emotion", "polarity", "translation", "sense_definition", "semantic_relation",
                           "morphology_regex", "pos_filter") if scores[p] >= LABEL_AT]
    if len(content) >= 3 or (complit and scores["compositional"] >= WEAK and len(content) >= 2):
        scores["compositional"] = STRONG


def extract_entities(question: str, cues: Cues | None = None) -> tuple[str, ...]:
    """Words in quotes, else words right after a cue word ('il verbo correre', 'the word casa')."""
    cues = cues or load_cues()
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(question)]
    if quoted:
        return tuple(dict.fromkeys(q.strip() for q in quoted))
    found = [m.group(1).strip("'’") for m in cues.entity_cue.finditer(question)]
    return tuple(dict.fromkeys(w for w in found if w.lower() not in _STOP))
