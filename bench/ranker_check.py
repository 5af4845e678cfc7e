"""Rankers compared on pairs written outside the project: the same candidate lists, scored by each version's ranker.

    python bench/ranker_check.py --versions v34,v35 --outside bench/outside --half check [--lang eval|both]

The lists (the enumerator's executed candidates for each question, each labelled by the eval metric against the gold)
are built once into the ranker's work folder for this KB and code (`optimize/ranker/job.py`), `outside-<half>-<lang>
.jsonl`, and reused. For each version: how often some candidate is right (the oracle, the same for all), how often
the ranker's first candidate is right (top-1), and how many questions its `rank_accept` answers without the generator
and how many of those are right. Counts only: no question is printed. The check half is never trained on (`--outside`
of `optimize run` trains on the design half), so it measures what training on the design half taught. With
several --outside paths, each is also counted on its own (`by_source`). Writes
bench/ranker-runs/outside-<half>-<lang>[-<sources>]-<versions>.json (sources: the paths' names, unless the one path
is the whole bench/outside).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", required=True, help="comma-separated versions with a ranker")
    parser.add_argument("--outside", type=Path, nargs="+", required=True)
    parser.add_argument("--half", choices=["design", "check"], default="check")
    parser.add_argument("--lang", choices=["eval", "both"], default="eval",
                        help="eval: each pair in one language, Italian and English in turn; both: each in both")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "ranker-runs")
    args = parser.parse_args()

    from nl2sparql.artifacts.code import code_fingerprint, lists_fingerprint
    from nl2sparql.artifacts.store import resolve_version
    from nl2sparql.data.outside import read_outside
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.modules.ranker import RankerFile
    from nl2sparql.optimize.ranker.examples import build_lists, questions_as_evaluated, questions_of
    from nl2sparql.optimize.ranker.job import dev_view, load_featured, work_dir
    from nl2sparql.paths import resolve

    rankers = {}
    for name in args.versions.split(","):
        try:
            found = resolve_version(name)
            ranker_file = RankerFile.from_manifest(found.path, found.manifest) if found else None
            if ranker_file is None:
                parser.error(f"version {name} has no ranker")
            rankers[name] = (ranker_file.load(), float(found.manifest["program_settings"]["rank_accept"]))
        except Nl2SparqlError as error:  # an unknown or corrupt version, a changed ranker file
            parser.error(str(error))
    records = read_outside(list(args.outside), args.half)
    questions = (questions_as_evaluated(records, "outside") if args.lang == "eval"
                 else questions_of(records, "outside"))
    with EmbeddedEndpoint(EndpointConfig()) as endpoint:
        kb = endpoint.fingerprint()
    code = code_fingerprint()
    path = work_dir(resolve().home, kb, lists_fingerprint()) / f"outside-{args.half}-{args.lang}.jsonl"
    for i, _ in enumerate(build_lists(questions, path), 1):
        if i % 25 == 0:
            print(f"{i} of {len(questions)} lists built", flush=True)
    keys = {q.key for q in questions}
    made, lists = load_featured(path, dev_view)
    made, lists = zip(*[(m, f) for m, f in zip(made, lists) if m["key"] in keys]) or ((), ())
    report = {"half": args.half, "lang": args.lang, "outside": [str(p) for p in args.outside], "code": code,
              "kb": kb, **counts(made, lists, rankers)}
    if len(args.outside) > 1:
        report["by_source"] = {}
        for source in args.outside:
            ids = {r.id for r in read_outside(source, args.half)}
            chosen = [(m, x) for m, x in zip(made, lists) if m["key"].split(":")[0] in ids]
            report["by_source"][source.name] = counts(*(zip(*chosen) if chosen else ((), ())), rankers)
    print(json.dumps(report, indent=1))
    args.out.mkdir(parents=True, exist_ok=True)
    sources = "" if [p.name for p in args.outside] == ["outside"] else "-" + "+".join(p.name for p in args.outside)
    write_text_atomic(args.out / f"outside-{args.half}-{args.lang}{sources}-{'-'.join(rankers)}.json",
                      json.dumps(report, indent=2) + "\n")


def counts(made, lists, rankers: dict) -> dict:
    """The oracle, the enumerator's own first candidate and each ranker's first, over these lists (counts); a ranker
    trained on other features reads the lists in its own features version."""
    from nl2sparql.modules.rank_features import FEATURES_VERSION
    from nl2sparql.optimize.ranker.train import featurize

    n = len(lists)
    out = {"questions": n, "oracle": sum(bool(x.labels.sum()) for x in lists),
           "enumerator_first": sum(bool(m["candidates"]) and bool(m["candidates"][0]["label"]) for m in made),
           "versions": {}}
    for name, (ranker, accept) in rankers.items():
        top, accepted, accepted_right = 0, 0, 0
        mine = lists if ranker.features_version == FEATURES_VERSION else \
            [featurize(m, False, ranker.features_version) for m in made]
        for x in mine:
            if not x.features:
                continue
            scores = ranker.scores(x.features)
            best = int(np.argmax(scores))
            right = bool(x.labels[best])
            top += right
            if float(ranker.probabilities(scores).max()) >= accept:
                accepted += 1
                accepted_right += right
        out["versions"][name] = {"top1": top, "top1_share": round(top / max(1, n), 3), "accept": accept,
                                 "answered_without_generator": accepted, "right_there": accepted_right}
    return out

if __name__ == "__main__":
    main()
