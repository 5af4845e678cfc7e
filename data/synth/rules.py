"""The generator's rules, read from the JSON files beside this module, and the candidate pair they produce."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Rules:
    """Word-set resources, filters and forms (rules.json, forms.json); one-word lookups, yes/no questions, dialect
    sets and meta questions (lookups.json, meta.json)."""

    heads: dict
    emotions: dict[str, str]
    polarity_classes: dict[str, list[str]]
    resources: dict
    filters: dict
    comparisons: dict[str, list[str]]
    forms: dict
    group_keys: dict
    stats: dict
    length_stats: dict
    lookups: dict
    relation_joins: dict
    asks: dict
    dialect_sets: dict
    dialect_forms: dict
    meta: dict


@functools.lru_cache(maxsize=4)
def load_rules(folder: Path = RULES_DIR) -> Rules:
    data: dict = {}
    for name in ("rules", "forms", "lookups", "meta"):
        data.update(json.loads((folder / f"{name}.json").read_text(encoding="utf-8")))
    data.pop("about", None)
    return Rules(**data)


@dataclass(frozen=True)
class Candidate:
    """One generated question/query pair before it is run; `slots` are the values every wording must keep."""

    shape: str
    operator: str
    form: str
    resources: tuple[str, ...]
    sparql: str
    question_it: str
    question_en: str
    patterns: tuple[str, ...]
    answer: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    aggregates: tuple[str, ...] = ()
    slots: tuple[str, ...] = ()

    @property
    def complexity(self) -> str:
        parts = len(self.resources) + len([p for p in self.patterns if p in ("counting_grouping", "morphology_regex")])
        return "simple" if parts <= 1 else "medium" if parts <= 3 else "complex"


RESOURCE_SLOTS = {"elita": "~elita|~emozion|~emotion", "sentix": "sentix", "sicilian": "~sicilian",
                  "parmigiano": "~parmigian|~parma", "complit": "compl-it"}
