"""An evaluation report: the scored questions of one version on one split, its figures, and its files.

Reports are cached under the version's `reports/` folder (the pseudo-versions and `shipped` under
`baselines/`), as JSON with a Markdown twin, by what decides their answers: version, split and its records, LM,
adapter, program settings, KB fingerprint and program code (`reuse_key`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.artifacts.store import SHIPPED, artifact_root, effective_name
from nl2sparql.data.dataset import PATTERNS
from nl2sparql.eval.scoring.outcomes import Outcome
from nl2sparql.eval.scoring.scored import ScoredQuestion, count_outcomes, summarise
from nl2sparql.files import write_text_atomic
from nl2sparql.modules.program import ProgramSettings

# Versions that are program settings rather than compiled folders.
PSEUDO_VERSIONS: dict[str, ProgramSettings] = {
    "zero-shot": ProgramSettings(use_examples=False, use_constraints=False, ontology_k=0),
    "static-rag": ProgramSettings(),
    "uncompiled": ProgramSettings(),
}


@dataclass
class Report:
    version: str
    split: str
    lm: str
    kb_fingerprint: str
    dataset_hash: str
    created_at: str
    questions: list[ScoredQuestion] = field(default_factory=list)
    code_fingerprint: str = ""  # the program code that answered (eval.journal.code_fingerprint)
    adapter: str = ""  # the sha256 of the version's LoRA adapter, when it has one
    settings: dict[str, Any] = field(default_factory=dict)  # the ProgramSettings it ran with

    def summary(self) -> dict[str, float]:
        return summarise(self.questions)

    def per_pattern(self) -> dict[str, dict[str, float]]:
        groups: dict[str, list[ScoredQuestion]] = defaultdict(list)
        for q in self.questions:
            for p in q.patterns:
                groups[p].append(q)
        # The dataset's patterns in their order, then any other labels (a follow-up split's turn:… and kind:…).
        order = [p for p in PATTERNS if p in groups] + sorted(p for p in groups if p not in PATTERNS)
        return {p: summarise(groups[p], self.questions) for p in order}

    def per_language(self) -> dict[str, dict[str, float]]:
        return {lang: summarise([q for q in self.questions if q.language == lang], self.questions)
                for lang in ("it", "en")}

    def outcomes(self) -> dict[str, int]:
        """Questions per outcome (right, partly right, or why wrong): see `eval.scoring.outcomes`."""
        return count_outcomes(self.questions)

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "split": self.split, "lm": self.lm, "kb_fingerprint": self.kb_fingerprint,
                "dataset_hash": self.dataset_hash, "created_at": self.created_at,
                "code_fingerprint": self.code_fingerprint, "adapter": self.adapter, "settings": self.settings,
                "summary": self.summary(),
                "per_pattern": self.per_pattern(), "per_language": self.per_language(),
                "outcomes": self.outcomes(), "questions": [q.to_json() for q in self.questions]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        return cls(data["version"], data["split"], data["lm"], data["kb_fingerprint"], data["dataset_hash"],
                   data["created_at"], [ScoredQuestion.from_json(q) for q in data["questions"]],
                   data.get("code_fingerprint", ""), data.get("adapter", ""), data.get("settings") or {})

    def to_markdown(self) -> str:
        s = self.summary()
        lines = [f"# Evaluation of {self.version} on {self.split}", "",
                 f"LM `{self.lm}`" + (f", adapter `{self.adapter[:8]}`" if self.adapter else "")
                 + f", KB `{self.kb_fingerprint}`, dataset `{self.dataset_hash}`, code "
                 f"`{self.code_fingerprint or '?'}`, {self.created_at}", "",
                 "| metric | value |", "|---|---|"]
        lines += [f"| {k} | {v:.3f} |" if isinstance(v, float) else f"| {k} | {v} |" for k, v in s.items()]
        lines += ["", "| pattern | n | accuracy | mean F1 |", "|---|---|---|---|"]
        lines += [f"| {p} | {v['questions']} | {v['execution_accuracy']:.3f} | {v['mean_f1']:.3f} |"
                  for p, v in self.per_pattern().items()]
        lines += ["", "| language | n | accuracy | mean F1 |", "|---|---|---|---|"]
        lines += [f"| {lang} | {v['questions']} | {v.get('execution_accuracy', 0):.3f} | {v.get('mean_f1', 0):.3f} |"
                  for lang, v in self.per_language().items()]
        lines += ["", "| outcome | n | meaning |", "|---|---|---|"]
        lines += [f"| {name} | {n} | {Outcome(name).meaning} |" for name, n in self.outcomes().items()]
        return "\n".join(lines) + "\n"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")


def report_dir(version: str, root: Path | None = None) -> Path:
    root = root or artifact_root()
    name = version if version in PSEUDO_VERSIONS else effective_name(version, root)
    if name in PSEUDO_VERSIONS or name == SHIPPED:
        return root / "baselines" / name / "reports"
    return root / name / "reports"


def reuse_key(report: Report) -> str:
    """What a saved report is reused for: the same split and records, LM, adapter, settings, KB and code."""
    identity = {"split": report.split, "dataset": report.dataset_hash, "lm": report.lm, "adapter": report.adapter,
                "settings": report.settings, "kb": report.kb_fingerprint, "code": report.code_fingerprint}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:10]


def report_path(report: Report, root: Path | None = None) -> Path:
    """Where `report` is saved, and where a run with the same identity finds it to reuse."""
    split = report.split
    split_name = _slug(Path(split).stem if split.endswith(".jsonl") else split)
    return report_dir(report.version, root) / f"{split_name}-{_slug(report.lm)}-{reuse_key(report)}.json"


def save_report(report: Report, path: Path) -> None:
    """JSON first, then Markdown beside it; each written atomically."""
    write_text_atomic(path, json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    write_text_atomic(path.with_suffix(".md"), report.to_markdown())


def saved_reports(root: Path | None = None) -> list[tuple[Path, Report]]:
    """Every report already written under the artifact root (versions and baselines), newest first."""
    root = root or artifact_root()
    paths = [*root.glob("v*/reports/*.json"), *root.glob("baselines/*/reports/*.json")]
    found = []
    for path in sorted(paths, key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            found.append((path, Report.from_json(json.loads(path.read_text(encoding="utf-8")))))
        except (ValueError, KeyError):
            continue  # a report from another nl2sparql version, or not a report: not offered
    return found
