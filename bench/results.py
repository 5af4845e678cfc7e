"""bench/RESULTS.md and the README's headline table, written from the committed runs so their figures cannot drift.

    python bench/results.py            # write bench/RESULTS.md and the headline table in README.md
    python bench/results.py --check    # write nothing; exit 1 when either differs from what would be written

The prose, and the figures that have no run file, are in bench/RESULTS.in.md. Its placeholders are filled
from the eval reports (bench/eval-runs/**/reports/*.json), the fine-tuned versions' manifests
(bench/eval-runs/v*/manifest.json), the latency runs (bench/latency-runs/*.json) and the scope runs:

    {{reports:SPLIT}}   one row per report on SPLIT (test, generalization, dev: dev[:34] counts as dev)
    {{pairs:SPLIT}}     each report against static-rag made by the same code (else the newest static-rag, marked †;
                        the first report where no static-rag ran) on the same questions, and the comparisons
    {{finetuned}}       one row per version with an adapter in its manifest
    {{latency}}         one row per latency run
    {{scope}}           one row per run of the relevance step (bench/scope-runs/*.json)
    {{doubt}}           one row per run of bench/doubt.py (bench/doubt-runs/*.json)
    {{load}}            one row per bench/load.py run, and each bench/equivalence.py pairing (bench/load-runs/*.json)
    {{headline}}        every version: test and generalization of static-rag and the fine-tuned versions
    {{readme}}          the README's table: the shipped version against the baselines
    {{dataset}}         the dataset's pairs per split and its ASK twins (data/dataset/*.jsonl)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable
from urllib.parse import quote

from nl2sparql.eval.stats import mcnemar_exact, paired_bootstrap_ci
from nl2sparql.files import write_text_atomic
from nl2sparql.optimize.finetune.soup import describe_soup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from turn_tables import (bounded_table, followup_table, headline_table, patterns_table, readme_table,  # noqa: E402
                         seconds, table)

BENCH = Path(__file__).resolve().parent
README = BENCH.parent / "README.md"
PLACEHOLDER = re.compile(r"\{\{(\w+)(?::([\w,-]+))?\}\}")
HEADLINE = ("<!-- headline: written by bench/results.py -->", "<!-- /headline -->")
BASELINES = ("zero-shot", "static-rag", "shipped")


@dataclass(frozen=True)
class Saved:
    """A run file and what it holds."""

    path: Path
    data: dict

    @property
    def split(self) -> str:
        return self.data["split"]


def load_json(paths: Iterable[Path]) -> list[Saved]:
    return [Saved(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(paths)]


def load_reports(bench: Path) -> list[Saved]:
    """Every committed eval report, baselines first, then versions by number, then by LM."""
    found = [s for s in load_json(bench.glob("eval-runs/**/reports/*.json")) if "summary" in s.data]
    return sorted(found, key=lambda s: (version_key(s.data["version"]), s.data["lm"], s.split))


def version_key(version: str) -> tuple[int, int, str]:
    if version in BASELINES:
        return 0, BASELINES.index(version), ""
    number = re.fullmatch(r"v(\d+)", version)
    return (1, int(number.group(1)), "") if number else (2, 0, version)


def base_split(split: str) -> str:
    """`dev[:34]` → `dev`: a report on the first questions of a split is listed with that split."""
    return split.split("[", 1)[0]


def link(path: Path, bench: Path) -> str:
    return quote(path.relative_to(bench).as_posix())


def outcome_names(reports: list[dict]) -> list[str]:
    names: dict[str, None] = {}
    for report in reports:
        names.update(dict.fromkeys(report.get("outcomes", {})))
    return list(names)


def report_row(report: dict, outcomes: list[str], label: str | None = None) -> list[str]:
    """One report's figures: what a reader compares across versions, and why the wrong answers are wrong."""
    s, lang = report["summary"], report.get("per_language", {})
    by_language = " / ".join(f"{lang[k]['execution_accuracy']:.3f}" if k in lang else "–" for k in ("it", "en"))
    code = f"`{report['code_fingerprint'][:8]}`" if report.get("code_fingerprint") else "–"
    return [label or report["version"], f"`{report['lm']}`", code, str(s["questions"]),
            f"{s['execution_accuracy']:.3f}",
            f"{s['mean_f1']:.3f}", f"{s['valid_sparql_rate']:.3f}", f"{s['lm_calls_per_question']:.2f}",
            f"{s['tokens_per_question']:,.0f}", seconds(report), by_language,
            *(str(report.get("outcomes", {}).get(name, "–")) for name in outcomes)]


