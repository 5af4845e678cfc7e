"""Operator blocks computed from the words rather than read from a resource: a count per initial letter, per ending
or per length, the longest or shortest words, a length's average; and the values a question wants in one cell
(GROUP_CONCAT)."""

from __future__ import annotations

from nl2sparql.data.plans.model import RELATIONS, Aggregate, Filter, Plan
from nl2sparql.retrieval.column_blocks import unique
from nl2sparql.retrieval.filter_blocks import MAX_LENGTH, alternatives, bound_op, first_whole, whole_number
from nl2sparql.retrieval.signals import Signals


def computed(base: Plan, s: Signals, counted: str) -> list[Plan]:
    """Keys and orders computed from the written form: a count per initial letter, the longest or shortest words;
    one value compared with another."""
    if base.words.bank != "italian" or base.words.forms:
        return compared(base, s)
    if base.senses is not None:  # "con quali 3 lettere finiscono più spesso le parole definite in CompL-it"
        sized = next((c for c in s.computed if c.startswith("ending")), None)
        if not sized or base.senses.relation or not s.operators & {"count", "group", "top"}:
            return []
        return _endings(base, s, sized, "lemma" if base.senses.linked else "word")
    plans = compared(base, s) + per_affix(base, s, counted)
    if "initial" in s.computed and s.operators & {"count", "group", "top"}:
        per_initial = base.with_block(operator="group", columns=("initial",), aggregates=(
            Aggregate("count", counted, "count", distinct=True),))
        if "top" in s.operators:  # "la lettera iniziale più comune tra i verbi" (its lemmas, or its written words)
            for thing in dict.fromkeys([counted, "italianWord"]):
                plans.append(per_initial.with_block(aggregates=(Aggregate("count", thing, "count", distinct=True),),
                                                    order=(("count", "ascending" not in s.operators),
                                                           ("initial", False)), limit=whole_number(s)))
        plans += [per_initial, per_initial.with_block(order=(("initial", False),))]
    endings = {len(v) for k, v in s.affixes if k == "suffix"}
    if len(endings) == 1 and alternatives(s.affixes) and s.operators & {"count", "group"}:  # a count per ending
        key = f"ending{endings.pop()}"
        if key in ("ending2", "ending3", "ending4"):
            plans.append(base.with_block(operator="group", columns=(key,), aggregates=(
                Aggregate("count", counted, "count", distinct=True),)))
    sized = next((c for c in s.computed if c.startswith("ending")), None)
    if sized and s.operators & {"count", "group", "top"}:  # "le 10 terminazioni di 2 lettere più frequenti"
        plans += _endings(base, s, sized, counted)
    if "length" in s.keys and s.operators & {"count", "group", "top"}:  # "quante parole per ogni lunghezza"
        per_length = base.with_block(operator="group", columns=("length",), aggregates=(
            Aggregate("count", counted, "count", distinct=True),))
        plans += [per_length.with_block(order=(("length", False),)), per_length]
        counted_bound = next((n for n in s.numbers if n == int(n) and n > MAX_LENGTH), None)
        if counted_bound is not None and s.comparison:  # "per quali lunghezze ci sono più di 500 aggettivi"
            plans.append(per_length.with_block(having=Filter("count", "value", counted_bound,
                                                             bound_op(s, "=", counted_bound)),
                                               order=(("length", False),)))
        if "top" in s.operators:  # "le lunghezze più frequenti"
            plans.append(per_length.with_block(order=(("count", "ascending" not in s.operators), ("length", False)),
                                               limit=whole_number(s)))
    if "gap" in s.computed and base.join("elita") and base.join("sentix"):  # "dove ELITA e Sentix sono più in
        k = whole_number(s, None)  # disaccordo": the words by the distance between their two values
        plans += [base.with_block(columns=shown, order=(("gap", True), ("italianWord", False)), limit=k or 10)
                  for shown in (("italianWord", "gap"), ("italianWord", "elitaValue", "sentixValue", "gap"))]
    if "length" in s.computed and "top" in s.operators:
        k = whole_number(s)
        longest = "ascending" not in s.operators
        for shown in (("italianWord", "length"), ("italianWord",)):
            plans.append(base.with_block(columns=shown, order=(("length", longest), ("italianWord", False)), limit=k))
        if whole_number(s, None) is None:  # "i lemmi più lunghi, e di quanti caratteri": every one of that length
            plans += [base.with_block(operator="extreme", columns=shown, order=(("length", longest),))
                      for shown in (("italianWord", "length"), ("italianWord",))]
    return plans


