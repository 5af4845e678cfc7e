"""Execution metric: run predicted and gold SPARQL on one endpoint and compare what they answer.

Result sets are compared as multisets of answer tuples over the gold answer variables (answer and
aggregates; id columns are not required). Gold columns map to predicted ones by exact name first, then
by value overlap. Numbers compare after numeric normalisation; LIMIT/OFFSET are removed from both
queries before running, unless the gold query asks for the top k of an order (ORDER BY … LIMIT): then both
keep them and the predicted rows are compared with the gold's k, ties at the k-th sort key accepted
(`topk`); ASK compares booleans.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Hashable

from nl2sparql.data.dataset import AnswerVariables
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.eval.scoring.topk import TopK, accepted_rows, top_k, with_order_keys
from nl2sparql.kb.results import QueryResult, Term

_SLICE = re.compile(r"(\s*(?:LIMIT|OFFSET)\s+\d+)+\s*$", re.IGNORECASE)
# A GROUP_CONCAT column of the gold query: its values are compared as the sets of items inside the concatenation,
# whatever the separator or order either query used.
_CONCAT = re.compile(r"GROUP_CONCAT\s*\((?:[^()]|\([^()]*\))*\)\s*AS\s+\?(\w+)", re.IGNORECASE)
_ITEMS = re.compile(r"\s*[,;|\n/]\s*")
_NUMERIC = ("integer", "decimal", "double", "float", "long", "int", "short", "nonNegativeInteger")

# Why a valid prediction scores zero (scoring.outcomes classifies scored questions by these).
GOLD_IS_ASK = "gold is an ASK query; the prediction is not"
PREDICTION_IS_ASK = "the prediction is an ASK query; gold is not"
NO_MATCHING_COLUMN = "no predicted column matches"


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    f1: float
    exact: bool
    error: str = ""

    @classmethod
    def zero(cls, error: str) -> Score:
        return cls(0.0, 0.0, 0.0, False, error)


def strip_slice(sparql: str) -> str:
    """The query without its final LIMIT/OFFSET (a subquery's own LIMIT is inside braces and kept)."""
    return _SLICE.sub("", sparql.strip())


def normalise(term: Term | None) -> str | float | None:
    if term is None:
        return None
    datatype = term.datatype or ""
    if any(datatype.endswith("#" + name) for name in _NUMERIC):
        try:
            return round(float(term.value), 6)
        except ValueError:
            return term.value
    return term.value


def _column(result: QueryResult, name: str, concatenated: bool = False) -> list:
    values = [normalise(t) for t in result.column(name)]
    if not concatenated:
        return values
    return [tuple(sorted({item for item in _ITEMS.split(str(v)) if item})) if v is not None else None for v in values]


def concatenated_columns(sparql: str) -> frozenset[str]:
    """The columns a query builds with GROUP_CONCAT."""
    return frozenset(_CONCAT.findall(sparql))


def _map_columns(gold: QueryResult, wanted: list[str], predicted: QueryResult,
                 concat: frozenset[str] = frozenset()) -> dict[str, str] | None:
    mapping: dict[str, str] = {}
    free = [v for v in predicted.variables]
    for name in wanted:
        if name in free:
            mapping[name] = name
            free.remove(name)
    for name in wanted:
        if name in mapping:
            continue
        gold_values = set(_column(gold, name, name in concat))
        best, best_overlap = None, 0.0
        for candidate in free:
            values = set(_column(predicted, candidate, name in concat))
            overlap = len(gold_values & values) / max(1, len(gold_values | values))
            if overlap > best_overlap:
                best, best_overlap = candidate, overlap
        if best is None:
            return None
        mapping[name] = best
        free.remove(best)
    return mapping


@dataclass(frozen=True)
class Ranked:
    """The gold answer of a top-k question: every row of its order (no LIMIT), each row's sort key, the slice."""

    result: QueryResult
    keys: list[Hashable]
    top: TopK


def compare(gold: QueryResult, variables: AnswerVariables, predicted: QueryResult,
            ranked: Ranked | None = None, concat: frozenset[str] = frozenset()) -> Score:
    """Precision, recall, F1 and exact match of a predicted result against the gold result (with `ranked`, the
    gold's top k of `ranked.result`, ties at the k-th key accepted; `concat`, the gold columns made by
    GROUP_CONCAT, compared as sets of items)."""
    if gold.boolean is not None:
        if predicted.boolean is None:
            return Score.zero(GOLD_IS_ASK)
        same = predicted.boolean == gold.boolean
        return Score(float(same), float(same), float(same), same)
    if predicted.boolean is not None:
        return Score.zero(PREDICTION_IS_ASK)
    if ranked is not None:
        every = ranked.result
        gold = QueryResult(every.variables, every.rows[ranked.top.offset:ranked.top.offset + ranked.top.limit])
    wanted = [v for v in (*variables.answer, *variables.aggregates) if v in gold.variables] or list(gold.variables)
    if not gold.rows and not predicted.rows:
        return Score(1.0, 1.0, 1.0, True)
    mapping = _map_columns(gold, wanted, predicted, concat)
    if mapping is None:
        return Score.zero(NO_MATCHING_COLUMN + " " + ", ".join(f"?{v}" for v in wanted))
    predicted_rows = Counter(zip(*(_column(predicted, mapping[v], v in concat) for v in wanted)))
    if ranked is None:
        gold_rows = Counter(zip(*(_column(gold, v, v in concat) for v in wanted)))
    else:
        every = list(zip(*(_column(ranked.result, v, v in concat) for v in wanted)))
        gold_rows = accepted_rows(every, ranked.keys, ranked.top, predicted_rows)
    overlap = sum((gold_rows & predicted_rows).values())
    precision = overlap / sum(predicted_rows.values()) if predicted_rows else 0.0
    recall = overlap / sum(gold_rows.values()) if gold_rows else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Score(precision, recall, f1, f1 == 1.0)


def rank(gold_sparql: str, gold: QueryResult, run: Callable[[str], QueryResult]) -> Ranked | None:
    """The gold's order and sort keys when it asks for a top k (None otherwise). Sort keys are the values of
    the ORDER BY variables; for an expression (ORDER BY STRLEN(?w)) the gold runs again selecting it too, and
    when that cannot be done every row is its own key (no ties accepted)."""
    top = top_k(gold_sparql)
    if top is None or gold.boolean is not None:
        return None
    names = top.variables()
    if names is not None and all(n in gold.variables for n in names):
        return Ranked(gold, [tuple(normalise(row[gold.variables.index(n)]) for n in names) for row in gold.rows], top)
    keyed_sparql = with_order_keys(strip_slice(gold_sparql), top)
    try:
        keyed = run(keyed_sparql) if keyed_sparql else None
    except Nl2SparqlError:
        keyed = None
    if keyed is None or keyed.boolean is not None or len(keyed.rows) != len(gold.rows):
        return Ranked(gold, list(range(len(gold.rows))), top)
    names = [f"orderKey{i}" for i in range(len(top.conditions))]
    keys = [tuple(normalise(row[keyed.variables.index(n)]) for n in names) for row in keyed.rows]
    wanted = [keyed.variables.index(v) for v in gold.variables]
    return Ranked(QueryResult(gold.variables, tuple(tuple(row[i] for i in wanted) for row in keyed.rows)), keys, top)


def execution_score(endpoint, gold_sparql: str, variables: AnswerVariables, predicted_sparql: str,
                    gold_result: QueryResult | None = None,
                    run_gold: Callable[[str], QueryResult] | None = None) -> Score:
    """Run both (without LIMIT/OFFSET, unless gold asks for a top k) and compare; a failing prediction scores 0.
    `run_gold` runs a gold query without its slice (default: on `endpoint`; the metric passes its cache)."""
    if not predicted_sparql or not predicted_sparql.strip():
        return Score.zero("no query")
    run_gold = run_gold or (lambda sparql: endpoint.execute(strip_slice(sparql)))
    gold_result = gold_result or run_gold(gold_sparql)
    ranked = rank(gold_sparql, gold_result, run_gold)
    try:
        predicted = endpoint.execute(predicted_sparql if ranked else strip_slice(predicted_sparql))
    except Nl2SparqlError as error:
        return Score.zero(str(error))
    return compare(gold_result, variables, predicted, ranked, concatenated_columns(gold_sparql))
