"""What a question was understood as: one line in the question's language saying what was asked of the knowledge
base, so a user who disagrees can see it without reading SPARQL.

The line is the canonical verbalization of a plan (`data/plans/verbalize.py`): the chosen candidate's, or the plan
the answering query reads back into (`data/plans/parse.py`). A query no plan covers is described by what it reads
(the graphs and resources it touches), what it shows and how it aggregates.
"""

from __future__ import annotations

import re

from nl2sparql.data.plans.model import Plan
from nl2sparql.kb import vocab

# (IRI or SPARQL text that marks it, how the resource is named in English and Italian)
_RESOURCES = (
    (vocab.LIITA_GRAPH + ">", ("the LiITA lemma bank", "il Lemma Bank di LiITA")),
    (vocab.ELITA_GRAPH + ">", ("ELITA emotions", "le emozioni di ELITA")),
    ("marl:hasPolarityValue", ("polarity values", "i valori di polarità")),
    ("DialettoSiciliano", ("the Sicilian lexicon", "il lessico siciliano")),
    ("DialettoParmigiano", ("the Parmigiano lexicon", "il lessico parmigiano")),
    (vocab.COMPLIT_SERVICE, ("CompL-it", "CompL-it")),
)
_SELECT = re.compile(r"SELECT\s+(DISTINCT\s+)?(?P<head>.*?)\s*(WHERE\s*)?\{", re.I | re.S)


def read_plan(sparql: str) -> Plan | None:
    """The plan a query reads back into, or None when no plan covers it."""
    from nl2sparql.data.plans.parse import parse_plan

    if not sparql:
        return None
    try:
        return parse_plan(sparql)
    except Exception:  # noqa: BLE001 - any query the plan reader does not cover is described from its text
        return None


def faithful_plan(sparql: str, result, endpoint) -> Plan | None:
    """The plan `sparql` reads back into, when that plan, compiled and run on `endpoint`, gives the same answer as
    `result`: a plan that answers otherwise (a block the reader passed over, a join in another graph) would describe
    a query that does something else."""
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.retrieval.enumerate import answer_values

    plan = read_plan(sparql)
    if plan is None or result is None:
        return None
    compiled = compile_plan(plan)
    if _bare(compiled) == _bare(sparql):
        return plan  # the plan writes the very query: nothing to run
    try:
        again = endpoint.execute(compiled)
    except (Nl2SparqlError, KeyError, ValueError, StopIteration):
        return None
    return plan if not again.timed_out and answer_values(again) == answer_values(result) else None


def _bare(sparql: str) -> str:
    """A query without its PREFIX lines and whitespace, to tell two writings of one query apart from two queries."""
    return re.sub(r"\s+", "", re.sub(r"(?im)^\s*PREFIX\s+\w*:\s*<[^>]*>\s*$", "", sparql))


def understood_as(sparql: str, language: str, plan: Plan | None = None) -> str:
    """The line for an answer written as `sparql`: the verbalization of `plan` (the plan it faithfully reads back
    into, `faithful_plan`), else a description of the query's text; "" when there is no query."""
    from nl2sparql.data.plans.verbalize import verbalize

    if plan is not None:
        try:
            return verbalize(plan, language)
        except (KeyError, ValueError, IndexError):
            pass  # a block without words yet: described from the text below
    return describe_query(sparql, language)


def describe_query(sparql: str, language: str) -> str:
    """A query no plan covers, in words: the resources it reads, the columns it shows, how it aggregates."""
    if not sparql:
        return ""
    en = language != "it"
    i = 0 if en else 1
    resources = [names[i] for mark, names in _RESOURCES if mark in sparql]
    where = (" and " if en else " e ").join(resources) or ("the knowledge base" if en else "la base di conoscenza")
    text = (f"A query that reads {where}" if en else f"Una query che legge {where}")
    upper = sparql.upper()
    if re.search(r"\bASK\b", upper):
        return text + (", answered yes or no" if en else ", con risposta sì o no")
    head = _SELECT.search(sparql)
    columns = re.findall(r"(?:AS\s+)?\?(\w+)", head.group("head")) if head else []
    aggregated = bool(head and re.search(r"\b(COUNT|SUM|AVG|MIN|MAX|GROUP_CONCAT|SAMPLE)\s*\(", head.group("head"),
                                         re.I))
    if columns:
        text += (", showing " if en else ", con le colonne ") + ", ".join(dict.fromkeys(columns))
    if "GROUP BY" in upper:
        text += ", per group" if en else ", per gruppo"
    elif aggregated:
        text += ", aggregated" if en else ", aggregate"
    return text
