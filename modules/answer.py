"""A readable answer built from the rows, without an LM: counts, the first words, groups by emotion, dialect
or polarity when a variable says so, in the question's language; IRIs shown by their labels."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nl2sparql.kb.results import QueryResult, Term

_GROUP_VARIABLE = re.compile(r"emotion|emozion|dialect|dialett|polarit|language|lingua|pos$|partofspeech", re.I)
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
LABEL_QUERY = """PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?s ?label WHERE {
  VALUES ?s { %s }
  { GRAPH ?g { ?s ontolex:writtenRep ?label } } UNION { GRAPH ?g { ?s rdfs:label ?label } }
  UNION { GRAPH ?g { ?s skos:prefLabel ?label } }
  UNION { GRAPH ?g { ?s ontolex:canonicalForm ?form . ?form ontolex:writtenRep ?label } }
}"""
WORDS = {"it": {"none": "Nessun risultato.", "yes": "Sì.", "no": "No.", "result": "risultato",
                "results": "risultati", "more": "e altri {n}", "answer": "Risposta"},
         "en": {"none": "No results.", "yes": "Yes.", "no": "No.", "result": "result", "results": "results",
                "more": "and {n} more", "answer": "Answer"}}


@dataclass(frozen=True)
class Answer:
    """The summary line and the rows as text (labels in place of IRIs), for people."""

    text: str
    variables: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    def to_json(self) -> dict:
        return {"text": self.text, "variables": list(self.variables), "rows": [list(r) for r in self.rows]}


def local_name(iri: str) -> str:
    tail = re.split(r"[#/]", iri.rstrip("/#"))[-1]
    return tail or iri


def shown(term: Term | None, labels: dict[str, str]) -> str:
    if term is None:
        return ""
    if term.kind == "iri":
        return labels.get(term.value) or local_name(term.value)
    return term.value


def fetch_labels(endpoint, result: QueryResult, limit: int = 200) -> dict[str, str]:
    """Labels of the IRIs in a result (the first `limit` of them), from any graph of the endpoint;
    a failing look-up leaves IRIs to be shown by their local names."""
    iris = list(dict.fromkeys(t.value for row in result.rows for t in row if t is not None and t.kind == "iri"))
    iris = [i for i in iris if re.fullmatch(r"[^<>\"{}|^`\\\s]+", i)][:limit]
    if not iris:
        return {}
    try:
        found = endpoint.execute(LABEL_QUERY % " ".join(f"<{i}>" for i in iris))
    except Exception:  # labels are a nicety; the rows stand without them
        return {}
    labels: dict[str, str] = {}
    for subject, label in ((r[0], r[1]) for r in found.rows if r[0] is not None and r[1] is not None):
        current = labels.get(subject.value)
        if current is None or (label.lang == "it" and current != label.value):
            labels[subject.value] = label.value
    return labels


def render(result: QueryResult | None, language: str = "en", labels: dict[str, str] | None = None,
           first: int = 8) -> Answer:
    """The answer for a person: yes/no, a single value, or a count with the first words (grouped when a
    variable names an emotion, dialect, polarity, language or part of speech)."""
    words = WORDS["it" if language == "it" else "en"]
    labels = labels or {}
    if result is None:
        return Answer(words["none"])
    if result.boolean is not None:
        return Answer(words["yes"] if result.boolean else words["no"])
    rows = tuple(tuple(shown(t, labels) for t in row) for row in result.rows)
    variables = tuple(result.variables)
    if not rows:
        return Answer(words["none"], variables, rows)
    if len(rows) == 1 and len(variables) == 1:
        return Answer(f"{words['answer']}: {rows[0][0]}.", variables, rows)
    count = f"{len(rows)} {words['result'] if len(rows) == 1 else words['results']}"
    if len(rows) == 1:  # one row: every value, named by its variable
        return Answer(f"{count}: " + ", ".join(f"{v} {x}" for v, x in zip(variables, rows[0]) if x) + ".",
                      variables, rows)
    group = next((i for i, v in enumerate(variables) if _GROUP_VARIABLE.search(v)), None)
    main = _main_column(variables, rows, skip=group)
    if group is None:
        second = _main_column(variables, rows, skip=main, fallback=False)
        items = [f"{r[main]} – {r[second]}" if second is not None and r[second] else r[main] for r in rows]
        return Answer(f"{count}: {_listing(items, first, words)}.", variables, rows)
    groups: dict[str, list[str]] = {}
    for row in rows:
        groups.setdefault(row[group] or "—", []).append(row[main])
    if all(len(items) == 1 for items in groups.values()):  # one value per group: a count or a score each
        parts = [f"{name} {items[0]}" for name, items in groups.items()]
        return Answer(f"{count}, {variables[group]}: {_listing(parts, first, words, sep='; ')}.", variables, rows)
    parts = [f"{name} ({len(items)}): {_listing(items, max(3, first // max(1, len(groups))), words)}"
             for name, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:6]]
    if len(groups) > 6:
        parts.append(words["more"].format(n=len(groups) - 6))
    return Answer(f"{count}, {variables[group]}: " + "; ".join(parts) + ".", variables, rows)


def _main_column(variables: tuple[str, ...], rows, skip: int | None, fallback: bool = True) -> int | None:
    """The column that reads best as the answer: the first that is neither `skip` nor all numbers."""
    for i in range(len(variables)):
        if i != skip and not all(_NUMBER.match(r[i] or "") for r in rows):
            return i
    if not fallback:
        return None
    return 0 if skip != 0 else min(1, len(variables) - 1)


def _listing(items: list[str], first: int, words: dict[str, str], sep: str = ", ") -> str:
    unique = list(dict.fromkeys(_clip(i) for i in items if i))
    shown_items = sep.join(unique[:first])
    if len(unique) > first:
        shown_items += sep + "… (" + words["more"].format(n=len(unique) - first) + ")"
    return shown_items


def _clip(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def answer_for(result: QueryResult | None, question: str, endpoint, language: str | None = None) -> Answer:
    """The readable answer to `question` from its result, in the question's language, labels read from
    `endpoint`."""
    from nl2sparql.retrieval.language import guess_language

    language = language or guess_language(question)
    labels = fetch_labels(endpoint, result) if result is not None else {}
    return render(result, language, labels)


def shown_table(result: QueryResult | None, readable: Answer | None) -> tuple[list[str], list[list[str]]]:
    """A result's table as it is shown: the readable rows (labels in place of IRIs), a yes/no as one column `ask`."""
    if result is not None and result.boolean is not None:
        return ["ask"], [["true" if result.boolean else "false"]]
    return (list(readable.variables), [list(r) for r in readable.rows]) if readable is not None else ([], [])


def answer_table(out) -> tuple[list[str], list[list[str]]]:
    """A prediction's table as it is shown: what `ask --format csv`, chat's `/save F.csv` and the web page's
    download write."""
    return shown_table(out.get("result"), out.get("readable"))


def prediction_json(out) -> dict:
    """A program's prediction as JSON (what `ask --json`, the MCP server and the web page return)."""
    return {
        "question": out.question, "understood_as": out.get("understood_as", ""), "sparql": out.sparql, "ok": out.ok,
        "answer": out.get("answer"),
        "result": out.result.to_json() if out.result is not None else None,
        "patterns": list(out.patterns), "entities": list(out.entities), "dialects": list(out.dialects),
        "grounding": list(out.get("grounding", [])), "notes": list(out.get("notes", [])),
        "attempts": [a.to_json() for a in out.attempts], "errors": out.errors, "usage": out.usage,
        "seconds": round(out.seconds, 3), "stopped_early": bool(out.get("stopped_early", False)),
        "in_scope": out.get("in_scope", True), "scope_reason": out.get("scope_reason", ""),
        "doubt": out.get("doubt"),
        **{key: out.get(key) for key in ("conversation_id", "turn", "standalone_question", "built_on", "candidates",
                                         "choice") if key in out},
    }
