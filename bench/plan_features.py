"""Oracle coverage per query feature of the gold: which SPARQL structures the enumerator's candidates reach.

    python bench/plan_features.py bench/plans-runs/outside-round4.json --outside bench/outside/round4 [--half design]
    python bench/plan_features.py bench/plans-runs/train.json [--json]

Reads a report of `bench/plans.py` and the gold query of each of its records, and counts covered questions per
feature of the gold: the features and aggregates that define a structure in `data/check.py` (HAVING, OPTIONAL, MINUS,
NOT EXISTS, VALUES, subqueries, GROUP_CONCAT, AVG …; the ones the generalization split is held out by), and per
number of such features. Design material only: a report on test or generalization is refused, since per-feature
counts would describe their gold queries.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

HELD_OUT = ("test", "generalization")
# Features that say where a query reads, not what it computes: not counted among a question's features.
PLACES = ("service", "order")


def features(record) -> list[str]:
    """The gold's structure features and aggregates (`data.check.structure`, what a generalization pair is held out
    by), lower-cased."""
    from nl2sparql.data.check import structure

    _, _, aggregates, found = structure(record)
    return list(found) + [a.lower() for a in aggregates]


def coverage(rows: list[dict], gold: dict) -> dict[str, dict[str, int]]:
    """{feature: {questions, covered}} over the report's rows, with `n=K` for rows whose gold has K features (4 and
    more as 4; aggregates count as features, the places of PLACES do not)."""
    table: dict[str, Counter] = {}
    for row in rows:
        found = features(gold[row["id"]])
        k = len([f for f in found if f not in PLACES])
        for name in found + [f"n={min(k, 4)}"]:
            entry = table.setdefault(name, Counter())
            entry["questions"] += 1
            entry["covered"] += bool(row["covered"])
    return {name: dict(entry) for name, entry in sorted(table.items(), key=lambda kv: -kv[1]["questions"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="a report of bench/plans.py")
    parser.add_argument("--outside", type=Path, default=None, help="the outside pairs the report was made from")
    parser.add_argument("--half", choices=["design", "check", "all"], default="all",
                        help="with --outside: count only this half's rows (by the id hash of bench/plans.py)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.report.is_file():
        parser.error(f"no report at {args.report}")
    report = json.loads(args.report.read_text(encoding="utf-8"))
    if report.get("split", "").startswith(HELD_OUT):
        parser.error(f"{report['split']} is held out: its gold queries are not described per feature")
    if args.outside:
        from nl2sparql.data.outside import outside_half, read_outside

        records = read_outside(args.outside, "all")
        rows = [r for r in report["records"] if args.half == "all" or outside_half(r["id"]) == args.half]
    else:
        from nl2sparql.data.dataset import load_dataset

        records = load_dataset()
        rows = report["records"]
    gold = {r.id: r for r in records}
    missing = [r["id"] for r in rows if r["id"] not in gold]
    if missing:
        parser.error(f"{len(missing)} records of the report are not in these pairs (first: {missing[0]})")
    table = coverage(rows, gold)
    if args.json:
        print(json.dumps({"report": str(args.report), "half": args.half, "questions": len(rows), "per_feature": table},
                         indent=2))
        return
    print(f"{args.report} ({args.half}): {len(rows)} questions")
    for name, entry in table.items():
        print(f"  {name:12s} {entry['covered']:4d} / {entry['questions']:4d} ({entry['covered'] / entry['questions']:.2f})")


if __name__ == "__main__":
    main()
