"""The journal of an eval run in progress: one JSON line per scored question, appended as soon as it is scored.

A long run on a local model takes hours; when it is stopped (Ctrl-C, a closed laptop, a killed job) the
questions already scored stay in the journal and the next run of the same (version, split, LM, KB) goes on
from there. The first line is a header; a journal whose header differs (another dataset, another KB, or
changed program code, so that one report never mixes answers of two programs) is not resumed. A last line
cut short by a kill is dropped. The finished report replaces the journal.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from nl2sparql.eval.scoring.scored import ScoredQuestion

# What decides the answers and their scores: a journal written by other code is not resumed. The dataset is in
# too: its train records are the examples the program retrieves, and its ASK twins pair the scores.
_BEHAVIOUR = ("kb/**/*.py", "retrieval/*.py", "signatures/*.py", "modules/*.py", "data/constraints/*", "data/plans/*",
              "data/*.json", "data/dataset/*.jsonl", "artifacts/store/**/*.json", "eval/scoring/*.py")


def code_fingerprint(root: Path | None = None) -> str:
    """A hash of the source and data files that decide the program's answers and their scores."""
    root = root or Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted({p for pattern in _BEHAVIOUR for p in root.glob(pattern) if p.is_file()}):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def journal_path(report_path: Path) -> Path:
    return report_path.with_name(report_path.stem + ".partial.jsonl")


class Journal:
    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = path
        self.header = header

    def resume(self) -> list[ScoredQuestion]:
        """The questions scored by an earlier run with the same header; starts a fresh journal otherwise."""
        done = self.read()
        self._rewrite(done)
        return done

    def read(self) -> list[ScoredQuestion]:
        """The questions scored by an earlier run with the same header, leaving the file as it is."""
        done: list[ScoredQuestion] = []
        if self.path.exists():
            lines = self.path.read_text(encoding="utf-8").splitlines()
            if lines and _loads(lines[0]) == {"header": self.header}:
                for line in lines[1:]:
                    entry = _loads(line)
                    if entry is None:
                        break  # cut short by a kill: this question is run again
                    done.append(ScoredQuestion.from_json(entry))
        return done

    def append(self, question: ScoredQuestion) -> None:
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(question.to_json(), ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)

    def _rewrite(self, done: list[ScoredQuestion]) -> None:
        from nl2sparql.files import write_text_atomic

        lines = [json.dumps({"header": self.header}, ensure_ascii=False)]
        lines += [json.dumps(q.to_json(), ensure_ascii=False) for q in done]
        write_text_atomic(self.path, "\n".join(lines) + "\n")


def _loads(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None
