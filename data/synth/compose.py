"""Questions about a set of words: lemma-bank words joined on ?lemma with up to three resources, narrowed by a
part of speech and a filter on the written form, then asked in one of the forms (list, count, ASK, absence, …).

Values come from a witness: a lemma that has every chosen resource, so most sets are not empty; a yes/no
question swaps the witness's filter value for another word's half the time, so both answers come."""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass, field

from nl2sparql.data.synth.pools import CORE_POS, Pools, WordFacts
from nl2sparql.data.synth.rules import RESOURCE_SLOTS, Candidate, Rules
from nl2sparql.data.synth.text import fill, indent, number_it, sentence, with_prefixes

ORDER = ("elita", "sentix", "sicilian", "parmigiano", "complit")
CLASS_SHARE = 0.6  # of the filtered sets with a part of speech, those asked about a word class when the word has one
LIST_FORMS = {"list", "some", "absent", "absent_minus", "optional", "top_polarity"}
PER_WORD_FORMS = ("per_word_avg", "per_word_top", "per_word_exact", "per_word_ask")


@dataclass
class _Set:
    resources: tuple[str, ...]
    witness: WordFacts
    modes: dict[str, str] = field(default_factory=dict)
    pos: str | None = None
    group_key: str | None = None
    extra: str | None = None
    slots: dict[str, object] = field(default_factory=dict)
    keep: list[str] = field(default_factory=list)
    filter_kind: str | None = None
    head: dict | None = None  # a word class's head ("verbi riflessivi"), in place of the part of speech's
    counted: str | None = None  # the resource a per-word count counts (its translations, emotions, senses)
    shown: set[str] = field(default_factory=set)  # resources a list shows as columns without naming them "with"


