"""The blocks a question's signals allow, one kind at a time: word sets, joins, CompL-it senses, filters, and the
operators with their columns. The enumerator combines them; each function is small so a block can be added here
without touching the search."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

from nl2sparql.data.plans.model import RELATIONS, Aggregate, Filter, Join, Plan, Words
from nl2sparql.retrieval.column_blocks import DIALECTS, columns, optional_examples, optional_notes, unique
from nl2sparql.retrieval.computed_blocks import computed, concatenated, per_affix, statistics
from nl2sparql.retrieval.filter_blocks import bound_op, first_whole, whole_number
from nl2sparql.retrieval.nested_blocks import (averages_per_key, compared_counts, tied_counts, tied_values,
                                                word_keys)
from nl2sparql.retrieval.signals import Signals

# A resource the word lacks, written as MINUS: the same answer as NOT EXISTS on the shared ?lemma, but the embedded
# store answers "verbs without Sentix" in 0.8 s where NOT EXISTS takes 17 s (45–50 s for Sentix or a dialect whole)
ABSENT = "absent_minus"


def _bound(s: Signals) -> str:
    """The comparison a count threshold is read with: ">" for "più di", "<" for "meno di", "=" for "esattamente"."""
    return ">" if s.comparison == ">=" else "<" if s.comparison else "="


def word_sets(s: Signals) -> list[Words]:
    forms = [tuple(s.forms[:1])] + ([tuple(s.forms[:4])] if len(s.forms) > 1 else []) if s.forms else []
    forms = [tuple(s.forms[:8]), tuple(s.forms[:1])] if len(s.forms) > 2 else forms  # a list: all of it first
    emotion_words = {e.lower() for e in s.emotions}
    open_set = not s.forms or s.operators & {"group", "count"} or any(f.lower() in emotion_words for f in s.forms) \
        or s.any_case  # "roma, con o senza maiuscola": any written form that lower-cases to it
    forms = forms + [()] if open_set else forms
    pos = ([(p,) for p in s.pos[:2]] + ([tuple(s.pos[:4])] if len(s.pos) > 1 else []) + [()]) if s.pos else [()]
    if len(s.pos) > 1 and s.operators & {"count", "group", "average"}:  # "quanti nomi, verbi e aggettivi": all first
        pos = [pos[-2]] + pos[:-2] + [()]
    kinds = [s.lemma_kind, None] if s.lemma_kind else [None]
    if not s.lemma_kind and not s.forms and s.operators & {"count", "group"}:
        kinds.append("Lemma")  # a count of lemmas often means the typed ones
    sets = [Words(kind, f, p) for f, p, kind in product(forms, pos, kinds)]
    if s.without_pos:  # "quanti lemmi non sono né nomi né verbi", "parole che sono nomi ma non verbi": first
        kept = tuple(p for p in s.pos if p not in s.without_pos)[:1]
        sets = [Words(kind, f, kept, without_pos=tuple(s.without_pos[:2])) for f, kind in product(forms, kinds)] + [
            w for w in sets if not set(w.pos) & set(s.without_pos)]
    if s.every_pos and len(s.pos) > 1:  # "parole che sono sia nomi che verbi": a form with a lemma of each
        sets = [Words(kind, f, tuple(s.pos[:2]), every_pos=True) for f, kind in product(forms or [()], kinds)] + sets
    if s.iris:  # "il lemma http://liita.it/data/id/lemma/1054825": that lemma, in the bank its IRI is of
        iri = s.iris[0]
        bank = next((d for d, path in (("sicilian", "/DialettoSiciliano/"), ("parmigiano", "/DialettoParmigiano/"))
                     if path in iri), "italian")
        sets = [Words(iri=iri, bank=bank)] + sets
    if s.lemma_kind == "Lemma" and not s.forms:  # "il lemma siciliano «cori»": the dialect's own lemma
        sets += [Words(forms=(form,), bank=dialect) for dialect, form in s.dialect_forms[:1]]
        named_bank = [Words(forms=(form,), bank=d) for _, form in s.dialect_forms[:1] for d in DIALECTS
                      if d in s.resources]  # "il lemmario parmigiano contiene «cani»": asked of the bank it names
        sets = named_bank + sets if s.bank_link else sets + named_bank
    named = [d for d in DIALECTS if d in s.resources]
    if named and not s.forms and not s.dialect_forms:  # "nel lemmario parmigiano, parole con la ö": its bank first
        banked = [Words(kind, (), p, bank=named[0]) for p, kind in product(pos, kinds)]
        sets = banked + sets if "lemma_banks" in s.catalogs else sets + banked
    return unique(sets)


def _polarity_owner(s: Signals, resources: list[str]) -> str | None:
    if not s.polarity:
        return None
    return "sentix" if "sentix" in resources else "elita" if "elita" in resources else None


def join_sets(s: Signals) -> list[tuple[Join, ...]]:
    resources = [r for r in s.resources if r in ("elita", "sentix", *DIALECTS)]
    for dialect, _ in s.dialect_forms:
        if dialect not in resources:
            resources.append(dialect)
    if s.polarity and not {"elita", "sentix"} & set(resources):
        resources.append("sentix")
    owner = _polarity_owner(s, resources)

    both = len(s.polarity) > 1 and {"elita", "sentix"} <= set(resources)
    sets: list[tuple[Join, ...]] = []

    def join(resource: str, mode: str = "has", emotions: tuple = ()) -> Join:
        form = next((f for d, f in s.dialect_forms if d == resource), None)
        polarity = s.polarity[0] if resource == owner else None
        if both and resource in ("elita", "sentix"):
            polarity = s.polarity[0] if resource == "elita" else s.polarity[1]
        note = s.notes[0] if s.notes and resource in DIALECTS and mode == "has" else None
        return Join(resource, mode, emotions=emotions if resource == "elita" else (), polarity=polarity, form=form,
                    note=note)

    emotion_options = [tuple(s.emotions[:2])] + ([tuple(s.emotions[:1])] if len(s.emotions) > 1 else []) \
        if s.emotions else [()]
    if s.either and "elita" in resources:  # "Gioia o Fiducia": any one of them, first
        sets = [tuple(Join("elita", emotions=tuple(s.emotions[:3]), any_emotion=True) if r == "elita" else join(r)
                      for r in resources)]
    if any(e.lower() in {f.lower() for f in s.forms} for e in s.emotions):
        emotion_options.append(())  # "the emotions of the synonyms of paura": the emotion word names a word
    sets = sets + _negated_sets(s, resources, join)
    if s.optional and not s.notes and resources:  # "con la polarità Sentix quando c'è": the last one where present
        orders = [resources, resources[::-1]] if len(resources) == 2 else [resources]
        sets += [tuple(join(r, "has" if i < len(kept) - 1 else "optional", tuple(s.emotions[:2]))
                       for i, r in enumerate(kept)) for kept in orders]
    lacks = "absent" in s.operators and s.lacking != ("complit",)  # "… non esistono in CompL-it": not the others
    if "absent" in s.operators and len(s.emotions) == 2:  # "words of Amore but not of Gioia", either way round
        for kept, dropped in (s.emotions, s.emotions[::-1]):
            sets.append((Join("elita", emotions=(kept,), without_emotions=(dropped,)),))
    if s.only and s.emotions:  # "le parole di soltanto Gioia, senza altre emozioni"
        sets.append((Join("elita", emotions=tuple(s.emotions[:2]), only=True),))
    if len(s.polarity) > 1 and not both and owner:  # several classes named: the classes are a group key
        sets.append((Join(owner),))
    if (len(s.emotions) > 2 or len(s.emotions) == 2 and "group" in s.operators) and not s.either \
            and "elita" in resources:  # "per gioia, tristezza e paura, quante parole": each one of a VALUES list
        sets.append(tuple(Join("elita", emotions=tuple(s.emotions[:6]), any_emotion=True) if r == "elita" else join(r)
                          for r in resources))
    for emotions in emotion_options:
        sets.append(tuple(join(r, emotions=emotions) for r in resources))
        if len(resources) > 1:
            if lacks:  # "words of Gioia with no Parmigiano translation": before the parts alone
                for kept in (resources, resources[::-1]) if len(resources) == 2 else (resources,):  # either one lacked
                    sets += [tuple(join(r, "has" if i == 0 else ABSENT, emotions) for i, r in enumerate(kept))]
            sets += [(join(r, emotions=emotions),) for r in resources]
    if lacks and len(resources) == 1:  # "verbi senza polarità Sentix": before the word with it
        sets.insert(len(sets) if s.emotions else 0, (join(resources[0], ABSENT),))
    return unique(sets) or [()]


def _negated_sets(s: Signals, resources: list[str], join) -> list[tuple[Join, ...]]:
    """The joins as the question's negations scope them, first: "sia Rabbia sia Disgusto ma non Paura" (the emotions
    kept, the negated ones lacked), "né siciliana né parmigiana", "una polarità Sentix ma nessuna emozione"."""
    sets = []
    if s.without and "elita" in resources:
        kept = tuple(e for e in s.emotions if e not in s.without)[:2]
        sets.append(tuple(Join("elita", emotions=kept, without_emotions=s.without[:2]) if r == "elita" else
                          join(r, "has" if r not in s.lacking else ABSENT) for r in resources))
    lacked = [r for r in s.lacking if r in resources and not (r == "elita" and s.without)]
    if lacked:
        emotions = tuple(e for e in s.emotions if e not in s.without)[:2]
        had = [join(r, emotions=emotions) for r in resources if r not in lacked]
        sets.append(tuple(had) + tuple(join(r, ABSENT, emotions) for r in lacked))
    return sets


def operators(base: Plan, s: Signals) -> list[Plan]:
    """The plans a word set is asked through: lists with each column set, a count, a yes/no, groups, top k."""
    if base.senses is not None and base.senses.absent:  # words CompL-it lacks: asked as lemma-bank words
        return [p.with_block(senses=base.senses) for p in operators(base.with_block(senses=None), s)]
    plans, ops = [], s.operators
    counted = "sense" if base.senses is not None and not base.senses.relation else \
        RELATIONS[base.senses.relation][2] if base.senses is not None else \
        f"{base.words.bank}Lemma" if base.words.bank in DIALECTS else "lemma"
    # "la lunghezza minima e massima dei nomi", "emozioni raggruppate": asked first (a CompL-it set's groups are slow)
    plans += statistics(base, s, "length", "Length") + (concatenated(base, s, columns(base, s)) if s.concat else [])
    plans += per_affix(base, s, counted) if len(s.affixes) > 2 else []  # "per -zione, -mento e -tà": each, first
    plans += compared_counts(base, s)  # "più traduzioni siciliane che parmigiane": both counts, one above
    if "share" in ops:  # "quanti su cento hanno una polarità in Sentix": each joined resource's share of the rest
        plans += [base.with_block(joins=tuple(replace(x, mode="covered") if x == j else x for x in base.joins),
                                  operator="share", columns=()) for j in base.joins if j.mode == "has"]
    if "ask" in ops:
        plans.append(base.with_block(operator="ask", columns=()))
    if "count" in ops and "group" not in ops:
        things = [counted] + [f"{j.resource}Entry" if j.resource in DIALECTS else "emotion" for j in base.joins
                              if j.mode == "has" and (j.resource in DIALECTS or j.resource == "elita")]
        if base.words.bank in DIALECTS:
            things = [f"{base.words.bank}Lemma"]
        if base.words.every_pos:  # "quante forme sono sia aggettivi sia avverbi": the written forms
            things = ["italianWord"]
        if base.senses is not None and not base.senses.relation:  # "quanti verbi con una definizione": the words
            things += ["word"] + (["lemma"] if base.senses.linked else [])  # and their lemmas when linked
        if any(j.resource == "elita" and j.mode == "has" for j in base.joins):  # "quante voci ELITA"
            things.append("elitaEntry")
        if any(j.resource == "sentix" and j.mode == "has" for j in base.joins):  # "quante voci contiene Sentix"
            things.append("sentixEntry")
        for thing in unique(things):
            plans.append(base.with_block(operator="count", columns=(),
                                         aggregates=(Aggregate("count", thing, "count", distinct=True),)))
        if s.several_counts:  # "quanti lemmi e quante grafie distinte": each count, one answer
            counted_too = unique(things + ["italianWord" if base.words.bank == "italian" else f"{base.words.bank}Word"])
            plans += [base.with_block(operator="count", columns=(), aggregates=tuple(
                Aggregate("count", t, f"{t}Count", distinct=True) for t in pair))
                for pair in zip(counted_too, counted_too[1:])][:2]
    value = next((r for r in ("polarityValue", "elitaValue", "sentixValue")
                  if any(j.resource in ("elita", "sentix") for j in base.joins)), None)
    value_of = "sentixValue" if base.join("sentix") and base.join("elita") else "polarityValue"  # the one averaged
    per_word = next((f"{j.resource}Entry" if j.resource in DIALECTS else "emotion" for j in base.joins
                     if j.mode == "has" and (j.resource in DIALECTS or (j.resource == "elita" and not j.emotions))),
                    counted if base.senses is not None else None)  # "nouns with more than ten senses"
    threshold = first_whole(s)
    plain = base.words.bank == "italian" and not base.joins and base.senses is None and not base.words.forms
    if per_word is None and plain:  # "le grafie di più lemmi", "lemmi con più di una parte del discorso"
        per_word = "pos" if "pos" in s.keys else "lemma"
    # "i 10 lemmi più lunghi", "le terminazioni di 3 lettere più frequenti": the computed key asked first
    longest = ("length" in s.computed and "top" in ops) or any(c.startswith("ending") for c in s.computed)
    plans += computed(base, s, counted) if longest else []
    if "top" in ops and not base.words.forms and not (value and (s.values or s.polarity) and base.senses is None):
        plans += _top_counts(base, s, per_word or (counted if base.senses is not None else None))
    shown_sets = columns(base, s) if "ask" not in ops or len(plans) < 2 else []
    by_value = "top" in ops and value and not ops & {"count", "average", "group"}
    if "top" in ops and value and ops & {"group", "ties"} and not ops & {"count", "average"} and (
            s.values or s.polarity or "ties" in ops):
        # "il valore più alto per ogni emozione" (the value), "per ogni emozione, la parola più negativa" (the rows)
        plans += (statistics(base, s, value_of)[:1] if ops & {"min", "max"} and "ties" not in ops else []) + \
            tied_values(base, s, _valued(shown_sets) or [(("italianWord", value_of), value_of)])[:1]
    if by_value:  # "la parola con la polarità più bassa": ordered by the value, before the groups
        plans += _top_values(base, s, shown_sets)
    plans += computed(base, s, counted) if not longest else []
    top_groups = "top" in ops and not base.words.forms and not (value and (s.values or s.polarity))
    per_pos = ops & {"count", "average"} and len(base.words.pos) > 1 and not base.words.every_pos  # "quanti nomi, verbi e aggettivi …": a count per each
    # "le emozioni espresse da più di 100 parole": a threshold on the groups of a key the question names
    named_having = threshold is not None and s.comparison and set(s.keys) & {"emotionLabel", "pos", "polarity"}
    if {"average", "count"} <= ops and per_word and s.keys and not base.words.forms and not (value and (
            s.values or s.polarity)):
        plans += averages_per_key(base, s, per_word, word_keys(base), threshold)  # "per categoria": a mean per key
    if not s.keys:  # "Italian words with nine or more Parmigiano translations, how many each": before any group
        plans += _per_word_having(base, s, per_word, counted, threshold)
    listed = "count" in ops and any(j.any_emotion for j in base.joins)  # "quante parole per paura, disgusto e …"
    if "group" in ops or "count" in ops and ("top" in ops or "pos" in s.keys) or top_groups or per_pos or named_having \
            or listed:
        keys = []
        if (not base.words.pos or per_pos) and base.senses is None:
            keys.append("pos")
        if any(j.resource == "elita" and (not j.emotions or j.any_emotion) for j in base.joins):
            keys += ["emotionLabel"] if not base.join("elita").any_emotion else ["emotion", "emotionLabel"]
        if any(j.resource in ("elita", "sentix") and not j.polarity for j in base.joins):
            keys.append("polarity")
        if base.senses is not None and not base.senses.pos:
            keys.append("posLabel")
        noted = next((j.resource for j in base.joins if j.resource in DIALECTS and j.note == ""), None)
        if noted:  # "le note d'uso più frequenti": per note, the translations that carry it
            keys.append("usageNote")
        translated = next((j.resource for j in base.joins if j.resource in DIALECTS and j.mode == "has"), None)
        if translated and "group" in ops and not base.words.forms:  # "quante parole italiane traduce ciascuna
            keys.append(f"{translated}Word")  # parola siciliana": per dialect word, its Italian lemmas
        if base.senses is not None or not keys or (plain and "top" in ops):  # "le grafie di più lemmi"
            keys.append("italianWord")
        named = {"posLabel" if k == "pos" and base.senses is not None else k for k in s.keys}
        named |= {"emotion"} if "emotionLabel" in named else set()  # a listed emotion's IRI as named as its label
        keys.sort(key=lambda k: k not in named)  # the keys the question names first (a stable sort)
        for key in keys[:3]:
            aggregate = Aggregate("count", f"{noted}Entry" if key == "usageNote" else counted, "count", distinct=True)
            if "average" in ops and value:  # an average asked: its groups first, the plain count after
                average = Aggregate("avg", value_of, "average")
                if len(base.joins) == 1 and base.joins[0].resource in ("elita", "sentix"):
                    entries = Aggregate("count", f"{base.joins[0].resource}Entry", "count")
                    plans.append(base.with_block(operator="group", columns=(key,), aggregates=(entries, average)))
                plans.append(base.with_block(operator="group", columns=(key,), aggregates=(aggregate, average)))
                plans.append(base.with_block(operator="group", columns=(key,), aggregates=(average,)))
                if "top" in ops:  # "l'emozione con le parole mediamente più positive"
                    k = whole_number(s)
                    plans.append(base.with_block(operator="group", columns=(key,), aggregates=(average,),
                                                 order=(("average", "ascending" not in ops), (key, False)), limit=k))
            plans.append(base.with_block(operator="group", columns=(key,), aggregates=(aggregate,)))
            if key == "polarity" and len(base.joins) == 1:  # "quante voci …": the resource's entries counted
                entries = Aggregate("count", f"{base.joins[0].resource}Entry", "count", distinct=True)
                plans.append(base.with_block(operator="group", columns=(key,), aggregates=(entries,)))
            if threshold is not None and s.comparison and key != "italianWord":  # "categories with fewer than 20"
                op = bound_op(s, "=")
                plans.append(base.with_block(operator="group", columns=(key,), aggregates=(aggregate,),
                                             having=Filter("count", "value", threshold, op)))
            if "top" in ops:
                k = whole_number(s)
                plans.append(base.with_block(operator="group", columns=(key,), aggregates=(aggregate,),
                                             order=(("count", "ascending" not in ops), (key, False)), limit=k))
    if any(j.any_emotion for j in base.joins) and "pos" in s.keys and not base.words.pos:  # "per emozione e parte
        plans += [base.with_block(operator="group", columns=(key, "pos"), aggregates=(  # del discorso", of a list
            Aggregate("count", counted, "count", distinct=True),)) for key in ("emotion", "emotionLabel")]
    if "ask" in ops and per_word and threshold is not None and (s.comparison or s.exactly):
        # "il verbo correre ha più di tre sensi?": whether the word's count passes
        op = bound_op(s, "=")
        key = "word" if base.senses is not None and not base.senses.relation else "italianWord"
        plans.insert(1, base.with_block(operator="ask_groups", columns=(key,), aggregates=(
            Aggregate("count", per_word, "count", distinct=True),), having=Filter("count", "value", threshold, op)))
    if s.keys:  # a key named: its groups first, the words that pass after
        plans += _per_word_having(base, s, per_word, counted, threshold)
    if ops & {"count", "top"} and len(base.words.forms) > 1:  # "confronta il numero di sensi di cane, gatto e
        aggregate = Aggregate("count", counted, "count", distinct=True)  # cavallo", "quale tra … ha più sensi"
        translations = [f"{j.resource}Lemma" for j in base.joins if j.resource in DIALECTS and j.mode == "has"]
        plans += [base.with_block(operator="group", columns=("italianWord",), aggregates=(  # "quante traduzioni
            Aggregate("count", thing, "count", distinct=True),)) for thing in translations[:1] + [counted]]  # hanno"
        if "top" in ops:
            plans.append(base.with_block(operator="group", columns=("italianWord",), aggregates=(aggregate,),
                                         order=(("count", "ascending" not in ops), ("italianWord", False)), limit=1))
    if "average" in ops and value and "group" not in ops:  # "the mean Sentix polarity of nouns": one row
        plans.append(base.with_block(operator="count", columns=(), aggregates=(Aggregate("avg", value_of, "average"),)))
        if "count" in ops:  # "la polarità media delle parole in dis-, e quante sono": both, one row
            rated = [f"{j.resource}Entry" for j in base.joins if j.resource in ("sentix", "elita") and j.mode == "has"]
            plans += [base.with_block(operator="count", columns=(), aggregates=(
                Aggregate("count", thing, "count", distinct=True), Aggregate("avg", value_of, "average")))
                for thing in unique(rated[:1] + [counted])]
    if ops & {"min", "max"} and value:  # "il valore di polarità minimo dei nomi negativi"
        plans += statistics(base, s, value_of)
    if "average" in ops and per_word and not base.words.forms and not (value and (s.values or s.polarity)):
        # "quanti sensi ha in media un verbo": a count per word, averaged
        outer = ["average_max_groups", "average_groups"] if "max" in ops else ["average_groups"]  # "e il massimo?"
        plans += [base.with_block(operator=op, columns=(key,), aggregates=(
            Aggregate("count", thing, "count", distinct=True),)) for op in outer for thing in _per_word_things(per_word)
            for key in word_keys(base)]
    if ops & {"max", "min"} and per_word and not base.words.forms and not (value and (s.values or s.polarity)):
        # "il numero massimo di traduzioni che ha un verbo": a count per word, its highest (lowest) one
        plans += [base.with_block(operator=f"{func}_groups", columns=(key,), aggregates=(
            Aggregate("count", thing, "count", distinct=True),)) for func in ("max", "min") if func in ops
            for thing in _per_word_things(per_word) for key in word_keys(base)]
    plans += optional_notes(base, s) + optional_examples(base, s) + _average_classes(base, s)
    if "alphabetical" in ops and whole_number(s, None):  # "i primi 20 nomi in ordine alfabetico"
        plans += [base.with_block(columns=shown, order=((shown[0], False),), limit=whole_number(s))
                  for shown in shown_sets[:2]]
    for shown in shown_sets:
        plans.append(base.with_block(columns=shown))
    if "top" in ops and value and not by_value:
        plans += _top_values(base, s, shown_sets)
    return unique(plans)


def _per_word_things(per_word: str) -> list[str]:
    """What a per-word count counts: a dialect's translation entries, then their dialect lemmas (the two differ where
    one entry is translated by several lemmas)."""
    dialect = per_word.removesuffix("Entry")
    return [per_word] + ([f"{dialect}Lemma"] if dialect in DIALECTS else [])


def _valued(shown_sets: list[tuple[str, ...]]) -> list[tuple[tuple[str, ...], str]]:
    """(columns, the polarity value among them) for each column set that shows one; "among the words with a Sicilian
    translation, the five most negative": each set with its dialect a filter, not a column, too."""
    roles = ("polarityValue", "sentixValue", "elitaValue")
    shown_sets = unique([c for sh in shown_sets for c in (sh, tuple(r for r in sh if r[:-4] not in DIALECTS))])
    # a set that shows both ELITA's and Sentix's value: ordered by each ("la polarità ELITA più alta, con Sentix")
    return [(shown, r) for shown in shown_sets for r in roles if r in shown]


