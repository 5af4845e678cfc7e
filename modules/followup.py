"""The follow-up step: a question that builds on earlier turns becomes one that stands alone, so the rest of
the pipeline (and its fine-tuned generate step) answers it unchanged."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import dspy
from nl2sparql.signatures.followup import RewriteFollowUp

# Words that point back at an earlier turn, or open a question that continues one (Italian and English).
_CUES = re.compile(r"""(?ix)
    ^\s*(e|ed|ma|però|invece|anche|solo|soltanto|con|per|dal|dalla|dai|in|tra|aggiungi|ordina\w*|elenca\w*|
          and|but|what\s+about|how\s+about|only|just|same|also|now|with|for|add|sort\w*|list\s+them|show\s+them)\b
  | \b(quell[aeio]|quest[aeio]|loro|stess[aeio]|ciascun[oa]?|in\s+tutto|dammene|ordinal[ie]|elencal[ie])\b
  | \b(them|those|these|they|their|such|ones|instead|in\s+total|the\s+same)\b
""")
# What a question that stands alone names: a quoted word, a resource, an emotion, a kind of word or answer.
_ANCHORS = re.compile(r"""(?ix)
    [«"“'‘] | elita | sentix | compl-it | liita | lemm | sicilian | parmigian | dialett | dialect | emozion | emotion
  | gioia | tristezza | paura | rabbia | disgusto | sorpresa | fiducia | amore | aspettativa | joy | sadness | fear
  | anger | definizion | definition | sens[eiot] | parol | word | verb | nom[ei] | noun | aggettiv | adjective
  | avverb | adverb | polarit | traduz | translat
""")
_SHORT = 5  # words: a question this short rarely says all it means


def needs_history(question: str, has_history: bool) -> bool:
    """Whether the question may depend on the conversation. It passes through unchanged, with no LM call,
    when there is no history or when it has no word pointing back, is not short, and names what it is about."""
    if not has_history:
        return False
    return bool(_CUES.search(question)) or len(question.split()) <= _SHORT or not _ANCHORS.search(question)


@dataclass(frozen=True)
class TurnSummary:
    """What a later turn sees of an earlier one: the question, what it was taken to mean, the query and a
    summary of the answer (variables, row count, the first rows)."""

    question: str
    standalone_question: str
    sparql: str
    variables: tuple[str, ...] = ()
    row_count: int = 0
    first_rows: tuple[tuple[str, ...], ...] = ()
    boolean: bool | None = None

    @classmethod
    def of(cls, question: str, standalone_question: str, sparql: str, result: Any, keep_rows: int = 3) -> TurnSummary:
        if result is None:
            return cls(question, standalone_question, sparql)
        rows = tuple(tuple("" if v is None else v for v in row) for row in result.values()[:keep_rows])
        return cls(question, standalone_question, sparql, tuple(result.variables), len(result.rows), rows,
                   result.boolean)

    def describe(self, with_sparql: bool = True, rows: int = 3) -> str:
        lines = [f"Question: {self.standalone_question}"]
        if with_sparql:
            lines.append(f"SPARQL:\n{self.sparql.strip()}")
        if self.boolean is not None:
            lines.append(f"Answer: {'yes' if self.boolean else 'no'}")
        else:
            shown = "; ".join(", ".join(_short(v) for v in row) for row in self.first_rows[:rows])
            lines.append(f"Answer: {self.row_count} rows of ({', '.join(self.variables)})"
                         + (f", first: {shown}" if shown else ""))
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"question": self.question, "standalone_question": self.standalone_question, "sparql": self.sparql,
                "variables": list(self.variables), "row_count": self.row_count,
                "first_rows": [list(r) for r in self.first_rows], "boolean": self.boolean}


def _short(value: str) -> str:
    return value.rsplit("/", 1)[-1].rsplit("#", 1)[-1] if value.startswith("http") else value


def describe_history(history: Sequence[TurnSummary], keep: int = 2, with_sparql: bool = True, rows: int = 3) -> str:
    """The last `keep` turns, oldest first; only the last one with its SPARQL, and none without `with_sparql`;
    each answer with its first `rows` rows (the prompt stays short)."""
    shown = list(history)[-keep:]
    return "\n\n".join(t.describe(with_sparql=with_sparql and i == len(shown) - 1, rows=rows)
                       for i, t in enumerate(shown))


class FollowUp(dspy.Module):
    """Question + earlier turns → a standalone question; `built_on` is the index of the turn it builds on
    (None when it passed through unchanged)."""

    def __init__(self, keep_turns: int = 2, with_sparql: bool = True, rows: int = 3):
        super().__init__()
        self.keep_turns = keep_turns
        self.with_sparql = with_sparql  # the last turn's SPARQL in the history (ProgramSettings.followup_sparql)
        self.rows = rows  # first rows shown of each earlier answer (ProgramSettings.followup_rows)
        self.rewrite = dspy.Predict(RewriteFollowUp)

    def forward(self, question: str, history: Sequence[TurnSummary] = ()) -> dspy.Prediction:
        question = question.strip()
        if not needs_history(question, bool(history)):
            return dspy.Prediction(standalone_question=question, built_on=None, calls=0)
        out = self.rewrite(history=describe_history(history, self.keep_turns, self.with_sparql, self.rows),
                           question=question)
        standalone = " ".join(str(out.standalone_question or "").split()) or question
        return dspy.Prediction(standalone_question=standalone, built_on=len(history) - 1, calls=1)


def gold_histories(chain, endpoint) -> list[tuple[TurnSummary, ...]]:
    """For each turn of a follow-up chain, the gold history before it (earlier turns' standalone questions,
    gold queries and their answers on `endpoint`)."""
    histories, summaries = [], []
    for turn in chain.turns:
        histories.append(tuple(summaries))
        summaries.append(TurnSummary.of(turn.question, turn.standalone, turn.sparql, endpoint.execute(turn.sparql)))
    return histories


def rewrite_examples(chains, endpoint) -> list[dspy.Example]:
    """The follow-up step's trainset: every follow-up of `chains` with its gold history and standalone question
    (for compiling `FollowUp` like the other steps; pass train chains only)."""
    return [dspy.Example(question=turn.question, history=history, standalone_question=turn.standalone)
            .with_inputs("question", "history")
            for chain in chains for turn, history in zip(chain.turns, gold_histories(chain, endpoint)) if history]
