"""Catalog blocks: meta questions ask what the knowledge base holds (its emotions, lexicons, lemma banks and their
descriptions, graphs, classes) rather than what a word is; each catalog comes with the columns a question may want,
and a count per catalog item when one is asked."""

from __future__ import annotations

from nl2sparql.data.plans.compile import BANKS, LEXICONS
from nl2sparql.data.plans.model import Aggregate, Filter, Plan, Words
from nl2sparql.kb.vocab import ELITA_GRAPH, LIITA_GRAPH
from nl2sparql.retrieval.column_blocks import DIALECTS, unique
from nl2sparql.retrieval.filter_blocks import bound_op, first_whole
from nl2sparql.retrieval.signals import Signals


def catalog_plans(s: Signals) -> list[Plan]:
    """Meta questions: a catalog of what the knowledge base holds, with the columns a question may want."""
    shown = {"emotions": [("emotionLabel",), ("emotion", "emotionLabel")], "lexicons": [("lexicon", "language"),
                                                                                          ("lexicon",)],
             "bank_metadata": [("title", "description"), ("contributor", "license"), ("title",), ("description",)],
             "graphs": [("graph",)], "classes": [("class",)], "lemma_banks": [("lemmaBank",)],
             "lemma_bank_types": [("type",)],
             **{f"{r}_properties": [("property",)] for r in ("elita", "sentix", "lemma")}}
    dialect = next((d for d in DIALECTS if d in s.resources), "parmigiano")
    plans = []
    if s.forms and {"graphs", "written_forms"} & set(s.catalogs):  # "in quale grafo è il lemma «correre»", "quali
        written = (Filter("writtenForm", "equals", s.forms[0]),)  # risorse usano la forma «casa»": that form's
        if "graphs" in s.catalogs:
            plans.append(Plan(meta="word_graphs", filters=written, columns=("graph",)))
        plans += [Plan(meta="written_forms", filters=written, columns=c) for c in (("resource", "writtenForm"),
                                                                                   ("resource",))]
    for catalog in s.catalogs:
        if catalog == "written_forms":
            continue
        if catalog == "properties":  # of the resource named: ELITA's entries, Sentix's, or the lemma bank's lemmas
            catalog = next((f"{r}_properties" for r in ("elita", "sentix") if r in s.resources), "lemma_properties")
        words = Words(bank=dialect) if catalog == "bank_metadata" else Words()
        named_columns = tuple(c for c in ("title", "description", "contributor", "license") if c in s.asks)
        asked = [named_columns] if catalog == "bank_metadata" and named_columns else []  # "titolo, descrizione e
        plans += [Plan(words=words, meta=catalog, columns=c) for c in unique(asked + shown.get(catalog, []))]  # autori"
        threshold = first_whole(s) if s.comparison else None
        if (s.operators & {"count", "top"} or threshold) and catalog in COUNTED:
            key, counted = COUNTED[catalog]
            aggregate = Aggregate("count", counted, "count", distinct=counted != "*")
            per_item = Plan(words=words, meta=catalog, operator="group" if key else "count", columns=key,
                            aggregates=(aggregate,))
            plans.append(per_item)
            if catalog == "lexicons":  # "che lessici ci sono, in quale lingua e con quante voci"
                plans.append(per_item.with_block(columns=("lexicon", "language")))
            if key and "top" in s.operators:  # "quale grafo contiene più triple"
                k = next((int(n) for n in s.numbers if n >= 1 and n == int(n)), 1)
                plans.append(per_item.with_block(order=(("count", "ascending" not in s.operators), (key[0], False)),
                                                 limit=k))
            if key and threshold:  # "quanti grafi hanno più di 10000 triple": the items that pass, and how many
                bound = bound_op(s, "=")
                passing = per_item.with_block(having=Filter("count", "value", threshold, bound))
                plans += [passing] + ([passing.with_block(operator="count_groups")] if "count" in s.operators else [])
            if key:  # "quanti grafi ci sono": the items themselves counted
                plans.append(Plan(words=words, meta=catalog, operator="count", columns=(),
                                  aggregates=(Aggregate("count", key[0], "count", distinct=True),)))
            if catalog == "lexicons":  # "quanti lemmi italiani ha ciascun lessico": its entries' lemmas
                plans.append(Plan(meta="lexicon_lemmas", operator="group", columns=("lexicon",),
                                  aggregates=(Aggregate("count", "lemma", "count", distinct=True),)))
            named = _named_item(catalog, s)
            if named:  # "quante triple ha il grafo di ELITA", "quante voci ha il lessico siciliano": that one's count
                plans.insert(0, Plan(words=words, meta=catalog, operator="count", columns=(), aggregates=(aggregate,),
                                     filters=(named,)))
    return plans


def _named_item(catalog: str, s: Signals) -> Filter | None:
    """The one graph, lexicon or lemma bank a question names: ELITA's graph, a dialect's lexicon or lemma bank."""
    if catalog == "graphs" and "elita" in s.resources:
        return Filter("graph", "iri_prefix", ELITA_GRAPH)
    if catalog == "graphs" and "lemma_banks" in s.catalogs and not set(DIALECTS) & set(s.resources):
        return Filter("graph", "iri_prefix", LIITA_GRAPH)  # "le triple del grafo del lemma bank": LiITA's own
    dialect = next((d for d in DIALECTS if d in s.resources), None)
    if catalog == "lexicons" and dialect:
        return Filter("lexicon", "iri_prefix", LEXICONS[dialect])
    if catalog == "lemma_banks" and dialect:  # "quanti lemmi ha la banca dei lemmi parmigiana"
        return Filter("lemmaBank", "iri_prefix", BANKS[dialect])
    return None


# A catalog counted: (the key each count is per, what is counted; "*": its triples).
COUNTED = {"graphs": (("graph",), "*"), "lexicons": (("lexicon",), "entry"), "lemma_banks": (("lemmaBank",),
           "dialectLemma"), "classes": (("class",), "resource"), "lemma_bank_types": (("type",), "resource"),
           "emotions": ((), "emotion"), **{f"{r}_properties": (("property",), "*") for r in ("elita", "sentix", "lemma")}}
