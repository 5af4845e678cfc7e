"""A plan's one-block neighbours: the same plan with one block changed (a relation's direction, OPTIONAL for
required, a part of speech or lemma type more, less or another, a column more or less, another resource, a count for
a list, the aggregate's target or DISTINCT, a bound's strictness, the order's direction).

Two uses: the ranker's hard negatives (the gold plan's neighbours, labelled by their answer), and the choice's view
of the generator (the generator's query, parsed into a plan, with its neighbours executed beside the enumerator's
candidates: a generator that wrote the right structure with one block wrong is one step from the answer).
"""

from __future__ import annotations

import dataclasses

from nl2sparql.data.plans.model import RELATIONS, Aggregate, Filter, Plan

_FLIP = {"hypernym": "hyponym", "hyponym": "hypernym", "meronym": "holonym", "holonym": "meronym",
         "hypernym-by-hyponym": "hyponym-by-hyponym", "hyponym-by-hyponym": "hypernym-by-hyponym"}
_MODES = {"has": "optional", "optional": "has", "absent": "has", "absent_minus": "has", "covered": "has"}
_OTHER = {"elita": "sentix", "sentix": "elita"}
_STRICT = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}
_POS = ("noun", "verb", "adjective", "adverb")
# the column a joined resource shows when the question asks for it
_SHOWN = {"elita": "emotionLabel", "sentix": "polarityValue", "sicilian": "sicilianWord",
          "parmigiano": "parmigianoWord"}
_CLASS = {"polarityValue": "polarity", "elitaValue": "elitaPolarity", "sentixValue": "sentixPolarity"}
_COUNTED = {"lemma": "italianWord", "italianWord": "lemma"}  # lemmas (entries) or written forms counted


def one_block_changes(plan: Plan) -> list[Plan]:
    """The gold-negative changes (the ranker's `--negatives`): direction, mode, resource, POS less or noun, kind,
    a column less or the POS more, list ↔ count, DISTINCT."""
    r = dataclasses.replace
    out: list[Plan] = []
    s = plan.senses
    if s is not None and s.relation in _FLIP:
        flipped = _FLIP[s.relation]
        column = RELATIONS[s.relation][2]
        columns = tuple(RELATIONS[flipped][2] if c == column else c for c in plan.columns)
        out.append(r(plan, senses=r(s, relation=flipped), columns=columns))
    for i, join in enumerate(plan.joins):
        joins = list(plan.joins)
        joins[i] = r(join, mode=_MODES[join.mode])
        out.append(r(plan, joins=tuple(joins)))
        if join.resource in _OTHER and not join.emotions and not join.polarity:
            joins[i] = r(join, resource=_OTHER[join.resource])
            out.append(r(plan, joins=tuple(joins)))
    words = plan.words
    if plan.meta is None and words.bank == "italian":
        out.append(r(plan, words=r(words, pos=words.pos[:-1] if words.pos else ("noun",))))
        out.append(r(plan, words=r(words, kind=None if words.kind else "Lemma")))
    if plan.operator == "list":
        if len(plan.columns) > 1:
            out.append(r(plan, columns=plan.columns[:-1]))
        if "pos" not in plan.columns and plan.columns:
            out.append(r(plan, columns=(*plan.columns, "pos")))
        out.append(r(plan, operator="count", columns=(),
                     aggregates=(Aggregate("count", "lemma", "count", distinct=True),)))
    elif plan.operator == "count":
        out.append(r(plan, operator="list", columns=("italianWord",), aggregates=()))
    out.append(r(plan, distinct=not plan.distinct))
    return [p for p in dict.fromkeys(out) if p != plan]


def neighbours(plan: Plan) -> list[Plan]:
    """Every one-block change above and more: another part of speech, a joined resource's column shown or the first
    column dropped, the aggregate counting lemmas for written forms (or back) or DISTINCT toggled, a bound's
    strictness (`>` ↔ `>=`), the order reversed, the limit dropped, a CompL-it word joined by its written form."""
    r = dataclasses.replace
    out = one_block_changes(plan)
    words = plan.words
    if plan.meta is None and words.bank == "italian" and len(words.pos) == 1:
        out += [r(plan, words=r(words, pos=(pos,))) for pos in _POS if pos != words.pos[0]]
    s = plan.senses
    if s is not None and s.relation in RELATIONS:  # another relation (hyponyms for meronyms), its column with it
        column = RELATIONS[s.relation][2]
        for other in RELATIONS:
            if other != s.relation:
                columns = tuple(RELATIONS[other][2] if c == column else c for c in plan.columns)
                out.append(r(plan, senses=r(s, relation=other), columns=columns))
    if plan.operator in ("list", "extreme") and plan.columns:
        shown = [_SHOWN[j.resource] for j in plan.joins if j.mode in ("has", "optional") and j.resource in _SHOWN]
        out += [r(plan, columns=(*plan.columns, c)) for c in shown if c not in plan.columns]
        for i, c in enumerate(plan.columns):  # a polarity's class beside its value ("what polarity": both)
            named = _CLASS.get(c)
            if named is not None and named not in plan.columns:
                out.append(r(plan, columns=(*plan.columns[:i], named, *plan.columns[i:])))
        if len(plan.columns) > 1:
            out.append(r(plan, columns=plan.columns[1:]))
    for i, a in enumerate(plan.aggregates):
        changed = [r(a, distinct=not a.distinct)]
        if a.role in _COUNTED:
            changed.append(r(a, role=_COUNTED[a.role]))
        for b in changed:
            out.append(r(plan, aggregates=(*plan.aggregates[:i], b, *plan.aggregates[i + 1:])))
    if plan.having is not None and plan.having.op in _STRICT:
        out.append(r(plan, having=r(plan.having, op=_STRICT[plan.having.op])))
    for i, f in enumerate(plan.filters):
        if f.op in _STRICT and f.kind in ("length", "value"):
            out.append(r(plan, filters=_replaced(plan.filters, i, r(f, op=_STRICT[f.op]))))
    if plan.order:
        out.append(r(plan, order=tuple((role, not desc) for role, desc in plan.order)))
    if plan.limit is not None and plan.operator == "list":
        out.append(r(plan, limit=None, order=()))
    if plan.senses is not None and plan.senses.linked in ("word", "form"):
        out.append(r(plan, senses=r(plan.senses, linked="form" if plan.senses.linked == "word" else "word")))
    return [p for p in dict.fromkeys(out) if p != plan]


def _replaced(filters: tuple[Filter, ...], i: int, f: Filter) -> tuple[Filter, ...]:
    return (*filters[:i], f, *filters[i + 1:])