def compose_set(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> Candidate | None:
    chosen = draw_set(pools, rng, cache, rng.choices([0, 1, 2, 3], weights=[2, 5, 4, 1])[0])
    if chosen is None:
        return None
    form_name = rng.choice(_forms_for(rules, chosen, rng))
    form = rules.forms[form_name]
    _choose_modes(chosen, form_name, rng)
    if form_name in LIST_FORMS:
        show_joined(rules, chosen)
    corrupt = form_name == "ask" and rng.random() < 0.5
    if corrupt or _wants_filter(chosen, form, rng):
        _choose_filter(rules, pools, chosen, rng, corrupt=corrupt, cache=cache)
    body = _body(rules, chosen, form)
    return _candidate(rules, chosen, form_name, form, body, rng)


def draw_set(pools: Pools, rng: random.Random, cache: dict, count: int) -> _Set | None:
    """A set of `count` resources with a witness word that has them all; None when no word has them all."""
    resources = tuple(sorted(rng.sample(ORDER, count), key=ORDER.index))
    if resources not in cache:
        cache[resources] = pools.lemmas_with(resources)
    if not cache[resources]:
        return None
    return _Set(resources, pools.words[rng.choice(cache[resources])])


def show_joined(rules: Rules, chosen: _Set) -> None:
    """A list shows the value of each resource it is filtered by and marked `shown_in_lists` (a translation, a
    polarity value), as the curated records do."""
    chosen.shown = {r for r, mode in chosen.modes.items()
                    if mode in ("has", "fixed", "above") and rules.resources[r].get("shown_in_lists")}


def _forms_for(rules: Rules, chosen: _Set, rng: random.Random) -> list[str]:
    names = ["list", "list", "some", "count", "count", "ask", "ask", "longest"]
    missing = [r for r in ORDER if r not in chosen.resources]
    if missing:
        chosen.extra = rng.choice(missing)
        names += ["absent", "absent_minus", "count_absent", "optional"]
    if "sentix" in chosen.resources:
        names += ["top_polarity", "polarity_stat"]
    keys = [k for k, key in rules.group_keys.items() if key["needs"] in chosen.resources or key["needs"] == "pos"]
    chosen.group_key = rng.choice(keys)
    names += ["group", "having"]
    if not chosen.resources:
        names += ["count_all"]
    names += ["length_stat", "group_length", "length_range", "ending_top"] + (["share"] if missing else [])
    countable = [r for r in chosen.resources if "per_word" in rules.resources[r]]
    if countable:
        chosen.counted = rng.choice(countable)
        names += list(PER_WORD_FORMS)
    return names


def _choose_modes(chosen: _Set, form_name: str, rng: random.Random) -> None:
    listing = form_name in LIST_FORMS
    for resource in chosen.resources:
        options = ["has", "has"] + (["column"] if listing else [])
        if resource == "elita":
            options += ["fixed", "fixed"]
        if resource == "sentix":
            options += ["fixed", "above", "above"]
        mode = rng.choice(options)
        if mode == "column" and resource == "sentix" and form_name == "top_polarity":
            mode = "has"  # the form already selects and names the polarity value
        grouped = form_name in ("group", "having", "group_length")
        if grouped and chosen.group_key == "emotionLabel" and resource == "elita":
            mode = "key"
        if grouped and chosen.group_key == "polarity" and resource == "sentix":
            mode = "has"
        if form_name in PER_WORD_FORMS and resource == chosen.counted:
            mode = "counted"  # named by the count ("quante traduzioni siciliane"), not as a predicate
        chosen.modes[resource] = mode
    pos_options = sorted(chosen.witness.pos & set(CORE_POS))
    fix_pos = rng.random() < (0.8 if not chosen.resources else 0.5)
    grouped_by_pos = form_name in ("group", "having", "group_length") and chosen.group_key == "pos"
    if pos_options and fix_pos and not grouped_by_pos:
        chosen.pos = rng.choice(pos_options)


def _wants_filter(chosen: _Set, form: dict, rng: random.Random) -> bool:
    no_preds = not any(mode in ("has", "fixed", "above") for mode in chosen.modes.values())
    # A set with a part of speech is filtered more often: its filter may be a word class (_choose_class).
    share = 0.55 if chosen.pos else 0.4
    return not chosen.resources or (form.get("needs_preds") and no_preds) or rng.random() < share


def _choose_filter(rules: Rules, pools: Pools, chosen: _Set, rng: random.Random, *, corrupt: bool, cache: dict) -> None:
    word = chosen.witness.word
    if corrupt:
        cache.setdefault("plain", pools.plain_words())
        word = rng.choice(cache["plain"])
    if chosen.pos and rng.random() < CLASS_SHARE and _choose_class(rules, chosen, word, rng):
        return
    kind = rng.choice(["prefix", "prefix", "suffix", "suffix", "contains", "regex", "length", "longer"])
    size = rng.randint(2, min(4, len(word) - 1))
    if kind == "prefix":
        values = {"value": word[:size]}
    elif kind == "suffix":
        values = {"value": word[-size:]}
    elif kind == "contains":
        start = rng.randint(1, max(1, len(word) - 3))
        values = {"value": word[start:start + 2 + (len(word) > 6)]}
    elif kind == "regex":
        values = {"value": word[:1 + (len(word) > 5)], "value2": word[-2:]}
    elif kind == "length":
        values = {"value": len(word)}
    else:
        values = {"value": max(3, len(word) - rng.randint(1, 3))}
    chosen.filter_kind = kind
    chosen.slots.update(values)
    chosen.keep += [str(v) for v in values.values()]


def _choose_class(rules: Rules, chosen: _Set, word: str, rng: random.Random) -> bool:
    """A word class of the set's part of speech that the word belongs to (rules.json, filters.class): it becomes
    the head of the question ("verbi riflessivi", "action nouns in -zione"). False when the word is in none."""
    classes = [c for c in rules.filters["class"]["classes"]
               if c["pos"] == chosen.pos and re.search(c["match"], word)]
    if not classes:
        return False
    word_class = rng.choice(classes)
    chosen.filter_kind = "class"
    chosen.head = rng.choice(word_class["heads"])
    chosen.slots["class_filter"] = fill(word_class["sparql"], {})  # the rules' template escaping: $$ is $
    chosen.keep.append(word_class["keep"])
    return True


def _entry_name(rules: Rules, chosen: _Set, resource: str) -> str:
    dialects = [r for r in (*chosen.resources, chosen.extra) if r in ("sicilian", "parmigiano")]
    return rules.resources[resource]["entry"] if len(dialects) > 1 else "italianEntry"


def _block(rules: Rules, chosen: _Set, resource: str, mode: str, rng: random.Random | None = None) -> list[str]:
    spec = rules.resources[resource]
    key = {"column": "column_block", "key": "column_block", "fixed": "fixed_block",
           "above": "above_block"}.get(mode, "block")
    if mode == "has" and resource in chosen.shown:
        key = "column_block"
    slots = dict(chosen.slots, entry=spec.get("entry") and _entry_name(rules, chosen, resource))
    return fill(spec[key], slots).split("\n")


def _body(rules: Rules, chosen: _Set, form: dict) -> list[str]:
    witness = chosen.witness
    if chosen.modes.get("elita") == "fixed":
        emotion = sorted(witness.emotions)[0] if len(witness.emotions) == 1 else None
        chosen.slots["emotion"] = emotion or sorted(witness.emotions)[len(witness.word) % len(witness.emotions)]
    if chosen.modes.get("sentix") == "fixed":
        chosen.slots["polarity"] = witness.polarity_class
    if chosen.modes.get("sentix") == "above":
        _threshold(chosen)
    lines: list[str] = []
    for resource in chosen.resources:
        lines += _block(rules, chosen, resource, chosen.modes[resource])
    grouped_by_pos = chosen.group_key == "pos" and form.get("grouped")
    pos = f"lila:{chosen.pos}" if chosen.pos else ("?pos" if grouped_by_pos else None)
    if chosen.resources:
        lines.append("?lemma ontolex:writtenRep ?italianWord" + (f" ;\n    lila:hasPOS {pos} ." if pos else " ."))
    else:
        lines.append("GRAPH <http://liita.it/data> { ?lemma a lila:Lemma ; ontolex:writtenRep ?italianWord"
                     + (f" ; lila:hasPOS {pos} }}" if pos else " }"))
    if chosen.filter_kind:
        lines.append(fill(rules.filters[chosen.filter_kind]["sparql"], chosen.slots))
    return lines


def _threshold(chosen: _Set) -> None:
    value = chosen.witness.polarity or 0.0
    op = ">=" if value >= 0 else "<="
    bound = math.floor(value * 10) / 10 if value >= 0 else math.ceil(value * 10) / 10
    if abs(bound) >= 0.2 and bound not in (1.0, -1.0):
        op = {">=": ">", "<=": "<"}[op]
        bound = round(bound - 0.1 if op == ">" else bound + 0.1, 1)
    chosen.slots.update(op=op, threshold=bound)
    chosen.keep.append(str(bound))


def _candidate(rules: Rules, chosen: _Set, form_name: str, form: dict, body: list[str],
               rng: random.Random) -> Candidate:
    slots, words = dict(chosen.slots), _Words(rules, chosen, rng)
    columns = [rules.resources[r]["column"] for r, m in chosen.modes.items() if m == "column" or r in chosen.shown]
    extra_lines: list[str] = []
    if form.get("negate"):
        extra_lines = [form["negate"] + " {", *indent(_block(rules, chosen, chosen.extra, "has")), "}"]
    elif form.get("share"):  # the words of the set that also have the extra resource, counted against all
        extra_lines = ["OPTIONAL {", *indent([*_block(rules, chosen, chosen.extra, "has"), "BIND(?lemma AS ?covered)"]),
                       "}"]
    elif form.get("optional"):
        extra_lines = ["OPTIONAL {", *indent(_block(rules, chosen, chosen.extra, "column")), "}"]
        columns.append(rules.resources[chosen.extra]["column"])
    if form_name == "top_polarity":
        columns = [c for c in columns if c != "polarityValue"]
    key = rules.group_keys[chosen.group_key]
    slots.update(words.phrases(form_name), key=chosen.group_key, key_it=key["it"], key_en=key["en"],
                 key_pl_it=key["pl_it"], key_pl_en=key["pl_en"], key_by_it=key["by_it"], key_by_en=key["by_en"],
                 cols="".join(f" ?{c}" for c in columns))
    aggregates = list(form.get("aggregates", ()))
    if form_name == "polarity_stat":
        agg = rng.choice(sorted(rules.stats))
        slots.update(agg=agg, agg_var=rules.stats[agg][0], agg_it=rules.stats[agg][1], agg_en=rules.stats[agg][2])
        aggregates = [rules.stats[agg][0]]
    if form_name in ("length_stat", "group_length"):
        agg = rng.choice(sorted(rules.length_stats))
        var, agg_it, agg_en = rules.length_stats[agg]
        slots.update(agg=agg, agg_var=var, agg_it=agg_it, agg_en=agg_en)
        aggregates = [var]
    if form_name in PER_WORD_FORMS:
        counted = rules.resources[chosen.counted]["per_word"]
        slots.update(counted=counted["var"], count_var=counted["count_var"], avg_var=counted["avg_var"],
                     count_it=counted["it"], count_en=counted["en"], one_it=counted["one_it"],
                     one_en=counted["one_en"])
    if "${n}" in json.dumps(form):  # the length of a written form's ending
        slots["n"] = rng.choice([2, 3])
        slots["from_end"] = slots["n"] - 1
        words.keep.append(str(slots["n"]))
    one = ""
    if "${k}" in json.dumps(form):
        slots["k"] = rng.choice({"having": [1, 2, 3, 5, 10, 20], "per_word_exact": [1, 1, 2, 3],
                                 "per_word_ask": [2, 3, 5]}.get(form_name, [3, 5, 10]))
        one = "_one" if slots["k"] == 1 and "it_one" in form else ""  # "una sola traduzione", not "1 traduzioni"
        if not one:
            words.keep.append(str(slots["k"]))
    if form_name == "top_polarity":
        slots["dir"], slots["extreme_it"], slots["extreme_en"] = rng.choice(
            [("DESC", "alta", "highest"), ("ASC", "bassa", "lowest")])
    extra_lines += [fill(line, slots) for line in form.get("bind", ())]
    head = fill(form["select"], slots)
    where = ("ASK {" if form["form"] == "ASK" else head + " WHERE {")
    modifiers = [fill(form["modifiers"], slots)] if form.get("modifiers") else []
    if form.get("inner"):  # a per-word count inside, its statistic outside
        inner = [fill(form["inner"], slots) + " WHERE {", *indent(body + extra_lines), "}",
                 *fill(form["inner_modifiers"], slots).split("\n")]
        query = "\n".join([where, *indent(["{", *indent(inner), "}"]), "}", *modifiers])
    else:
        query = "\n".join([where, *indent(body + extra_lines), "}", *modifiers])
    grouped = form.get("grouped")
    ranked = ["polarityValue"] if form_name == "top_polarity" else []
    answer = [chosen.group_key] if grouped else ([] if aggregates or form["form"] == "ASK" else
                                                  ["italianWord", *ranked, *columns])
    answer = list(form.get("answer", answer))
    if form_name == "longest":
        answer.append("length")
    if form_name == "per_word_top":
        answer.append(slots["count_var"])
    patterns = _patterns(rules, chosen, form_name, form)
    return Candidate(
        shape=f"set:{form_name}", operator=form["operator"], form=form["form"],
        resources=chosen.resources + ((chosen.extra,) if form.get("negate") or form.get("optional") else ()),
        sparql=with_prefixes(query), question_it=sentence(fill(rng.choice(form[f"it{one}"]), words.it(slots))),
        question_en=sentence(fill(rng.choice(form[f"en{one}"]), words.en(slots))), patterns=patterns,
        answer=tuple(answer), aggregates=tuple(fill(a, slots) for a in aggregates),
        slots=tuple(chosen.keep + words.keep))


def _patterns(rules: Rules, chosen: _Set, form_name: str, form: dict) -> tuple[str, ...]:
    found = {p for r in chosen.resources for p in rules.resources[r]["patterns"]}
    if form.get("negate") or form.get("optional"):
        found |= set(rules.resources[chosen.extra]["patterns"])
    if chosen.pos or (form.get("grouped") and chosen.group_key == "pos"):
        found.add("pos_filter")
    if chosen.filter_kind:
        found.add("morphology_regex")
    found |= set(form.get("patterns", ()))
    if form_name in PER_WORD_FORMS and chosen.counted == "complit":  # senses counted per word
        found.add("sense_count")
    ranked = form_name in ("polarity_stat", "longest", "top_polarity", "some", "per_word_top")
    if form.get("aggregates") or form.get("grouped") or ranked:
        found.add("counting_grouping")
    if form["form"] == "ASK":
        found.add("ask")
    if len(chosen.resources) + bool(form.get("negate") or form.get("optional")) >= 2:
        found.add("multi_entry")
    if len(found) >= 4:
        found.add("compositional")
    return tuple(sorted(found or {"lemma_lookup"}))


class _Words:
    """The wording of one set: its head noun, predicates and extra columns, in Italian and English."""

    def __init__(self, rules: Rules, chosen: _Set, rng: random.Random) -> None:
        self.rules, self.chosen, self.rng, self.keep = rules, chosen, rng, []
        self.head = chosen.head or rules.heads[chosen.pos or rng.choice(["any", "lemma"])]
        self.it_preds, self.en_preds, self.it_with, self.en_with = [], [], [], []
        emotion = chosen.slots.get("emotion")
        polarity = rules.polarity_classes.get(chosen.slots.get("polarity") or "", ["", ""])
        comparison = rules.comparisons.get(chosen.slots.get("op") or "", ["", ""])
        values = dict(chosen.slots, gloss=rules.emotions.get(emotion, ""), class_it=polarity[0], class_en=polarity[1],
                      op_it=comparison[0], op_en=comparison[1])
        if "threshold" in values:
            values["threshold_it"] = number_it(values["threshold"])
        for resource in chosen.resources:
            spec, mode = rules.resources[resource], chosen.modes[resource]
            self.keep.append(RESOURCE_SLOTS[resource])
            if mode == "column":
                self.it_with.append(rng.choice(spec["with_it"]))
                self.en_with.append(rng.choice(spec["with_en"]))
            elif mode not in ("key", "counted"):
                kind = {"has": "has", "fixed": "fixed", "above": "above"}[mode]
                it = fill(rng.choice(spec[f"{kind}_it"]), dict(values, threshold=values.get("threshold_it", "")))
                self.it_preds.append(it)
                self.en_preds.append(fill(rng.choice(spec[f"{kind}_en"]), values))
        if emotion:
            self.keep.append(f"{emotion}|{rules.emotions[emotion]}")
        if chosen.filter_kind and chosen.filter_kind != "class":  # a class is named by the head
            spec = rules.filters[chosen.filter_kind]
            self.it_preds.append(fill(rng.choice(spec["it"]), chosen.slots))
            self.en_preds.append(fill(rng.choice(spec["en"]), chosen.slots))

    def phrases(self, form_name: str) -> dict[str, str]:
        extra = self.rules.resources.get(self.chosen.extra or "", {})
        if extra and form_name in ("absent", "absent_minus", "count_absent", "optional", "share"):
            self.keep.append(RESOURCE_SLOTS[self.chosen.extra])
        pick = (lambda key: self.rng.choice(extra[key])) if extra else (lambda key: "")
        return {"neg_it": pick("not_it"), "neg_en": pick("not_en"), "plain_it": pick("has_it"),
                "plain_en": pick("has_en"), "maybe_it": pick("maybe_it"), "maybe_en": pick("maybe_en")}

    def it(self, slots: dict) -> dict:
        preds = _join(self.it_preds, "e") or "compaiono in LiITA"
        art = self.head["art"]
        return dict(slots, head=self.head["it"], art=art, art_k="i" if art == "gli" else art,
                    How_many=self.head["how_many"],
                    how_many=self.head["how_many"].lower(), of_the=self.head["of_the"], long=self.head["long"],
                    preds=preds, neg=slots["neg_it"], neg_plain=slots["plain_it"], maybe=slots["maybe_it"],
                    **{"with": (", " + _join(self.it_with, "e")) if self.it_with else ""})

    def en(self, slots: dict) -> dict:
        preds = _join(self.en_preds, "and") or "appear in LiITA"
        return dict(slots, head=self.head["en"], art="the", art_k="the", How_many="How many", how_many="how many",
                    of_the="of the",
                    long="long", preds=preds, neg=slots["neg_en"], neg_plain=slots["plain_en"], maybe=slots["maybe_en"],
                    **{"with": (", " + _join(self.en_with, "and")) if self.en_with else ""})


def _join(parts: list[str], conjunction: str) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {conjunction} " + parts[-1]
