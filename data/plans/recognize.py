"""The domain blocks in a query's triples: the lemma bank's word set, the ELITA, Sentix and dialect joins on the
lemma, the filters on their values. Every triple must belong to a block; one that does not is `Unparsed`."""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib.term import Literal, URIRef, Variable

from nl2sparql.data.plans.compile import BANKS, LEXICONS
from nl2sparql.data.plans.model import Filter, Join, Senses, Words
from nl2sparql.data.plans.parse import Pattern, Unparsed
from nl2sparql.kb.vocab import DCTERMS, ELITA, LILA, LIME, MARL, ONTOLEX, RDF, RDFS, VARTRANS

WRITTEN, CANONICAL = URIRef(ONTOLEX + "writtenRep"), URIRef(ONTOLEX + "canonicalForm")
HAS_POS, TYPE = URIRef(LILA + "hasPOS"), URIRef(RDF + "type")
HAS_EMOTION, ELITA_POLARITY = URIRef(ELITA + "HasEmotion"), URIRef(MARL + "Polarity")
HAS_POLARITY, POLARITY_VALUE = URIRef(MARL + "hasPolarity"), URIRef(MARL + "hasPolarityValue")
LABEL, COMMENT = URIRef(RDFS + "label"), URIRef(RDFS + "comment")
LIME_ENTRY, TRANSLATABLE = URIRef(LIME + "entry"), URIRef(VARTRANS + "translatableAs")
PART_OF = URIRef(DCTERMS + "isPartOf")
DIALECT_OF = {URIRef(iri): name for name, iri in LEXICONS.items()}
BANK_OF = {URIRef(iri): name for name, iri in BANKS.items()}


@dataclass
class Found:
    words: Words = field(default_factory=Words)
    senses: Senses | None = None
    meta: str | None = None
    joins: list[Join] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)
    optional_roles: list[str] = field(default_factory=list)
    roles: dict[Variable, str] = field(default_factory=dict)

    def role(self, var) -> str:
        if var not in self.roles:
            raise Unparsed(f"a column or key ?{var} no block binds")
        return self.roles[var]


def _local(term, namespace: str) -> str | None:
    text = str(term)
    return text[len(namespace):] if isinstance(term, URIRef) and text.startswith(namespace) else None


class _Triples:
    def __init__(self, triples):
        self.left = [tuple(t) for t in triples]

    def take(self, s=None, p=None, o=None) -> list[tuple]:
        taken = [t for t in self.left if (s is None or t[0] == s) and (p is None or t[1] == p) and
                 (o is None or t[2] == o)]
        self.left = [t for t in self.left if t not in taken]
        return taken


def _lemma_var(triples: list[tuple]) -> Variable | None:
    objects = {t[2] for t in triples if t[1] == CANONICAL}
    entries = {t[0] for t in triples if t[1] in (HAS_EMOTION, ELITA_POLARITY, HAS_POLARITY, TRANSLATABLE)}
    lemmas = {t[2] for t in triples if t[1] == CANONICAL and t[0] in entries} or objects
    subjects = {t[0] for t in triples if t[1] in (HAS_POS, WRITTEN) or (t[1] == TYPE and _local(t[2], LILA))}
    candidates = [v for v in lemmas if isinstance(v, Variable)] or [v for v in subjects if isinstance(v, Variable)]
    if len(set(candidates)) > 1:
        dialect = {t[2] for t in triples if t[1] == CANONICAL and t[0] in {x[2] for x in triples
                                                                             if x[1] == TRANSLATABLE}}
        candidates = [v for v in set(candidates) if v not in dialect]
    if not candidates and entries:
        return None  # entries counted or listed as themselves
    if len(set(candidates)) != 1:
        raise Unparsed("a query with no single Italian lemma variable (another subject: entries, dialect lemma "
                       "banks, lexicons, classes)")
    return candidates[0]


