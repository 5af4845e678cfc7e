"""The choice's thresholds replayed on pairs written outside the project, beside dev: where should they be chosen?

    python bench/thresholds.py --versions v40,v41 \
        --lists ~/.nl2sparql/ranker/<kb>-<lists>/outside-check-eval.jsonl --report <v14's report on those questions> \
        [--dev-lists …/dev.jsonl --dev-report bench/eval-runs/v14/reports/dev-….json] [--plan-share 0.5]

The parent's answers come from an eval run on a sample of the check half, written as a split by

    python bench/thresholds.py --write-sample /tmp/outside-check-sample.jsonl [--rounds round4,round5,round6]
    python bench/eval.py --versions v14 --splits /tmp/outside-check-sample.jsonl

(the versions resolved in the artifact root that holds them, bench/eval-runs for the measured ones; every third
check record of each round, the rounds interleaved, so that a run stopped early still samples each; the
parent answers a check question in 16 s at the median, 46 s at p90, on 2 cores, so the whole check half would take hours).

A version's thresholds (`rank_accept`, `rank_fallback`) are chosen by replaying the choice
(`modules/plan_choice.decide`, `optimize/ranker/thresholds.replay`) on dev with the parent's dev answers. Dev is
written by us, like train. This replays the same choice on the check half of the outside pairs (never trained on),
with the parent's own answers to them from an `eval run` on those questions as a split (a `.jsonl` of the check
records), for every pair of the grid, and says which pair `thresholds.choose` takes on dev, on the check half, and on
both together, with what each pair gives on the other set. Counts only: no question is printed. Writes
bench/ranker-runs/thresholds-<versions>.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", help="comma-separated versions with a ranker")
    parser.add_argument("--lists", type=Path, help="the check half's lists (`optimize run --check-report` builds them)")
    parser.add_argument("--report", type=Path, help="the parent's eval report on the same questions")
    parser.add_argument("--write-sample", type=Path, default=None, help="write the sample split and stop")
    parser.add_argument("--rounds", default="round4,round5,round6", help="with --write-sample: the outside rounds")
    parser.add_argument("--dev-lists", type=Path, default=None)
    parser.add_argument("--dev-report", type=Path,
                        default=Path("bench/eval-runs/v14/reports/dev-local-qwen-1.5b-lora-9d9696e8-ad886cbe2b.json"))
    parser.add_argument("--plan-share", type=float, default=0.5)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "ranker-runs")
    args = parser.parse_args()
    if args.write_sample:
        write_sample(args.write_sample, [Path("bench/outside") / r for r in args.rounds.split(",")])
        return
    if not (args.versions and args.lists and args.report):
        parser.error("--versions, --lists and --report are needed (or --write-sample)")

    from nl2sparql.artifacts.code import code_fingerprint, lists_fingerprint
    from nl2sparql.artifacts.store import resolve_version
    from nl2sparql.files import write_text_atomic
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.modules.ranker import RankerFile
    from nl2sparql.optimize.ranker.job import dev_view, load_featured, work_dir
    from nl2sparql.optimize.ranker.thresholds import GRID, choose, dev_questions, replay
    from nl2sparql.paths import resolve

    with EmbeddedEndpoint(EndpointConfig()) as endpoint:
        kb = endpoint.fingerprint()
    dev_lists = args.dev_lists or work_dir(resolve().home, kb, lists_fingerprint()) / "dev.jsonl"
    sets = {"dev": (dev_lists, args.dev_report), "check": (args.lists, args.report)}
    out = {"code": code_fingerprint(), "kb": kb, "lists": {k: str(v[0]) for k, v in sets.items()},
           "reports": {k: str(v[1]) for k, v in sets.items()}, "plan_share": args.plan_share, "versions": {}}
    for name in args.versions.split(","):
        found = resolve_version(name)
        ranker_file = RankerFile.from_manifest(found.path, found.manifest) if found else None
        if ranker_file is None:
            parser.error(f"version {name} has no ranker")
        ranker = ranker_file.load()
        questions = {}
        with EmbeddedEndpoint(EndpointConfig()) as endpoint:
            for key, (lists_path, report_path) in sets.items():
                made, lists = load_featured(lists_path, dev_view)
                report = json.loads(report_path.read_text(encoding="utf-8"))["questions"]
                questions[key] = dev_questions(ranker, list(lists), list(made), report, endpoint)
                if key == "check":
                    answered = {f"{q['id']}:{q.get('language', 'it')}" for q in report}
                    rounds = [_round(m["key"]) for m in made if m["key"] in answered]
        questions["both"] = questions["dev"] + questions["check"]
        grid = {key: {f"{a}/{f}": [round(x, 3) for x in replay(qs, a, f)]
                      for a in GRID for f in GRID if f <= a} for key, qs in questions.items()}
        chosen = {}
        for key, qs in questions.items():
            accept, fallback, _, _ = choose(qs, args.plan_share)
            chosen[key] = {"accept": accept, "fallback": fallback,
                           **{on: grid[on][f"{accept}/{fallback}"] for on in grid}}
        generator = {key: round(sum(q.generator_right for q in qs) / max(1, len(qs)), 3)
                     for key, qs in questions.items()}
        oracle = {key: round(sum(bool(q.labels.sum()) for q in qs) / max(1, len(qs)), 3)
                  for key, qs in questions.items()}
        # Each round of the check half held out in turn: thresholds chosen on dev alone against dev with the other
        # rounds, both scored on the held round (the same questions, right counts summed over the rounds).
        held = {"dev": 0, "dev+other_rounds": 0, "questions": 0, "without_generator": {"dev": 0, "dev+other_rounds": 0}}
        accept_dev, fallback_dev, _, _ = choose(questions["dev"], args.plan_share)
        for r in sorted(set(rounds)):
            mine = [q for q, x in zip(questions["check"], rounds) if x == r]
            others = [q for q, x in zip(questions["check"], rounds) if x != r]
            a, f, _, _ = choose(questions["dev"] + others, args.plan_share)
            for label, (acc, fal) in (("dev", (accept_dev, fallback_dev)), ("dev+other_rounds", (a, f))):
                right, without = replay(mine, acc, fal)
                held[label] += round(right * len(mine))
                held["without_generator"][label] += round(without * len(mine))
            held[f"round{r}_chosen"] = f"{a}/{f}"
            held["questions"] += len(mine)
        manifest = found.manifest["program_settings"]
        shipped = f"{float(manifest['rank_accept'])}/{float(manifest['rank_fallback'])}"
        out["versions"][name] = {"questions": {k: len(v) for k, v in questions.items()}, "parent_right": generator,
                                 "oracle": oracle, "own_thresholds": shipped,
                                 "own": {on: grid[on].get(shipped) for on in grid}, "chosen_on": chosen,
                                 "held_rounds": held,
                                 "grid": grid}
        print(f"{name}: questions {out['versions'][name]['questions']}, parent right {generator}, oracle {oracle}")
        print(f"  its own thresholds {shipped}: " + ", ".join(
            f"{on} {v[0]:.3f} right, {v[1]:.3f} without the generator" for on, v in
            out["versions"][name]["own"].items() if v))
        for key, c in chosen.items():
            print(f"  chosen on {key}: accept {c['accept']}, fallback {c['fallback']}: " + ", ".join(
                f"{on} {c[on][0]:.3f} right ({c[on][1]:.3f} without)" for on in grid))
        print(f"  each check round held out in turn: {held}")
    args.out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out / f"thresholds-{'-'.join(out['versions'])}.json", json.dumps(out, indent=1) + "\n")


def write_sample(path: Path, rounds: list[Path]) -> None:
    """Every third check-half record of each round, the rounds interleaved, as a `.jsonl` split."""
    from itertools import zip_longest

    from nl2sparql.data.dataset import write_jsonl
    from nl2sparql.data.outside import read_outside

    picked = [read_outside(r, "check")[::3] for r in rounds]
    sample = [r for group in zip_longest(*picked) for r in group if r is not None]
    write_jsonl(path, sample)
    print(f"{len(sample)} check records ({', '.join(f'{r.name} {len(p)}' for r, p in zip(rounds, picked))}) "
          f"written to {path}")


def _round(key: str) -> str:
    """The outside round of a list's key, by its id's prefix (R5…, R6…; round 4's ids have none)."""
    return key[1] if key[:1] == "R" and key[1:2].isdigit() else "4"


if __name__ == "__main__":
    main()
