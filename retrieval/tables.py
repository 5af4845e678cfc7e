"""What `retrieve` shows: the question's patterns, the closest examples with their scores, the rules."""

from __future__ import annotations

from typing import Any


def retrieval_json(analysis, examples, constraints) -> dict[str, Any]:
    return {"patterns": analysis.scores, "labels": analysis.labels, "entities": analysis.entities,
            "dialects": analysis.dialects,
            "examples": [{"id": e.record.id, "score": e.score, "dense": e.dense, "bm25": e.bm25,
                          "pattern": e.pattern, "question_it": e.record.question_it,
                          "question_en": e.record.question_en, "sparql": e.record.sparql} for e in examples],
            "constraints": [c.name for c in constraints]}


def retrieval_view(analysis, examples, constraints):
    from rich.console import Group
    from rich.table import Table

    header = (f"patterns: {', '.join(analysis.labels) or '(none)'}; entities: "
              f"{', '.join(analysis.entities) or '(none)'}; dialects: {', '.join(analysis.dialects) or '(none)'}")
    table = Table("id", "score", "dense", "bm25", "pattern", "question", title="closest examples")
    for e in examples:
        table.add_row(e.record.id, f"{e.score:.2f}", f"{e.dense:.2f}", f"{e.bm25:.2f}", f"{e.pattern:.2f}",
                      e.record.question_en)
    return Group(header, table, "constraints: " + ", ".join(c.name for c in constraints))