def reports_table(reports: list[Saved], split: str, bench: Path) -> str:
    chosen = [s for s in reports if base_split(s.split) == split]
    if not chosen:
        raise ValueError(f"no reports on split {split!r} under {bench / 'eval-runs'}")
    outcomes = outcome_names([s.data for s in chosen])
    header = ["version", "LM", "code", "questions", "exec acc", "F1", "valid", "LM calls / q", "tokens / q",
              "p50 / p90 / max s",
              "IT / EN exec acc", *(name.replace("_", " ") for name in outcomes)]
    rows = [report_row(s.data, outcomes, f"[{s.data['version']}]({link(s.path.with_suffix('.md'), bench)})")
            for s in chosen]
    return table(header, rows)


def exact_with_twins(questions: list[dict]) -> dict[str, bool]:
    """Exact as the headline counts it (`eval.scoring.scored.paired_exact`): an ASK question with its twin."""
    by_id = {q["id"]: q for q in questions}
    return {i: q["exact"] and (by_id[q["twin"]]["exact"] if q.get("twin") in by_id else True) for i, q in by_id.items()}


def pair_row(baseline: dict, other: dict) -> list[str]:
    """Exact-match wins and losses of `other` against `baseline` on their shared questions, as `eval compare` tests them."""
    mine = {q["id"]: q for q in baseline["questions"]}
    theirs = {q["id"]: q for q in other["questions"]}
    shared = [i for i in mine if i in theirs]
    right_a, right_b = exact_with_twins(baseline["questions"]), exact_with_twins(other["questions"])
    won = sum(1 for i in shared if right_b[i] and not right_a[i])
    lost = sum(1 for i in shared if right_a[i] and not right_b[i])
    p = mcnemar_exact(lost, won)
    delta, low, high = paired_bootstrap_ci([mine[i]["f1"] for i in shared], [theirs[i]["f1"] for i in shared])
    other_code = other.get("code_fingerprint", "") != baseline.get("code_fingerprint", "")
    return [other["version"] + (" †" if other_code else ""), f"`{other['lm']}`", baseline["version"],
            str(len(shared)), str(won), str(lost),
            "< 0.001" if p < 0.001 else f"{p:.3f}", f"{delta:+.3f}", f"{low:+.3f} … {high:+.3f}"]


def pair_baseline(report: dict, baselines: list[dict]) -> dict | None:
    """The baseline a report is paired with: the one made by the same code, else the newest (the pair gets a †)."""
    same_code = [b for b in baselines if b.get("code_fingerprint") == report.get("code_fingerprint")]
    return max(same_code or baselines, key=lambda data: data.get("created_at", ""), default=None)


def pairs_table(reports: list[Saved], split: str, bench: Path) -> str:
    rows = []
    for exact_split in dict.fromkeys(s.split for s in reports if base_split(s.split) == split):
        same = [s.data for s in reports if s.split == exact_split]
        static = [r for r in same if r["version"] == "static-rag"] or same[:1]
        rows += [pair_row(pair_baseline(r, static), r) for r in same if not any(r is b for b in static)]
    if not rows:
        raise ValueError(f"no two reports on the same questions of split {split!r}")
    header = ["version", "LM", "against", "questions", "won", "lost", "exact McNemar p", "F1 Δ", "F1 Δ 95% CI"]
    note = ("\n\n† made by other program code than the report it is paired with (their code fingerprints differ)"
            if any(row[0].endswith(" †") for row in rows) else "")
    return table(header, rows) + note + "\n\n" + comparisons(split, bench)


def comparisons(split: str, bench: Path) -> str:
    """Links to the `eval compare` reports on the split (per-question flips with both queries, per-pattern charts)."""
    found = []
    for path in sorted(bench.glob("eval-runs/**/reports/compare-*.md")):
        title = path.read_text(encoding="utf-8").split("\n", 1)[0]
        match = re.fullmatch(r"# Comparison on (\S+): (.+)", title)
        if match and base_split(match.group(1)) == split:
            found.append(f"[{match.group(2)}]({link(path, bench)})")
    return "Comparisons: " + "; ".join(found) + "." if found else ""


