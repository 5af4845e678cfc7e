"""Questions LiITA cannot answer (data/off_topic.jsonl): what the relevance step must send away politely.

One record a line: `id`, `question`, `language` (it/en), `kind` (what sort of question) and the stored
`split`. The in-scope side of the same measurement is the dataset's own questions.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from nl2sparql.data.check import normalise_question
from nl2sparql.data.dataset import read_json_lines
from nl2sparql.errors import DatasetError
from nl2sparql.files import write_text_atomic

OFF_TOPIC_FILE = Path(__file__).resolve().parent / "off_topic.jsonl"
KINDS = ("weather", "arithmetic", "knowledge", "people", "code", "chat", "near-miss", "nonsense")
LANGUAGES = ("it", "en")
SPLITS = ("train", "dev", "test")
_FIELDS = ("id", "question", "language", "kind", "split")


@dataclass(frozen=True)
class OffTopicQuestion:
    id: str
    question: str
    language: str
    kind: str
    split: str


def load_off_topic(path: Path = OFF_TOPIC_FILE) -> list[OffTopicQuestion]:
    """Every question of the file, in line order; DatasetError names the line and field at fault."""
    questions = []
    for source, data in read_json_lines(path):
        try:
            questions.append(OffTopicQuestion(*(str(data[name]).strip() for name in _FIELDS)))
        except (KeyError, TypeError) as error:
            raise DatasetError(f"{source}: lacks field {error}") from None
    return questions


def off_topic_problems(questions: list[OffTopicQuestion]) -> list[tuple[str, str]]:
    """(id, problem) for every question with an unknown language, kind or split, an empty text, or a duplicate
    id or wording; and the file as a whole when a language or split is missing."""
    problems = []
    for q in questions:
        for name, allowed in (("language", LANGUAGES), ("kind", KINDS), ("split", SPLITS)):
            if getattr(q, name) not in allowed:
                problems.append((q.id, f"{name} {getattr(q, name)!r} is not one of {', '.join(allowed)}"))
        if not q.question:
            problems.append((q.id, "empty question"))
    for key, what in ((lambda q: q.id, "id"), (lambda q: normalise_question(q.question), "question")):
        counts = Counter(key(q) for q in questions)
        problems += [(q.id, f"{what} used more than once") for q in questions if counts[key(q)] > 1]
    for name, allowed in (("language", LANGUAGES), ("split", SPLITS)):
        present = {getattr(q, name) for q in questions}
        problems += [("(file)", f"no question has {name} {value!r}") for value in allowed if value not in present]
    return problems


def assign_off_topic_splits(questions: list[OffTopicQuestion], seed: int = 13) -> list[OffTopicQuestion]:
    """Give questions marked 'auto' a split: shuffled within each language × kind, then train, test, train, dev,
    train in every 5 (about 60/20/20, every kind of both languages in each split)."""
    groups: dict[tuple[str, str], list[OffTopicQuestion]] = {}
    for q in sorted(questions, key=lambda q: q.id):
        if q.split == "auto":
            groups.setdefault((q.language, q.kind), []).append(q)
    rng = random.Random(seed)
    assigned = {}
    for key in sorted(groups):
        group = groups[key]
        rng.shuffle(group)
        for position, q in enumerate(group):
            assigned[q.id] = ("train", "test", "train", "dev", "train")[position % 5]
    return [replace(q, split=assigned[q.id]) if q.id in assigned else q for q in questions]


def write_off_topic(questions: list[OffTopicQuestion], path: Path = OFF_TOPIC_FILE) -> None:
    write_text_atomic(path, "".join(json.dumps(asdict(q), ensure_ascii=False) + "\n" for q in questions))