def recognize(pattern: Pattern, lemma: Variable | None = None) -> Found:
    from nl2sparql.data.plans.filters import read_filter

    from nl2sparql.data.plans.meta import recognize_meta

    found = Found()
    outer = [tuple(t) for t in pattern.triples]
    forms: list[str] = []
    filters = list(pattern.filters)
    meta = recognize_meta(pattern, found.roles)
    if meta is not None:
        found.meta = meta[0]
        found.words = Words(bank=meta[1] or "italian")
        found.filters = [f for expr in filters for f in read_filter(expr, found)]
        return found
    if pattern.graph_var is not None:
        raise Unparsed("a graph variable (GRAPH ?g) beside word blocks")
    if pattern.service is not None:
        from nl2sparql.data.plans.recognize_complit import optional_examples, recognize_complit

        found.senses, forms, lemma = recognize_complit(pattern.service, outer, found.roles)
        found.optional_roles += optional_examples(pattern.service, found.roles)
        if pattern.service.not_exists or pattern.service.minus:
            raise Unparsed("a NOT EXISTS or MINUS inside CompL-it")
        filters += pattern.service.filters
        if lemma is None:
            if outer or pattern.optional or pattern.not_exists or pattern.minus or pattern.values:
                raise Unparsed("lemma-bank triples beside a CompL-it word that is not linked to a lemma")
            found.words = Words(forms=tuple(forms))
            found.filters = [f for expr in filters for f in read_filter(expr, found)]
            return found
    triples = _Triples(outer)
    bank = _dialect_bank(outer) if lemma is None else None
    if bank is not None:
        return _bank_words(triples, bank, found, pattern, filters)
    lemma = lemma or _lemma_var(outer) or Variable("lemma")
    found.roles[lemma] = "lemma"
    _dialects(triples, lemma, found)
    _elita(triples, lemma, found, pattern.in_elita)
    _sentix(triples, lemma, found)
    _lemma_bank(triples, lemma, found, pattern)
    if found.senses is not None:
        if found.words.forms:
            raise Unparsed("a lemma-bank form beside a CompL-it word")
        found.words = Words(found.words.kind, tuple(forms), found.words.pos)
    if triples.left:
        raise Unparsed("triples outside the known blocks: " + "; ".join(_short(t) for t in triples.left[:2]))
    for group in pattern.optional:
        _optional(group, lemma, found)
    for mode, groups in (("absent", pattern.not_exists), ("absent_minus", pattern.minus)):
        for group in groups:
            _absent(group, lemma, found, mode)
    found.filters = [f for expr in filters for f in read_filter(expr, found)]
    return found


def _dialect_bank(triples: list[tuple]) -> tuple[Variable, str] | None:
    """(subject, dialect) when the words asked about are a dialect lemma bank's own lemmas (not translations)."""
    if any(t[1] == TRANSLATABLE for t in triples):
        return None
    banks = [(t[0], BANK_OF[t[2]]) for t in triples if t[1] == PART_OF and t[2] in BANK_OF]
    return banks[0] if len(banks) == 1 and isinstance(banks[0][0], Variable) else None


def _bank_words(triples: _Triples, bank: tuple, found: Found, pattern: Pattern, filters: list) -> Found:
    from nl2sparql.data.plans.filters import read_filter

    subject, dialect = bank
    found.roles[subject] = f"{dialect}Lemma"
    triples.take(subject, PART_OF)
    kind, forms, pos = None, [], []
    for _, _, o in triples.take(subject, TYPE):
        kind = _local(o, LILA)
    for _, _, o in triples.take(subject, WRITTEN):
        if isinstance(o, Literal):
            forms.append(str(o))
        else:
            found.roles[o] = f"{dialect}Word"
    for _, _, o in triples.take(subject, HAS_POS):
        if isinstance(o, URIRef):
            pos.append(_local(o, LILA))
        else:
            found.roles[o] = "pos"
    if triples.left or pattern.values or pattern.optional or pattern.not_exists or pattern.minus:
        raise Unparsed("a dialect lemma bank with more than its lemmas' forms and parts of speech")
    found.words = Words(kind, tuple(forms), tuple(pos), bank=dialect)
    found.filters = [f for expr in filters for f in read_filter(expr, found)]
    return found


def _short(t: tuple) -> str:
    return " ".join(f"?{x}" if isinstance(x, Variable) else x.n3() for x in t)


def _lemma_bank(triples: _Triples, lemma, found: Found, pattern: Pattern) -> None:
    kind, forms, pos = None, [], []
    for _, _, o in triples.take(lemma, TYPE):
        kind = _local(o, LILA)
        if kind not in ("Lemma", "Hypolemma"):
            raise Unparsed(f"a lemma of type {o}")
    for _, _, o in triples.take(lemma, WRITTEN):
        if isinstance(o, Literal):
            forms.append(str(o))
        else:
            found.roles[o] = "lemmaWord" if found.senses is not None else "italianWord"
            forms += [str(v) for v in pattern.values.pop(o, [])]
    for _, _, o in triples.take(lemma, HAS_POS):
        if isinstance(o, URIRef):
            pos.append(_local(o, LILA))
        else:
            found.roles[o] = "pos"
            pos += [_local(v, LILA) for v in pattern.values.pop(o, [])]
    if pattern.values:
        raise Unparsed("a VALUES list on another variable than the written form or the part of speech")
    found.words = Words(kind, tuple(forms), tuple(pos))


def _elita(triples: _Triples, lemma, found: Found, in_elita: set) -> None:
    entries = {t[0] for t in triples.left if t[1] in (HAS_EMOTION, ELITA_POLARITY) or (
        t[0] in in_elita and t[1] == POLARITY_VALUE)}
    for entry in entries:
        alone = not triples.take(entry, CANONICAL, lemma)
        found.roles[entry] = "elitaEntry"
        emotions = []
        for _, _, o in triples.take(entry, HAS_EMOTION):
            if isinstance(o, URIRef):
                emotions.append(_local(o, ELITA))
                continue
            found.roles[o] = "emotion"
            for _, _, label in triples.take(o, LABEL):
                if isinstance(label, Literal):
                    emotions.append(str(label))
                else:
                    found.roles[label] = "emotionLabel"
        polarity = _polarity(triples, entry, ELITA_POLARITY, found, "elita")
        found.joins.append(Join("elita", emotions=tuple(emotions), polarity=polarity, entries_only=alone))


