"""Questions about one sampled word (its part of speech, emotions, polarity, translations, CompL-it definitions,
senses and relations, a relation joined with a resource), yes/no questions with both answers, dialect lemma-bank
sets and meta questions about graphs and resources."""

from __future__ import annotations

import random

from nl2sparql.data.synth.pools import CORE_POS, Pools
from nl2sparql.data.synth.rules import RESOURCE_SLOTS, Candidate, Rules
from nl2sparql.data.synth.text import fill, indent, sentence, with_prefixes

POS_WORDS = {"noun": ("nome", "a noun"), "verb": ("verbo", "a verb"), "adjective": ("aggettivo", "an adjective"),
             "adverb": ("avverbio", "an adverb")}
_COMPLIT = "SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/> {"


def _pool(pools: Pools, name: str, cache: dict) -> list:
    if name not in cache:
        if name in pools.relations:
            cache[name] = sorted({a for a, _ in pools.relations[name]})
        elif name == "hypernym_pair":
            cache[name] = pools.relations["hypernym"]
        elif name == "lemma":
            cache[name] = [lemma for lemma in pools.lemmas_with(()) if pools.words[lemma].pos & set(CORE_POS)]
        else:
            cache[name] = pools.lemmas_with((name,))
    return cache[name]


def _word_slots(rules: Rules, pools: Pools, lemma: str, rng: random.Random) -> dict[str, object]:
    facts = pools.words[lemma]
    slots: dict[str, object] = {"word": facts.word}
    if facts.sicilian:
        slots["sicilianWord"] = rng.choice(sorted(facts.sicilian))
    if facts.parmigiano:
        slots["parmigianoWord"] = rng.choice(sorted(facts.parmigiano))
    complit = sorted(facts.complit_pos & set(POS_WORDS))
    if complit:
        slots["complit_pos"] = rng.choice(complit)
        slots["pos_it"], slots["pos_en_a"] = POS_WORDS[slots["complit_pos"]]
    return slots