def _top_values(base: Plan, s: Signals, shown_sets: list[tuple[str, ...]]) -> list[Plan]:
    """"Le cinque più negative in Sentix": the rows of each column set that shows a polarity value, top k by it."""
    number = whole_number(s, None)
    ordered = _valued(shown_sets)
    limits = [(shown, r, number or 1) for shown, r in ordered]
    if ordered and not number:  # no number: "la parola più negativa" is one, "le più negative" some (ten)
        limits.append((*ordered[0], 10))
    plans = [base.with_block(columns=shown, order=((r, "ascending" not in s.operators), (shown[0], False)), limit=k)
             for shown, r, k in limits]
    if ordered and not number:  # "quali aggettivi hanno il punteggio più negativo": all that share it, after the one
        plans.insert(1, base.with_block(operator="extreme", columns=ordered[0][0],
                                        order=((ordered[0][1], "ascending" not in s.operators),)))
    return tied_values(base, s, ordered) + plans if not number else plans


def _top_counts(base: Plan, s: Signals, counted: str | None) -> list[Plan]:
    """"The five words with the most translations", "the emotion with the most words": a count per word (or per
    emotion), the top k of its order."""
    k = whole_number(s)
    pairs = [("italianWord", counted)] if counted else []
    if any(j.resource == "elita" and j.mode == "has" and not j.emotions for j in base.joins):
        pairs.append(("emotionLabel", "lemma"))
    return tied_counts(base, s, pairs) + [base.with_block(
        operator="group", columns=(key,), aggregates=(Aggregate("count", thing, "count", distinct=True),),
        order=(("count", "ascending" not in s.operators), (key, False)), limit=k) for key, thing in pairs]


