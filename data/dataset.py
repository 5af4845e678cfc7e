"""The curated question/SPARQL dataset: typed records loaded from reviewable JSONL files."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nl2sparql.files import write_text_atomic
from nl2sparql.errors import DatasetError

PATTERNS = (
    "lemma_lookup", "pos_filter", "morphology_regex", "counting_grouping", "lexical_forms", "meta",
    "emotion", "polarity", "translation", "sense_definition", "sense_count", "semantic_relation",
    "service_integration", "multi_entry", "compositional", "ask",
)
SPLITS = ("train", "dev", "test", "generalization")
COMPLEXITIES = ("simple", "medium", "complex")


@dataclass(frozen=True)
class AnswerVariables:
    """Which SELECT variables hold the answer, which hold ids/IRIs, which hold aggregates."""

    answer: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    aggregates: tuple[str, ...] = ()

    def all(self) -> tuple[str, ...]:
        return self.answer + self.ids + self.aggregates


@dataclass(frozen=True)
class Record:
    id: str
    question_it: str
    question_en: str
    sparql: str
    patterns: tuple[str, ...]
    complexity: str
    answer_variables: AnswerVariables
    split: str
    paraphrases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    empty_ok: bool = False
    twin: str = ""  # on an ASK record written as another's contrastive twin: that record's id
    source: str = ""

    def questions(self) -> list[tuple[str, str]]:
        """Every wording of the question as (language, text), the two main ones first."""
        out = [("it", self.question_it), ("en", self.question_en)]
        for lang, texts in self.paraphrases.items():
            out += [(lang, text) for text in texts]
        return out

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("source")
        data["patterns"] = list(self.patterns)
        data["answer_variables"] = {k: list(v) for k, v in data["answer_variables"].items()}
        data["paraphrases"] = {k: list(v) for k, v in self.paraphrases.items()}
        if not self.paraphrases:
            data.pop("paraphrases")
        if not self.empty_ok:
            data.pop("empty_ok")
        if not self.twin:
            data.pop("twin")
        return data


def default_dataset_dir() -> Path:
    return Path(__file__).resolve().parent / "dataset"


def parse_record(data: dict, source: str) -> Record:
    """One JSON object → Record; DatasetError names the file, line and the field at fault."""
    try:
        answers = data["answer_variables"]
        record = Record(
            id=str(data["id"]), question_it=data["question_it"].strip(), question_en=data["question_en"].strip(),
            sparql=data["sparql"], patterns=tuple(data["patterns"]), complexity=data["complexity"],
            answer_variables=AnswerVariables(*(tuple(answers.get(k, ())) for k in ("answer", "ids", "aggregates"))),
            split=data["split"],
            paraphrases={k: tuple(v) for k, v in (data.get("paraphrases") or {}).items()},
            empty_ok=bool(data.get("empty_ok", False)), twin=str(data.get("twin", "")), source=source,
        )
    except (KeyError, AttributeError, TypeError) as error:
        raise DatasetError(f"{source}: record {data.get('id', '?')} lacks or mistypes field {error}") from None
    unknown = [p for p in record.patterns if p not in PATTERNS]
    if unknown or not record.patterns:
        raise DatasetError(f"{source}: record {record.id} has unknown patterns {unknown or '(none)'}")
    if record.complexity not in COMPLEXITIES:
        raise DatasetError(f"{source}: record {record.id} has complexity {record.complexity!r}; use {COMPLEXITIES}")
    return record


def load_dataset(directory: Path | None = None) -> list[Record]:
    """Every record of every *.jsonl file in the folder, in file then line order."""
    directory = directory or default_dataset_dir()
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        raise DatasetError(f"no *.jsonl dataset files in {directory}")
    records = [record for path in files for record in read_jsonl(path)]
    if not records:
        raise DatasetError(f"the dataset in {directory} is empty")
    return records


def read_json_lines(path: Path) -> Iterator[tuple[str, dict]]:
    """Each non-blank line of a JSONL file as (`name:line`, its object); DatasetError names the line at fault."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise DatasetError(f"cannot read {path}: {error.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise DatasetError(f"{path.name}:{number}: not valid JSON ({error.msg})") from None
        yield f"{path.name}:{number}", data


def read_jsonl(path: Path) -> list[Record]:
    """The records of one JSONL file (a shard, or a file of extra questions to evaluate on)."""
    return [parse_record(data, source) for source, data in read_json_lines(path)]


def dataset_hash(records: list[Record]) -> str:
    """Identifies the dataset content (questions, gold, labels, splits) for caches and manifests."""
    digest = hashlib.sha256()
    for record in sorted(records, key=lambda r: r.id):
        digest.update(json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


def write_jsonl(path: Path, records: list[Record]) -> None:
    """Atomic rewrite of one dataset file (temp file in the same folder, then rename)."""
    write_text_atomic(path, "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records))
