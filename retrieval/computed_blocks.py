"""Operator blocks computed from the words rather than read from a resource: a count per initial letter, per ending
or per length, the longest or shortest words, a length's average; and the values a question wants in one cell
(GROUP_CONCAT)."""

from __future__ import annotations

from nl2sparql.data.plans.model import Aggregate, Plan
from nl2sparql.retrieval.filter_blocks import alternatives, whole_number
from nl2sparql.retrieval.signals import Signals


def computed(base: Plan, s: Signals, counted: str) -> list[Plan]:
    """Keys and orders computed from the written form: a count per initial letter, the longest or shortest words."""
    if base.words.bank != "italian" or base.senses is not None or base.words.forms:
        return []
    plans = []
    if "initial" in s.computed and s.operators & {"count", "group", "top"}:
        per_initial = base.with_block(operator="group", columns=("initial",), aggregates=(
            Aggregate("count", counted, "count", distinct=True),))
        if "top" in s.operators:  # "la lettera iniziale più comune tra i verbi"
            plans.append(per_initial.with_block(order=(("count", "ascending" not in s.operators), ("initial", False)),
                                                limit=whole_number(s)))
        plans += [per_initial, per_initial.with_block(order=(("initial", False),))]
    endings = {len(v) for k, v in s.affixes if k == "suffix"}
    if len(endings) == 1 and alternatives(s.affixes) and s.operators & {"count", "group"}:  # a count per ending
        key = f"ending{endings.pop()}"
        if key in ("ending2", "ending3", "ending4"):
            plans.append(base.with_block(operator="group", columns=(key,), aggregates=(
                Aggregate("count", counted, "count", distinct=True),)))
    if "length" in s.keys and s.operators & {"count", "group", "top"}:  # "quante parole per ogni lunghezza"
        per_length = base.with_block(operator="group", columns=("length",), aggregates=(
            Aggregate("count", counted, "count", distinct=True),))
        plans += [per_length.with_block(order=(("length", False),)), per_length]
        if "top" in s.operators:  # "le lunghezze più frequenti"
            plans.append(per_length.with_block(order=(("count", "ascending" not in s.operators), ("length", False)),
                                               limit=whole_number(s)))
    if "length" in s.keys and "average" in s.operators:  # "la lunghezza media dei verbi"
        plans.append(base.with_block(operator="count", columns=(), aggregates=(Aggregate("avg", "length", "average"),)))
    if "length" in s.computed and "top" in s.operators:
        k = whole_number(s)
        longest = "ascending" not in s.operators
        for shown in (("italianWord", "length"), ("italianWord",)):
            plans.append(base.with_block(columns=shown, order=(("length", longest), ("italianWord", False)), limit=k))
    return plans


def concatenated(base: Plan, s: Signals, shown_sets: list[tuple[str, ...]]) -> list[Plan]:
    """"Ogni parola con le sue emozioni separate da virgola": per the first column, the others in one cell (one row
    with no key for a named word's own values)."""
    if not s.concat:
        return []
    plans = []
    for shown in shown_sets[:4]:
        key, listed = (shown[:1], shown[1:]) if len(shown) > 1 else ((), shown)
        if key and base.words.forms and len(base.words.forms) == 1 and key == ("italianWord",):
            key = ()  # the named word's values: one row
        aggregates = tuple(Aggregate("group_concat", r, f"{r}List", distinct=True) for r in listed)
        plans.append(base.with_block(operator="group" if key else "count", columns=key, aggregates=aggregates))
        if len(shown) == 2 and "group" in s.operators:  # "per ogni emozione, le sue parole": the last one the key
            plans.append(base.with_block(operator="group", columns=shown[1:], aggregates=(
                Aggregate("group_concat", shown[0], f"{shown[0]}List", distinct=True),)))
    return plans
