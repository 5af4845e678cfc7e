"""Top-k questions ("the 5 longest words", "the shortest verb") scored for what they ask.

When the gold query ends in ORDER BY … LIMIT k, its rows are the first k of an order, not all rows: the
metric keeps LIMIT/OFFSET on both queries and compares the predicted rows with the gold's k. Rows that tie
with the gold's k-th row on the sort key are as right as the one the gold happens to list, so any of them
is accepted in its place (and, after an OFFSET, in place of rows tying with the first).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Hashable

_TAIL = re.compile(r"\bORDER\s+BY\s+(?P<conditions>[^{}]+?)\s*(?P<slice>(?:(?:LIMIT|OFFSET)\s+\d+\s*)+)$",
                   re.IGNORECASE)
_DIRECTION = re.compile(r"^(ASC|DESC)\s*\((?P<expression>.*)\)$", re.IGNORECASE | re.DOTALL)
_VARIABLE = re.compile(r"^\(*\s*[?$](\w+)\s*\)*$")
_PROJECTION_END = re.compile(r"\bWHERE\b|\bFROM\b|\{", re.IGNORECASE)


@dataclass(frozen=True)
class TopK:
    """The final ORDER BY conditions and slice of a query."""

    conditions: tuple[str, ...]  # as written: ?n, DESC(?n), STRLEN(?w), DESC(STRLEN(?w))
    limit: int
    offset: int = 0

    @property
    def expressions(self) -> tuple[str, ...]:
        """What each condition sorts on, without ASC/DESC."""
        return tuple(_strip_direction(c) for c in self.conditions)

    def variables(self) -> tuple[str, ...] | None:
        """The variable each condition sorts on, or None when one sorts on an expression."""
        names = [_VARIABLE.match(e) for e in self.expressions]
        return tuple(m.group(1) for m in names) if all(names) else None


def top_k(sparql: str) -> TopK | None:
    """The final `ORDER BY … LIMIT k [OFFSET m]` of a query; None without ORDER BY or without LIMIT."""
    match = _TAIL.search(sparql.strip())
    if not match:
        return None
    numbers = dict(re.findall(r"(LIMIT|OFFSET)\s+(\d+)", match.group("slice").upper()))
    if "LIMIT" not in numbers:
        return None
    conditions = _split_conditions(match.group("conditions"))
    return TopK(conditions, int(numbers["LIMIT"]), int(numbers.get("OFFSET", 0))) if conditions else None


def with_order_keys(sparql: str, top: TopK) -> str | None:
    """`sparql` also selecting each sort expression as ?orderKey0, ?orderKey1, …; None for SELECT * or no SELECT."""
    select = re.search(r"\bSELECT\b(\s+(?:DISTINCT|REDUCED)\b)?", sparql, re.IGNORECASE)
    if select is None:
        return None
    end = _PROJECTION_END.search(sparql, select.end())
    if end is None or sparql[select.end():end.start()].strip() == "*":
        return None
    keys = " ".join(f"({e} AS ?orderKey{i})" for i, e in enumerate(top.expressions))
    return sparql[:end.start()].rstrip() + f" {keys}\n" + sparql[end.start():]


def accepted_rows(rows: list[tuple], keys: list[Hashable], top: TopK, predicted: Counter) -> Counter:
    """The gold rows the prediction is held to: the gold's slice of the ordered `rows`, where rows tying with the
    slice's boundary key may stand in for the slice's own rows of that key when the prediction has them."""
    start, end = top.offset, top.offset + top.limit
    window = list(zip(rows[start:end], keys[start:end]))
    boundary = set()
    if window and end < len(rows):
        boundary.add(window[-1][1])
    if window and start > 0:
        boundary.add(window[0][1])
    chosen = Counter(row for row, key in window if key not in boundary)
    for key in boundary:
        own = [row for row, k in window if k == key]
        ties = Counter(row for row, k in zip(rows, keys) if k == key)
        taken = list((ties & predicted).elements())[:len(own)]
        rest = list((Counter(own) - Counter(taken)).elements())
        chosen += Counter(taken + rest[:len(own) - len(taken)])
    return chosen


def _strip_direction(condition: str) -> str:
    match = _DIRECTION.match(condition.strip())
    return match.group("expression").strip() if match else condition.strip()


def _split_conditions(text: str) -> tuple[str, ...]:
    """`DESC(?gap) ?italianWord` → ("DESC(?gap)", "?italianWord"): split on spaces outside parentheses."""
    parts: list[str] = []
    depth, current = 0, ""
    for char in text.strip():
        if char.isspace() and depth == 0:
            if current:
                parts.append(current)
            current = ""
            continue
        if char == "(" and depth == 0 and not current and parts and re.fullmatch(r"[A-Za-z_:]\w*", parts[-1]):
            current = parts.pop()  # DESC (?n), STRLEN (?w): the call and its brackets are one condition
        depth += (char == "(") - (char == ")")
        current += char
    if current:
        parts.append(current)
    return tuple(parts) if depth == 0 else ()
