"""Oracle coverage of the plan enumerator: for how many questions some candidate returns the gold answer.

    python bench/plans.py --split dev [--lang it|en|both|eval|paraphrases] [--version V] [--limit N] [--out bench/plans-runs]
    python bench/plans.py --split dev --reworded /tmp/reworded-dev.jsonl   # wordings of `bench/reword.py`
    python bench/plans.py --synth ~/.nl2sparql/synth/seed-7/synth.jsonl   # pairs `nl2sparql data synth` drew
    python bench/plans.py --outside bench/outside --half design [--lang eval]   # pairs written outside the enumerator

For each record of the split, the question (Italian by default) goes through `read_signals` and `enumerate_plans`
on the embedded KB; a question is covered when any candidate scores exact against the gold with the eval metric
(an ASK question on its own, not with its twin). Prints coverage per pattern, p50 / p90 / max seconds of enumeration
and candidates per question, and checks every candidate with the read-only guard; writes <out>/<split>.json. This
is the ceiling of a ranker that chooses among the candidates. Design on train and dev; run test and generalization
once per version. Pairs drawn from the schema by `nl2sparql data synth` (`--synth`) are a design set of many more
compositions than train holds (their wording is the synth templates', not people's); they write <out>/synth.json.
`--outside` reads pairs in the dataset's record format written by authors who never saw the enumerator, its cues
or the curated data (`bench/outside/README.md`); a stable hash of each id puts it in the `design` half (read its
misses, design on them) or the `check` half (read only its counts), and writes <out>/outside-<half>[-<lang>].json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from nl2sparql.data.outside import read_outside


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def _reworded(path: Path) -> dict[tuple[str, str], list[str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    found: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        if row["verdict"] == "kept":
            found.setdefault((row["id"], row["lang"]), []).append(row["question"])
    return found


def _questions(record, index: int, lang: str, reworded: dict | None) -> list[tuple[str, str]]:
    """(language, question) pairs to ask of one record."""
    if reworded is not None:
        return [(code, text) for code in ("it", "en") for text in reworded.get((record.id, code), [])]
    if lang == "paraphrases":
        return [(code, text) for code, texts in sorted(record.paraphrases.items()) for text in texts]
    codes = {"both": ["it", "en"], "eval": [("it", "en")[index % 2]]}.get(lang, [lang])
    return [(code, record.question_it if code == "it" else record.question_en) for code in codes]


def _written(path: Path) -> dict[tuple[str, str], str]:
    """(id, language) → the generator's query, from an eval report or JSON lines of id, lang, sparql."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return {(q["id"], q["language"]): q["sparql"] for q in json.loads(text)["questions"]}
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {(row["id"], row["lang"]): row["sparql"] for row in rows}


def _voice(written: dict, record, lang: str, gold, endpoint, fast, found) -> dict:
    """Whether the generator's query answers as the gold does, whether its plan or a neighbour does, and in what
    time; `generator` None when it has no query for this question in this language."""
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.eval.scoring.metric import execution_score
    from nl2sparql.kb.guard import check
    from nl2sparql.retrieval.generator_plans import generator_candidates

    sparql = written.get((record.id, lang))
    if sparql is None:
        return {"generator": None}

    def exact(query: str) -> bool:
        try:
            check(query)
            return execution_score(endpoint, record.sparql, record.answer_variables, query, gold_result=gold).exact
        except Nl2SparqlError:
            return False

    right = bool(sparql) and exact(sparql)
    around = generator_candidates(sparql, fast, known=frozenset(c.fingerprint for c in found.candidates)) \
        if sparql else None
    hits = [i for i, c in enumerate(around.candidates) if exact(c.sparql)] if around else []
    return {"generator": right, "generator_parsed": bool(around and around.plan_text),
            "neighbour_right": bool(hits), "neighbour_rank": hits[0] if hits else None,
            "neighbours": len(around.candidates) if around else 0,
            "neighbour_seconds": round(around.seconds, 3) if around else 0.0}