def compared(base: Plan, s: Signals) -> list[Plan]:
    """"ELITA è più negativo di Sentix": the words whose one value is above (below) the other, both shown; or
    whether a named word's is ("Sentix dà a felicità un punteggio più alto di ELITA?")."""
    found = next((c for c in s.computed if c in _COMPARED), None)
    if not found or not (base.join("elita") and base.join("sentix")) or base.senses is not None:
        return []
    left, op, right = _COMPARED[found]
    kept = base.with_block(filters=base.filters + (Filter(left, "compare", right, op),))
    plans = [kept.with_block(operator="ask", columns=())] if "ask" in s.operators else []
    plans += [kept.with_block(columns=shown) for shown in (("italianWord", "elitaValue", "sentixValue"),
                                                            ("italianWord",))]
    return plans + [kept.with_block(columns=("italianWord", f"{d}Word", "elitaValue", "sentixValue"))
                    for d in ("sicilian", "parmigiano") if base.join(d)]


def per_affix(base: Plan, s: Signals, counted: str) -> list[Plan]:
    """"Per ciascun prefisso tra ri-, dis- e s-, quanti verbi e che polarità media": a group per named affix (each
    of a VALUES list, so a word counts under every one it has), its count, mean value and threshold."""
    either = alternatives(s.affixes)
    regex = next((f for f in base.filters if f.kind == "regex" and f.value == either), None)
    threshold = first_whole(s)
    thresholded = threshold is not None and s.comparison and not s.length  # "quali danno almeno 100 lemmi"
    if regex is None or not (s.operators & {"count", "group", "average", "top"} or thresholded):
        return []
    kind = "prefix" if either.startswith("^") else "suffix"
    named = "|".join(v for k, v in s.affixes if k == kind)
    grouped = base.with_block(filters=tuple(Filter(regex.role, f"{kind}_in", named) if f is regex else f
                                            for f in base.filters), operator="group", columns=(kind,))
    count = Aggregate("count", counted, "count", distinct=True)
    value = "sentixValue" if base.join("sentix") and base.join("elita") else "polarityValue" if any(
        j.resource in ("elita", "sentix") and j.mode == "has" for j in base.joins) else None
    shown = [(count, Aggregate("avg", value, "average")), (Aggregate("avg", value, "average"),)] \
        if "average" in s.operators and value else []
    plans = [grouped.with_block(aggregates=a) for a in shown + [(count,)]]
    if thresholded:
        plans += [p.with_block(having=Filter("count", "value", threshold, bound_op(s, "="))) for p in plans
                  if p.aggregates[0] == count]
    return plans


def _endings(base: Plan, s: Signals, key: str, counted: str) -> list[Plan]:
    """Words per ending of n letters, the most frequent first (a word of n letters or fewer is its own ending: left
    out, and kept); k is the number that is not n."""
    n = int(key[-1])
    per_ending = base.with_block(operator="group", columns=(key,), aggregates=(
        Aggregate("count", counted, "count", distinct=True),))
    longer = per_ending.with_block(filters=base.filters + (Filter("italianWord", "length", n, ">"),))
    if not s.operators & {"top", "descending"}:
        return [g for grouped in (longer, per_ending) for g in (grouped.with_block(order=((key, False),)), grouped)]
    # numbers are read once: "le 3 terminazioni di 3 lettere" leaves no other than n, so n may be k too
    k = next((int(x) for x in s.numbers if x >= 1 and x == int(x) and x != n), None)
    order = (("count", "ascending" not in s.operators), (key, False))
    return [grouped.with_block(order=order, limit=limit) for grouped in (longer, per_ending)
            for limit in ((k, None) if k else (None, n))]


def statistics(base: Plan, s: Signals, role: str, suffix: str = "") -> list[Plan]:
    """The minimum, maximum or mean of a value over the set ("la lunghezza minima e massima dei nomi", "il valore
    di polarità massimo"): all asked in one row, each alone after, and per a key the question names ("per ogni parte
    del discorso, la lunghezza massima")."""
    funcs = [f for f in ("min", "max") if f in s.operators] + (["avg"] if "average" in s.operators else [])
    if role == "length" and ("length" not in s.keys or base.words.bank != "italian" or base.words.forms or (
            base.senses is not None and not base.senses.linked)):
        return []
    if not funcs:
        return []
    aggregates = tuple(Aggregate(f, role, "average" if f == "avg" and role == "length" else f"{f}{suffix or 'Value'}")
                       for f in funcs)
    plans = []
    several = len(base.words.pos) > 1 and not base.words.every_pos  # "per sostantivi, verbi e aggettivi": each one
    if "group" in s.operators or several:
        named = [k for k in ("pos", "emotionLabel", "polarity") if k in s.keys] or ["pos"]
        plans += [base.with_block(operator="group", columns=(key,), aggregates=aggregates, order=((key, False),))
                  for key in named[:2] if key != "pos" or not base.words.pos or several]
    plans.append(base.with_block(operator="count", columns=(), aggregates=aggregates))
    if len(aggregates) > 1:
        plans += [base.with_block(operator="count", columns=(), aggregates=(a,)) for a in aggregates]
    return plans


