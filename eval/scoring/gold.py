"""Gold results, executed once per KB fingerprint and kept on disk beside the store's other caches."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from nl2sparql.eval.scoring.metric import strip_slice
from nl2sparql.files import write_text_atomic
from nl2sparql.kb.results import QueryResult, Term
from nl2sparql.paths import resolve


def _result_from_json(data: dict) -> QueryResult:
    rows = tuple(tuple(None if cell is None else Term.from_json(cell) for cell in row) for row in data["rows"])
    return QueryResult(tuple(data["variables"]), rows, data.get("boolean"))


def _result_to_json(result: QueryResult) -> dict:
    return {"variables": list(result.variables), "boolean": result.boolean,
            "rows": [[None if t is None else t.to_json() for t in row] for row in result.rows]}


class GoldCache:
    """`get(sparql)` → the gold QueryResult (LIMIT/OFFSET removed), executed at most once per fingerprint."""

    def __init__(self, endpoint, directory: Path | None = None) -> None:
        self.endpoint = endpoint
        self.path = (directory or resolve().gold) / f"{endpoint.fingerprint()}.json"
        self._lock = threading.Lock()
        self._data: dict[str, dict] | None = None
        self.misses = 0

    def _load(self) -> dict[str, dict]:
        if self._data is None:
            try:
                self._data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                self._data = {}
        return self._data

    def get(self, sparql: str) -> QueryResult:
        key = hashlib.sha256(strip_slice(sparql).encode()).hexdigest()
        with self._lock:
            data = self._load()
            if key in data:
                return _result_from_json(data[key])
        result = self.endpoint.execute(strip_slice(sparql))
        with self._lock:
            self.misses += 1
            self._load()[key] = _result_to_json(result)
            self._save()
        return result

    def _save(self) -> None:
        write_text_atomic(self.path, json.dumps(self._data, ensure_ascii=False))
