"""What the ranker reads of a (question, candidate plan) pair: hashed sparse features and a few dense ones.

Sparse: the plan's blocks as tokens (`op:count`, `join:elita:has`, `pos:verb`, ...), each alone, crossed with the
question's words, and crossed with the signals the question gave the enumerator (`s.op:count`, `s.pos:2`, ...), so
a weight can say "quanti + count" or "two parts of speech named + a VALUES of two". Agreement tokens say, per kind of
signal, whether the plan uses all, some or none of what the question named. Dense: the candidate's place in the
enumeration and the shape of its answer (rows, an ASK's boolean). Everything is a pure function of its inputs; the
hash is crc32, the same in every process.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

from nl2sparql.data.plans.model import Plan

HASH_BITS = 18
FEATURES_VERSION = 1
DENSE = ("first", "rank", "log_rows", "no_rows", "one_row", "ask_true", "ask_false", "blocks", "generator")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_STOP = {"the", "a", "an", "of", "in", "il", "la", "lo", "le", "gli", "i", "di", "del", "della", "dei", "delle",
         "degli", "e", "and", "to", "che", "is", "are", "è", "sono", "un", "una", "per", "for", "with", "con"}


@dataclass(frozen=True)
class PairFeatures:
    sparse: tuple[int, ...]  # hashed indices (repeats add up)
    dense: tuple[float, ...]  # in the order of DENSE


def plan_tokens(plan: Plan) -> list[str]:
    """The plan's blocks as short tokens, values left out where they are the question's own words."""
    w = plan.words
    tokens = [f"op:{plan.operator}", f"bank:{w.bank}", f"kind:{w.kind or 'any'}", f"forms:{min(len(w.forms), 3)}",
              f"pos:{len(w.pos)}", f"ncols:{min(len(plan.columns), 4)}", f"distinct:{plan.distinct}"]
    tokens += [f"pos:{p}" for p in w.pos] + [f"col:{c}" for c in plan.columns]
    tokens += [f"optional:{r}" for r in plan.optional_roles]
    if plan.meta:
        tokens.append(f"meta:{plan.meta}")
    for a in plan.aggregates:
        tokens += [f"agg:{a.func}", f"agg:{a.func}:{a.role}", f"agg:distinct:{a.distinct}"]
    if plan.senses is not None:
        s = plan.senses
        tokens += ["senses", f"spos:{s.pos or 'any'}", f"rel:{s.relation or 'none'}", f"depth:{s.depth}",
                   f"related_form:{bool(s.related_form)}", f"linked:{s.linked or 'no'}", f"defined:{s.defined}"]
        tokens += [f"requires:{r}" for r in s.requires]
    for j in plan.joins:
        tokens += [f"join:{j.resource}", f"join:{j.resource}:{j.mode}", f"emotions:{min(len(j.emotions), 2)}"]
        tokens += [f"polarity:{j.polarity}"] if j.polarity else []
        tokens += [f"jform:{j.resource}"] if j.form else []
        tokens += [f"jpos:{j.pos}"] if j.pos else []
        tokens += [f"jrel:{j.relation}"] if j.relation else []
        tokens += [f"without:{len(j.without_emotions)}"] if j.without_emotions else []
        tokens += ["note:any" if j.note == "" else "note:text"] if j.note is not None else []
        tokens += ["entries_only"] if j.entries_only else []
    for f in plan.filters:
        tokens += [f"filter:{f.kind}", f"filter:{f.kind}:{f.role}", f"filter:{f.kind}:{f.op}:{f.negated}"]
    if plan.having is not None:
        tokens += ["having", f"having:{plan.having.op}"]
    for role, descending in plan.order:
        tokens += [f"order:{'desc' if descending else 'asc'}", f"order:{role}"]
    if plan.limit is not None:
        tokens.append(f"limit:{'1' if plan.limit == 1 else 'k'}")
    return tokens


def signal_tokens(s) -> list[str]:
    """What the question told the enumerator, as tokens (`retrieval.signals.Signals`)."""
    tokens = [f"s.op:{o}" for o in sorted(s.operators)] + [f"s.res:{r}" for r in s.resources]
    tokens += [f"s.rel:{r}" for r in s.relations] + [f"s.affix:{k}" for k, _ in s.affixes]
    tokens += [f"s.forms:{min(len(s.forms), 3)}", f"s.pos:{min(len(s.pos), 3)}", f"s.emotions:{min(len(s.emotions), 2)}",
               f"s.polarity:{min(len(s.polarity), 2)}", f"s.numbers:{min(len(s.numbers), 2)}",
               f"s.dialect_forms:{min(len(s.dialect_forms), 2)}"]
    flags = ("length", "values", "exactly", "any_depth", "examples")
    tokens += [f"s.{name}" for name in flags if getattr(s, name)]
    tokens += [f"s.cmp:{s.comparison}"] if s.comparison else []
    tokens += [f"s.kind:{s.lemma_kind}"] if s.lemma_kind else []
    tokens += ["s.notes"] if s.notes else []
    tokens += [f"s.catalog:{c}" for c in s.catalogs]
    return tokens or ["s.none"]


def _share(named: set, used: set) -> str:
    if not named:
        return "unnamed" if not used else "unnamed_used"
    hit = len(named & used)
    return "all" if hit == len(named) else "some" if hit else "none"


def agreement_tokens(plan: Plan, s) -> list[str]:
    """Per kind of signal: does the plan use all, some or none of what the question named?"""
    emotions = {e for j in plan.joins for e in j.emotions}
    forms = set(plan.words.forms) | ({plan.senses.related_form} if plan.senses and plan.senses.related_form else set())
    dialect = {(j.resource, j.form) for j in plan.joins if j.form}
    resources = {j.resource for j in plan.joins} | ({"complit"} if plan.senses is not None else set())
    if plan.words.bank != "italian":
        resources.add(plan.words.bank)
    polarity = {j.polarity.lower() for j in plan.joins if j.polarity}
    relation = {plan.senses.relation.split("-")[0]} if plan.senses and plan.senses.relation else set()
    affix_values = {str(f.value) for f in plan.filters if f.kind in ("prefix", "suffix", "contains", "regex")}
    numbers = {float(f.value) for f in [*plan.filters, *([plan.having] if plan.having else [])]
               if isinstance(f.value, (int, float))} | ({float(plan.limit)} if plan.limit else set())
    pairs = {"forms": (set(s.forms), forms), "pos": (set(s.pos), set(plan.words.pos)),
             "emotions": (set(s.emotions), emotions), "dialect": (set(s.dialect_forms), dialect),
             "resources": ({r for r in s.resources if r != "liita"}, resources),
             "polarity": ({p.lower() for p in s.polarity}, polarity),
             "relation": ({r.split("-")[0] for r in s.relations}, relation),
             "affix": ({v for _, v in s.affixes}, affix_values), "numbers": (set(map(float, s.numbers)), numbers)}
    return [f"agree:{name}:{_share(named, used)}" for name, (named, used) in pairs.items()]


def question_words(question: str) -> list[str]:
    words = [w for w in _WORD.findall(question.lower()) if w not in _STOP]
    return list(dict.fromkeys(w[:6] for w in words))  # a 6-letter stem: "contare", "conta" and "contati" meet


def _index(text: str) -> int:
    return zlib.crc32(text.encode("utf-8")) & ((1 << HASH_BITS) - 1)


def pair_features(question: str, signals, plan: Plan | None, *, rank: int, rows: int, boolean: bool | None,
                  generator: bool = False) -> PairFeatures:
    """The features of one candidate; `plan` None for a generator query no plan can say (dense features only)."""
    blocks = plan_tokens(plan) if plan is not None else ["unparsed"]
    agree = agreement_tokens(plan, signals) if plan is not None else []
    sig = signal_tokens(signals)
    names = [f"b|{b}" for b in blocks] + [f"a|{a}" for a in agree]
    names += [f"s|{t}|{b}" for t in sig for b in blocks] + [f"s|{t}|{a}" for t in sig for a in agree]
    names += [f"q|{q}|{b}" for q in question_words(question) for b in blocks]
    dense = (float(rank == 0), 1.0 / (1.0 + rank), math.log1p(rows) / 5.0, float(rows == 0 and boolean is None),
             float(rows == 1), float(boolean is True), float(boolean is False), len(blocks) / 20.0, float(generator))
    return PairFeatures(tuple(_index(n) for n in names), dense)