def _average_classes(base: Plan, s: Signals) -> list[Plan]:
    """"Le emozioni con una polarità media Sentix negativa": per key the question names, the mean polarity value of
    all its words, kept where it falls on the class's side of zero (not the mean of the negative words only)."""
    polar = [j for j in base.joins if j.resource in ("elita", "sentix") and j.polarity in ("Positive", "Negative")]
    if "average" not in s.operators or not polar:
        return []
    plain = base.with_block(joins=tuple(replace(j, polarity=None) for j in base.joins))
    value = "sentixValue" if base.join("sentix") and base.join("elita") else "polarityValue"
    side = "<" if polar[0].polarity == "Negative" else ">"
    keys = [k for k in s.keys if k in ("emotionLabel", "pos")]
    return [plain.with_block(operator="group", columns=(key,), aggregates=(Aggregate("avg", value, "average"),),
                             having=Filter("average", "value", 0, side)) for key in keys]


def _per_word_having(base: Plan, s: Signals, per_word: str | None, counted: str, threshold: float | None) -> list[Plan]:
    """"Quanti sostantivi hanno almeno dieci sensi", "parole con nove o più traduzioni": the words whose count
    passes a threshold (and how many of them)."""
    if not (per_word and threshold is not None and (s.comparison or s.exactly) and not base.words.forms) or (
            s.length and threshold == s.letters):  # "non superano le 7 lettere": a length, no count of anything
        return []
    plans, ops = [], s.operators
    op = _bound(s)
    aggregate = Aggregate("count", per_word, "count", distinct=True)
    # "quanti sostantivi hanno almeno dieci sensi": the words that pass, counted (per CompL-it word too)
    keys = ("italianWord", "word") if "count" in ops and base.senses is not None else \
        ("italianWord",) if "count" in ops else ()
    keys += ("lemma",) if keys and (base.senses is None or base.senses.linked) else ()  # per lemma too
    for strict in ((op + "=", op) if s.inclusive else (op, op + "=")) if op != "=" else (op,):
        plans += [base.with_block(operator="count_groups", columns=(key,), aggregates=(aggregate,),
                                  having=Filter("count", "value", threshold, strict)) for key in keys]
        plans.append(base.with_block(operator="group", columns=("italianWord",), aggregates=(aggregate,),
                                     having=Filter("count", "value", threshold, strict)))
        if base.senses is not None and per_word != counted:  # "verbi con più di 5 sensi e una traduzione
            plans.append(base.with_block(operator="group", columns=("italianWord",), aggregates=(  # parmigiana"
                Aggregate("count", counted, "count", distinct=True),), having=Filter("count", "value", threshold,
                                                                                      strict)))
        for dialect in [j.resource for j in base.joins if j.resource in DIALECTS and j.mode == "has"][:1]:
            # "parole siciliane che traducono più di una parola italiana": per dialect word, its lemmas
            plans.append(base.with_block(operator="group", columns=(f"{dialect}Word",), aggregates=(
                Aggregate("count", "lemma", "count", distinct=True),), having=Filter("count", "value", threshold,
                                                                                      strict)))
    return plans
