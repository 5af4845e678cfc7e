"""The filter blocks a question's signals allow on a word set: affixes, lengths and polarity values (one tuple a
candidate reading), a CompL-it definition's words, LiITA's own lemma IRIs, a dialect word written as its Italian one,
and a named form in any case."""

from __future__ import annotations

import re
from dataclasses import replace

from nl2sparql.data.plans.model import Filter, Plan, Senses, Words
from nl2sparql.kb.vocab import LIITA_LEMMA
from nl2sparql.retrieval.column_blocks import DIALECTS
from nl2sparql.retrieval.signals import Signals


def definition_filters(s: Signals, senses: Senses | None) -> list[Filter]:
    """The filters on a CompL-it definition the question asks for, one at a time (each a candidate reading)."""
    if senses is None or "definition" not in senses.requires:
        return []
    plain = [Filter("definition", kind, value) for kind, value in s.definition[:4]]
    # "una definizione che comincia con «strumento»" also finds "Strumento per …": the first read in any case too
    return plain + [replace(f, fold=True) for f in plain[:1] if f.kind in ("prefix", "contains") and f.value.islower()]


def same_form_filters(s: Signals, plan: Plan) -> tuple[Filter, ...]:
    """"Le traduzioni siciliane scritte esattamente come la parola italiana": a dialect word written as its Italian
    one (the first dialect joined)."""
    dialect = next((j.resource for j in plan.joins if j.resource in DIALECTS and j.mode == "has"), None)
    if not s.same_form or dialect is None or plan.words.bank != "italian":
        return ()
    return (Filter(f"{dialect}Word", "same_as", "italianWord"),)


def authentic_filters(s: Signals, plan: Plan) -> list[tuple[Filter, ...]]:
    """"Lemmi LiITA autentici": the lemmas with LiITA's own IRIs (or, asked what lacks one, the others)."""
    if not s.authentic or plan.words.bank != "italian" or (plan.senses is not None and not plan.senses.linked):
        return [()]
    authentic = Filter("lemma", "iri_prefix", LIITA_LEMMA)
    return [(authentic,)] + ([(replace(authentic, negated=True),)] if "absent" in s.operators else [])


def alternatives(affixes: tuple) -> str | None:
    """Several affixes of one kind ("-are, -ere, -ire"): one regular expression for any of them."""
    kinds = [k for k, _ in affixes]
    kind = next((k for k in ("suffix", "prefix") if kinds.count(k) > 1), None)
    if kind is None:
        return None
    values = "|".join(re.escape(v) for k, v in affixes if k == kind)
    return f"^({values})" if kind == "prefix" else f"({values})$"


def any_case_filters(s: Signals, words: Words) -> tuple[Filter, ...]:
    """"Roma, con o senza maiuscola": on a set with no named form, the form that lower-cases to the named one."""
    if not s.any_case or not s.forms or words.forms or words.bank != "italian":
        return ()
    return (Filter("italianWord", "equals", s.forms[0].lower(), fold=True),)


MAX_LENGTH = 40


def filter_sets(s: Signals, word_role: str, value_role: str | None) -> list[tuple[Filter, ...]]:
    if s.any_case:  # "con o senza maiuscola" names no capital letter to filter on
        s = replace(s, affixes=tuple(a for a in s.affixes if a != ("regex", "^[A-Z]")))
    filters = [Filter(word_role, kind.removeprefix("not_"), value, negated=kind.startswith("not_"))
               for kind, value in s.affixes[:2]]
    filters += [Filter(word_role, "contains", " ", negated=True)] if s.single_word else []
    either = alternatives(s.affixes)
    if either:  # "finiscono in -are, in -ere o in -ire": any of them, before all of them at once
        return [(Filter(word_role, "regex", either),)]
    # a length of more than 40 letters is no Italian word's: "per quali lunghezze ci sono più di 500 aggettivi" counts
    lengths = sorted((n for n in s.numbers if 1 <= n <= MAX_LENGTH and n == int(n)), key=lambda n: n != s.letters)
    thresholds = [n for n in s.numbers if abs(n) <= 1 and (n != int(n) or s.values or s.exactly)]
    if s.between and s.length and len(lengths) == 2:  # "tra 3 e 5 lettere": both bounds pass
        filters += [Filter(word_role, "length", min(lengths), ">="), Filter(word_role, "length", max(lengths), "<=")]
    other = None  # "almeno 15 lettere" passes 15 itself, "più di 15" does not: the other bound is tried after
    if not (s.between and s.length and len(lengths) == 2) and s.length and lengths:
        op = bound_op(s, "=", lengths[0])
        other = {">=": ">", ">": ">=", "<": "<=", "<=": "<"}.get(op)
        if op == "<" and not s.inclusive and lengths[0] not in dict(s.bounds):
            op, other = "<=", "<"  # the reading kept before: "<=" first
        filters.append(Filter(word_role, "length", lengths[0], op))
    if value_role and s.between and len(thresholds) == 2:  # "polarità compresa tra 0.2 e 0.4"
        filters += [Filter(value_role, "value", min(thresholds), ">="), Filter(value_role, "value", max(thresholds),
                                                                              "<=")]
    elif value_role and thresholds:  # "sopra 0,5" leaves 0.5 out, "almeno 0,5" keeps it: the other bound after
        value_op = "=" if s.exactly else bound_op(s, ">=", thresholds[0])
        filters.append(Filter(value_role, "value", thresholds[0], value_op))
        other = other or ({">": ">=", "<": "<="}.get(value_op) if s.comparison and not s.inclusive else None)
    # "contiene la banca dei lemmi": a word after "contains" may name no letters at all
    loose = s.affixes and all(kind == "contains" and len(value) >= 4 for kind, value in s.affixes)
    sets = [tuple(filters)] + ([()] if filters and (loose or not s.affixes) and not s.length else [])
    if "absent" in s.operators and s.affixes:  # "avverbi che non finiscono in -mente": the affix negated
        sets.append(tuple(replace(f, negated=True) if f.kind != "value" else f for f in filters))
    if other:
        bounded = "length" if s.length and lengths else "value"
        sets.append(tuple(replace(f, op=other) if f.kind == bounded else f for f in filters))
    return sets


def bound_op(s: Signals, default: str, number: float | None = None) -> str:
    """The comparison a threshold is read with: ">" or "<" for "più di", "sopra", "below"; ">=" or "<=" when the
    bound itself passes ("almeno", "pari o superiore"); the number's own bound when its clause names one ("al massimo
    6 lettere e polarità almeno 0,6"); `default` when the question names no side."""
    own = dict(s.bounds).get(number) if number is not None else None  # "(7 letters max)": its own, even alone
    if own:
        return own
    if s.comparison is None:
        return default
    return s.comparison if s.inclusive else s.comparison.rstrip("=")


def first_whole(s: Signals) -> float | None:
    """The first whole number ≥ 1 the question names, as read (a count threshold: "almeno 100 lemmi")."""
    return next((n for n in s.numbers if n >= 1 and n == int(n)), None)


def whole_number(s: Signals, default: int | None = 1) -> int | None:
    """The first whole number ≥ 1 the question names (a k, a threshold), else `default`."""
    whole = [n for n in s.numbers if n >= 1 and n == int(n)]
    return next((int(n) for n in whole if n != s.letters or len(whole) == 1), default)  # a length's number is no k
