"""`eval run`: a program over a split, scored per question, aggregated, saved as JSON + Markdown.

Reports are cached by what decides their answers (version, split and its records, LM, adapter, program
settings, KB fingerprint, program code: `report.reuse_key`): `compare` reuses them; `force` re-runs. While a
run is going, each scored question is journaled beside the report, so a stopped run resumes where it was.
Pseudo-versions: `zero-shot` (no examples, no constraints, no ontology notes) and `static-rag`
(retrieved examples, constraints and ontology notes, no compile; the same as `uncompiled`).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from nl2sparql.data.chains import is_followup_split
from nl2sparql.data.dataset import Record, dataset_hash, load_dataset
from nl2sparql.errors import DatasetError
from nl2sparql.eval.journal import Journal, code_fingerprint, journal_path
from nl2sparql.eval.report import PSEUDO_VERSIONS, Report, report_path, save_report
from nl2sparql.eval.scoring.scored import ScoredQuestion
from nl2sparql.modules.program import ProgramSettings


def split_records(split: str, dataset_dir: Path | None = None) -> list[Record]:
    if is_followup_split(split):
        from nl2sparql.eval.followup import followup_records

        return followup_records(split)
    if split.endswith(".jsonl"):
        from nl2sparql.data.dataset import read_jsonl

        records = read_jsonl(Path(split))
    else:
        records = [r for r in load_dataset(dataset_dir) if r.split == split]
    if not records:
        raise DatasetError(f"no records in split '{split}'")
    return records


def run_eval(version: str, split: str = "test", **options) -> tuple[Report, Path, bool]:
    """Run (or reuse) the report of `version` on `split`; returns (report, path, reused)."""
    return run_evals([version], split, **options)[0]


def run_evals(versions: list[str], split: str = "test", *, lm_object=None, lm: str | None = None,
              endpoint_url: str | None = None, store: Path | None = None, force: bool = False, limit: int | None = None,
              root: Path | None = None, on_result: Callable | None = None, settings: ProgramSettings | None = None,
              tracking_uri: str | None = None, track: bool = True, so_far: bool = False,
              deadline: float | None = None, lm_server: str | None = None) -> list[tuple[Report, Path, bool]]:
    """Run (or reuse) the reports of several versions on `split`, question by question across versions, so
    that a run stopped part way leaves every version scored on the same first questions. With `so_far`
    nothing is run: the reports hold what finished reports and journals have, on the questions all share.
    `deadline` replaces the programs' seconds per question (0: none; None: their own); `lm_server` answers through
    a shared LM server (`nl2sparql lm serve`), its report kept apart from the in-process one."""
    from nl2sparql.modules.lm import resolve_lm

    records = split_records(split)[:limit]
    lm_object = lm_object or resolve_lm(lm, cache=False)
    split_key = split if limit is None else f"{split}[:{limit}]"
    history = _history_mode(split)
    runs: list[_Run] = []
    try:
        for version in versions:
            runs.append(_Run.open(version, split_key, records, lm_object, endpoint_url, store, force and not so_far,
                                  root, settings or PSEUDO_VERSIONS.get(version), peek=so_far, history=history,
                                  deadline=deadline, lm_server=lm_server))
        for example in _examples(split, records)[:limit]:
            for run in runs:
                if run.reused or (so_far and example.record_id not in run.done):
                    continue
                run.score(example)
                if on_result:
                    on_result(run.report)
        if so_far:
            return _shared_questions(runs, split_key)
        for run in runs:
            if not run.reused:
                run.finish(tracking_uri, track)
        return [(run.report, run.path, run.reused) for run in runs]
    finally:
        for run in runs:
            run.program.close()


def _history_mode(split: str) -> str | None:
    """None for a plain split; for a follow-up split, which history its turns see (eval/followup.py)."""
    if not is_followup_split(split):
        return None
    from nl2sparql.eval.followup import parse_split

    return parse_split(split)[1]


def _examples(split: str, records: list[Record]) -> list:
    from nl2sparql.eval.scoring.dspy_metric import examples

    if is_followup_split(split):
        from nl2sparql.eval.followup import followup_examples

        return followup_examples(split)
    return examples(records)


def _shared_questions(runs: list[_Run], split_key: str) -> list[tuple[Report, Path, bool]]:
    """Each report cut to the questions every version has answered so far (a paired comparison)."""
    shared = set.intersection(*({q.id for q in run.report.questions} for run in runs))
    label = f"{split_key} (so far: {len(shared)})"
    out = []
    for run in runs:
        report = dataclasses.replace(run.report, split=label,
                                     questions=[q for q in run.report.questions if q.id in shared])
        out.append((report, run.path if run.reused else journal_path(run.path), run.reused))
    return out


@dataclass
class _Run:
    """One version's run over a split: its program, the metric, the report being filled and its journal."""

    program: Any
    report: Report
    path: Path
    reused: bool
    metric: Any = None
    journal: Journal | None = None
    done: dict[str, ScoredQuestion] = field(default_factory=dict)

    @classmethod
    def open(cls, version: str, split_key: str, records: list[Record], lm_object, endpoint_url: str | None, store,
             force: bool,
             root: Path | None, settings: ProgramSettings | None, peek: bool = False,
             history: str | None = None, deadline: float | None = None, lm_server: str | None = None) -> _Run:
        from nl2sparql.artifacts.load import load
        from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric
        from nl2sparql.eval.scoring.gold import GoldCache

        program_version = "uncompiled" if version in PSEUDO_VERSIONS else version
        # A deadline is set before the report's key is made: the settings are part of it.
        program = load(program_version, endpoint_url=endpoint_url, store=store, lm_object=lm_object, settings=settings,
                       overrides={"deadline_s": deadline or None} if deadline is not None else None,
                       lm_server=lm_server)
        inner = program
        if history is not None:
            from nl2sparql.eval.followup import ChainProgram

            program = ChainProgram(program, history)
        lm_id = inner.generate.predict.lm.model  # a fine-tuned version runs on its own base + adapter
        report = Report(version, split_key, lm_id, inner.runtime.endpoint.fingerprint(), dataset_hash(records),
                        datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                        code_fingerprint=code_fingerprint(),
                        adapter=_adapters(inner.manifest),
                        settings=dataclasses.asdict(inner.settings))
        path = report_path(report, root)
        if path.exists() and not force:
            return cls(program, Report.from_json(json.loads(path.read_text(encoding="utf-8"))), path, True)
        journal = Journal(journal_path(path), {"version": version, "split": split_key, "lm": lm_id,
                                               "kb_fingerprint": report.kb_fingerprint,
                                               "dataset_hash": report.dataset_hash, "code": report.code_fingerprint,
                                               "adapter": report.adapter, "settings": report.settings})
        if force:
            journal.discard()
        done = {q.id: q for q in (journal.read() if peek else journal.resume())}
        metric = ExecutionMetric({r.id: r for r in records}, GoldCache(program.runtime.endpoint))
        return cls(program, report, path, False, metric, journal, done)

    def score(self, example) -> None:
        from nl2sparql.eval.scoring.program import score_question

        scored = self.done.get(example.record_id)
        if scored is None:
            scored = score_question(self.program, self.metric, example)
            self.journal.append(scored)
        self.report.questions.append(scored)

    def finish(self, tracking_uri: str | None, track: bool) -> None:
        save_report(self.report, self.path)
        self.journal.discard()
        if track:
            _track(self.report, self.path, tracking_uri)


def _track(report: Report, path: Path, tracking_uri: str | None) -> None:
    from nl2sparql.artifacts import tracking

    params = {"version": report.version, "split": report.split, "lm": report.lm, "kb_fingerprint": report.kb_fingerprint,
              "code_fingerprint": report.code_fingerprint, "adapter": report.adapter}
    with tracking.run("eval", tracking_uri, params) as (mlflow, _):
        for key, value in report.summary().items():
            mlflow.log_metric(key, float(value))
        for pattern, values in report.per_pattern().items():
            mlflow.log_metric(f"accuracy_{pattern}", float(values["execution_accuracy"]))
        mlflow.log_artifact(str(path))
        mlflow.log_artifact(str(path.with_suffix(".md")))


def _adapters(manifest: dict) -> str:
    """The adapter's checksum, and a paired version's follow-up adapter's after it (both decide answers)."""
    own = str((manifest.get("adapter") or {}).get("sha256", ""))
    followup = str((manifest.get("followup_adapter") or {}).get("sha256", ""))
    return f"{own}+followup:{followup}" if followup else own
