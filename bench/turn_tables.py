"""Tables of bench/RESULTS.md read question by question from the eval reports: follow-up turns, seconds per
question (bounded time) and exact answers per pattern. `bench/results.py` fills its placeholders with them."""

from __future__ import annotations

from nl2sparql.eval.scoring.scored import percentile
from nl2sparql.eval.stats import mcnemar_exact

# `reports` below are `results.Saved` items: `.data` (the report) and `.split`.


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def newest(reports: list, version: str, split: str) -> dict | None:
    """The version's newest report on the split (older ones, of older code, stay in the report tables)."""
    found = [x.data for x in reports if x.data["version"] == version and x.split == split]
    return max(found, key=lambda data: data.get("created_at", ""), default=None)


def followup_table(reports: list) -> str:
    """Each version's follow-up runs (gold history, own history, the follow-up alone, the history concatenated):
    first turns and follow-up turns apart, and each mode's follow-ups paired against the gold-history run on the
    same chains and code. Per version, split and chains the newest run is shown; the chains column tells runs on
    an earlier, smaller set of chains apart."""
    latest: dict[tuple, dict] = {}
    for run in (x.data for x in reports if x.split.startswith("followup-")):
        key = (run["version"], run["split"], run.get("dataset_hash"))
        if key not in latest or run.get("created_at", "") > latest[key].get("created_at", ""):
            latest[key] = run
    runs = list(latest.values())
    rows = []
    for run in runs:
        turns = {kind: [q for q in run["questions"] if f"turn:{kind}" in q["patterns"]]
                 for kind in ("first", "follow-up")}
        gold = next((r for r in runs if r["version"] == run["version"] and r["split"] == run["split"].split(":")[0]
                     and r.get("dataset_hash") == run.get("dataset_hash")
                     and r.get("code_fingerprint") == run.get("code_fingerprint")), None)
        paired = "–"
        if gold is not None and gold is not run:
            mine = {q["id"]: q["exact"] for q in turns["follow-up"]}
            theirs = {q["id"]: q["exact"] for q in gold["questions"]}
            won = sum(theirs[i] and not e for i, e in mine.items() if i in theirs)
            lost = sum(e and not theirs[i] for i, e in mine.items() if i in theirs)
            paired = f"{won} / {lost}, p {mcnemar_exact(won, lost):.3f}"
        seconds = [percentile([q["seconds"] for q in qs], 0.5) if qs else None for qs in turns.values()]
        ratio = f"{seconds[1] / seconds[0]:.2f}" if all(seconds) else "–"
        rows.append([run["version"], run["split"], str(len(turns["first"])),
                     *(f"{sum(q['exact'] for q in qs)}/{len(qs)} = {sum(q['exact'] for q in qs) / max(1, len(qs)):.3f}"
                       for qs in turns.values()),
                     *(f"{s:.1f}" if s is not None else "–" for s in seconds), ratio,
                     f"`{str(run.get('code_fingerprint', ''))[:8]}`", paired])
    header = ["version", "split (history)", "chains", "first turns exact", "follow-ups exact", "p50 s first",
              "p50 s follow-up", "ratio", "code", "follow-ups: gold history won / lost"]
    return table(header, rows)


def bounded_table(reports: list, versions: str) -> str:
    """Seconds per question of each version (comma-separated) over every split it ran, its newest report per split,
    with the deadline's and grammar's share, LM calls and exact answers."""
    rows = []
    for version in [v.strip() for v in versions.split(",") if v.strip()]:
        splits = sorted({x.split for x in reports
                         if x.data["version"] == version and not x.split.startswith("followup-")})
        runs = [newest(reports, version, split) for split in splits]
        questions = [q for r in runs for q in r["questions"]]
        if not questions:
            raise ValueError(f"no reports of {version} for {{{{bounded:{versions}}}}}")
        times = [q["seconds"] for q in questions]
        exact = sum(q["exact"] for q in questions)
        rows.append([version, ", ".join(r["split"] for r in runs), str(len(questions)),
                     " / ".join(f"{percentile(times, k):.1f}" for k in (0.5, 0.9, 0.95, 1.0)),
                     str(sum(q.get("stopped_early", False) for q in questions)),
                     f"{sum(q.get('grammar_refused', 0) for q in questions)} "
                     f"({sum(q.get('grammar_seconds', 0.0) for q in questions):.2f} s)",
                     f"{sum(q.get('calls', 0) for q in questions) / len(questions):.2f}",
                     f"{exact}/{len(questions)} = {exact / len(questions):.3f}",
                     ", ".join(sorted({f"`{r.get('code_fingerprint', '')[:8]}`" for r in runs}))])
    header = ["version", "splits", "questions", "p50 / p90 / p95 / max s", "stopped at the deadline",
              "grammar refusals (seconds they cost)", "LM calls / q", "exact (per question)", "code"]
    return table(header, rows)


def patterns_table(reports: list, argument: str) -> str:
    """`SPLIT,vA,vB,…`: exact answers per pattern on the split, each version's newest report, side by side."""
    split, *versions = [part.strip() for part in argument.split(",") if part.strip()]
    runs = [newest(reports, version, split) for version in versions]
    if None in runs:
        missing = versions[runs.index(None)]
        raise ValueError(f"no {split} report of {missing} for {{{{patterns:{argument}}}}}")
    patterns = list(dict.fromkeys(p for run in runs for q in run["questions"] for p in q["patterns"]))
    rows = []
    for pattern in patterns:
        cells = []
        for run in runs:
            chosen = [q for q in run["questions"] if pattern in q["patterns"]]
            cells.append(f"{sum(q['exact'] for q in chosen)}/{len(chosen)}")
        rows.append([pattern, *cells])
    return table(["pattern", *versions], rows)
