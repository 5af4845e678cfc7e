"""The ranker's training settings chosen on design data only: train on the train split's lists and the outside design
lists of every round but one, and count the held-out round's design lists the ranker's first candidate gets right.

    python bench/ranker_design.py --hold R5 --learning-rates 0.05,0.02,0.01 --seeds 13,7,21 [--epochs 20]
        [--lists ~/.nl2sparql/ranker/<kb>-<lists code>] [--features 1] [--ensembles 13+7+21,1+2+3]

Reads the lists `optimize run --optimizer ranker --outside bench/outside` built into the ranker's work folder for
this KB and code (`optimize/ranker/job.py`; run it first), or the folder --lists names (lists an older enumerator
built: the features are computed now, from each list's question, signals and executed plans). The held-out round's
lists are seen as the program sees them, enumerated candidates only; dev top-1 is given beside. Each setting is
trained once per seed: the spread between seeds is the noise a single run cannot tell from an effect. Never reads a
check half. Prints one JSON line per run and writes them to bench/ranker-runs/design-<hold>-<code>-f<features>.json.

With --ensembles, each group of seeds trains one ranker per seed (a run each, as with --seeds) and then scores their
average (`train.average`, a run with `"ensemble"`), so the spread of single seeds and of ensembles is read in one go;
the file is then design-<hold>-<code>-f<features>-ensembles.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def _round(key: str) -> int:
    """The round of an outside pair's id: R5ARC-001 is round 5; the first rounds' ids (AUD-001) carry no number."""
    return int(key[1]) if key[:1] == "R" and key[1:2].isdigit() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hold", default="R5", help="id prefix of the outside round held out of training (R5: round 5)")
    parser.add_argument("--learning-rates", default="0.05,0.02,0.01")
    parser.add_argument("--seeds", default="13,7,21")
    parser.add_argument("--epochs", type=int, default=None, help="default: the ranker job's")
    parser.add_argument("--lists", type=Path, default=None, help="a lists folder; default: this KB's and code's")
    parser.add_argument("--features", type=int, default=None, help="the features' version (default: the current)")
    parser.add_argument("--ensembles", default="",
                        help="groups of seeds, '+' within a group, ',' between groups: 13+7+21,1+2+3")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "ranker-runs")
    args = parser.parse_args()

    from nl2sparql.artifacts.code import code_fingerprint, lists_fingerprint
    from nl2sparql.modules.rank_features import FEATURES_VERSION
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.optimize.ranker.examples import read_lists
    from nl2sparql.optimize.ranker.job import RankerJob, dev_view, work_dir
    from nl2sparql.optimize.ranker.train import TrainConfig, average, featurize, top1, train, training_views
    from nl2sparql.paths import resolve

    with EmbeddedEndpoint(EndpointConfig()) as endpoint:
        kb = endpoint.fingerprint()
    code = code_fingerprint()
    work = args.lists or work_dir(resolve().home, kb, lists_fingerprint())
    version = args.features or FEATURES_VERSION
    if not (work / "outside.jsonl").exists():
        raise SystemExit(f"no lists in {work}: run `nl2sparql optimize run --optimizer ranker --outside bench/outside`")
    outside = read_lists(work / "outside.jsonl")
    held = [dev_view(m) for m in outside if m["key"].startswith(args.hold)]
    # rounds after the held one stay out too: what the held round measures is a round nobody trained on yet
    fit = [m for m in outside if not m["key"].startswith(args.hold) and _round(m["key"]) <= _round(args.hold)]
    if not held:
        raise SystemExit(f"no design lists with ids starting {args.hold}")
    lists = [v for m in read_lists(work / "train.jsonl") + fit for v in training_views(m, version=version)]
    held_f = [featurize(m, False, version) for m in held]
    dev_f = [featurize(dev_view(m), False, version) for m in read_lists(work / "dev.jsonl")]
    epochs = args.epochs or RankerJob.epochs
    runs = []
    groups = [[int(x) for x in g.split("+")] for g in args.ensembles.split(",") if g] or \
        [[int(x)] for x in args.seeds.split(",")]

    def record(ranker, rate, seed, began, members=None):
        run = {"features": version, "lists": work.name, "learning_rate": rate, "seed": seed, "epochs": epochs,
               "trained_lists": len(lists),
               "held_lists": len(held_f), "held_oracle": sum(bool(x.labels.any()) for x in held_f),
               "held_top1": round(top1(ranker, held_f) * len(held_f)), "dev_top1": round(top1(ranker, dev_f), 3),
               "seconds": round(time.perf_counter() - began, 1)}
        if members:
            run["ensemble"] = members
        print(json.dumps(run), flush=True)
        runs.append(run)

    for rate in [float(x) for x in args.learning_rates.split(",")]:
        for group in groups:
            members, began_group = [], time.perf_counter()
            for seed in group:
                began = time.perf_counter()
                members.append(train(lists, TrainConfig(epochs=epochs, learning_rate=rate, l2=RankerJob.l2,
                                                        seed=seed)))
                record(members[-1], rate, seed, began)
            if len(group) > 1:
                record(average(members), rate, group[0], began_group, group)
    summary = {}
    for rate in sorted({r["learning_rate"] for r in runs}, reverse=True):
        for kind, mine in (("single", [r for r in runs if r["learning_rate"] == rate and "ensemble" not in r]),
                           ("ensemble", [r for r in runs if r["learning_rate"] == rate and "ensemble" in r])):
            if not mine:
                continue
            key = str(rate) if kind == "single" else f"{rate}-ensemble"
            summary[key] = {"held_top1": [r["held_top1"] for r in mine],
                            "held_top1_median": statistics.median(r["held_top1"] for r in mine),
                            "dev_top1": [r["dev_top1"] for r in mine]}
            print(f"learning rate {rate}, {kind}: held-out top-1 {summary[key]['held_top1']} of {len(held_f)} "
                  f"(oracle {runs[0]['held_oracle']}), dev top-1 {summary[key]['dev_top1']}")
    args.out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out / f"design-{args.hold}-{code}-f{version}{'-ensembles' if args.ensembles else ''}.json",
                      json.dumps({"hold": args.hold, "code": code, "lists": work.name, "features": version, "kb": kb,
                                  "runs": runs, "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