def compose_lookup(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> Candidate | None:
    name = rng.choice(sorted(rules.lookups))
    spec = rules.lookups[name]
    pool = _pool(pools, spec["pool"], cache)
    if not pool:
        return None
    if "relation" in spec:
        return _relation(rules, pools, name, spec, rng.choice(pool), rng, cache)
    slots = _word_slots(rules, pools, rng.choice(pool), rng)
    try:
        sparql = fill(spec["sparql"], slots)
    except KeyError:  # the word lacks what this lookup asks about (e.g. a CompL-it part of speech)
        return None
    template = "\n".join(spec["sparql"])
    keep = [str(slots[k]) for k in ("word", "sicilianWord", "parmigianoWord") if f"${{{k}}}" in template]
    return _make(f"lookup:{name}", "select", "SELECT", spec, sparql, slots, keep, rng)


def _relation(rules: Rules, pools: Pools, name: str, spec: dict, word: str, rng: random.Random,
              cache: dict) -> Candidate:
    triple, rel = spec["relation"]
    join_name = rng.choice(sorted(rules.relation_joins)) if rng.random() < 0.4 else None
    if join_name:  # pick a word whose related word the joined resource knows, so the join is rarely empty
        known = cache.setdefault(f"words:{join_name}", {f.word for f in pools.words.values()
                                                        if f.has(rules.relation_joins[join_name]["resource"])})
        relation = {"hyponym": "hypernym", "hypernym": "hyponym", "part": "whole", "whole": "part"}.get(rel, rel)
        pairs = cache.setdefault(f"{relation}:{join_name}",
                                 sorted({a for a, b in pools.relations[relation] if b in known}))
        word = rng.choice(pairs) if pairs else word
    lines = [_COMPLIT, "  ?word ontolex:canonicalForm [ ontolex:writtenRep \"${word}\"@it ] ;",
             "    ontolex:sense ?sense .",
             f"  {triple}", f"  ?{rel}Entry ontolex:sense ?{rel}Sense ;",
             f"    ontolex:canonicalForm [ ontolex:writtenRep ?{rel}Word ] .", "}"]
    columns, patterns = [f"{rel}Word"], list(spec["patterns"])
    slots: dict[str, object] = {"word": word}
    keep, resources = [word, "compl-it"], ["complit"]
    it, en = rng.choice(spec["it"]), rng.choice(spec["en"])
    if join_name:
        join = rules.relation_joins[join_name]
        lines += [f"?{rel}Entry ontolex:canonicalForm ?lemma .", *join["block"]]
        columns.append(join["column"])
        patterns += join["patterns"]
        resources.append(join["resource"])
        keep.append(RESOURCE_SLOTS[join["resource"]])
        it = it.rstrip("?.") + ", " + rng.choice(join["it"]) + "?"
        en = en.rstrip("?.") + ", " + rng.choice(join["en"]) + "?"
    query = "\n".join([f"SELECT DISTINCT {' '.join('?' + c for c in columns)} WHERE {{", *indent(lines), "}"])
    spec = dict(spec, it=[it], en=[en], answer=columns, patterns=sorted(set(patterns)))
    return _make(f"relation:{name}" + (f"+{join_name}" if join_name else ""), "select", "SELECT", spec,
                 fill(query, slots), slots, keep, rng, resources=tuple(resources))


def compose_ask(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> Candidate | None:
    name = rng.choice(sorted(rules.asks))
    spec = rules.asks[name]
    pool = _pool(pools, spec["pool"], cache)
    if not pool:
        return None
    flip = rng.random() < 0.5
    if spec["pool"] == "hypernym_pair":
        word, word2 = rng.choice(pool)
        if flip:
            word2 = rng.choice(pool)[1]
        slots: dict[str, object] = {"word": word, "word2": word2}
    else:
        lemma = rng.choice(_pool(pools, "lemma", cache)) if flip and spec["mix"] == "word" else rng.choice(pool)
        facts = pools.words[lemma]
        slots = {"word": facts.word}
        if spec["mix"] == "emotion":
            slots["emotion"] = rng.choice(sorted(rules.emotions) if flip else sorted(facts.emotions))
            slots["gloss"] = rules.emotions[slots["emotion"]]
        if spec["mix"] == "polarity":
            slots["polarity"] = rng.choice(sorted(rules.polarity_classes)) if flip else facts.polarity_class
            slots["class_it"], slots["class_en"] = rules.polarity_classes[slots["polarity"]]
        if spec["mix"] == "pos":
            slots["pos"] = rng.choice(CORE_POS if flip else sorted(facts.pos & set(CORE_POS)))
            slots["pos_it"], slots["pos_en_a"] = POS_WORDS[slots["pos"]]
    keep = [str(slots[k]) for k in ("word", "word2") if k in slots]
    if "emotion" in slots:
        keep.append(f"{slots['emotion']}|{slots['gloss']}")
    return _make(f"ask:{name}", "ask", "ASK", spec, fill(spec["sparql"], slots), slots, keep, rng)


def compose_dialect_set(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> Candidate | None:
    dialect = rng.choice(sorted(rules.dialect_sets))
    lemmas = pools.dialect_lemmas[dialect]
    if not lemmas:
        return None
    word, pos = rng.choice(lemmas)
    info, form_name = rules.dialect_sets[dialect], rng.choice(sorted(rules.dialect_forms))
    form = rules.dialect_forms[form_name]
    kind = rng.choice(["prefix", "suffix", "contains"]) if len(word) >= 3 else "prefix"
    size = rng.randint(1, min(3, len(word) - 1)) if len(word) > 1 else 1
    value = word[:size] if kind == "prefix" else word[-size:] if kind == "suffix" else word[1:1 + size]
    var = info["var"]
    filter_spec = rules.filters[kind]
    slots = {"value": value, "var": var, "head": rules.heads[pos]["it"], "head_en": rules.heads[pos]["en"],
             "adj": info["adj_it"], "adj_en": info["adj_en"]}
    slots["filter"] = fill(rng.choice(filter_spec["it"]), slots)
    slots["filter_en"] = fill(rng.choice(filter_spec["en"]), slots)
    lines = [f"?{var}Lemma dcterms:isPartOf <{info['bank']}> ;", f"    lila:hasPOS lila:{pos} ;",
             f"    ontolex:writtenRep ?{var}Word .",
             fill(filter_spec["sparql"], slots).replace("?italianWord", f"?{var}Word")]
    query = "\n".join([fill(form["select"], slots) + " WHERE {", *indent(lines), "}"])
    spec = dict(form, answer=[fill(a, slots) for a in form.get("answer", [])])
    return _make(f"dialect:{form_name}", "count_distinct" if form_name == "count" else "select", "SELECT", spec,
                 query, slots, [value, RESOURCE_SLOTS[dialect]], rng, resources=(dialect,))


def compose_meta(rules: Rules, pools: Pools, rng: random.Random, cache: dict) -> Candidate:
    name = rng.choice(sorted(rules.meta))
    spec = rules.meta[name]
    return _make(f"meta:{name}", "group_by" if "GROUP BY" in "".join(spec["sparql"]) else "meta", "SELECT", spec,
                 fill(spec["sparql"], {}), {}, [], rng)


def _make(shape: str, operator: str, form: str, spec: dict, sparql: str, slots: dict, keep: list[str],
          rng: random.Random, resources: tuple[str, ...] | None = None) -> Candidate:
    if resources is None:
        resources = tuple(r for r in RESOURCE_SLOTS if _mentions(sparql, r))
        keep = keep + [RESOURCE_SLOTS[r] for r in resources]
    return Candidate(shape=shape, operator=operator, form=form, resources=resources, sparql=with_prefixes(sparql),
                     question_it=sentence(fill(rng.choice(spec["it"]), slots)),
                     question_en=sentence(fill(rng.choice(spec["en"]), slots)),
                     patterns=tuple(sorted(set(spec["patterns"]))), answer=tuple(spec.get("answer", ())),
                     ids=tuple(spec.get("ids", ())), aggregates=tuple(spec.get("aggregates", ())), slots=tuple(keep))


def _mentions(sparql: str, resource: str) -> bool:
    return {"elita": "w3id.org/elita>", "sentix": "?sentixEntry", "sicilian": "DialettoSiciliano",
            "parmigiano": "DialettoParmigiano", "complit": "graphdb-compl-it"}[resource] in sparql
