"""eval run (DummyLM on the real store) and eval compare on hand-made reports."""

from __future__ import annotations

import json

import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.eval.comparison import compare_reports, write_outputs
from nl2sparql.eval.report import Report, save_report
from nl2sparql.eval.runner import run_eval
from nl2sparql.eval.scoring.scored import ScoredQuestion
from nl2sparql.paths import ARTIFACTS_ENV, HOME_ENV


def question(i, exact, f1=None, patterns=("emotion",), language="it"):
    return ScoredQuestion(id=f"q{i}", language=language, question=f"domanda {i}", patterns=patterns,
                          sparql=f"SELECT {i}", gold_sparql="", valid=True, error="", rows=1, precision=1.0,
                          recall=1.0, f1=(1.0 if exact else 0.0) if f1 is None else f1, exact=exact, attempts=1,
                          calls=1, prompt_tokens=100, completion_tokens=20, seconds=1.0)


def report(version, exacts, split="test", fingerprint="fp"):
    return Report(version, split, "dummy", fingerprint, "h", "2026-11-23",
                  [question(i, e, patterns=("emotion",) if i % 2 else ("translation",)) for i, e in enumerate(exacts)])


def test_compare_computes_deltas_and_the_exact_mcnemar_p_value(tmp_path):
    # baseline right on 0-2; other right on 1-9: other wins 7 (3..9), loses 1 (0): p = 2 * 9/256.
    a = report("zero-shot", [True, True, True] + [False] * 7)
    b = report("v1", [False, True, True] + [True] * 7)
    comparison = compare_reports([a, b])
    assert comparison.overall["zero-shot"]["execution_accuracy"] == pytest.approx(0.3)
    assert comparison.overall["v1"]["execution_accuracy"] == pytest.approx(0.9)
    test = comparison.tests[0]
    assert (len(test.won), len(test.lost)) == (7, 1)
    assert test.mcnemar_p == pytest.approx(18 / 256)
    assert test.f1_delta == pytest.approx(0.6) and test.f1_ci[0] <= 0.6 <= test.f1_ci[1]
    assert comparison.per_pattern["translation"] == {"zero-shot": pytest.approx(0.4), "v1": pytest.approx(0.8)}
    markdown, chart = write_outputs(comparison, tmp_path)
    assert "+0.600" in markdown.read_text() and chart.stat().st_size > 1000
    assert "| wrong_answer | 7 | 1 |" in markdown.read_text()
    assert comparison.to_json()["outcomes"]["v1"]["exact"] == 9
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([markdown.name, chart.name])


def test_compare_refuses_different_splits_or_kbs_unless_allowed():
    a, b = report("v1", [True]), report("v2", [True], split="dev")
    with pytest.raises(Nl2SparqlError, match="different splits"):
        compare_reports([a, b])
    with pytest.raises(Nl2SparqlError, match="different kb fingerprints"):
        compare_reports([a, report("v2", [True], fingerprint="other")])
    assert compare_reports([a, b], allow_mismatch=True).tests[0].mcnemar_p == 1.0


def test_compare_refuses_reports_of_other_code_unless_allowed_then_marks_them(tmp_path):
    from click.testing import CliRunner

    from nl2sparql.cli import main

    files = []
    for version, code in (("static-rag", "10506f0bee70"), ("v4", "6f1fe0580bc2")):
        saved = report(version, [False, True])
        saved.code_fingerprint = code
        files.append(str(tmp_path / f"{version}.json"))
        save_report(saved, tmp_path / f"{version}.json")
    refused = CliRunner().invoke(main, ["eval", "compare", *files])
    assert refused.exit_code == 2
    assert refused.output.strip() == ("error: static-rag (code 10506f0bee70) and v4 (code 6f1fe0580bc2) were made by "
                                      "different program code: run them again on this code, or pass "
                                      "--allow-mismatch to compare them marked †")
    allowed = CliRunner().invoke(main, ["eval", "compare", *files, "--allow-mismatch", "--json",
                                        "--out", str(tmp_path / "out")])
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.output)["other_code"] == ["v4"]
    markdown = next((tmp_path / "out").glob("*.md")).read_text()
    assert "| metric | static-rag | v4 † | Δ v4 † |" in markdown
    assert ("† made by other program code than static-rag (code static-rag `10506f0bee70`, v4 `6f1fe0580bc2`)"
            in markdown)
    same = report("v5", [True, True])
    same.code_fingerprint = "10506f0bee70"
    assert compare_reports([report("static-rag", [True, False]), report("v1", [True, True])]).other_code == []
    with pytest.raises(Nl2SparqlError, match="different program code"):
        compare_reports([report("static-rag", [True, False]), same])


def test_a_report_gives_the_slow_tail_of_seconds_per_question(tmp_path):
    import dataclasses

    slow = report("v4", [True] * 100)
    slow.questions = [dataclasses.replace(q, seconds=float(i + 1)) for i, q in enumerate(slow.questions)]
    slow.questions[-1] = dataclasses.replace(slow.questions[-1], seconds=372.0)
    save_report(slow, tmp_path / "r.json")
    summary = json.loads((tmp_path / "r.json").read_text())["summary"]
    assert [summary[k] for k in ("p50_seconds", "p90_seconds", "p99_seconds", "max_seconds")] == [50.5, 90, 99, 372]
    assert "| p90_seconds | 90.000 |" in (tmp_path / "r.md").read_text()
    assert "| max_seconds | 372.000 |" in (tmp_path / "r.md").read_text()


