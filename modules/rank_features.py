"""What the ranker reads of a (question, candidate plan) pair: hashed sparse features and a few dense ones.

Sparse: the plan's blocks as tokens (`op:count`, `join:elita:has`, `pos:verb`, ...), each alone, crossed with the
question's words, and crossed with the signals the question gave the enumerator (`s.op:count`, `s.pos:2`, ...), so
a weight can say "quanti + count" or "two parts of speech named + a VALUES of two". Agreement tokens say, per kind of
signal, whether the plan uses all, some or none of what the question named. Dense: the candidate's place in the
enumeration and the shape of its answer (rows, an ASK's boolean). Everything is a pure function of its inputs; the
hash is crc32, the same in every process.

Version 2 adds the size of the executed answer as a token (no rows, one, a few, a page, many, an ASK), crossed with
the question's words, its signals and the plan's operator, so a weight can say "quale emozione + one or two rows";
and the signals the enumerator grew after version 1 (`inclusive`, `lacking`, `keys`, `concat`, ...), with their
agreement with the plan. A ranker keeps the version it was trained on (`Ranker.features_version`): versions trained
on version 1 score as before.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

from nl2sparql.data.plans.model import Plan

HASH_BITS = 18
FEATURES_VERSION = 2  # what a ranker trains on now; rankers of every version in KNOWN_VERSIONS still load
KNOWN_VERSIONS = (1, 2)
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


_FLAGS = ("optional", "single_word", "inclusive", "between", "authentic", "same_form", "quoted", "only", "asks_type",
          "any_case", "several_counts", "bank_link", "every_pos", "defined", "either", "concat")
_GROUPED = ("group", "count_groups", "average_groups", "max_groups", "min_groups", "average_max_groups")


def later_signal_tokens(s) -> list[str]:
    """Version 2: the signals added to the enumerator after version 1's features were fixed."""
    tokens = [f"s.{name}" for name in _FLAGS if getattr(s, name, False)]
    tokens += [f"s.keys:{k}" for k in s.keys] + [f"s.lacking:{r}" for r in s.lacking] + [f"s.asks:{a}" for a in s.asks]
    tokens += [f"s.computed:{c}" for c in s.computed] + [f"s.bound:{b}" for _, b in s.bounds]
    named = {"without": s.without, "without_pos": s.without_pos, "definition": s.definition, "iris": s.iris}
    tokens += [f"s.{name}" for name, value in named.items() if value]
    tokens += ["s.letters"] if s.letters is not None else []
    return tokens


def later_plan_tokens(plan: Plan) -> list[str]:
    """Version 2: blocks version 1 left unsaid (per-key steps, a strict or inclusive bound, a one-cell list, ...)."""
    tokens = [f"per:{k}" for k in plan.per] + [f"gcat:{any(a.func == 'group_concat' for a in plan.aggregates)}"]
    tokens += ["every_pos"] if plan.words.every_pos else []
    tokens += ["without_pos"] if plan.words.without_pos else []
    tokens += ["senses_absent"] if plan.senses is not None and plan.senses.absent else []
    tokens += ["jonly" for j in plan.joins if j.only] + ["any_emotion" for j in plan.joins if j.any_emotion]
    for f in [*plan.filters, *([plan.having] if plan.having else [])]:
        tokens.append(f"opclass:{_op_class(f.op)}")
    return tokens


def _op_class(op: str) -> str:
    return "inclusive" if op in (">=", "<=") else "strict" if op in (">", "<") else "equal"


def later_agreement_tokens(plan: Plan, s) -> list[str]:
    """Version 2: do the resources the question negates, its inclusive bound, its one-cell list, its group keys and
    the columns it asks for alone meet the plan's?"""
    absent = {j.resource for j in plan.joins if j.mode.startswith("absent")}
    absent |= {"complit"} if plan.senses is not None and plan.senses.absent else set()
    ops = {_op_class(f.op) for f in [*plan.filters, *([plan.having] if plan.having else [])]}
    bound = "inclusive" if "inclusive" in ops else "strict" if "strict" in ops else "none"
    keys = set(plan.columns) if plan.operator in _GROUPED or plan.aggregates else set()
    concat = any(a.func == "group_concat" for a in plan.aggregates)
    return [f"agree:lacking:{_share(set(s.lacking), absent)}", f"agree:inclusive:{s.inclusive}:{bound}",
            f"agree:concat:{s.concat}:{concat}", f"agree:keys:{_share(set(s.keys), keys)}",
            f"agree:asks:{_share(set(s.asks), set(plan.columns))}"]


def answer_size(rows: int, boolean: bool | None) -> str:
    """The executed answer's size as a token: an ASK, no rows, one, a few, a page, many."""
    if boolean is not None:
        return "rows:ask"
    return "rows:" + ("0" if rows == 0 else "1" if rows == 1 else "2-5" if rows <= 5 else "6-30" if rows <= 30
                      else "31-200" if rows <= 200 else "201+")


def question_words(question: str) -> list[str]:
    words = [w for w in _WORD.findall(question.lower()) if w not in _STOP]
    return list(dict.fromkeys(w[:6] for w in words))  # a 6-letter stem: "contare", "conta" and "contati" meet


def _index(text: str) -> int:
    return zlib.crc32(text.encode("utf-8")) & ((1 << HASH_BITS) - 1)


def pair_features(question: str, signals, plan: Plan | None, *, rank: int, rows: int, boolean: bool | None,
                  generator: bool = False, version: int = FEATURES_VERSION) -> PairFeatures:
    """The features of one candidate; `plan` None for a generator query no plan can say (dense features only);
    `version` the ranker's (`KNOWN_VERSIONS`)."""
    blocks = plan_tokens(plan) if plan is not None else ["unparsed"]
    agree = agreement_tokens(plan, signals) if plan is not None else []
    sig = signal_tokens(signals)
    words = question_words(question)
    names = [f"b|{b}" for b in blocks] + [f"a|{a}" for a in agree]
    names += [f"s|{t}|{b}" for t in sig for b in blocks] + [f"s|{t}|{a}" for t in sig for a in agree]
    names += [f"q|{q}|{b}" for q in words for b in blocks]
    if version >= 2 and plan is not None:
        later, later_sig, later_agree = later_plan_tokens(plan), later_signal_tokens(signals), \
            later_agreement_tokens(plan, signals)
        names += [f"b|{b}" for b in later] + [f"a|{a}" for a in later_agree]
        names += [f"s|{t}|{b}" for t in later_sig for b in blocks + later]
        names += [f"s|{t}|{a}" for t in sig + later_sig for a in later_agree]
        names += [f"s|{t}|{b}" for t in sig for b in later] + [f"q|{q}|{b}" for q in words for b in later]
        size = answer_size(rows, boolean)
        names += [size, f"{size}|op:{plan.operator}"] + [f"s|{t}|{size}" for t in sig]
        names += [f"q|{q}|{size}" for q in words]
    dense = (float(rank == 0), 1.0 / (1.0 + rank), math.log1p(rows) / 5.0, float(rows == 0 and boolean is None),
             float(rows == 1), float(boolean is True), float(boolean is False), len(blocks) / 20.0, float(generator))
    return PairFeatures(tuple(_index(n) for n in names), dense)
