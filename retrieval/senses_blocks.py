"""CompL-it's blocks: the senses a question reads (a part of speech, a relation, at any depth, with a definition or
an example), linked to the lemma bank or not, and the lemma-bank words CompL-it lacks."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

from nl2sparql.data.plans.model import Senses
from nl2sparql.retrieval.column_blocks import unique
from nl2sparql.retrieval.signals import Signals

COMPLIT_POS = ("noun", "verb", "adjective", "adverb")


def senses_options(s: Signals, joined: bool) -> list[Senses | None]:
    if "complit" not in s.resources:
        return [None]
    pos = [p for p in s.pos if p in COMPLIT_POS][:1]
    relations = []
    for relation in s.relations[:2]:
        relations += [relation] + ([f"{relation}-by-hyponym"] if relation in ("hypernym", "hyponym") else [])
        relations += {"meronym": ["holonym"], "holonym": ["meronym"]}.get(relation, [])  # "which have X as a part"
    options = []
    for relation, label in product(relations or [None], pos + [None]):
        linked = ("related" if relation else "word") if joined else None
        depth = "any" if s.any_depth and relation else "one"
        options.append(Senses(pos=label, relation=relation, linked=linked, depth=depth))
        if linked == "related" and not s.forms:  # "i contrari delle parole di Gioia": the words joined, not theirs
            options.append(Senses(pos=label, relation=relation, linked="word", depth=depth))
        if s.examples and not relation and "count" in s.operators:  # "quanti sensi … hanno un esempio"
            options.append(Senses(pos=label, linked=linked, requires=("example",)))
    if s.defined and not s.definition:  # "parole che hanno una definizione": senses with one, first; a related
        options = [replace(o, requires=("definition",), defined="related") for o in options  # word's own ("gli
                   if o.relation and not o.requires] + [  # iperonimi di cane, con la loro definizione") before
            replace(o, requires=("definition",)) for o in options if not o.requires] + options
    if s.definition:  # "definiti come usurati": the senses whose definition says it first, related at any depth too
        defined = [replace(o, requires=("definition",), defined="related" if o.relation else "word") for o in options]
        options = defined + [replace(o, depth="any") for o in defined if o.relation] + options
    if ("absent" in s.operators or "complit" in s.lacking) and not relations and not s.definition:
        # "quali parole tradotte in siciliano non esistono in CompL-it", "senza alcuna definizione in CompL-it": the
        # lemma-bank words CompL-it lacks (with a definition, when one is asked of), first when CompL-it is the one
        lacked = [Senses(linked="form", absent=True, requires=r) for r in ((("definition",), ()) if s.defined
                                                                           else ((), ("definition",)))]
        options = lacked + options if "complit" in s.lacking else options + lacked
    return unique(options)