def test_report_files_are_written_atomically(tmp_path):
    path = tmp_path / "reports" / "test.json"
    save_report(report("v1", [True, False]), path)
    saved = json.loads(path.read_text())
    assert saved["summary"]["execution_accuracy"] == 0.5
    assert (saved["outcomes"]["exact"], saved["outcomes"]["wrong_answer"]) == (1, 1)
    assert "| wrong_answer | 1 |" in path.with_suffix(".md").read_text()
    assert "| execution_accuracy | 0.500 |" in path.with_suffix(".md").read_text()
    assert sorted(p.name for p in path.parent.iterdir()) == ["test.json", "test.md"]


def test_eval_run_scores_caches_and_reruns_with_force(kb_store, tmp_path, monkeypatch):
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.modules.program import ProgramSettings

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    records = [r for r in load_dataset() if r.split == "dev"][:3]
    # Right on the first question (its gold), wrong (an empty answer) on the others.
    answers = {records[0].question_it: {"sparql": records[0].sparql}}
    wrong = "SELECT ?x WHERE { GRAPH <http://liita.it/data> { ?x <http://example.org/none> ?y } }"
    answers.update({r.question_en: {"sparql": wrong} for r in records[1:]})
    answers.update({r.question_it: {"sparql": wrong} for r in records[1:]})
    lm = DummyLM(answers)
    root = tmp_path / "artifacts"
    options = dict(lm_object=lm, store=kb_store, root=root, limit=3, track=False,
                   settings=ProgramSettings(examples_k=0, ontology_k=0))
    first, path, reused = run_eval("zero-shot", "dev", **options)
    assert not reused and path.exists() and path.with_suffix(".md").exists()
    assert [q.exact for q in first.questions] == [True, False, False]
    assert first.summary()["execution_accuracy"] == pytest.approx(1 / 3)
    assert set(first.per_language()) == {"it", "en"}
    calls = len(lm.history)
    again, _, reused = run_eval("zero-shot", "dev", **options)
    assert reused and len(lm.history) == calls and again.questions == first.questions
    _, _, reused = run_eval("zero-shot", "dev", force=True, **options)
    assert not reused and len(lm.history) > calls


def gold_answering_run(kb_store, tmp_path, monkeypatch):
    """The first 3 dev records, a DummyLM answering each with its gold query, and run_eval's options."""
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.modules.program import ProgramSettings

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    records = [r for r in load_dataset() if r.split == "dev"][:3]
    lm = DummyLM({q: {"sparql": r.sparql} for r in records for q in (r.question_it, r.question_en)})
    options = dict(lm_object=lm, store=kb_store, root=tmp_path / "artifacts", limit=3, track=False,
                   settings=ProgramSettings(examples_k=0, ontology_k=0))
    return records, lm, options


def test_a_stopped_eval_run_resumes_from_its_journal(kb_store, tmp_path, monkeypatch):
    from nl2sparql.eval.journal import journal_path

    records, lm, options = gold_answering_run(kb_store, tmp_path, monkeypatch)

    def stop_after_two(report):
        if len(report.questions) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_eval("zero-shot", "dev", on_result=stop_after_two, **options)
    questions = [r.question_it for r in records] + [r.question_en for r in records]
    asked = [m["content"] for h in lm.history for m in h["messages"] if m["role"] == "user"]
    assert sum(any(q in text for text in asked) for q in questions) == 2
    reports = tmp_path / "artifacts" / "baselines" / "zero-shot" / "reports"
    journal = next(reports.glob("*.partial.jsonl"))
    assert not list(reports.glob("*.json")) and len(journal.read_text().splitlines()) == 3
    with open(journal, "a") as out:  # a kill in the middle of a write leaves half a line
        out.write('{"id": "cut')
    calls = len(lm.history)
    report, path, reused = run_eval("zero-shot", "dev", **options)
    assert not reused and journal_path(path) == journal and not journal.exists()
    assert len(lm.history) == calls + 1 and [q.id for q in report.questions] == [r.id for r in records]
    assert all(q.exact for q in report.questions)


def test_versions_take_turns_so_a_stopped_compare_leaves_them_level(kb_store, tmp_path, monkeypatch):
    from nl2sparql.eval.runner import run_evals

    records, lm, options = gold_answering_run(kb_store, tmp_path, monkeypatch)
    order = []

    def stop_after_three(report):
        order.append((report.version, report.questions[-1].id))
        if len(order) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_evals(["zero-shot", "static-rag"], "dev", on_result=stop_after_three, **options)
    ids = [r.id for r in records]
    assert order == [("zero-shot", ids[0]), ("static-rag", ids[0]), ("zero-shot", ids[1])]
    calls = len(lm.history)
    so_far = run_evals(["zero-shot", "static-rag"], "dev", so_far=True, **options)
    assert [[q.id for q in report.questions] for report, _, _ in so_far] == [ids[:1], ids[:1]]
    assert so_far[0][0].split == "dev[:3] (so far: 1)" and len(lm.history) == calls
    assert len(list((tmp_path / "artifacts").rglob("*.partial.jsonl"))) == 2  # peeking keeps the journals
    results = run_evals(["zero-shot", "static-rag"], "dev", **options)
    assert [[q.id for q in report.questions] for report, _, _ in results] == [ids, ids]
    assert len(lm.history) == 6 and not list((tmp_path / "artifacts").rglob("*.partial.jsonl"))


