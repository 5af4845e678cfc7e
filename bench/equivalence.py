"""Does a version answered through `nl2sparql lm serve` write the queries it writes in-process?

    nl2sparql lm serve --version v14 &
    nl2sparql eval run --version v14 --split dev --lm-server http://127.0.0.1:8010
    nl2sparql eval run --version v14 --split dev
    python bench/equivalence.py SERVER_REPORT.json IN_PROCESS_REPORT.json [--out bench/load-runs]

Pairs the two eval reports question by question (greedy decoding both ways) and counts the questions whose final
query is the same text; lists the others with both queries, their exact-match outcome and seconds. Writes
<out>/equivalence-<version>-<split>.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server", type=Path)
    parser.add_argument("in_process", type=Path)
    parser.add_argument("--out", type=Path, default=BENCH / "load-runs")
    args = parser.parse_args()

    from nl2sparql.files import write_text_atomic

    server, local = (json.loads(p.read_text(encoding="utf-8")) for p in (args.server, args.in_process))
    if (server["version"], server["split"]) != (local["version"], local["split"]):
        parser.error("the two reports must be of the same version and split")
    theirs = {q["id"]: q for q in local["questions"]}
    pairs = [(q, theirs[q["id"]]) for q in server["questions"] if q["id"] in theirs]
    different = [{"id": a["id"], "question": a["question"], "server_sparql": a["sparql"], "in_process_sparql": b["sparql"],
                  "server_exact": a["exact"], "in_process_exact": b["exact"], "server_seconds": a["seconds"],
                  "in_process_seconds": b["seconds"]} for a, b in pairs if a["sparql"].strip() != b["sparql"].strip()]
    seconds = {name: [q["seconds"] for q in report["questions"]] for name, report in (("server", server),
                                                                                        ("in_process", local))}
    out = {"version": server["version"], "split": server["split"], "questions": len(pairs),
           "same_query": len(pairs) - len(different), "share": round((len(pairs) - len(different)) / max(1, len(pairs)), 3),
           "exact": {"server": sum(a["exact"] for a, _ in pairs), "in_process": sum(b["exact"] for _, b in pairs)},
           "seconds_p50_p90_max": {name: [round(percentile(v, 0.5), 2), round(percentile(v, 0.9), 2),
                                          round(max(v, default=0.0), 2)] for name, v in seconds.items()},
           "code": {"server": server.get("code_fingerprint"), "in_process": local.get("code_fingerprint")},
           "reports": [str(p) for p in (args.server, args.in_process)], "different": different}
    write_text_atomic(args.out / f"equivalence-{out['version']}-{out['split']}.json",
                      json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(f"{out['version']} {out['split']}: the same query for {out['same_query']} of {out['questions']} "
          f"({out['share']:.3f}); exact {out['exact']['server']} through the server, {out['exact']['in_process']} "
          f"in-process; seconds p50/p90/max {out['seconds_p50_p90_max']}")
    for d in different:
        print(f"  {d['id']}: server exact {d['server_exact']}, in-process exact {d['in_process_exact']}")


if __name__ == "__main__":
    main()
