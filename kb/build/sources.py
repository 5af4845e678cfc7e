"""Typed readers for the open data in the source folder (../shared/liita) and our samples (data/kb)."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import BuildError

PARMIGIANO_TTL = "parmigiano-lemmabank.ttl"
PARMIGIANO_LINKS = "parmigiano-italian-linked.csv"
PARMIGIANO_LEMMAS = "parmigiano-lemmas.csv"
SENTIX = "sentix-lemma-2.0.tsv"
ELITA_SAMPLE = "elita-sample.tsv"
SICILIAN_SAMPLE = "sicilian-sample.tsv"

_ITALIAN_WORD = re.compile(r"^[a-zàèéìíòóùú]+(?:'[a-zàèéìíòóùú]+)?$")


@dataclass(frozen=True)
class ItalianLemma:
    """An Italian lemma with its real LiITA lemma-bank IRI."""

    iri: str
    written: str
    upos: str


@dataclass(frozen=True)
class DialectLink:
    """One Italian lemma and the dialect written forms that translate it."""

    italian: str
    upos: str
    italian_iris: tuple[str, ...]
    dialect_forms: tuple[str, ...]


@dataclass(frozen=True)
class DialectLemma:
    id: str
    written: str
    upos: str
    usage: str | None


@dataclass(frozen=True)
class Polarity:
    lemma: str
    value: float


@dataclass(frozen=True)
class EmotionEntry:
    lemma: str
    upos: str
    emotions: tuple[str, ...]
    polarity: float


@dataclass(frozen=True)
class SicilianEntry:
    sicilian: str
    upos: str
    italian: tuple[str, ...]


def require(folder: Path, name: str) -> Path:
    path = folder / name
    if not path.is_file():
        raise BuildError(f"missing source file {path}: pass --source with the LiITA open-data folder")
    return path


def _rows(path: Path, delimiter: str = ",", header: bool = True) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter=delimiter))
    return rows[1:] if header else rows


def read_parmigiano_links(source: Path) -> list[DialectLink]:
    links = []
    for row in _rows(require(source, PARMIGIANO_LINKS)):
        forms = tuple(f.strip() for f in row[2:11] if f.strip() not in ("", "_"))
        iris = tuple(i.strip() for i in row[11:] if i.strip().startswith("http"))
        links.append(DialectLink(row[0].strip(), row[1].strip(), iris, forms))
    return links


def italian_lemmas(links: list[DialectLink]) -> list[ItalianLemma]:
    """Italian lemmas with real LiITA IRIs; when an IRI recurs, its first row wins."""
    seen: dict[str, ItalianLemma] = {}
    for link in links:
        for iri in link.italian_iris:
            seen.setdefault(iri, ItalianLemma(iri, link.italian, link.upos))
    return list(seen.values())


def read_parmigiano_lemmas(source: Path) -> list[DialectLemma]:
    return [
        DialectLemma(r[0].strip(), r[1].strip(), r[2].strip(), (r[3].strip() if len(r) > 3 else "") or None)
        for r in _rows(require(source, PARMIGIANO_LEMMAS), header=False) if r and r[0].strip().isdigit()
    ]


def read_sentix(source: Path) -> list[Polarity]:
    """Sentix lemmas that look like single Italian words (drops English, multiword and noise rows)."""
    out = []
    for row in _rows(require(source, SENTIX), delimiter="\t", header=False):
        if len(row) == 2 and _ITALIAN_WORD.match(row[0]):
            try:
                out.append(Polarity(row[0], float(row[1])))
            except ValueError:
                continue
    return out


def read_elita_sample(samples: Path) -> list[EmotionEntry]:
    out = []
    for row in _rows(require(samples, ELITA_SAMPLE), delimiter="\t"):
        emotions = tuple(e.strip() for e in row[2].split(",") if e.strip())
        out.append(EmotionEntry(row[0].strip(), row[1].strip(), emotions, float(row[3])))
    return out


def read_sicilian_sample(samples: Path) -> list[SicilianEntry]:
    return [
        SicilianEntry(r[0].strip(), r[1].strip(), tuple(i.strip() for i in r[2].split("|") if i.strip()))
        for r in _rows(require(samples, SICILIAN_SAMPLE), delimiter="\t") if len(r) >= 3
    ]
