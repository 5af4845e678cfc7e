"""The journal of an eval run in progress: one JSON line per scored question, appended as soon as it is scored.

A long run on a local model takes hours; when it is stopped (Ctrl-C, a closed laptop, a killed job) the
questions already scored stay in the journal and the next run of the same (version, split, LM, KB) goes on
from there. The first line is a header; a journal whose header differs (another dataset, another KB, or
changed program code, so that one report never mixes answers of two programs) is not resumed. A last line
cut short by a kill is dropped. The finished report replaces the journal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from nl2sparql.artifacts.code import code_fingerprint  # noqa: F401  (the eval's own name for it)
from nl2sparql.eval.scoring.scored import ScoredQuestion


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
