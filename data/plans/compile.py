"""A plan written as SPARQL in our conventions: the lemma bank in its graph, ELITA in its graph, one entry variable
per resource joined on ?lemma, dialect direction Italian → dialect, variable names that say what they hold.

Only the triples a plan's roles need are written (a count of ELITA words does not join the lemma bank), so a block
never narrows a set it was not asked to narrow.
"""

from __future__ import annotations

from dataclasses import replace

from nl2sparql.data.plans.model import Filter, Join, Plan
from nl2sparql.kb.vocab import (ELITA_GRAPH, LIITA_GRAPH, PARMIGIANO_LEMMA_BANK, PARMIGIANO_LEXICON, PREFIXES,
                                SICILIAN_LEMMA_BANK, SICILIAN_LEXICON)

LEXICONS = {"sicilian": SICILIAN_LEXICON, "parmigiano": PARMIGIANO_LEXICON}
BANKS = {"sicilian": SICILIAN_LEMMA_BANK, "parmigiano": PARMIGIANO_LEMMA_BANK}
DIALECT_LANG = {"sicilian": "scn", "parmigiano": "roa"}
SHARED_POLARITY = ("polarity", "polarityValue")  # roles of the one polarity resource joined
# Roles computed from another (BIND): a group key such as a word's initial letter, or a length to order by.
COMPUTED = {"initial": ("italianWord", "LCASE(SUBSTR(STR(?italianWord), 1, 1))"),
            "length": ("italianWord", "STRLEN(STR(?italianWord))"),
            # the last n letters of a written form, a group key ("quanti in -are, quanti in -ere")
            **{f"ending{n}": ("italianWord", f"SUBSTR(STR(?italianWord), STRLEN(STR(?italianWord)) - {n - 1})")
               for n in (2, 3, 4)},
            # a written form's language tag ("it", "scn", "roa"), of the Italian or the dialect word
            **{f"{w}Tag" if w != "italian" else "languageTag": (f"{w}Word", f"LANG(?{w}Word)")
               for w in ("italian", "sicilian", "parmigiano")},
            # how far ELITA's and Sentix's values of a word lie apart ("dove ELITA e Sentix sono più in disaccordo")
            "gap": (("elitaValue", "sentixValue"), "ABS(?elitaValue - ?sentixValue)")}

# aggregates taken over the groups of a subquery: the operator → (the outer function, the answer's column) each
OVER_GROUPS = {"average_groups": (("AVG", "average"),), "max_groups": (("MAX", "max"),), "min_groups": (("MIN", "min"),),
               "average_max_groups": (("AVG", "average"), ("MAX", "max"))}


def literal(text: str, lang: str | None = None) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"' + (f"@{lang}" if lang else "")


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class _Names:
    """SPARQL variable names of a plan's roles: ?polarity/?polarityValue when one polarity resource is joined,
    ?elitaValue/?sentixValue when both are; one Italian entry variable per dialect when both are joined."""

    def __init__(self, plan: Plan):
        self.plan = plan
        polar = [r for r in ("elita", "sentix") if plan.join(r)]
        self.polar = polar[0] if len(polar) == 1 else None
        self.both_dialects = bool(plan.join("sicilian") and plan.join("parmigiano"))

    def var(self, role: str) -> str:
        if role in SHARED_POLARITY and self.polar:
            return "?" + role
        if self.polar and role in (f"{self.polar}Polarity", f"{self.polar}Value"):
            return "?" + ("polarity" if role.endswith("Polarity") else "polarityValue")
        return "?" + role

    def italian_entry(self, dialect: str) -> str:
        return f"?{dialect}ItalianEntry" if self.both_dialects else "?italianEntry"