def _union_summary(rows: list[dict], path: Path) -> dict:
    asked = [r for r in rows if r.get("generator") is not None]
    n = max(1, len(asked))
    union = sum(r["covered"] or r["generator"] or r["neighbour_right"] for r in asked)
    seconds = [r["neighbour_seconds"] for r in asked]
    return {"file": str(path), "questions": len(asked), "generator_right": sum(r["generator"] for r in asked),
            "parsed": sum(r["generator_parsed"] for r in asked),
            "enumerator_covered": sum(r["covered"] for r in asked),
            "neighbour_right": sum(r["neighbour_right"] for r in asked),
            "union": union, "union_coverage": round(union / n, 3),
            "gained_by_generator": sum(not r["covered"] and r["generator"] for r in asked),
            "gained_by_neighbours": sum(not r["covered"] and not r["generator"] and r["neighbour_right"]
                                        for r in asked),
            "neighbour_p50_s": round(statistics.median(seconds), 3) if seconds else 0.0,
            "neighbour_p90_s": round(percentile(seconds, 0.9), 3) if seconds else 0.0,
            "neighbour_max_s": round(max(seconds), 3) if seconds else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--lang", choices=["it", "en", "both", "eval", "paraphrases"], default="it",
                        help="eval: each record in the language the eval asks it in (Italian and English in turn); "
                             "paraphrases: each curated paraphrase of the record instead of its question")
    parser.add_argument("--reworded", type=Path, default=None,
                        help="a file of `bench/reword.py`: its kept rewordings instead of the questions")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--synth", type=Path, default=None, help="a synth.jsonl from `nl2sparql data synth` instead "
                        "of a split of the curated dataset")
    parser.add_argument("--outside", type=Path, nargs="+", default=None,
                        help="files or folders of pairs written outside the project's design (bench/outside; "
                             "rounds 1 to 3 alone: bench/outside/*.jsonl bench/outside/round3)")
    parser.add_argument("--half", choices=["design", "check", "all"], default="design",
                        help="with --outside: which half by id hash (default design; read only counts of check)")
    parser.add_argument("--version", default=None,
                        help="a version with a ranker: also count how often its first choice is right (top-1)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of search instead of the enumerator's own (what more time would cover: a "
                             "ceiling for a faster search, not a setting; reports get a -budget suffix)")
    parser.add_argument("--generator", type=Path, default=None,
                        help="the generator's queries (an `eval run` report, or JSON lines of id, lang, sparql): also "
                             "count questions its query, or its plan's one-block neighbours, answer (the union is "
                             "what a choice among all of them could reach); reports get a -generator suffix")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "plans-runs")
    args = parser.parse_args()
    if (args.lang == "paraphrases" or args.reworded) and args.split not in ("train", "dev"):
        parser.error("paraphrases and rewordings are design material: train or dev only")
    if args.generator and not args.generator.is_file():
        parser.error(f"no generator queries at {args.generator} (an `eval run` report or JSON lines)")
    if args.reworded and not args.reworded.is_file():
        parser.error(f"no rewordings file at {args.reworded} (make one with bench/reword.py)")

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.eval.journal import code_fingerprint
    from nl2sparql.eval.scoring.metric import execution_score, strip_slice
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.kb.guard import check
    from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans, enumeration_endpoint
    from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
    from nl2sparql.retrieval.signals import read_signals

    missing = [str(p) for p in args.outside or [] if not p.exists()]
    if missing:
        parser.error(f"no outside pairs at {', '.join(missing)}")
    if args.outside:
        args.split = "outside-" + args.half
        records = read_outside(args.outside, args.half)[: args.limit]
    elif args.synth:
        from nl2sparql.data.dataset import parse_record
        from nl2sparql.data.synth.engine import read_synth

        args.split = "synth"
        records = [parse_record(d, "synth") for d in read_synth(args.synth)][: args.limit]
    else:
        records = [r for r in load_dataset() if r.split == args.split][: args.limit]
    ranker = None
    if args.version:
        from nl2sparql.artifacts.store import resolve_version
        from nl2sparql.modules.rank_features import pair_features
        from nl2sparql.modules.ranker import RankerFile

        found = resolve_version(args.version)
        ranker_file = RankerFile.from_manifest(found.path, found.manifest) if found else None
        if ranker_file is None:
            parser.error(f"version {args.version} has no ranker")
        ranker = ranker_file.load()
    written = _written(args.generator) if args.generator else None
    languages = ["it", "en"] if args.lang in ("both", "eval", "paraphrases") or args.reworded else [args.lang]
    reworded = _reworded(args.reworded) if args.reworded else None
    rows, invalid = [], 0
    config = EnumerationConfig()
    if args.budget is not None:  # every limit scaled with it: the per-query stop, the grace, the empty-handed retry
        scale = args.budget / config.budget_s
        config = replace(config, budget_s=args.budget, query_timeout_s=config.query_timeout_s * scale,
                         grace_s=config.grace_s * scale, empty_budget_s=config.empty_budget_s * scale)
    with EmbeddedEndpoint(EndpointConfig()) as endpoint, enumeration_endpoint(timeout_s=config.query_timeout_s) as fast:
        lexicon, dialects = Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)
        for index, record in enumerate(records):
            asked = _questions(record, index, args.lang, reworded)
            if not asked:
                continue
            gold = endpoint.execute(strip_slice(record.sparql))
            for lang, question in asked:
                started = time.perf_counter()
                signals = read_signals(question, lexicon, dialects)
                found = enumerate_plans(signals, fast, config)
                seconds = time.perf_counter() - started
                first = 0
                if ranker is not None and found.candidates:
                    scores = ranker.scores([pair_features(question, signals, c.plan, rank=i, rows=c.rows,
                                                          boolean=c.boolean, version=ranker.features_version)
                                            for i, c in enumerate(found.candidates)])
                    first = int(scores.argmax())
                hit, ranked_right = None, False
                for rank, candidate in enumerate(found.candidates):
                    try:
                        check(candidate.sparql)
                    except Nl2SparqlError:
                        invalid += 1
                        continue
                    if (hit is None or rank == first) and execution_score(
                            endpoint, record.sparql, record.answer_variables, candidate.sparql, gold_result=gold).exact:
                        hit = rank if hit is None else hit
                        ranked_right = ranked_right or rank == first
                voice = _voice(written, record, lang, gold, endpoint, fast, found) if written is not None else {}
                rows.append({"id": record.id, "lang": lang, "pattern": record.patterns[0], "covered": hit is not None,
                             **voice,
                             "rank": hit, "ranker_right": ranked_right if ranker is not None else None,
                             "candidates": len(found.candidates), "sets_tried": found.sets_tried,
                             "sets_pruned": found.sets_pruned, "stopped_early": found.stopped_early,
                             "seconds": round(seconds, 3)})
                print(f"{record.id} {lang}: {'covered at ' + str(hit) if hit is not None else 'not covered'}, "
                      f"{len(found.candidates)} candidates, {seconds:.2f} s", flush=True)
    seconds = [r["seconds"] for r in rows]
    counts = [r["candidates"] for r in rows]
    per_pattern: dict[str, dict] = {}
    for r in rows:
        entry = per_pattern.setdefault(r["pattern"], {"questions": 0, "covered": 0})
        entry["questions"] += 1
        entry["covered"] += r["covered"]
    report = {"split": args.split, "languages": languages, "questions": len(rows),
              "covered": sum(r["covered"] for r in rows),
              "coverage": round(sum(r["covered"] for r in rows) / max(1, len(rows)), 3),
              "p50_s": round(statistics.median(seconds), 3), "p90_s": round(percentile(seconds, 0.9), 3),
              "max_s": round(max(seconds), 3),
              **({"budget_s": args.budget} if args.budget is not None else {}),
              **({"version": args.version, "ranker_top1": round(sum(bool(r["ranker_right"]) for r in rows)
                                                                  / max(1, len(rows)), 3)} if ranker else {}), "candidates_p50": statistics.median(counts),
              "candidates_max": max(counts), "invalid_candidates": invalid, "code": code_fingerprint(),
              "per_pattern": dict(sorted(per_pattern.items())), "records": rows}
    if written is not None:
        report["generator"] = _union_summary(rows, args.generator)
    print(f"{args.split}: covered {report['covered']} of {report['questions']} ({report['coverage']:.3f}); "
          f"seconds p50 {report['p50_s']}, p90 {report['p90_s']}, max {report['max_s']}; candidates p50 "
          f"{report['candidates_p50']}, max {report['candidates_max']}; invalid {invalid}")
    for pattern, entry in report["per_pattern"].items():
        print(f"  {pattern}: {entry['covered']}/{entry['questions']}")
    if written is not None:
        print("with the generator:", json.dumps({k: v for k, v in report["generator"].items() if k != "file"}))
    if ranker is not None:
        print(f"{args.version}'s ranker: first choice right for {report['ranker_top1']:.3f}")
    if args.limit is None:
        kind = f"reworded-{args.reworded.stem}" if reworded is not None else args.lang
        name = "-".join([args.split] + ([kind] if kind != "it" else []) + ([args.version] if ranker else [])
                        + ([f"budget{args.budget:g}"] if args.budget is not None else [])
                        + (["generator"] if written is not None else []))
        write_text_atomic(args.out / f"{name}.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
