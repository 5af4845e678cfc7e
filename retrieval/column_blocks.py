"""The column sets a list plan may show: the answer a lookup asks for (a word's emotions, its polarity, its
translation), the words of a set, both, and the computed columns a question names (a language tag)."""

from __future__ import annotations

from dataclasses import replace

from nl2sparql.data.plans.model import RELATIONS, Plan
from nl2sparql.retrieval.signals import Signals

DIALECTS = ("sicilian", "parmigiano")
ATTRIBUTES = {"elita": ("emotionLabel",), "sentix": ("polarityValue",), "sicilian": ("sicilianWord",),
              "parmigiano": ("parmigianoWord",)}
LOOKUP = {"elita": ("emotionLabel",), "sentix": ("polarity", "polarityValue"), "sicilian": ("sicilianWord",),
          "parmigiano": ("parmigianoWord",)}


def unique(items: list) -> list:
    """The items once each, in their first order."""
    return list(dict.fromkeys(items))


def _value_roles(plan: Plan, resource: str) -> tuple[str, str]:
    """(class, value) roles of a polarity resource: ?polarity/?polarityValue, or per resource when both are joined."""
    both = bool(plan.join("elita")) and bool(plan.join("sentix"))
    return (f"{resource}Polarity", f"{resource}Value") if both else ("polarity", "polarityValue")