def test_saved_reports_are_found_for_the_compare_tab(tmp_path):
    from nl2sparql.eval.report import saved_reports

    save_report(report("v1", [True, False]), tmp_path / "v1" / "reports" / "test-dummy-1.json")
    save_report(report("zero-shot", [False, False]), tmp_path / "baselines" / "zero-shot" / "reports" / "t.json")
    (tmp_path / "v1" / "reports" / "broken.json").write_text("{}")
    found = {r.version: p for p, r in saved_reports(tmp_path)}
    assert set(found) == {"v1", "zero-shot"} and found["v1"].name == "test-dummy-1.json"


def same_run_report(version, split, limit, lm, endpoint, exacts, **changes):
    """A report with the identity a run of `version` on this code, KB and records would have (so it is reused)."""
    import dataclasses

    from nl2sparql.data.dataset import dataset_hash
    from nl2sparql.eval.journal import code_fingerprint
    from nl2sparql.eval.report import PSEUDO_VERSIONS
    from nl2sparql.eval.runner import split_records

    records = split_records(split)[:limit]
    saved = Report(version, f"{split}[:{limit}]", lm, endpoint.fingerprint(), dataset_hash(records), "2026-11-23",
                   [question(i, e) for i, e in enumerate(exacts)], code_fingerprint(), "",
                   dataclasses.asdict(PSEUDO_VERSIONS[version]))
    return dataclasses.replace(saved, **changes)


def test_a_saved_report_is_reused_only_for_the_same_code_lm_adapter_and_settings(endpoint):
    import dataclasses

    from nl2sparql.eval.report import report_path

    saved = same_run_report("static-rag", "dev", 3, "local/qwen-1.5b", endpoint, [True])
    others = [dataclasses.replace(saved, code_fingerprint="0123456789ab"), dataclasses.replace(saved, lm="other"),
              dataclasses.replace(saved, adapter="9b584875"), dataclasses.replace(saved, dataset_hash="other"),
              dataclasses.replace(saved, settings={**saved.settings, "candidates": 3})]
    paths = {report_path(r) for r in [saved, *others]}
    assert len(paths) == 6
    assert report_path(dataclasses.replace(saved, questions=[], created_at="later")) == report_path(saved)


def test_eval_compare_json_and_artifacts_list_from_the_command_line(endpoint, kb_store, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from nl2sparql.cli import main
    from nl2sparql.eval.report import report_path

    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path))
    lm = "local/qwen-1.5b"  # the default LM: saved reports are reused, so it is never loaded
    for version, exacts in (("zero-shot", [False, False, True]), ("static-rag", [True, True, True])):
        saved = same_run_report(version, "dev", 3, lm, endpoint, exacts)
        save_report(saved, report_path(saved, tmp_path))
    result = CliRunner().invoke(main, ["eval", "compare", "zero-shot", "static-rag", "--split", "dev", "--limit", "3",
                                       "--store", str(kb_store), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["overall"]["static-rag"]["execution_accuracy"] == 1.0
    assert data["tests"][0]["won"] == ["q0", "q1"] and data["tests"][0]["mcnemar_p"] == pytest.approx(0.5)
    listed = json.loads(CliRunner().invoke(main, ["artifacts", "list", "--json"]).output)
    assert [row["version"] for row in listed] == ["shipped"] and listed[0]["optimizer"] == "ranker"


def test_changed_program_code_changes_the_code_fingerprint(tmp_path):
    from nl2sparql.eval.journal import code_fingerprint

    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "program.py").write_text("A = 1\n")
    (tmp_path / "cli.py").write_text("B = 1\n")
    before = code_fingerprint(tmp_path)
    (tmp_path / "cli.py").write_text("B = 2\n")  # not program behaviour
    assert code_fingerprint(tmp_path) == before
    (tmp_path / "modules" / "program.py").write_text("A = 2\n")
    assert code_fingerprint(tmp_path) != before


def test_a_journal_written_under_another_header_is_not_resumed(tmp_path):
    from nl2sparql.eval.journal import Journal

    path = tmp_path / "r.partial.jsonl"
    first = Journal(path, {"version": "v1", "code": "aaa"})
    assert first.resume() == []
    scored = question(1, True)
    first.append(scored)
    assert Journal(path, {"version": "v1", "code": "aaa"}).resume() == [scored]
    assert Journal(path, {"version": "v1", "code": "bbb"}).resume() == []
    assert path.read_text().splitlines() == ['{"header": {"version": "v1", "code": "bbb"}}']
