"""Rich tables for people: the store's statistics and query results with prefixed IRIs."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table

from nl2sparql.kb.results import QueryResult, Term
from nl2sparql.kb.vocab import COMPLIT_SERVICE, ELITA_GRAPH, LIITA_GRAPH, PREFIXES

MAX_ROWS_SHOWN = 200


def stats_table(manifest: dict) -> Group:
    """The five parts of the knowledge base, with 'sample' where the data is our hand-authored sample."""
    table = Table(title=f"LiITA embedded store (fingerprint {manifest['fingerprint']}, built {manifest['built_at']})")
    table.add_column("part")
    table.add_column("what", overflow="fold")
    table.add_column("figures", justify="right")
    graphs = manifest["graphs"]
    bank = manifest["lemma_bank"]
    table.add_row("Lemma bank", f"graph <{LIITA_GRAPH}>",
                  f"{bank['real_liita_lemmas']:,} LiITA lemmas + {bank['minted_lemmas']:,} minted; "
                  f"{graphs[LIITA_GRAPH]:,} triples")
    elita = manifest["elita"]
    table.add_row("ELITA emotions" + (" (sample)" if elita["sample"] else ""), f"graph <{ELITA_GRAPH}>",
                  f"{elita['entries']:,} entries, {elita['emotions']} emotions; {graphs[ELITA_GRAPH]:,} triples")
    table.add_row("Sentix polarity", "default graph", f"{manifest['sentix']['entries']:,} entries")
    for name in ("parmigiano", "sicilian"):
        part = manifest[name]
        table.add_row(f"{name.capitalize()}" + (" (sample)" if part["sample"] else ""), "default graph",
                      f"{part['lemmas']:,} lemmas, {part['translations']:,} translations")
    complit = manifest["complit"]
    table.add_row("CompL-it", f"SERVICE <{COMPLIT_SERVICE}>",
                  f"{complit['words']:,} words, {complit['senses']:,} senses, {complit['definitions']:,} "
                  f"definitions, {complit['relations']:,} relations")
    table.caption = f"default graph {graphs['default']:,} triples; built in {manifest['build_seconds']} s"
    per_pos = Table("lila POS", "lemmas", title="Lemma bank per part of speech")
    for pos, count in bank["per_pos"].items():
        per_pos.add_row(f"lila:{pos}", f"{count:,}")
    return Group(table, per_pos)


def _cell(term: Term | None, label: str) -> str:
    text = short(term)
    if term is not None and term.kind == "iri" and label and label not in text:
        return f"{label} [dim]{text}[/dim]"
    return text


def short(term: Term | None) -> str:
    """An IRI as prefix:local when a known prefix fits; a literal with its language tag."""
    if term is None:
        return ""
    if term.kind == "iri":
        for name, namespace in PREFIXES.items():
            if term.value.startswith(namespace) and "/" not in term.value[len(namespace):]:
                return f"{name}:{term.value[len(namespace):]}"
        return f"<{term.value}>"
    if term.kind == "literal" and term.lang:
        return f"{term.value}@{term.lang}"
    return term.value


def result_table(result: QueryResult, labels: tuple[tuple[str, ...], ...] = ()) -> Table:
    """The rows with prefixed IRIs; with `labels` (the rows as people read them, row for row) an IRI shows its
    written form or label first."""
    if result.boolean is not None:
        table = Table("ask")
        table.add_row("true" if result.boolean else "false")
        return table
    table = Table(*result.variables, caption=f"{len(result.rows):,} rows in {result.elapsed_s:.3f} s")
    for i, row in enumerate(result.rows[:MAX_ROWS_SHOWN]):
        shown = labels[i] if i < len(labels) else ()
        table.add_row(*(_cell(t, shown[k] if k < len(shown) else "") for k, t in enumerate(row)))
    if len(result.rows) > MAX_ROWS_SHOWN:
        table.caption += f" (first {MAX_ROWS_SHOWN} shown; use --json for all)"
    return table