def load_manifests(bench: Path) -> list[Saved]:
    """The fine-tuned versions' manifests (those with an adapter), by version number."""
    found = [s for s in load_json(bench.glob("eval-runs/v*/manifest.json")) if "adapter" in s.data]
    return sorted(found, key=lambda s: version_key(s.data["version"]))


def finetuned_row(manifest: dict) -> list[str]:
    adapter, tried = manifest["adapter"], manifest.get("settings_tried", {})
    if manifest.get("soup"):
        return soup_row(manifest)
    training = adapter["training"]
    dev = " / ".join(f"{tried[k]['execution_accuracy']:.3f}" if k in tried else "–"
                     for k in ("without_demos", "with_demos"))
    questions = next((t["questions"] for t in tried.values()), "–")
    return [manifest["version"], manifest.get("parent") or "–", f"`{manifest['lm']}`",
            f"`{adapter['sha256'][:8]}`, {adapter['size'] / 1e6:.1f} MB, rank {training['lora']['rank']}",
            recipe(training), f"{training['tokens']:,}",
            f"{training['seconds']:,.0f}", f"{training['examples_per_second']:.2f}",
            f"{training['first_loss']:.2f} → {training['final_loss']:.2f}", f"{dev} ({questions})",
            str(manifest.get("program_settings", {}).get("candidates", 0))]


def soup_row(manifest: dict) -> list[str]:
    """A version made by `nl2sparql optimize soup`: no training of its own, the mean of other versions' adapters."""
    adapter = manifest["adapter"]
    return [manifest["version"], manifest.get("parent") or "–", f"`{manifest['lm']}`",
            f"`{adapter['sha256'][:8]}`, {adapter['size'] / 1e6:.1f} MB, rank {adapter['rank']}",
            f"adapter soup: {describe_soup(manifest['soup'])}", "–", "–", "–", "–", "–",
            str(manifest.get("program_settings", {}).get("candidates", 0))]


def recipe(training: dict) -> str:
    """Prompt and examples by source: `compact prompt; 1,407 = 386 it + 378 en + 580 synth + 63 followup (667 records)`."""
    sources = training.get("examples_by_source") or {"curated": training["examples"]}
    counts = " + ".join(f"{n} {source}" for source, n in sources.items())
    prompt = "compact" if training.get("compact_prompt") else "full"
    return f"{prompt} prompt; {training['examples']:,} = {counts} ({training['records']} records)"


def finetuned_table(manifests: list[Saved], bench: Path) -> str:
    header = ["version", "parent", "base LM", "adapter", "prompt; training examples by source", "tokens", "training s",
              "examples / s", "loss, first / last 20 steps", "dev exec acc without / with examples (questions)",
              "candidates"]
    rows = []
    for saved in manifests:
        row = finetuned_row(saved.data)
        rows.append([f"[{row[0]}]({link(saved.path, bench)})", *row[1:]])
    notes = [f"- {s.data['version']}: {s.data['note']}" for s in manifests if s.data.get("note")]
    return "\n".join([table(header, rows), *([""] + notes if notes else [])])


def describe_setting(setting: dict) -> str:
    """A latency run's setting in a few words (the full setting is in its file)."""
    if setting.get("as_compiled"):
        parts = [f"{setting['version']} as compiled"]
    else:
        parts = [f"{setting['version']}, {setting['examples_k']} examples, {setting['ontology_k']} notes"]
        if setting.get("no_constraints"):
            parts.append("no constraints")
        if setting.get("no_demo_prefixes"):
            parts.append("examples without PREFIX lines")
    parts.append("grammar" if setting.get("grammar") else "no grammar")
    if setting.get("candidates"):
        parts.append(f"{setting['candidates']} candidates")
    parts.append(f"{setting['max_repairs']} repairs")
    return ", ".join(parts)


