"""The compile job as the command runs it: LMs, MLflow run, progress, an atomic new version."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from nl2sparql.files import write_text_atomic
from nl2sparql.artifacts.store import artifact_root, write_version
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.optimize.compile import CompileConfig, CompileResult, compile_program, manifest_for

PENDING = ".pending-compile.json"


def pending_compile_path(root: Path | None = None) -> Path:
    """Where an interrupted compile's settings wait for --resume."""
    return (root or artifact_root()) / PENDING


def pending_config(root: Path | None = None) -> CompileConfig:
    path = pending_compile_path(root)
    if not path.exists():
        raise Nl2SparqlError("nothing to resume: no interrupted compile was recorded")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["dataset_dir"] = Path(data["dataset_dir"]) if data.get("dataset_dir") else None
    return CompileConfig(**data)


def interrupted_job(root: Path | None = None) -> str:
    """'finetune' or 'bootstrap' (a compile, whose settings name its optimizer): what `--resume` without
    `--optimizer` continues."""
    from nl2sparql.optimize.finetune.job import pending_path

    finetune, compile_ = pending_path(root).exists(), pending_compile_path(root).exists()
    if finetune and compile_:
        raise Nl2SparqlError("both a compile and a fine-tune were interrupted; say which to resume with "
                             "--optimizer finetune or --optimizer bootstrap")
    if not (finetune or compile_):
        raise Nl2SparqlError("nothing to resume: no interrupted compile or fine-tune was recorded")
    return "finetune" if finetune else "bootstrap"


def run_compile(config: CompileConfig, *, store: Path | None = None, tracking_uri: str | None = None,
                console=None, lm_object=None, teacher_object=None, root: Path | None = None,
                program_settings=None):
    """Compile under an MLflow run; the version is written only when everything succeeded."""
    from rich.progress import Progress

    from nl2sparql.modules.lm import resolve_lm
    from nl2sparql.artifacts import tracking

    root = root or artifact_root()
    root.mkdir(parents=True, exist_ok=True)
    pending = pending_compile_path(root)
    write_text_atomic(pending, json.dumps({k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(config).items()}))
    lm = lm_object or resolve_lm(config.lm, cache=True)
    teacher = teacher_object or (resolve_lm(config.teacher_lm, cache=True) if config.teacher_lm else None)
    params = {k: v for k, v in asdict(config).items()}
    with tracking.run("compile", tracking_uri, params) as (mlflow, active), \
            Progress(console=console, transient=True) as progress:
        task = progress.add_task("dev", total=None)

        def on_dev(which, item, scores):
            summary = scores.summary()
            step = len(scores.questions)
            progress.update(task, description=f"dev ({which}) accuracy {summary['execution_accuracy']:.2f}",
                            completed=step)
            mlflow.log_metric(f"{which}_running_accuracy", summary["execution_accuracy"], step=step)

        result: CompileResult = compile_program(config, lm_object=lm, teacher_object=teacher, store=store, on_dev=on_dev,
                                                program_settings=program_settings)
        for prefix, split_score in (("parent_dev", result.parent_dev), ("dev", result.dev)):
            for key, value in split_score.summary().items():
                mlflow.log_metric(f"{prefix}_{key}", float(value))
        mlflow.log_metric("compile_seconds", result.seconds)
        endpoint = result.program.runtime.endpoint
        retriever = {"embedder": result.program.runtime.config.embedder or "e5",
                     "index_splits": list(result.program.runtime.config.index_splits),
                     "examples_k": result.program.settings.examples_k}
        manifest = manifest_for(config, result, lm_id=lm.model, teacher_id=teacher.model if teacher else None,
                                kb_fingerprint=endpoint.fingerprint(), retriever=retriever,
                                mlflow_run_id=active.info.run_id)
        version = write_version(result.program, manifest, root)
        mlflow.set_tag("nl2sparql.version", version.name)
        try:
            tracking.log_version(mlflow, version.path)
        except Exception as error:  # the version stands on its own; a registry hiccup is reported, not fatal
            mlflow.set_tag("nl2sparql.register_error", str(error)[:500])
    pending.unlink(missing_ok=True)
    result.program.close()
    return version, result


def side_by_side(result: CompileResult, parent: str, name: str, path: Path):
    """The dev scores of the parent and the compiled program, with the deltas (what `optimize run` prints)."""
    from rich.table import Table

    table = Table("dev", parent, name, "delta", title=f"{name} written to {path}")
    before, after = result.parent_dev.summary(), result.dev.summary()
    for key in ("execution_accuracy", "mean_f1", "valid_sparql_rate", "lm_calls_per_question",
                "prompt_tokens_per_question", "p50_seconds"):
        table.add_row(key, f"{before[key]:.3f}", f"{after[key]:.3f}", f"{after[key] - before[key]:+.3f}")
    return table
