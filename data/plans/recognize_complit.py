"""The CompL-it block in a query: the word inside the SERVICE (its form, part of speech, senses, definitions and
examples), at most one relation to other words, and the link of a CompL-it word to the lemma bank outside it."""

from __future__ import annotations

from rdflib.paths import MulPath
from rdflib.term import Literal, URIRef, Variable

from nl2sparql.data.plans.model import RELATIONS, Senses
from nl2sparql.data.plans.parse import Pattern, Unparsed
from nl2sparql.kb.vocab import LEXINFO, ONTOLEX, RDF, RDFS, SKOS

SENSE, CANONICAL, WRITTEN = (URIRef(ONTOLEX + n) for n in ("sense", "canonicalForm", "writtenRep"))
POS, LABEL = URIRef(LEXINFO + "partOfSpeech"), URIRef(RDFS + "label")
TYPE, WORD = URIRef(RDF + "type"), URIRef(ONTOLEX + "Word")
DEFINITION, EXAMPLES = URIRef(SKOS + "definition"), (URIRef(SKOS + "example"), URIRef(LEXINFO + "senseExample"))
BY_PROPERTY = {(prop, subject): name for name, (prop, subject, _) in RELATIONS.items()}


def _relation(triple) -> tuple[str, str] | None:
    """(lexinfo property, depth) of a relation triple's predicate, else None."""
    predicate = triple[1]
    depth = "one"
    if isinstance(predicate, MulPath):
        if predicate.mod != "+":
            raise Unparsed(f"a property path with {predicate.mod}")
        predicate, depth = predicate.path, "any"
    text = str(predicate)
    if text.startswith(LEXINFO) and text[len(LEXINFO):] in {p for p, _, _ in RELATIONS.values()}:
        return text[len(LEXINFO):], depth
    return None


class _Left:
    def __init__(self, triples):
        self.left = [tuple(t) for t in triples]

    def take(self, s=None, p=None) -> list[tuple]:
        taken = [t for t in self.left if (s is None or t[0] == s) and (p is None or t[1] == p)]
        self.left = [t for t in self.left if t not in taken]
        return taken


def _form_of(left: _Left, entry, roles: dict, role: str) -> list[str]:
    """The written forms of an entry's canonical form: literals returned, a variable given `role`."""
    forms = []
    for _, _, form in left.take(entry, CANONICAL):
        for _, _, written in left.take(form, WRITTEN):
            if isinstance(written, Literal):
                forms.append(str(written))
            else:
                roles[written] = role
    return forms


def recognize_complit(service: Pattern, outer: list[tuple], roles: dict) -> tuple[Senses, list[str], Variable | None]:
    """The Senses block, the CompL-it forms named, and the lemma-bank variable a CompL-it word is linked to."""
    left = _Left(service.triples)
    relations = [(t, r) for t in left.left if (r := _relation(t))]
    if len(relations) > 1:
        raise Unparsed("more than one CompL-it relation")
    entries = {t[0]: t[2] for t in left.left if t[1] == SENSE}
    main = next((e for e in entries if any(t[0] == e and t[1] in (POS, TYPE) for t in left.left)), None)
    if main is None:
        main = Variable("word") if Variable("word") in entries else next(iter(entries), None)
    if main is None:
        raise Unparsed("a CompL-it block without a word's senses")
    sense = entries[main]
    roles[main], roles[sense] = "word", "sense"
    typed = bool([t for t in left.take(main, TYPE) if t[2] == WORD])
    forms = _form_of(left, main, roles, "italianWord")
    forms += [str(v) for v in service.values.pop(next((k for k, v in roles.items() if v == "italianWord"), None),
                                                 [])]
    pos = None
    for _, _, node in left.take(main, POS):
        for _, _, label in left.take(node, LABEL):
            if isinstance(label, Literal):
                pos = str(label)
            else:
                roles[label] = "posLabel"
    left.take(main, SENSE)
    relation, depth, related_form, related_sense = None, "one", None, None
    if relations:
        triple, (prop, depth) = relations[0]
        left.left.remove(triple)
        if sense not in (triple[0], triple[2]):
            raise Unparsed("a CompL-it relation not on the word's senses")
        related_is_subject = triple[2] == sense
        related_sense = triple[0] if related_is_subject else triple[2]
        relation = BY_PROPERTY.get((prop, related_is_subject))
        if relation is None:
            raise Unparsed(f"a {prop} relation read in the other direction")
        roles[related_sense] = "relatedSense"
        related = next((e for e, s in entries.items() if s == related_sense), None)
        if related is None:
            raise Unparsed("a related sense without its word")
        roles[related] = "relatedEntry"
        left.take(related, SENSE)
        named = _form_of(left, related, roles, RELATIONS[relation][2])
        related_form = named[0] if named else None
    defined, requires = "word", []
    for owner, kind in ((sense, "word"), (related_sense, "related")):
        for _, _, value in left.take(owner, DEFINITION):
            roles[value], defined = "definition", kind
            requires.append("definition")
        for example in EXAMPLES:
            for _, _, value in left.take(owner, example):
                roles[value] = "example"
                requires.append("example")
    if left.left or service.values:
        raise Unparsed("CompL-it triples outside the known blocks")
    linked, lemma = None, None
    for triple in [t for t in outer if t[1] == CANONICAL and t[0] in roles and
                   roles[t[0]] in ("word", "relatedEntry") and isinstance(t[2], Variable)]:
        outer.remove(triple)
        linked, lemma = ("word" if roles[triple[0]] == "word" else "related"), triple[2]
    senses = Senses(pos, relation, depth, related_form, linked, defined, typed, tuple(requires))
    return senses, forms, lemma


def optional_examples(service: Pattern, roles: dict) -> list[str]:
    """Example sentences asked for only where a sense has one (OPTIONAL inside the SERVICE)."""
    shown = []
    for group in service.optional:
        if len(group) != 1 or group[0][1] not in EXAMPLES or roles.get(group[0][0]) not in ("sense",
                                                                                             "relatedSense"):
            raise Unparsed("an OPTIONAL inside CompL-it other than an example")
        roles[group[0][2]] = "example"
        shown.append("example")
    return shown
