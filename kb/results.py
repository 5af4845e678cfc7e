"""Result type shared by every endpoint: variables plus rows of typed, JSON-able terms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

TermKind = Literal["iri", "literal", "bnode", "triple"]


@dataclass(frozen=True)
class Term:
    """One RDF term: an IRI, a blank node, or a literal with its language tag or datatype."""

    kind: TermKind
    value: str
    lang: str | None = None
    datatype: str | None = None

    def to_json(self) -> dict[str, str]:
        out = {"type": self.kind, "value": self.value}
        if self.lang:
            out["xml:lang"] = self.lang
        if self.datatype:
            out["datatype"] = self.datatype
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Term:
        kind = data["type"]
        if kind == "uri":
            kind = "iri"
        elif kind == "typed-literal":
            kind = "literal"
        return cls(kind, data["value"], data.get("xml:lang"), data.get("datatype"))

    def __str__(self) -> str:
        return self.value


Row = tuple[Term | None, ...]


@dataclass(frozen=True)
class QueryResult:
    """What an endpoint answers: SELECT rows, an ASK boolean, or CONSTRUCT triples as rows.

    `truncated` says the row cap or the timeout cut the answer short; `timed_out` says which.
    """

    variables: tuple[str, ...]
    rows: tuple[Row, ...] = ()
    boolean: bool | None = None
    truncated: bool = False
    timed_out: bool = False
    elapsed_s: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Term | None]:
        index = self.variables.index(name)
        return [row[index] for row in self.rows]

    def values(self) -> list[tuple[str | None, ...]]:
        """Rows as plain strings (None for unbound), handy for comparisons and tables."""
        return [tuple(None if t is None else t.value for t in row) for row in self.rows]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "head": {"vars": list(self.variables)},
            "truncated": self.truncated,
            "timed_out": self.timed_out,
            "elapsed_s": round(self.elapsed_s, 4),
        }
        if self.boolean is not None:
            out["boolean"] = self.boolean
        else:
            out["results"] = {
                "bindings": [
                    {v: t.to_json() for v, t in zip(self.variables, row) if t is not None}
                    for row in self.rows
                ]
            }
        return out