def _sentix(triples: _Triples, lemma, found: Found) -> None:
    entries = {t[0] for t in triples.left if t[1] == HAS_POLARITY}
    for entry in entries:
        alone = not triples.take(entry, CANONICAL, lemma)
        found.roles[entry] = "sentixEntry"
        polarity = _polarity(triples, entry, HAS_POLARITY, found, "sentix")
        found.joins.append(Join("sentix", polarity=polarity, entries_only=alone))


def _polarity(triples: _Triples, entry, predicate, found: Found, resource: str) -> str | None:
    """An entry's polarity class (a fixed one returned, a variable given its role) and its value's role."""
    polarity = None
    for _, _, o in triples.take(entry, predicate):
        polarity = _local(o, MARL) if isinstance(o, URIRef) else None
        if polarity is None:
            found.roles[o] = f"{resource}Polarity"
    for _, _, o in triples.take(entry, POLARITY_VALUE):
        found.roles[o] = f"{resource}Value"
    return polarity


def _dialects(triples: _Triples, lemma, found: Found) -> None:
    """Each Italian entry translated into a dialect: the dialect named by the lexicon that lists the entry, or by
    the lemma bank the dialect lemma is part of. Two dialects are read in one order (Parmigiano, then Sicilian),
    whatever order the query's triples come in."""
    before = len(found.joins)
    for italian_entry, _, _ in [t for t in triples.left if t[1] == TRANSLATABLE]:
        if not triples.take(italian_entry, CANONICAL, lemma):
            raise Unparsed("a dialect entry not joined on the lemma")
        named = {DIALECT_OF.get(t[0]) for t in triples.take(None, LIME_ENTRY, italian_entry)}
        form, pos, note = None, None, None
        for _, _, entry in triples.take(italian_entry, TRANSLATABLE):
            found.roles[entry] = "dialectEntry"
            for _, _, value in triples.take(entry, COMMENT):
                if isinstance(value, Literal):
                    note = str(value)
                else:
                    found.roles[value], note = "usageNote", ""
            for _, _, dialect_lemma in triples.take(entry, CANONICAL):
                found.roles[dialect_lemma] = "dialectLemma"
                named |= {BANK_OF.get(t[2]) for t in triples.take(dialect_lemma, PART_OF)}
                for _, _, o in triples.take(dialect_lemma, WRITTEN):
                    if isinstance(o, Literal):
                        form = str(o)
                    else:
                        found.roles[o] = "dialectWord"
                for _, _, o in triples.take(dialect_lemma, HAS_POS):
                    pos = _local(o, LILA)
                for _, _, o in triples.take(dialect_lemma, LABEL):
                    found.roles[o] = "dialectLabel"
        named.discard(None)
        if len(named) != 1:
            raise Unparsed("a translation into no dialect or several dialects at once")
        dialect = named.pop()
        for var, role in list(found.roles.items()):
            if role.startswith("dialect"):
                found.roles[var] = dialect + role[len("dialect"):]
        found.joins.append(Join(dialect, form=form, pos=pos, note=note))
    found.joins[before:] = sorted(found.joins[before:], key=lambda j: j.resource)


def _optional(group: list[tuple], lemma, found: Found) -> None:
    notes = [t for t in group if t[1] == COMMENT and found.roles.get(t[0], "").endswith("Entry")]
    if len(notes) == len(group):
        for _, _, note in notes:
            found.roles[note] = "usageNote"
            found.optional_roles.append("usageNote")
        return
    inner = recognize(Pattern(triples=list(group)), lemma)
    if len(inner.joins) != 1 or inner.words != Words():
        raise Unparsed("an OPTIONAL other than one resource or a usage note")
    found.roles.update({k: v for k, v in inner.roles.items() if v != "lemma"})
    join = inner.joins[0]
    found.joins.append(Join(join.resource, "optional", join.emotions, join.polarity, join.form, join.pos))


def _absent(group: list[tuple], lemma, found: Found, mode: str) -> None:
    elita = next((j for j in found.joins if j.resource == "elita"), None)
    entry = next((k for k, v in found.roles.items() if v == "elitaEntry"), None)
    # NOT EXISTS or MINUS of an emotion on the same entry: the same answer either way
    if elita and all(t[0] == entry and t[1] == HAS_EMOTION and isinstance(t[2], URIRef) for t in group):
        index = found.joins.index(elita)
        found.joins[index] = Join("elita", elita.mode, elita.emotions, elita.polarity,
                                  without_emotions=tuple(_local(t[2], ELITA) for t in group))
        return
    inner = recognize(Pattern(triples=list(group)), lemma)
    if len(inner.joins) != 1 or inner.words != Words():
        raise Unparsed("a NOT EXISTS or MINUS other than one resource")
    join = inner.joins[0]
    found.joins.append(Join(join.resource, mode, join.emotions, join.polarity, join.form, join.pos))