def used_roles(plan: Plan) -> set[str]:
    roles = set(plan.columns) | {f.role for f in plan.filters} | {r for r, _ in plan.order}
    roles |= {str(f.value) for f in plan.filters if f.kind in ("same_as", "compare")}
    roles |= {a.role for a in plan.aggregates}
    if plan.words.forms:
        roles.add(f"{plan.words.bank}Word" if plan.words.bank in BANKS else "italianWord")
    if plan.words.pos and len(plan.words.pos) > 1 and not plan.words.every_pos:
        roles.add("pos")
    if plan.words.every_pos or plan.words.without_pos:
        roles.add("italianWord")
    bases = [COMPUTED[r][0] for r in roles if r in COMPUTED]
    roles |= {b for base in bases for b in ((base,) if isinstance(base, str) else base)}
    return roles - {a.name for a in plan.aggregates} - {"*"}


def _lemma_block(plan: Plan, names: _Names, roles: set[str]) -> list[str]:
    words = plan.words
    parts = []
    if words.kind:
        parts.append(f"a lila:{words.kind}")
    elif "type" in roles and plan.senses is None:  # "di che tipo sono": lemma or hypolemma, as a column
        parts.append("a ?type")
    if plan.senses is not None:  # the named forms are CompL-it's; the lemma bank shows its own spelling
        if plan.senses.linked == "form":  # the CompL-it word's written form, the lemma's own
            parts.append("ontolex:writtenRep ?italianWord")
        elif "lemmaWord" in roles:
            parts.append("ontolex:writtenRep ?lemmaWord")
        if len(words.pos) == 1:
            parts.append(f"lila:hasPOS lila:{words.pos[0]}")
        elif "pos" in roles:
            parts.append("lila:hasPOS ?pos")
        return [f"GRAPH <{LIITA_GRAPH}> {{ ?lemma {' ; '.join(parts)} }}"] if parts else []
    dialect = words.bank if words.bank in BANKS else None
    word, lang = (f"{dialect}Word", DIALECT_LANG[dialect]) if dialect else ("italianWord", "it")
    if dialect:
        parts.insert(0, f"dcterms:isPartOf <{BANKS[dialect]}>")
    if len(words.forms) == 1 and word not in set(plan.columns) | {f.role for f in plan.filters}:
        parts.append(f"ontolex:writtenRep {literal(words.forms[0], lang)}")
    elif word in roles:
        parts.append(f"ontolex:writtenRep ?{word}")
    others = []
    if words.every_pos and len(words.pos) > 1:  # a lemma of the same written form for each part of speech
        parts.append(f"lila:hasPOS lila:{words.pos[0]}")
        kind = f"a lila:{words.kind} ; " if words.kind else ""
        others = [f"?lemma{i} {kind}ontolex:writtenRep ?{word} ; lila:hasPOS lila:{p}"
                  for i, p in enumerate(words.pos[1:], start=2)]
    elif len(words.pos) == 1:
        parts.append(f"lila:hasPOS lila:{words.pos[0]}")
    elif "pos" in roles:
        parts.append("lila:hasPOS ?pos")
    if "label" in roles:
        parts.append("rdfs:label ?label")
    if not parts:
        return []
    values = []
    if len(words.forms) > 1 or (len(words.forms) == 1 and word in roles and not any(
            p.startswith("ontolex:writtenRep \"") for p in parts)):
        values.append(f"VALUES ?{word} {{ " + " ".join(literal(f, lang) for f in words.forms) + " }")
    if words.iri:
        values.append(f"VALUES ?{dialect + 'Lemma' if dialect else 'lemma'} {{ <{words.iri}> }}")
    if len(words.pos) > 1 and not words.every_pos:
        values.append("VALUES ?pos { " + " ".join(f"lila:{p}" for p in words.pos) + " }")
    if dialect:  # a dialect lemma bank lives in the default graph
        return values + [f"?{dialect}Lemma {' ; '.join(parts)} ."]
    patterns = " . ".join([f"?lemma {' ; '.join(parts)}", *others])
    for p in words.without_pos:  # MINUS: a lemma of the written form with that part of speech, or the lemma's own
        other = f"?{p}Lemma ontolex:writtenRep ?{word} ; " if words.pos else "?lemma "
        patterns += f" MINUS {{ {other}lila:hasPOS lila:{p} }}"
    return values + [f"GRAPH <{LIITA_GRAPH}> {{ {patterns} }}"]


