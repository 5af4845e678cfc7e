"""Training pairs for the fine-tuned generate step, from the train split only.

Every wording of every train record (Italian, English, paraphrases) becomes one example: the prompt is what the
program's generate step sends for that wording (same signature, adapter format, instructions and retrieved
context, with the record itself left out of retrieval) and the answer is the gold query in the adapter's
format. Dev, test and generalization records never become examples: the splits the versions are scored on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from nl2sparql.data.dataset import Record
from nl2sparql.errors import DatasetError

HELD_OUT_SPLITS = ("dev", "test", "generalization")


@dataclass(frozen=True)
class TrainExample:
    record_id: str
    language: str
    question: str
    messages: tuple[dict, ...]  # the generate step's chat request
    answer: str  # the gold query in the adapter's answer format
    source: str = "gold"  # gold, or the teacher LM's model id for a bootstrapped trace


def training_records(records: Iterable[Record], split: str = "train") -> list[Record]:
    """The records fine-tuning may learn from; asking for a split that is scored on is refused."""
    if split in HELD_OUT_SPLITS:
        raise DatasetError(f"fine-tuning never learns from the {split} split: the versions are scored on it")
    chosen = [r for r in records if r.split == split]
    if not chosen:
        raise DatasetError(f"empty split: no {split} records to fine-tune on")
    return chosen


def build_examples(program, records: list[Record], *, answer_sparql: Callable[[str], str] | None = None,
                   on_example: Callable[[int, int], None] | None = None,
                   wordings_of: Callable[[Record], list[tuple[str, str]]] = Record.questions) -> list[TrainExample]:
    """One example per wording of each record (`wordings_of`: all of them unless told), its prompt made by
    `program.generate_messages`."""
    if any(r.split in HELD_OUT_SPLITS for r in records):
        raise DatasetError("fine-tuning examples may only come from the train split")
    wordings = [(record, language, text) for record in records for language, text in wordings_of(record)]
    examples = []
    for index, (record, language, question) in enumerate(wordings, 1):
        messages = program.generate_messages(question, exclude_ids=(record.id,))
        sparql = answer_sparql(record.sparql) if answer_sparql else record.sparql.strip()
        examples.append(TrainExample(record.id, language, question, tuple(messages),
                                     program.generate_answer(sparql)))
        if on_example:
            on_example(index, len(wordings))
    return examples