def latency_table(runs: list[Saved], bench: Path) -> str:
    header = ["run", "questions", "LM", "setting", "p50 / p95 s", "prompt / completion tokens",
              "prompt eval / generation tok/s", "LM calls", "first query parses", "exec acc"]
    rows = []
    for saved in sorted(runs, key=lambda s: (s.data["setting"]["lm"], s.data["label"])):
        run, s = saved.data, saved.data["summary"]
        rows.append([f"[{run['label']}]({link(saved.path, bench)})", f"{s['questions']} {run['setting']['split']}",
                     f"`{run['setting']['lm']}`", describe_setting(run["setting"]), f"{s['p50_s']:.2f} / {s['p95_s']:.2f}",
                     f"{s['prompt_tokens']:,} / {s['completion_tokens']:,}",
                     f"{s['prompt_eval_tok_s']:.1f} / {s['generation_tok_s']:.1f}", f"{s['lm_calls']:.2f}",
                     f"{s['first_query_parses']:.2f}", f"{s['execution_accuracy']:.2f}"])
    return table(header, rows)


def doubt_table(runs: list[Saved], bench: Path) -> str:
    """One row per `bench/doubt.py` run: answers read back as a plan, answers in doubt and what the doubt offered."""
    header = ["run", "answers", "read back as a plan", "in doubt (empty / zero / no)", "of them wrong", "explained",
              "with another reading", "another reading right, of the wrong", "seconds p50 / p90 / max", "code"]
    rows = []
    for run in (r.data for r in runs):
        kinds = run["doubtful_by_kind"]
        rows.append([f"{run['version']} {run['split']}", str(run["questions"]), str(run["read_as_plan"]),
                     f"{run['doubtful']} ({kinds['empty']} / {kinds['zero']} / {kinds['no']})",
                     str(run["doubtful_wrong"]), str(run["explained"]), str(run["with_alternatives"]),
                     f"{run['alternative_right_when_wrong']} of {run['doubtful_wrong']}",
                     f"{run['p50_s']:.3f} / {run['p90_s']:.3f} / {run['max_s']:.2f}", f"`{run['code'][:8]}`"])
    return table(header, rows)


def load_table(runs: list[Saved], bench: Path) -> str:
    """One row per `bench/load.py` run (users at once on the web page) and per `bench/equivalence.py` pairing."""
    rows = []
    for run in (r.data for r in runs if "users" in r.data):
        killed = f", killed at {run['killed_after_s']:g} s ({run['outage_s']} s down)" if run.get("killed_after_s") else ""
        rows.append([run["version"], ("LM server" if run["lm_server"] else "in-process") + killed, str(run["users"]),
                     str(run["questions"]), str(run["completed"]), str(run["failed"]), str(run["mixed_up"]),
                     f"{run['p50_s']:.1f} / {run['p90_s']:.1f} / {run['max_s']:.1f}", f"{run['single_user_p90_s']:.1f}",
                     f"{run['p90_s'] / max(run['single_user_p90_s'], 1e-9):.2f}", f"{run['wall_s']:.0f}",
                     f"{run['sessions_kept']}/{run['users']}", f"`{run['code'][:8]}`"])
    header = ["version", "LM", "users", "questions", "completed", "failed", "mixed up", "seconds p50 / p90 / max",
              "one user alone: p90", "p90 ratio", "wall s", "sessions kept", "code"]
    lines = [table(header, rows)]
    for run in (r.data for r in runs if "same_query" in r.data):
        lines.append(f"\n{run['version']} on {run['split']} through `lm serve` against in-process: the same query for "
                     f"{run['same_query']} of {run['questions']} questions ({run['share']:.3f}); exact "
                     f"{run['exact']['server']} against {run['exact']['in_process']}; seconds p50 / p90 / max "
                     f"{' / '.join(str(x) for x in run['seconds_p50_p90_max']['server'])} against "
                     f"{' / '.join(str(x) for x in run['seconds_p50_p90_max']['in_process'])}.")
    for run in (r.data for r in runs if "all_same" in r.data):
        agree = ", ".join(f"{p['same_prefix']}/{p['tokens']}" for p in run["prompts"])
        lines.append(f"\n{run['version']}'s adapter exported in peft's form, on the base model in transformers (CPU), "
                     f"against the GGUF adapter in llama.cpp, greedy: first tokens the same per prompt {agree}.")
    return "\n".join(lines)


