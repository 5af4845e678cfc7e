"""Where nl2sparql reads and keeps things: the one module that reads the path variables of the environment.

Everything built lives under one home ($NL2SPARQL_HOME, else ~/.nl2sparql): the store (`kb/`), the retrieval
index cache (`index/`), the assembled model files (`models/`), compiled versions (`artifacts/`), gold results
(`gold/`) and the MLflow database. The LiITA open data is read from $NL2SPARQL_SOURCE, else `../shared/liita`
seen from the folder the command runs in (never from where the package is installed). The edges (the CLI,
`nl2sparql.load`) resolve `Paths` once and hand the folders they need down.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

HOME_ENV = "NL2SPARQL_HOME"
SOURCE_ENV = "NL2SPARQL_SOURCE"
ARTIFACTS_ENV = "NL2SPARQL_ARTIFACTS"
MODELS_ENV = "NL2SPARQL_MODEL_DIR"
TRACKING_ENV = "MLFLOW_TRACKING_URI"
DEFAULT_SOURCE = Path("..") / "shared" / "liita"


@dataclass(frozen=True)
class Paths:
    home: Path
    source: Path
    artifacts: Path
    models: Path
    tracking_uri: str | None = None  # None: SQLite under home

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Paths:
        env = os.environ if environ is None else environ
        home = Path(env.get(HOME_ENV) or Path.home() / ".nl2sparql")
        source = Path(env[SOURCE_ENV]) if env.get(SOURCE_ENV) else (cwd or Path.cwd()) / DEFAULT_SOURCE
        return cls(home=home, source=source,
                   artifacts=Path(env.get(ARTIFACTS_ENV) or home / "artifacts"),
                   models=Path(env.get(MODELS_ENV) or home / "models"),
                   tracking_uri=env.get(TRACKING_ENV) or None)

    @property
    def kb(self) -> Path:
        return self.home / "kb"

    @property
    def index(self) -> Path:
        return self.home / "index"

    @property
    def gold(self) -> Path:
        return self.home / "gold"

    @property
    def mlflow_db(self) -> Path:
        return self.home / "mlflow.db"

    @property
    def tracking(self) -> str:
        return self.tracking_uri or f"sqlite:///{self.mlflow_db}"


def resolve() -> Paths:
    """The paths the environment names now (read at call time, never at import)."""
    return Paths.from_env()