def _elita_block(join: Join, names: _Names, roles: set[str]) -> list[str]:
    parts = [] if join.entries_only else ["ontolex:canonicalForm ?lemma"]
    needs_emotion = bool({"emotion", "emotionLabel"} & roles) and not join.emotions
    for emotion in join.emotions if not join.any_emotion else ():
        parts.append(f"elita:HasEmotion elita:{emotion}")
    if join.any_emotion:  # any one of them: the entry's emotion from a VALUES list
        parts.append("elita:HasEmotion ?emotion")
    if needs_emotion or (not join.emotions and join.polarity is None and not {"elitaPolarity", "elitaValue"} & roles
                         and not (names.polar == "elita" and set(SHARED_POLARITY) & roles)):
        parts.append("elita:HasEmotion ?emotion")
    if join.polarity:
        parts.append(f"marl:Polarity marl:{join.polarity}")
    elif "elitaPolarity" in roles or (names.polar == "elita" and "polarity" in roles):
        parts.append(f"marl:Polarity {names.var('elitaPolarity')}")
    if "elitaValue" in roles or (names.polar == "elita" and "polarityValue" in roles):
        parts.append(f"marl:hasPolarityValue {names.var('elitaValue')}")
    inner = f"?elitaEntry {' ; '.join(parts)}"
    if join.any_emotion:
        inner = f"VALUES ?emotion {{ {' '.join(f'elita:{e}' for e in join.emotions)} }} " + inner
    if "emotionLabel" in roles and (not join.emotions or join.any_emotion):
        inner += " . ?emotion rdfs:label ?emotionLabel"
    for emotion in join.without_emotions:  # MINUS: NOT EXISTS's answer, 0.05 s where it took 2.7 s for verbs
        inner += f" MINUS {{ ?elitaEntry elita:HasEmotion elita:{emotion} }}"
    if join.only and join.emotions:  # no entry of the word carries another emotion
        named = ", ".join(f"elita:{e}" for e in join.emotions)
        inner += (" FILTER NOT EXISTS { ?otherEntry ontolex:canonicalForm ?lemma ; elita:HasEmotion ?otherEmotion "
                  f"FILTER(?otherEmotion NOT IN ({named})) }}")
    return [f"GRAPH <{ELITA_GRAPH}> {{ {inner} }}"]


def _leads(plan: Plan, join: Join) -> bool:
    """Sentix (or a dialect's entries with a usage note) written before a lemma bank set that names no form or part of
    speech: 13k Sentix entries joined to 48k lemmas take 0.3 s that way and 1.4 s the other way round on the embedded
    store, the noted Parmigiano entries 0.05 s against 1.5 s (the answer is the same)."""
    words = plan.words
    narrow = join.resource == "sentix" or (join.resource in LEXICONS and join.note is not None)  # or noted entries
    return narrow and join.mode == "has" and not join.entries_only and plan.senses is None \
        and plan.meta is None and words.bank == "italian" and not (words.forms or words.pos or words.iri)


def _sentix_block(join: Join, names: _Names, roles: set[str]) -> list[str]:
    parts = []
    if join.polarity:
        parts.append(f"marl:hasPolarity marl:{join.polarity}")
    else:
        parts.append(f"marl:hasPolarity {names.var('sentixPolarity')}")
    if "sentixValue" in roles or (names.polar == "sentix" and "polarityValue" in roles):
        parts.append(f"marl:hasPolarityValue {names.var('sentixValue')}")
    parts += [] if join.entries_only else ["ontolex:canonicalForm ?lemma"]  # the polarity first: fewer triples
    return [f"?sentixEntry {' ; '.join(parts)} ."]