def scope_table(runs: list[Saved], bench: Path) -> str:
    header = ["run", "version (LM)", "off-topic test answered as off-topic", "in-scope dev + test refused",
              "generalization refused", "off-topic answer s: median / p90 / max",
              "decided by words / similarity / LM: off-topic; in scope", "warm-up s"]
    rows = []
    for saved in sorted(runs, key=lambda s: s.data["label"]):
        run, s = saved.data, saved.data["summary"]
        stages = "; ".join(" / ".join(str(counts[k]) for k in ("words", "similarity", "lm"))
                           for counts in (s["stages_off_topic"], s["stages_in_scope"]))
        rows.append([f"[{run['label']}]({link(saved.path, bench)})", f"{run['setting']['version']} "
                     f"(`{run['setting']['lm']}`)",
                     f"{s['answered_off_topic']}/{s['off_topic_questions']} = {s['off_topic_share']:.3f}",
                     f"{s['refused']}/{s['in_scope_questions']} = {s['refused_share']:.3f}",
                     f"{s['generalization_refused']}/{s['generalization_questions']}",
                     f"{s['p50_s']:.4f} / {s['p90_s']:.4f} / {s['max_s']:.2f}", stages, f"{run['warm_up_seconds']:.1f}"])
    return table(header, rows)


def dataset_counts() -> str:
    """How many pairs the dataset has, per split, and how many of them are ASK twins."""
    from nl2sparql.data.dataset import SPLITS, load_dataset

    records = load_dataset()
    per_split = ", ".join(f"{sum(r.split == s for r in records)} {s}" for s in SPLITS)
    twins = sum(bool(r.twin) for r in records)
    return f"{len(records)} question/SPARQL pairs ({per_split}), {twins} of them the contrastive twins of ASK pairs"


def fill(name: str, argument: str | None, bench: Path) -> str:
    if name == "reports" and argument:
        return reports_table(load_reports(bench), argument, bench)
    if name == "pairs" and argument:
        return pairs_table(load_reports(bench), argument, bench)
    if name == "finetuned":
        return finetuned_table(load_manifests(bench), bench)
    if name == "latency":
        return latency_table(load_json(bench.glob("latency-runs/*.json")), bench)
    if name == "load":
        return load_table(load_json(bench.glob("load-runs/*.json")), bench)
    if name == "doubt":
        return doubt_table(load_json(bench.glob("doubt-runs/*.json")), bench)
    if name == "scope":
        return scope_table(load_json(bench.glob("scope-runs/*.json")), bench)
    if name == "headline":
        return headline_table(load_reports(bench), load_manifests(bench))
    if name == "readme":
        return readme_table(load_reports(bench), load_manifests(bench))
    if name == "followup":
        return followup_table(load_reports(bench))
    if name == "bounded" and argument:
        return bounded_table(load_reports(bench), argument)
    if name == "patterns" and argument:
        return patterns_table(load_reports(bench), argument)
    if name == "dataset":
        return dataset_counts()
    raise ValueError(f"unknown placeholder {{{{{name}{':' + argument if argument else ''}}}}} in RESULTS.in.md; "
                     "known: reports:SPLIT, pairs:SPLIT, finetuned, latency, scope, doubt, load, headline, readme, dataset")


def render_results(bench: Path = BENCH) -> str:
    """RESULTS.md: the template with every placeholder filled."""
    template = (bench / "RESULTS.in.md").read_text(encoding="utf-8")
    note = "<!-- Written by bench/results.py from bench/RESULTS.in.md and the committed runs: edit those. -->\n"
    return note + PLACEHOLDER.sub(lambda m: fill(m.group(1), m.group(2), bench), template)


def render_readme(readme: str, bench: Path = BENCH) -> str:
    """The README with the table between the headline markers written afresh."""
    start, end = readme.find(HEADLINE[0]), readme.find(HEADLINE[1])
    if start < 0 or end < start:
        raise ValueError(f"README.md lacks the markers {HEADLINE[0]} … {HEADLINE[1]}")
    block = HEADLINE[0] + "\n" + fill("readme", None, bench) + "\n\n"
    return readme[:start] + block + readme[end:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is out of date")
    parser.add_argument("--bench", type=Path, default=BENCH, help="the folder with RESULTS.in.md and the runs")
    parser.add_argument("--readme", type=Path, default=README)
    args = parser.parse_args()
    try:
        wanted = {args.bench / "RESULTS.md": render_results(args.bench),
                  args.readme: render_readme(args.readme.read_text(encoding="utf-8"), args.bench)}
    except (ValueError, KeyError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    for path in stale:
        if args.check:
            print(f"{path} is out of date: run python bench/results.py", file=sys.stderr)
        else:
            write_text_atomic(path, wanted[path])
            print(f"wrote {path}")
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
