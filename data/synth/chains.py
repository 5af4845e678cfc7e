"""Synthetic follow-up chains: a list question about a word set, then a follow-up that counts it, narrows it to a
part of speech, or asks for the first or the longest k; both turns are composed from the same set, run and kept
like single pairs. The follow-up's standalone question is the generator's own wording of the second set, so a
chain teaches the rewrite and the chat mode alike. Written in the format of `data/followup/chains.jsonl`."""

from __future__ import annotations

import copy
import functools
import json
import random
import re
from pathlib import Path

from nl2sparql.data.synth.compose import (_body, _candidate, _choose_filter, _choose_modes, _wants_filter, draw_set,
                                          show_joined)
from nl2sparql.data.synth.keep import Keeper
from nl2sparql.data.synth.pools import CORE_POS, Pools
from nl2sparql.data.synth.rules import RULES_DIR, Candidate, Rules
from nl2sparql.data.synth.text import fill, keeps_slots, sentence

CHAINS_FILE = "chains.jsonl"


@functools.lru_cache(maxsize=2)
def load_followups(folder: Path = RULES_DIR) -> dict:
    return json.loads((folder / "followups.json").read_text(encoding="utf-8"))["followups"]


def compose_chain(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> dict | None:
    """A two-turn chain (not yet run): its language, kind, the two candidates and the follow-up's wording."""
    name, spec = rng.choice(sorted(load_followups().items()))
    first = draw_set(pools, rng, cache, rng.choices([1, 2], weights=[3, 2])[0])
    if first is None:
        return None
    first.group_key = "pos"
    _choose_modes(first, "list", rng)
    show_joined(rules, first)
    if _wants_filter(first, rules.forms["list"], rng):
        _choose_filter(rules, pools, first, rng, corrupt=False, cache=cache)
    second, values = copy.deepcopy(first), {}
    if name.startswith("restrict"):
        options = sorted(first.witness.pos & set(CORE_POS))
        if first.head is not None or not options:  # a word class already names its part of speech
            return None
        first.pos, second.pos = None, rng.choice(options)
        head = rules.heads[second.pos]
        values = {"it": {"head": head["it"], "art": head["art"]}, "en": {"head": head["en"], "art": "the"}}
    turns = []
    for chosen, form_name in ((first, "list"), (second, spec["form"])):
        form = rules.forms[form_name]
        turns.append(_candidate(rules, chosen, form_name, form, _body(rules, chosen, form), rng))
    limit = re.search(r"LIMIT (\d+)", turns[1].sparql)
    language = rng.choice(["it", "en"])
    slots = dict(values.get(language, {}), **({"k": limit.group(1)} if limit else {}))
    wording = sentence(fill(rng.choice(spec[language]), slots))
    if not keeps_slots(wording, [str(v) for k, v in slots.items() if k in ("k", "head")]):
        return None
    return {"language": language, "kind": spec["kind"], "name": name, "turns": turns, "wording": wording}


def keep_chain(keeper: Keeper, chain: dict) -> str | None:
    """Run both turns; the reason the chain is dropped, or None when both answers are kept."""
    for candidate in chain["turns"]:
        _, reason = keeper.judge(candidate)
        if reason is not None:
            return reason
    return None


def chain_record(chain: dict, seed: int, index: int) -> dict:
    """A line of chains.jsonl, in the curated chains' format (split train, source synth)."""
    language, (first, second) = chain["language"], chain["turns"]
    question = (lambda c: c.question_it if language == "it" else c.question_en)
    return {"id": f"syc-{seed}-{index:05d}", "language": language, "split": "train", "source": "synth",
            "shape": chain["name"],
            "turns": [_turn(question(first), "first", first, None),
                      _turn(chain["wording"], chain["kind"], second, question(second))]}


def _turn(question: str, kind: str, candidate: Candidate, standalone: str | None) -> dict:
    turn = {"question": question, "kind": kind, "sparql": candidate.sparql,
            "answer_variables": {"answer": list(candidate.answer), "ids": list(candidate.ids),
                                 "aggregates": list(candidate.aggregates)}}
    return turn | ({"standalone": standalone} if standalone else {})