def _dialect_block(join: Join, names: _Names, roles: set[str]) -> list[str]:
    dialect = join.resource
    entry = names.italian_entry(dialect)
    member = f"<{LEXICONS[dialect]}> lime:entry {entry}"
    lines = [f"{entry} ontolex:canonicalForm ?lemma ; vartrans:translatableAs ?{dialect}Entry .",
             f"FILTER EXISTS {{ {member} }}" if _narrowed(names.plan, join) else member + " ."]
    word_role = f"{dialect}Word"
    lemma_parts = []
    if join.form:
        lemma_parts.append(f"ontolex:writtenRep {literal(join.form, DIALECT_LANG[dialect])}")
    if word_role in roles:
        lemma_parts.append(f"ontolex:writtenRep ?{word_role}")
    if join.pos:
        lemma_parts.append(f"lila:hasPOS lila:{join.pos}")
    if f"{dialect}Label" in roles:
        lemma_parts.append(f"rdfs:label ?{dialect}Label")
    if lemma_parts or f"{dialect}Lemma" in roles:
        lines.append(f"?{dialect}Entry ontolex:canonicalForm ?{dialect}Lemma .")
    if lemma_parts:
        lines.append(f"?{dialect}Lemma {' ; '.join(lemma_parts)} .")
    if "usageNote" in roles:
        note = f"?{dialect}Entry rdfs:comment ?usageNote"
        if "usageNote" in names.plan.optional_roles:
            lines.append(f"OPTIONAL {{ {note} }}")
        else:  # the noted entries first, as below
            lines.insert(0, note + " .")
    elif join.note is not None:  # the noted entries first: 1,000 of the Parmigiano lexicon's 8,489
        value = literal(join.note, "it") if join.note else f"?{dialect}Note"
        lines.insert(0, f"?{dialect}Entry rdfs:comment {value} .")
    return lines


def _narrowed(plan: Plan, join: Join) -> bool:
    """Whether the Parmigiano lexicon's membership is better asked as a test than as a join. The store starts from
    a constant subject: the lexicon's whole entry list (8,489 entries, 0.5-2.7 s) before a named word, a part of
    speech, a CompL-it relation, an emotion or a polarity class narrows it; tested on the entries found first, the
    same answer comes in 0.01-0.1 s (train's gold plans, measured). An unnamed set is faster started from the list,
    and so is the Sicilian one (219 entries) always."""
    if join.resource != "parmigiano" or join.mode != "has":
        return False
    others = [j for j in plan.joins if j is not join]
    return bool(plan.words.forms or plan.words.pos or plan.senses is not None or join.form or join.pos
                or join.note is not None or any(j.emotions or j.polarity or j.form for j in others))


BLOCKS = {"elita": _elita_block, "sentix": _sentix_block, "sicilian": _dialect_block, "parmigiano": _dialect_block}


def _join_lines(join: Join, names: _Names, roles: set[str]) -> list[str]:
    lines = BLOCKS[join.resource](join, names, roles if join.mode in ("has", "optional") else set())
    if join.mode == "has":
        return lines
    if join.mode == "optional":
        return [f"OPTIONAL {{ {' '.join(lines)} }}"]
    if join.mode == "covered":  # the set's lemmas that have it, bound apart to be counted against all
        return [f"OPTIONAL {{ {' '.join(lines)} BIND({names.var('lemma')} AS ?covered) }}"]
    keyword = "FILTER NOT EXISTS" if join.mode == "absent" else "MINUS"
    return [f"{keyword} {{ {' '.join(lines)} }}"]


def filter_expression(f: Filter, names: _Names) -> str:
    var = names.var(f.role)
    text = f"LCASE(STR({var}))" if f.fold else f"STR({var})"
    value = f.value
    expression = {
        "prefix": lambda: f"STRSTARTS({text}, {literal(str(value))})",
        "suffix": lambda: f"STRENDS({text}, {literal(str(value))})",
        "contains": lambda: f"CONTAINS({text}, {literal(str(value))})",
        "regex": lambda: f"REGEX({text}, {literal(str(value))})",
        "length": lambda: f"STRLEN({text}) {f.op} {number(float(value))}",
        "equals": lambda: f"{text} = {literal(str(value))}",
        "value": lambda: f"{var} {f.op} {number(float(value))}",
        "iri_prefix": lambda: f"STRSTARTS({text}, {literal(str(value))})",
        "same_as": lambda: f"{text} = STR({names.var(str(value))})",
        "compare": lambda: f"{var} {f.op} {names.var(str(value))}",
        "prefix_in": lambda: f"STRSTARTS({text}, ?prefix)",
        "suffix_in": lambda: f"STRENDS({text}, ?suffix)",
    }[f.kind]()
    return f"!({expression})" if f.negated else expression