def columns(plan: Plan, s: Signals) -> list[tuple[str, ...]]:
    """The column sets a list may show: the answer a lookup asks for, the words of a set, and both."""
    resources = [j.resource for j in plan.joins if j.mode == "has"]
    if plan.words.bank in DIALECTS:
        word = f"{plan.words.bank}Word"
    elif plan.senses is not None and plan.senses.relation:
        word = RELATIONS[plan.senses.relation][2]
    else:
        word = "italianWord"
    attributes = [a for j in plan.joins if j.mode == "has" for a in (
        (_value_roles(plan, "elita")[1],) if j.resource == "elita" and (j.polarity or s.values) else
        (_value_roles(plan, "sentix")[1],) if j.resource == "sentix" else ATTRIBUTES[j.resource])]
    if plan.senses is not None and s.examples:
        attributes.append("example")
    if any(j.note == "" for j in plan.joins):
        attributes.append("usageNote")
    full = tuple(a for r in resources for a in (("emotionLabel", _value_roles(plan, r)[1]) if r == "elita" else
                                                _value_roles(plan, r)[::-1] if r == "sentix" else ATTRIBUTES[r]))
    options = []
    if plan.senses is not None:
        definition = ("definition",)
        examples = ("example",) if s.examples else ()
        lookups = [a for r in resources for a in LOOKUP[r]]
        defined = [(word, "definition")] if "definition" in plan.senses.requires else []
        if defined and s.defined and not plan.senses.relation:  # "quali parole hanno una definizione": the words
            defined.insert(1, (word,))
        if "pos" in s.keys and not plan.senses.relation and not plan.senses.pos:  # "indicando la categoria"
            defined.append(("posLabel", "definition"))
        options += [(word,), *defined, (word, *attributes)] + ([(word, *lookups)] if lookups else []) \
            if plan.senses.relation else [
            *defined,  # "quali parole hanno una definizione che …": the words first
            definition + examples, ("italianWord", "definition"), ("sense", "definition")] + (
            [examples, ("italianWord", *examples)] if examples else []) + (
            [definition + examples + tuple(attributes)] if attributes else [])
        if plan.senses.relation and not plan.words.forms:  # "quali parole hanno un contrario": the words, and each
            options += [("italianWord",), ("italianWord", word)]  # with the related one
        if plan.senses.relation and resources:  # each joined resource's label and value
            options.append((word, *full))
        if plan.senses.linked and any(f.kind == "iri_prefix" for f in plan.filters):  # "quali sono veri lemmi"
            options.append((word, "lemma"))
        if plan.senses.linked and s.bank_link:  # the lemma bank's lemma, spelling and part of speech beside it
            subject = word if plan.senses.relation else "word"
            options += [(word, "pos"), (subject, "lemma", "pos"), (word, "lemma", "lemmaWord")]
    elif plan.words.forms and len(plan.words.forms) == 1:
        lookup = [a for r in resources for a in (_value_roles(plan, r) if r == "sentix" else LOOKUP[r])] or ["pos"]
        if "elita" in resources and "sentix" not in resources:
            options.append(("emotionLabel", "polarity", "polarityValue"))
            if s.values or s.polarity:
                options.append(("polarity", "polarityValue"))
        if any(j.note == "" for j in plan.joins):
            lookup.append("usageNote")
        options += [tuple(lookup)] + ([tuple(a for r in resources for a in ATTRIBUTES[r])] if resources else [])
        if {"elita", "sentix"} <= set(resources):  # "la polarità di paura in ELITA e in Sentix": each one's value
            options += [("elitaValue", "sentixValue"), ("elitaPolarity", "elitaValue", "sentixPolarity", "sentixValue")]
        if plan.words.bank in DIALECTS:  # a dialect's own lemma: its IRI, spelling, part of speech
            options += [(f"{plan.words.bank}Lemma", word, "pos"), (f"{plan.words.bank}Lemma", "pos"), (word, "pos")]
        elif not resources:  # the word itself, as the lemma bank writes it ("il lemma aggettivale «bello»")
            options += [("italianWord",), ("italianWord", "pos"), ("lemma", "pos")]
            if s.asks_type:  # "di che tipo sono (lemma o ipolemma)"
                options += [("lemma", "type", "pos"), ("lemma", "type")]
    elif plan.words.iri:  # a lemma named by its IRI: its written form, part of speech, label
        options += [(word, "pos"), (word,), ("label", word), ("pos",), (word, *attributes)]
    else:
        options += [(word,), (word, *attributes)] + ([(word, "pos")] if len(plan.words.pos) != 1
                                                      and not plan.words.every_pos else [])
        if "sentix" in resources:
            options.append((word, *[a for r in resources if r != "elita" for a in (
                _value_roles(plan, "sentix") if r == "sentix" else LOOKUP[r])]))
        if len(plan.words.forms) > 1:
            options.append((word, *[a for r in resources for a in LOOKUP[r]]))
        if {"elita", "sentix"} <= set(resources):
            options.append((word, "elitaValue", "sentixValue"))
        if resources:
            options.append((word, *full))
        if len(resources) > 1 and plan.words.bank not in DIALECTS:  # "gli avverbi di ELITA in parmigiano": one
            options += [(word, *ATTRIBUTES[r]) for r in resources if r in DIALECTS]  # resource narrows, one is shown
    if plan.senses is None and not plan.words.forms and not s.operators & {"count", "top", "group", "average"}:
        # "quali emozioni esprimono i verbi", "quali parti del discorso usa il lemmario": that column alone
        options = [(c,) for c in s.asks if (c == "emotionLabel" and "elita" in resources) or (
            c == "pos" and plan.words.bank == "italian" and not plan.words.pos)] + options
    shown_too = [a for j in plan.joins if j.mode == "optional" for a in (
        (_value_roles(plan, j.resource)[1],) if j.resource == "sentix" else ATTRIBUTES[j.resource])]
    if shown_too:  # an optional resource's columns, where the word has them
        options = [(word, *attributes, *shown_too), (word, *shown_too)] + options
    if "languageTag" in s.computed:  # "con il suo tag di lingua": each shown word's tag beside it
        tags = {"italianWord": "languageTag", "sicilianWord": "sicilianTag", "parmigianoWord": "parmigianoTag"}
        tagged = [o for o in options if any(r in tags for r in o)]
        options = [tuple(x for r in o for x in ((r, tags[r]) if r in tags else (r,))) for o in tagged[:3]] + [
            (tags[r],) for r in tags if r in unique([x for o in tagged for x in o])][:2] + options
    if plan.senses is None and any(j.resource == "elita" and j.any_emotion for j in plan.joins):
        # "parole di tristezza, gioia o rabbia: emozione e parola": the row's emotion as ELITA names it, first
        options += [("emotion", word)] + [tuple("emotion" if r == "emotionLabel" else r for r in o)
                                          for o in options if "emotionLabel" in o]
    return unique([tuple(unique(list(o))) for o in options])


def optional_examples(plan: Plan, s: Signals) -> list[Plan]:
    """"Definizione e, dove presente, un esempio d'uso": each sense's definition, its example where it has one."""
    if plan.senses is None or plan.senses.relation or not (s.optional and s.examples):
        return []
    return [plan.with_block(columns=(word, "definition", "example"), optional_roles=("example",))
            for word in ("italianWord", "word")]


def optional_notes(base: Plan, s: Signals) -> list[Plan]:
    """"Con l'eventuale nota d'uso": the translations, each with its usage note where it has one."""
    noted = next((j for j in base.joins if j.resource in DIALECTS and j.note == ""), None)
    if noted is None or not s.optional:
        return []
    joins = tuple(replace(j, note=None) if j is noted else j for j in base.joins)
    word = f"{noted.resource}Word"
    shown = [(word, "usageNote")] + ([] if base.words.forms else [("italianWord", word, "usageNote")])
    return [base.with_block(joins=joins, columns=c, optional_roles=("usageNote",)) for c in shown]
