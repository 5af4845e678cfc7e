"""Follow-up chains: short conversations (a first question, then follow-ups that build on the last answer),
each turn with its gold SPARQL, loaded from `followup/chains.jsonl` into typed records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nl2sparql.data.dataset import AnswerVariables, Record, read_json_lines
from nl2sparql.errors import DatasetError

# What a follow-up does to the turn before it ("first" is the opening question of a chain).
KINDS = ("first", "count", "restrict", "switch_resource", "switch_word", "more_columns", "order", "ellipsis")
CHAIN_SPLITS = ("train", "dev", "test")
SPLIT_PREFIX = "followup-"


@dataclass(frozen=True)
class Turn:
    question: str
    kind: str
    sparql: str
    answer_variables: AnswerVariables
    standalone: str  # the question rewritten so it stands alone (the first turn's is the question itself)


@dataclass(frozen=True)
class Chain:
    id: str
    language: str
    split: str
    turns: tuple[Turn, ...]
    source: str = ""

    def turn_id(self, index: int) -> str:
        return f"{self.id}#{index}"


def default_chains_path() -> Path:
    return Path(__file__).resolve().parent / "followup" / "chains.jsonl"


def parse_chain(data: dict, source: str) -> Chain:
    """One JSON object → Chain; DatasetError names the line and the field at fault."""
    try:
        turns = tuple(_parse_turn(t) for t in data["turns"])
        chain = Chain(str(data["id"]), data["language"], data["split"], turns, source)
    except (KeyError, AttributeError, TypeError) as error:
        raise DatasetError(f"{source}: chain {data.get('id', '?')} lacks or mistypes field {error}") from None
    if not 2 <= len(chain.turns) <= 4:
        raise DatasetError(f"{source}: chain {chain.id} has {len(chain.turns)} turns; a chain has 2 to 4")
    kinds = [t.kind for t in chain.turns]
    if kinds[0] != "first" or "first" in kinds[1:] or not set(kinds) <= set(KINDS):
        raise DatasetError(f"{source}: chain {chain.id} has turn kinds {kinds}; the first is 'first', "
                           f"the others from {KINDS[1:]}")
    if chain.language not in ("it", "en"):
        raise DatasetError(f"{source}: chain {chain.id} has language {chain.language!r}; use it or en")
    return chain


def _parse_turn(data: dict) -> Turn:
    answers = data["answer_variables"]
    question = data["question"].strip()
    return Turn(question, data["kind"], data["sparql"],
                AnswerVariables(*(tuple(answers.get(k, ())) for k in ("answer", "ids", "aggregates"))),
                (data.get("standalone") or question).strip())


def load_chains(path: Path | None = None) -> list[Chain]:
    path = path or default_chains_path()
    return [parse_chain(data, source) for source, data in read_json_lines(path)]


def is_followup_split(split: str) -> bool:
    return split.startswith(SPLIT_PREFIX)


def chains_of_split(split: str, path: Path | None = None) -> list[Chain]:
    """The chains of `followup-train`, `followup-dev` or `followup-test`."""
    name = split.removeprefix(SPLIT_PREFIX)
    if name not in CHAIN_SPLITS:
        raise DatasetError(f"unknown follow-up split {split!r}; known: "
                           + ", ".join(SPLIT_PREFIX + s for s in CHAIN_SPLITS))
    return [c for c in load_chains(path) if c.split == name]


def turn_record(chain: Chain, index: int) -> Record:
    """One turn as a dataset record (what the execution metric and the reports read). Its patterns say
    whether it is a first turn or a follow-up, and what kind of follow-up."""
    turn = chain.turns[index]
    patterns = ("turn:first",) if index == 0 else ("turn:follow-up", f"kind:{turn.kind}")
    return Record(id=chain.turn_id(index), question_it=turn.question, question_en=turn.question, sparql=turn.sparql,
                  patterns=patterns, complexity="medium", answer_variables=turn.answer_variables,
                  split=SPLIT_PREFIX + chain.split, source=chain.source)


def kind_counts(chains: list[Chain]) -> dict[str, dict[str, int]]:
    """Turns per kind × split, with the chains per split under `chains`."""
    counts = {kind: dict.fromkeys(CHAIN_SPLITS, 0) for kind in ("chains", *KINDS)}
    for chain in chains:
        counts["chains"][chain.split] = counts["chains"].get(chain.split, 0) + 1
        for turn in chain.turns:
            counts[turn.kind][chain.split] = counts[turn.kind].get(chain.split, 0) + 1
    return counts
