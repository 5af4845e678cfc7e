"""Operator blocks over a per-word count or a value taken per key: the groups at the extreme count, ties included
("il verbo con più traduzioni, pari merito inclusi"), the rows at the extreme value per key ("per ogni emozione, la
parola con la polarità più alta"), a per-word count averaged per key ("quante traduzioni ha in media una parola,
per categoria grammaticale"), and one per-word count compared with another ("più traduzioni siciliane che
parmigiane")."""

from __future__ import annotations

from nl2sparql.data.plans.model import Aggregate, Filter, Plan
from nl2sparql.retrieval.column_blocks import DIALECTS
from nl2sparql.retrieval.filter_blocks import bound_op
from nl2sparql.retrieval.signals import Signals

# keys a question can ask an extreme or an average per ("per ciascuna lunghezza", "per classe di polarità")
PER_KEYS = ("length", "pos", "polarity", "emotionLabel", "initial")


def _per_keys(base: Plan, s: Signals, shown: tuple[str, ...]) -> list[str]:
    keys = [k for k in s.keys if k in PER_KEYS and k not in shown]
    if base.senses is not None:  # a CompL-it word's part of speech is its label
        keys = ["posLabel" if k == "pos" else k for k in keys]
    return keys


def tied_counts(base: Plan, s: Signals, pairs: list[tuple[str, str]]) -> list[Plan]:
    """"Il verbo con più traduzioni; se sono più di uno, tutti": per (key, counted) pair, the keys whose count is at
    the extreme, ties included, and the same per key the question names ("per ciascuna lunghezza")."""
    if "ties" not in s.operators:
        return []
    order = (("count", "ascending" not in s.operators),)
    plans = []
    for key, thing in pairs:
        count = (Aggregate("count", thing, "count", distinct=True),)
        plans += [base.with_block(operator="extreme", columns=(per, key), per=(per,), aggregates=count, order=order)
                  for per in _per_keys(base, s, (key,))[:1]]
        plans.append(base.with_block(operator="extreme", columns=(key,), aggregates=count, order=order))
    return plans


def tied_values(base: Plan, s: Signals, ordered: list[tuple[tuple[str, ...], str]]) -> list[Plan]:
    """"Per ogni emozione, la parola con il valore di polarità più alto, pareggi inclusi": the rows at the extreme
    value per key the question names (the key shown first)."""
    if not ordered or not ({"ties", "group"} & s.operators or s.keys):
        return []
    shown, role = ordered[0]
    order = ((role, "ascending" not in s.operators),)
    return [base.with_block(operator="extreme", columns=(per,) + tuple(c for c in shown if c != per), per=(per,),
                            order=order) for per in _per_keys(base, s, ())[:2]]


def averages_per_key(base: Plan, s: Signals, per_word: str, keys: tuple[str, ...],
                     threshold: float | None) -> list[Plan]:
    """"Quante traduzioni parmigiane ha in media una parola, categoria per categoria": a count per word (and key),
    averaged per key; with a threshold, only the keys with that many words ("solo le categorie con almeno 100")."""
    things = [f"{j.resource}Lemma" for j in base.joins if j.resource in DIALECTS and j.mode == "has"][:1] + [per_word]
    outer = ["average_max_groups", "average_groups"] if "max" in s.operators else ["average_groups"]
    plans = [base.with_block(operator=op, columns=(key, per), per=(per,), aggregates=(
        Aggregate("count", thing, "count", distinct=True),))
        for per in _per_keys(base, s, ())[:2] for thing in things for key in keys[:2] for op in outer]
    if threshold is None or not s.comparison:
        return plans
    read = bound_op(s, ">=")  # "skip those with fewer than 100": the bound as read, and the side kept
    kept = [p for p in plans if "lemma" in p.columns]
    return [p.with_block(having=Filter("groups", "value", threshold, op)) for op in (read, _OTHER_SIDE[read])
            for p in kept] + plans


_OTHER_SIDE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "="}


def word_keys(base: Plan) -> tuple[str, ...]:
    """What a per-word count is counted per: the written form (a CompL-it word's too), and the lemma where the set
    has one."""
    keys = ("word", "italianWord") if base.senses is not None and not base.senses.relation else ("italianWord",)
    return keys + (("lemma",) if base.senses is None or base.senses.linked else ())


def compared_counts(base: Plan, s: Signals) -> list[Plan]:
    """"Quali hanno più traduzioni siciliane che parmigiane? Riporta i due conteggi": per word, both counts, kept
    where the one is above (below) the other."""
    found = next((c for c in s.computed if ">" in c or "<" in c), None)
    if found is None or "Value" in found:
        return []
    op = ">" if ">" in found else "<"
    left, right = found.split(op)
    have = {f"{j.resource}Lemma" for j in base.joins if j.resource in DIALECTS and j.mode == "has"}
    have |= {"emotion"} if base.join("elita") and base.join("elita").mode == "has" else set()
    have |= {"sense", "definition"} if base.senses is not None else set()
    if not {left, right} <= have:
        return []
    counts = tuple(Aggregate("count", role, f"{role}Count", distinct=True) for role in (left, right))
    having = Filter(f"{left}Count", "compare", f"{right}Count", op)
    return [base.with_block(operator="group", columns=(key,), aggregates=counts, having=having)
            for key in sorted(word_keys(base), key=lambda k: k != "italianWord")[:2]]  # the written form first