_COMPARED = {f"{a}Value{op}{b}Value": (f"{a}Value", op, f"{b}Value") for a, b in (("elita", "sentix"), ("sentix", "elita"))
             for op in "<>"}
# Columns a word may have several values of (an entry's emotions, a word's translations, definitions, related
# words): in a per-word entry they are the ones put in one cell, the others are the entry's keys.
MANY = frozenset({"emotionLabel", "emotion", "sicilianWord", "parmigianoWord", "definition", "example",
                  *(role for _, _, role in RELATIONS.values())})


def concatenated(base: Plan, s: Signals, shown_sets: list[tuple[str, ...]]) -> list[Plan]:
    """"Ogni parola con le sue emozioni separate da virgola": per the first column, the others in one cell (one row
    with no key for a named word's own values); and a per-word entry: the single-valued columns as keys, each
    several-valued one in one cell ("emozioni raggruppate e, se c'è, il punteggio Sentix"), with their count when a
    count is asked ("quante traduzioni ha ciascuno, e quali")."""
    if not s.concat:
        return []
    plans = []
    for shown in shown_sets[:4]:
        key, listed = (shown[:1], shown[1:]) if len(shown) > 1 else ((), shown)
        if key and base.words.forms and len(base.words.forms) == 1 and key == ("italianWord",):
            key = ()  # the named word's values: one row
        aggregates = tuple(Aggregate("group_concat", r, f"{r}List", distinct=True) for r in listed)
        plans.append(base.with_block(operator="group" if key else "count", columns=key, aggregates=aggregates))
        if not key and "count" in s.operators and len(listed) == 1:  # "di quante parti è fatto, elencale in una riga"
            plans.append(base.with_block(operator="count", columns=(), aggregates=(
                Aggregate("count", listed[0], "count", distinct=True),) + aggregates))
        if len(shown) == 2 and "group" in s.operators:  # "per ogni emozione, le sue parole": the last one the key
            plans.append(base.with_block(operator="group", columns=shown[1:], aggregates=(
                Aggregate("group_concat", shown[0], f"{shown[0]}List", distinct=True),)))
        plans += _entries(base, s, shown)
    return plans


def _entries(base: Plan, s: Signals, shown: tuple[str, ...]) -> list[Plan]:
    """Per word, its several-valued columns in one cell each (or one of them, the others kept as keys)."""
    many, original = [r for r in shown[1:] if r in MANY], shown
    elita = base.join("elita")
    if not many and elita is not None and elita.mode == "has" and "emotionLabel" in s.asks + s.keys:
        value = "elitaValue" if base.join("sentix") else "polarityValue"  # "emozioni raggruppate": its emotions
        shown, many = tuple("emotionLabel" if r == value else r for r in shown), ["emotionLabel"]
    if not many or len(shown) < 2:
        return []
    plans = []
    for listed in unique([tuple(many)] + [(m,) for m in many] if len(many) > 1 else [tuple(many)]):
        keys = tuple(r for r in shown if r not in listed)
        if shown == original and keys == shown[:1] and len(listed) == len(shown) - 1:
            continue  # the first column as the key: made above
        entry = base.with_block(operator="group", columns=keys, aggregates=tuple(
            Aggregate("group_concat", r, f"{r}List", distinct=True) for r in listed))
        plans.append(entry)
    threshold = first_whole(s)
    if "count" in s.operators or threshold is not None and s.comparison and not s.length:
        # "quante traduzioni parmigiane ha ciascuno, e quali?", "con almeno quattro traduzioni: numero e lista"
        listed = many[0]
        keys = tuple(r for r in shown if r != listed)
        counted = Aggregate("count", listed, "count", distinct=True)
        entry = base.with_block(operator="group", columns=keys, aggregates=(
            counted, Aggregate("group_concat", listed, f"{listed}List", distinct=True)))
        plans.append(entry)
        if threshold is not None and s.comparison:
            plans.append(entry.with_block(having=Filter("count", "value", threshold, bound_op(s, "="))))
    return plans