def _aggregate(a, names: _Names) -> str:
    target = "*" if a.role == "*" else names.var(a.role)
    inner = f"{'DISTINCT ' if a.distinct else ''}{target}"
    if a.func == "group_concat":  # items a reader (and the metric) can tell apart, a multi-word value kept whole
        inner += '; separator=", "'
    return f"({a.func.upper()}({inner}) AS ?{a.name})"


def _extreme(plan: Plan, names: _Names, lines: list[str], head: str, body: str) -> tuple[str, str]:
    """The rows whose `order` role is at its extreme, ties included, per `plan.per` keys: the extreme found in a
    subquery over the same pattern. With aggregates, the groups (a count per word) at their extreme count."""
    role, descending = plan.order[0]
    per = [names.var(k) for k in plan.per]
    grouping = f" GROUP BY {' '.join(per)}" if per else ""
    keys_first = "".join(v + " " for v in per)  # the extreme's own keys before it ("?emotionLabel (MAX(…)")
    pattern = "\n".join("    " + line for line in lines)
    if plan.aggregates:  # "il verbo con più traduzioni, pari merito inclusi": a count per group, then its maximum
        keys = " ".join(names.var(c) for c in plan.columns)
        grouped = [f"SELECT {keys} {' '.join(_aggregate(a, names) for a in plan.aggregates)} WHERE {{", pattern,
                   f"  }} GROUP BY {keys}"]
        found = f"SELECT {keys_first}({'MAX' if descending else 'MIN'}(?{role}) AS ?extreme) WHERE {{"
        body = "\n".join(["  {", "  " + grouped[0], *grouped[1:], "  }", "  {", "  " + found, "  {",
                          "  " + grouped[0], *grouped[1:], "  }", f"  }}{grouping}", "  }", f"  FILTER(?{role} = ?extreme)"])
        return f"SELECT {keys} {' '.join('?' + a.name for a in plan.aggregates)} WHERE {{", body
    found = f"SELECT {keys_first}({'MAX' if descending else 'MIN'}({names.var(role)}) AS ?extreme) WHERE {{"
    body = "\n".join(["  {", "  " + found, pattern, f"  }}{grouping}", "  }", body,
                      f"  FILTER({names.var(role)} = ?extreme)"])
    return head, body


