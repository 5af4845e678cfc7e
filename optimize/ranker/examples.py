"""The ranker's training lists: for each question, the enumerator's executed candidates, each labelled by the eval
metric against the gold (a candidate with the gold's answer is a positive, whatever its blocks).

When no candidate answers as the gold does, the gold's own plan (parsed from the gold query, kept only when it
round-trips) joins the list as its positive, so the ranker also learns structures the enumerator missed; a list with
no positive at all teaches nothing and is kept out. Lists are appended to a JSONL file as they are made, so a stopped
build goes on where it was (`done_keys`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from nl2sparql.data.plans.codec import plan_to_json
from nl2sparql.optimize.ranker.negatives import negatives_for
from nl2sparql.retrieval.signals import signals_to_json


@dataclass(frozen=True)
class Question:
    key: str  # record id + language: one list each
    source: str  # train, dev, synth
    question: str
    sparql: str
    answer_variables: object


def questions_of(records: Iterable, source: str, languages: tuple[str, ...] = ("it", "en")) -> list[Question]:
    """Each record asked in each language (records as `data.dataset.Record`, or synthetic dicts parsed into them)."""
    out = []
    for r in records:
        for lang in languages:
            text = r.question_it if lang == "it" else r.question_en
            if text:
                out.append(Question(f"{r.id}:{lang}", source, text, r.sparql, r.answer_variables))
    return out


def paraphrase_questions(records: Iterable, source: str) -> list[Question]:
    """Each record's curated paraphrases (`Record.paraphrases`), one list each, with the record's gold."""
    return [Question(f"{r.id}:{lang}:p{i}", source, text, r.sparql, r.answer_variables)
            for r in records for lang, texts in sorted(r.paraphrases.items()) for i, text in enumerate(texts)]


def questions_as_evaluated(records: list, source: str) -> list[Question]:
    """Each record in the one language the eval asks it in (`eval.scoring.dspy_metric.examples` alternates)."""
    from nl2sparql.eval.scoring.dspy_metric import examples

    by_id = {r.id: r for r in records}
    return [Question(f"{e.record_id}:{e.language}", source, e.question, by_id[e.record_id].sparql,
                     by_id[e.record_id].answer_variables) for e in examples(records)]


def done_keys(path: Path) -> set[str]:
    if not path.exists():
        return set()
    keys = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            keys.add(json.loads(line)["key"])
        except (ValueError, KeyError):
            continue  # a line cut short by a stop: made again
    return keys


def read_lists(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def build_list(q: Question, endpoint, fast, lexicon, dialects, negatives: bool = False) -> dict:
    """One question's list: signals, candidates (plan, rows, boolean, rank, label), and where the positive came from."""
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.data.plans.parse import Unparsed, parse_plan
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.eval.scoring.metric import execution_score, strip_slice
    from nl2sparql.retrieval.enumerate import enumerate_plans
    from nl2sparql.retrieval.signals import read_signals

    started = time.perf_counter()
    signals = read_signals(q.question, lexicon, dialects)
    found = enumerate_plans(signals, fast)
    gold = endpoint.execute(strip_slice(q.sparql))
    candidates = []
    for rank, c in enumerate(found.candidates):
        exact = execution_score(endpoint, q.sparql, q.answer_variables, c.sparql, gold_result=gold).exact
        candidates.append({"plan": plan_to_json(c.plan), "rows": c.rows, "boolean": c.boolean, "rank": rank,
                           "label": int(exact)})
    positive = "enumerated" if any(c["label"] for c in candidates) else "none"
    if positive == "none":
        try:
            plan = parse_plan(q.sparql)
            result = endpoint.execute(compile_plan(plan))
            if execution_score(endpoint, q.sparql, q.answer_variables, compile_plan(plan), gold_result=gold).exact:
                candidates.append({"plan": plan_to_json(plan), "rows": len(result.rows), "boolean": result.boolean,
                                   "rank": len(candidates), "label": 1})
                positive = "gold_plan"
        except (Unparsed, Nl2SparqlError):
            pass
    made = {"key": q.key, "source": q.source, "question": q.question, "signals": signals_to_json(signals),
            "candidates": candidates, "positive": positive}
    if negatives and q.source != "dev":  # dev lists stay as the program sees them
        made["negatives"] = negatives_for(made, q.sparql, q.answer_variables, endpoint, fast)
    return {**made, "seconds": round(time.perf_counter() - started, 3)}


def add_negatives(path: Path, questions: list[Question], store: Path | None = None) -> int:
    """Give the lists in `path` that were built without them their one-block negatives (the file rewritten
    atomically); returns how many lists were given some."""
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    by_key = {q.key: q for q in questions}
    lists = read_lists(path) if path.exists() else []
    todo = [m for m in lists if "negatives" not in m and m["key"] in by_key and m["source"] != "dev"]
    if not todo:
        return 0
    from nl2sparql.retrieval.enumerate import enumeration_endpoint

    with EmbeddedEndpoint(EndpointConfig(store_path=store)) as endpoint, enumeration_endpoint(store) as fast:
        for made in todo:
            q = by_key[made["key"]]
            made["negatives"] = negatives_for(made, q.sparql, q.answer_variables, endpoint, fast)
    write_text_atomic(path, "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in lists))
    return sum(bool(m["negatives"]) for m in todo)


def build_lists(questions: list[Question], out: Path, store: Path | None = None,
                on_list: Callable[[dict], None] | None = None, negatives: bool = False) -> Iterator[dict]:
    """Build the lists not yet in `out` (appended one line each, flushed); yields each new one."""
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.retrieval.enumerate import enumeration_endpoint
    from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons

    done = done_keys(out)
    todo = [q for q in questions if q.key not in done]
    if not todo:
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    with EmbeddedEndpoint(EndpointConfig(store_path=store)) as endpoint, enumeration_endpoint(store) as fast, \
            open(out, "a", encoding="utf-8") as handle:
        lexicon, dialects = Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)
        for q in todo:
            made = build_list(q, endpoint, fast, lexicon, dialects, negatives)
            handle.write(json.dumps(made, ensure_ascii=False) + "\n")
            handle.flush()
            if on_list:
                on_list(made)
            yield made
