"""A plan as plain JSON and back (the ranker's training lists keep their candidates this way)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Senses, Words


def plan_to_json(plan: Plan) -> dict[str, Any]:
    return asdict(plan)


def _filter(data: dict | None) -> Filter | None:
    return Filter(**data) if data else None


def plan_from_json(data: dict[str, Any]) -> Plan:
    words = data.get("words") or {}
    return Plan(
        words=Words(**{k: tuple(v) if isinstance(v, list) else v for k, v in words.items()}),
        senses=Senses(**{k: tuple(v) if k == "requires" else v for k, v in data["senses"].items()})
        if data.get("senses") else None,
        meta=data.get("meta"),
        joins=tuple(Join(**{k: tuple(v) if k in ("emotions", "without_emotions") else v for k, v in j.items()})
                    for j in data.get("joins", ())),
        filters=tuple(_filter(f) for f in data.get("filters", ())),
        columns=tuple(data.get("columns", ())), optional_roles=tuple(data.get("optional_roles", ())),
        operator=data.get("operator", "list"), per=tuple(data.get("per", ())), aggregates=tuple(Aggregate(**a) for a in data.get("aggregates", ())),
        having=_filter(data.get("having")), order=tuple((r, bool(d)) for r, d in data.get("order", ())),
        limit=data.get("limit"), distinct=data.get("distinct", True))