def compile_plan(plan: Plan, prefixes: bool = True) -> str:
    """The SPARQL of a plan (with its PREFIX lines unless `prefixes` is False)."""
    from nl2sparql.data.plans.complit import COMPLIT_ROLES, complit_lines

    lacked = plan.senses if plan.senses is not None and plan.senses.absent else None
    if lacked is not None:  # no such CompL-it word: the plan without it, less the words that have one (MINUS)
        plan = replace(plan, senses=None)
    names = _Names(plan)
    roles = used_roles(plan) | ({"italianWord"} if lacked is not None else set())
    inside = [f for f in plan.filters if plan.senses is not None and f.role in COMPLIT_ROLES]
    lines = complit_lines(plan, roles, [filter_expression(f, names) for f in inside]) if plan.senses else []
    if plan.meta is not None:
        from nl2sparql.data.plans.meta import meta_lines

        lines += meta_lines(plan.meta, plan.words.bank if plan.words.bank != "italian" else None, roles)
    else:
        lines += _lemma_block(plan, names, roles)
    joined = [_join_lines(join, names, roles) for join in plan.joins]
    lead = next((i for i, join in enumerate(plan.joins) if _leads(plan, join)), None)
    if lead is not None:  # the narrower pattern first: the embedded store joins in the order written
        lines = joined.pop(lead) + lines
    for join_lines in joined:
        lines += join_lines
    lines += [f"VALUES ?{f.kind[:-3]} {{ {' '.join(literal(v) for v in str(f.value).split('|'))} }}"
              for f in plan.filters if f.kind in ("prefix_in", "suffix_in")]  # "per ciascun prefisso tra ri-, dis-"
    lines += [f"FILTER({filter_expression(f, names)})" for f in plan.filters if f not in inside]
    if lacked is not None:
        service = complit_lines(Plan(senses=replace(lacked, absent=False, linked="form")), {"italianWord"}, [])
        lines.append(f"MINUS {{ {' '.join(service)} }}")
    lines += [f"BIND({COMPUTED[r][1]} AS ?{r})" for r in COMPUTED if r in roles]
    body = "\n".join("  " + line for line in lines)
    if plan.operator == "ask":
        head = "ASK {"
    else:
        columns = [names.var(c) for c in plan.columns] if plan.operator != "count" else []
        columns += [_aggregate(a, names) for a in plan.aggregates]
        distinct = "DISTINCT " if plan.distinct and plan.operator in ("list", "extreme") else ""
        head = f"SELECT {distinct}{' '.join(columns)} WHERE {{"
    if plan.operator == "extreme":  # every row at the lowest (highest) value, ties included: the value found first
        head, body = _extreme(plan, names, lines, head, body)
    if plan.operator in ("count_groups", "ask_groups"):
        head = f"SELECT {' '.join(names.var(c) for c in plan.columns)} WHERE {{"
    if plan.operator == "share":
        head = f"SELECT (COUNT(DISTINCT ?covered) * 100 / COUNT(DISTINCT {names.var('lemma')}) AS ?percentage) WHERE {{"
    tail = []
    if plan.operator in ("group", "count_groups", "ask_groups", *OVER_GROUPS) and plan.columns:
        tail.append("GROUP BY " + " ".join(names.var(c) for c in plan.columns))
    outer_having = plan.operator in OVER_GROUPS and bool(plan.per)  # on the keys' groups, outside
    if plan.having is not None and not outer_having:
        having = plan.having
        aggregate = next(a for a in plan.aggregates if a.name == having.role)
        target = "*" if aggregate.role == "*" else names.var(aggregate.role)
        call = f"{aggregate.func.upper()}({'DISTINCT ' if aggregate.distinct else ''}{target})"
        other = next((a for a in plan.aggregates if a.name == having.value), None) if having.kind == "compare" else None
        bound = number(float(having.value)) if other is None else \
            f"{other.func.upper()}({'DISTINCT ' if other.distinct else ''}{names.var(other.role)})"  # another count
        tail.append(f"HAVING ({call} {having.op} {bound})")
    if plan.order and plan.operator not in ("ask", "extreme"):
        keys = [(f"?{r}" if r in {a.name for a in plan.aggregates} else names.var(r), d) for r, d in plan.order]
        tail.append("ORDER BY " + " ".join(f"DESC({v})" if d else v for v, d in keys))
    if plan.limit is not None and plan.operator != "ask":
        tail.append(f"LIMIT {plan.limit}")
    query = "\n".join([head, body, "}", *tail])
    if plan.operator in ("count_groups", "ask_groups", *OVER_GROUPS):
        # an outer query over the groups: how many pass HAVING, whether any does, the mean (highest, lowest) of their
        # aggregate
        per = "".join(names.var(k) + " " for k in plan.per)  # "per categoria": the mean per key, grouped outside
        outer = {"count_groups": "SELECT (COUNT(*) AS ?count) WHERE", "ask_groups": "ASK"}.get(plan.operator) \
            or f"SELECT {per}" + " ".join(f"({func}(?{plan.aggregates[0].name}) AS ?{name})"
                                          for func, name in OVER_GROUPS[plan.operator]) + " WHERE"
        inner = "\n".join("    " + line for line in query.splitlines())
        query = f"{outer} {{\n  {{\n{inner}\n  }}\n}}" + (f"\nGROUP BY {per.strip()}" if per else "")
        if outer_having and plan.having is not None:  # "solo le categorie con almeno 100 parole": groups per key
            query += f"\nHAVING (COUNT(*) {plan.having.op} {number(float(plan.having.value))})"
    if not prefixes:
        return query
    used = [p for p in PREFIXES if f"{p}:" in query]
    return "\n".join(f"PREFIX {p}: <{PREFIXES[p]}>" for p in used) + "\n" + query
