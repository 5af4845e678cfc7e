"""paths.py is the one home of the package's folders and the only reader of their environment variables."""

from __future__ import annotations

from pathlib import Path

from nl2sparql.paths import (
    ARTIFACTS_ENV,
    HOME_ENV,
    MODELS_ENV,
    SOURCE_ENV,
    TRACKING_ENV,
    Paths,
)

PACKAGE = Path(__file__).resolve().parents[1]


def test_every_folder_follows_the_home(tmp_path):
    paths = Paths.from_env({HOME_ENV: str(tmp_path / "home")}, cwd=tmp_path / "repo")
    assert paths.kb == tmp_path / "home" / "kb"
    assert paths.index == tmp_path / "home" / "index"
    assert paths.models == tmp_path / "home" / "models"
    assert paths.artifacts == tmp_path / "home" / "artifacts"
    assert paths.gold == tmp_path / "home" / "gold"
    assert paths.tracking == f"sqlite:///{tmp_path / 'home' / 'mlflow.db'}"


def test_the_source_is_found_from_the_current_folder_not_the_package(tmp_path):
    paths = Paths.from_env({}, cwd=tmp_path / "repo")
    assert paths.source == tmp_path / "repo" / ".." / "shared" / "liita"
    assert PACKAGE not in paths.source.resolve().parents


def test_each_variable_overrides_its_folder(tmp_path):
    paths = Paths.from_env({HOME_ENV: str(tmp_path), SOURCE_ENV: "/data/liita", ARTIFACTS_ENV: "/a",
                            MODELS_ENV: "/m", TRACKING_ENV: "http://127.0.0.1:5000"})
    assert (paths.source, paths.artifacts, paths.models) == (Path("/data/liita"), Path("/a"), Path("/m"))
    assert paths.tracking == "http://127.0.0.1:5000"
    assert paths.kb == tmp_path / "kb"


def test_no_other_module_reads_the_path_variables():
    names = (HOME_ENV, SOURCE_ENV, ARTIFACTS_ENV, MODELS_ENV, TRACKING_ENV)
    offenders = [f"{path.relative_to(PACKAGE)}: {name}"
                 for path in sorted(PACKAGE.rglob("*.py"))
                 if path.name != "paths.py" and not {"tests", ".venv", "build"} & set(path.relative_to(PACKAGE).parts)
                 for name in names if name in path.read_text(encoding="utf-8")]
    assert offenders == []
