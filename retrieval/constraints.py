"""The constraint catalog: rules as Markdown in data/constraints/, selected by pattern."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import Nl2SparqlError

CONSTRAINTS_DIR = Path(__file__).resolve().parents[1] / "data" / "constraints"


@dataclass(frozen=True)
class ConstraintSet:
    """One file of rules: the patterns it applies to ('*' = always), its title and its rules."""

    name: str
    patterns: frozenset[str]
    title: str
    rules: tuple[str, ...]

    def applies_to(self, patterns: set[str]) -> bool:
        return "*" in self.patterns or bool(self.patterns & patterns)

    def to_markdown(self) -> str:
        return "\n".join([f"## {self.title}", *(f"- {rule}" for rule in self.rules)])


def parse_constraints(name: str, text: str) -> ConstraintSet:
    lines = [line.rstrip() for line in text.splitlines()]
    if not lines or not lines[0].startswith("patterns:"):
        raise Nl2SparqlError(f"constraint file {name} must start with 'patterns: …'")
    patterns = frozenset(p.strip() for p in lines[0].split(":", 1)[1].split(",") if p.strip())
    title = next((line[2:] for line in lines if line.startswith("# ")), name)
    rules = tuple(line[2:] for line in lines if line.startswith("- "))
    return ConstraintSet(name, patterns, title, rules)


@functools.lru_cache(maxsize=4)
def load_constraints(directory: Path = CONSTRAINTS_DIR) -> tuple[ConstraintSet, ...]:
    return tuple(parse_constraints(path.stem, path.read_text(encoding="utf-8"))
                 for path in sorted(directory.glob("*.md")))


def select_constraints(patterns: set[str] | tuple[str, ...], catalog: tuple[ConstraintSet, ...] | None = None,
                       ) -> list[ConstraintSet]:
    """Base rules first, then every set whose patterns meet the question's."""
    catalog = catalog if catalog is not None else load_constraints()
    chosen = [c for c in catalog if c.applies_to(set(patterns))]
    return sorted(chosen, key=lambda c: ("*" not in c.patterns, c.name))


def format_constraints(sets: list[ConstraintSet]) -> str:
    return "\n\n".join(c.to_markdown() for c in sets)
