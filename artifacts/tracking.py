"""MLflow, local by default: a SQLite store under the nl2sparql home (paths.py), no telemetry, a server one option away."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from nl2sparql.paths import resolve


def default_tracking_uri() -> str:
    return resolve().tracking


def setup(tracking_uri: str | None = None, experiment: str = "nl2sparql"):
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("DO_NOT_TRACK", "true")
    import mlflow

    uri = tracking_uri or default_tracking_uri()
    if uri.startswith("sqlite:///"):
        Path(uri[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    mlflow.set_tracking_uri(uri)
    mlflow.set_registry_uri(uri)
    if uri.startswith("sqlite:///") and mlflow.get_experiment_by_name(experiment) is None:
        # Without a location MLflow puts artifacts in ./mlruns of whatever folder the command ran in.
        location = Path(uri[len("sqlite:///"):]).parent / "mlruns"
        mlflow.create_experiment(experiment, artifact_location=location.resolve().as_uri())
    mlflow.set_experiment(experiment)
    return mlflow


@contextlib.contextmanager
def run(kind: str, tracking_uri: str | None = None, params: dict | None = None):
    """An MLflow run tagged with its kind (compile, eval); yields the mlflow module and the run."""
    mlflow = setup(tracking_uri)
    with mlflow.start_run(run_name=kind, tags={"nl2sparql.kind": kind}) as active:
        if params:
            mlflow.log_params({k: str(v)[:500] for k, v in params.items()})
        yield mlflow, active


class ProgramModel:
    """Factory for the pyfunc wrapper that serves a saved version (the artifact folder is the model)."""

    @staticmethod
    def python_model():
        import mlflow.pyfunc

        class _Model(mlflow.pyfunc.PythonModel):
            def load_context(self, context):
                from nl2sparql.artifacts.load import load_from_folder

                self.program = load_from_folder(Path(context.artifacts["version"]))

            def predict(self, context, model_input, params=None):
                questions = list(model_input["question"]) if hasattr(model_input, "columns") else list(model_input)
                return [{"question": q, "sparql": (out := self.program(q)).sparql, "rows": out.rows}
                        for q in questions]

        return _Model()


def log_version(mlflow, version_path: Path, register_as: str = "nl2sparql") -> str | None:
    """Log the version folder and register it as a model version (pyfunc wrapper); returns the model URI."""
    import mlflow.pyfunc

    mlflow.log_artifacts(str(version_path), artifact_path="version")
    info = mlflow.pyfunc.log_model(name="program", python_model=ProgramModel.python_model(),
                                   artifacts={"version": str(version_path)}, pip_requirements=["nl2sparql"],
                                   registered_model_name=register_as)
    return info.model_uri
