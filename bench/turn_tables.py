"""Tables of bench/RESULTS.md read question by question from the eval reports: follow-up turns, seconds per
question (bounded time) and exact answers per pattern. `bench/results.py` fills its placeholders with them."""

from __future__ import annotations

import re
from pathlib import Path

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


def short_lm(lm: str) -> str:
    """`local/qwen-0.5b+lora-e7fd658b` → `qwen-0.5b + LoRA`."""
    return re.sub(r"\+lora-\w+$", " + LoRA", lm.removeprefix("local/"))


def seconds(report: dict) -> str:
    """p50 / p90 / max seconds per question (from the questions when the summary predates p90 and max)."""
    s = report["summary"]
    if "p90_seconds" not in s:
        values = [q["seconds"] for q in report["questions"]]
        s = {"p50_seconds": s["p50_seconds"], "p90_seconds": percentile(values, 0.9), "max_seconds": max(values)}
    return f"{s['p50_seconds']:.1f} / {s['p90_seconds']:.1f} / {s['max_seconds']:.0f}"


def headline_table(reports: list, manifests: list) -> str:
    """static-rag against every fine-tuned version: test accuracy, validity, seconds, and generalization."""
    def first(version: str, split: str) -> dict | None:
        return newest(reports, version, split)

    candidates = {m.data["version"]: m.data.get("program_settings", {}).get("candidates", 0) for m in manifests
                  if m.data.get("program_settings", {}).get("check_scope", True)}  # v6 (step off) is a control
    ranking = {m.data["version"] for m in manifests if m.data.get("program_settings", {}).get("rank")}
    versions = ["static-rag", *candidates]
    columns = [(v, first(v, "test"), first(v, "generalization")) for v in versions if first(v, "test")]
    header = ["", *(f"{v} ({short_lm(test['lm'])}{f', {candidates[v]} candidates' if candidates.get(v) else ''}"
                    f"{' + plan ranker' if v in ranking else ''})" for v, test, _ in columns)]
    rows = [["test: execution accuracy", *(f"{t['summary']['execution_accuracy']:.3f}" for _, t, _ in columns)],
            ["test: valid SPARQL", *(f"{t['summary']['valid_sparql_rate']:.3f}" for _, t, _ in columns)],
            ["test: seconds / question, p50 / p90 / max", *(seconds(t) for _, t, _ in columns)],
            ["generalization: execution accuracy",
             *(f"{g['summary']['execution_accuracy']:.3f}" if g else "–" for _, _, g in columns)],
            ["code that made the test report",
             *(f"`{t.get('code_fingerprint', '')[:8] or '–'}`" for _, t, _ in columns)]]
    return table(header, rows)


README_VERSIONS = ("static-rag", "v4", "v14")  # beside the shipped one: retrieval, the first fine-tune, v14 alone


def shipped_version(root: Path = Path(__file__).resolve().parents[1] / "artifacts" / "store") -> str:
    """The version the package ships: the newest in artifacts/store."""
    return max((p.name for p in root.iterdir() if re.fullmatch(r"v\d+", p.name)), key=lambda n: int(n[1:]))


def readme_table(reports: list, manifests: list) -> str:
    """The README's table: the shipped version against the baselines on test, generalization and follow-ups, with
    seconds per question on test (each version's newest report per split)."""
    shipped = shipped_version()
    rows = []
    for version in (*README_VERSIONS, shipped):
        test, general = newest(reports, version, "test"), newest(reports, version, "generalization")
        followup = newest(reports, version, "followup-test")
        if test is None:
            continue
        turns = [q for q in followup["questions"] if "turn:follow-up" in q["patterns"]] if followup else []
        name = f"**{version}** (shipped)" if version == shipped else version
        ranked = any(m.data["version"] == version and m.data.get("ranker") for m in manifests)
        lm = short_lm(test["lm"]) + (" + ranker" if ranked else "")
        rows.append([name, lm, f"{test['summary']['execution_accuracy']:.3f}",
                     f"{general['summary']['execution_accuracy']:.3f}" if general else "–",
                     f"{sum(q['exact'] for q in turns) / len(turns):.3f}" if turns else "–",
                     " / ".join(seconds(test).split(" / ")[:2])])
    header = ["version", "model", "test", "generalization", "follow-ups", "seconds p50 / p90"]
    return table(header, rows)
