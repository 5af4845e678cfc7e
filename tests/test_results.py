"""bench/RESULTS.md and the README's figures come from the committed runs, and the READMEs' links resolve."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


def _load_results():
    spec = importlib.util.spec_from_file_location("bench_results", BENCH / "results.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


results = _load_results()

TINY = {
    "version": "v9", "split": "test", "lm": "local/qwen-0.5b+lora-abcd1234",
    "summary": {"questions": 4, "execution_accuracy": 0.5, "mean_f1": 0.625, "valid_sparql_rate": 0.75,
                "lm_calls_per_question": 1.25, "tokens_per_question": 1234.4, "p50_seconds": 3.96,
                "p90_seconds": 12.04, "max_seconds": 371.6},
    "per_language": {"it": {"execution_accuracy": 1.0}, "en": {"execution_accuracy": 0.0}},
    "outcomes": {"exact": 2, "empty": 1, "invalid": 1},
}


def test_committed_results_match_the_runs():
    assert (BENCH / "RESULTS.md").read_text(encoding="utf-8") == results.render_results(BENCH), \
        "bench/RESULTS.md is out of date: run python bench/results.py"


def test_readme_headline_matches_the_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme == results.render_readme(readme, BENCH), "README.md is out of date: run python bench/results.py"


def test_a_report_renders_to_a_row_with_its_figures():
    row = results.report_row(TINY, ["exact", "partial", "empty", "invalid"])
    assert row == ["v9", "`local/qwen-0.5b+lora-abcd1234`", "–", "4", "0.500", "0.625", "0.750", "1.25", "1,234",
                   "4.0 / 12.0 / 372", "1.000 / 0.000", "2", "–", "1", "1"]


def test_paired_row_counts_wins_and_losses_on_shared_questions():
    def report(version, exact):
        return {"version": version, "lm": "m", "questions": [
            {"id": str(i), "exact": e, "f1": float(e)} for i, e in enumerate(exact)]}

    row = results.pair_row(report("static-rag", [True, False, False, True]), report("v9", [True, True, True, False]))
    assert row[:6] == ["v9", "`m`", "static-rag", "4", "2", "1"]
    assert row[7] == "+0.250"


def test_paired_row_counts_an_ask_twin_right_only_with_its_twin_and_marks_other_code():
    baseline = {"version": "static-rag", "lm": "m", "code_fingerprint": "aaa", "questions": [
        {"id": "a", "exact": True, "f1": 1.0, "twin": "a-twin"}, {"id": "a-twin", "exact": False, "f1": 0.0,
                                                                    "twin": "a"}]}
    other = {"version": "v9", "lm": "m", "code_fingerprint": "bbb", "questions": [
        {"id": "a", "exact": True, "f1": 1.0, "twin": "a-twin"}, {"id": "a-twin", "exact": True, "f1": 1.0,
                                                                    "twin": "a"}]}
    assert results.pair_row(baseline, other)[:6] == ["v9 †", "`m`", "static-rag", "2", "2", "0"]


def test_a_report_is_paired_with_the_baseline_of_its_own_code_else_the_newest():
    old = {"version": "static-rag", "code_fingerprint": "aaa", "created_at": "2026-10-01"}
    new = {"version": "static-rag", "code_fingerprint": "bbb", "created_at": "2026-11-20"}
    assert results.pair_baseline({"version": "v4", "code_fingerprint": "aaa"}, [old, new]) is old
    assert results.pair_baseline({"version": "v4", "code_fingerprint": "bbb"}, [old, new]) is new
    assert results.pair_baseline({"version": "v9", "code_fingerprint": "ccc"}, [old, new]) is new


def test_an_unknown_placeholder_is_named(tmp_path):
    (tmp_path / "RESULTS.in.md").write_text("{{reportz:test}}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="reportz:test"):
        results.render_results(tmp_path)


def _markdown_files() -> list[Path]:
    """The README and each package's, and the results pages (not the eval reports, nor a venv's files)."""
    packages = [p for p in sorted(ROOT.glob("*/README.md")) if not p.parent.name.startswith(".")]
    return [ROOT / "README.md", *packages, *sorted(BENCH.glob("RESULTS*.md"))]


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", _markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_point_to_files(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = [target for target in LINK.findall(text)
              if not re.match(r"[a-z][a-z0-9+.-]*:|#", target)
              and not (page.parent / unquote(target.split("#", 1)[0])).exists()]
    assert not broken, f"{page.relative_to(ROOT)} links to missing files: {broken}"


def test_the_dataset_counts_are_written_from_the_dataset():
    from nl2sparql.data.dataset import load_dataset

    records = load_dataset()
    line = results.fill("dataset", None, BENCH)
    assert line.startswith(f"{len(records)} question/SPARQL pairs ({sum(r.split == 'train' for r in records)} train")
    assert f"{sum(bool(r.twin) for r in records)} of them the contrastive twins" in line


def _saved(version: str, split: str, created: str, questions: list[dict]):
    data = {"version": version, "split": split, "created_at": created, "code_fingerprint": "c0ffee00",
            "questions": questions}
    return results.Saved(Path(f"{version}-{split}-{created}.json"), data)


def test_patterns_and_bounded_tables_use_each_versions_newest_report():
    def question(i, exact, seconds, patterns=("pos_filter",)):
        return {"id": str(i), "exact": exact, "seconds": seconds, "patterns": list(patterns), "calls": 1}

    old = _saved("v9", "generalization", "2026-01-01", [question(1, False, 300.0)])
    new = _saved("v9", "generalization", "2026-02-01", [question(1, True, 2.0), question(2, False, 4.0, ("meta",))])
    other = _saved("v10", "generalization", "2026-02-01", [question(1, False, 1.0), question(2, True, 3.0, ("meta",))])
    table = results.patterns_table([old, new, other], "generalization,v9,v10")
    assert "| pos_filter | 1/1 | 0/1 |" in table and "| meta | 0/1 | 1/1 |" in table
    bounded = results.bounded_table([old, new, other], "v9")
    assert "| v9 | generalization | 2 |" in bounded and "300" not in bounded
    with pytest.raises(ValueError, match="no test report of v9"):
        results.patterns_table([new], "test,v9")


def test_a_fine_tune_recipe_names_its_prompt_and_example_sources():
    training = {"examples": 1407, "records": 667, "compact_prompt": True,
                "examples_by_source": {"it": 386, "en": 378, "synth": 580, "followup": 63}}
    assert results.recipe(training) == "compact prompt; 1,407 = 386 it + 378 en + 580 synth + 63 followup (667 records)"
    older = {"examples": 631, "records": 267}
    assert results.recipe(older) == "full prompt; 631 = 631 curated (267 records)"


def test_the_followup_table_pairs_a_baseline_only_with_gold_history_on_the_same_chains_and_code():
    def turn(i, exact, seconds, first=False):
        kind = ["turn:first"] if first else ["turn:follow-up", "kind:count"]
        return {"id": f"fu-1#{i}", "exact": exact, "seconds": seconds, "patterns": kind}

    def run(split, created, chains, code, questions):
        saved = _saved("v11", split, created, questions)
        saved.data.update(dataset_hash=chains, code_fingerprint=code)
        return saved

    small_gold = run("followup-test", "2026-01-01", "small", "aaaa1111", [turn(0, True, 4.0, True), turn(1, True, 8.0)])
    gold = run("followup-test", "2026-02-01", "big", "bbbb2222",
               [turn(0, True, 4.0, True), turn(1, True, 6.0), turn(2, True, 6.0)])
    stale = run("followup-test:alone", "2026-01-15", "big", "bbbb2222", [turn(1, True, 3.0), turn(2, True, 3.0)])
    alone = run("followup-test:alone", "2026-02-02", "big", "bbbb2222",
                [turn(0, True, 4.0, True), turn(1, False, 3.0), turn(2, False, 3.0)])
    other_code = run("followup-test:concat", "2026-02-03", "big", "cccc3333", [turn(1, False, 5.0)])
    table = results.followup_table([small_gold, gold, stale, alone, other_code])
    rows = [line for line in table.splitlines() if line.startswith("| v11 ")]
    assert len(rows) == 4  # the older alone run on the same chains gives way to the newer
    assert "| 1/1 = 1.000 | 4.0 | 8.0 | 2.00 | `aaaa1111` | – |" in rows[0]  # the earlier, smaller set of chains
    assert "| 2/2 = 1.000 | 4.0 | 6.0 | 1.50 | `bbbb2222` | – |" in rows[1]
    assert rows[2].endswith("| 2 / 0, p 0.500 |")  # paired with the gold run on its own chains and code
    assert rows[3].endswith("| – |")  # no gold-history run of that code
