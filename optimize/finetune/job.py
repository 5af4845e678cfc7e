"""The fine-tune job as the command runs it: MLflow run, progress bars, dev scoring, an atomic new version."""

from __future__ import annotations

import json
from pathlib import Path

from nl2sparql.artifacts.store import artifact_root, write_version
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.files import write_text_atomic
from nl2sparql.optimize.finetune.lora import LoraSettings
from nl2sparql.optimize.finetune.run import (FINETUNE_DIR, FinetuneConfig, check_config, finetune,
                                              finetune_manifest, with_demos)

PENDING = "pending.json"


def pending_path(root: Path | None = None) -> Path:
    """Where an interrupted fine-tune's settings wait for --resume."""
    return (root or artifact_root()) / FINETUNE_DIR / PENDING


def pending_finetune(root: Path | None = None) -> FinetuneConfig:
    """The settings of the interrupted fine-tune, for --resume."""
    path = pending_path(root)
    if not path.exists():
        raise Nl2SparqlError("nothing to resume: no interrupted fine-tune was recorded")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return FinetuneConfig(**{**data, "lora": LoraSettings(**data["lora"])})
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise Nl2SparqlError(f"the interrupted fine-tune's settings {path} are corrupt ({type(error).__name__}); "
                             "start again without --resume") from None


def run_finetune(config: FinetuneConfig, *, resume: bool = False, store: Path | None = None,
                 tracking_uri: str | None = None, console=None, root: Path | None = None, teacher_object=None,
                 try_demos: bool = True):
    """Train, score the fine-tuned program on dev with and without retrieved examples (keeping the better
    setting), and write the version; the checkpoint stays until the version is written."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from nl2sparql.artifacts.load import load
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.modules.lm import resolve_lm
    from nl2sparql.artifacts import tracking

    check_config(config)
    root = root or artifact_root()
    init_adapter = None
    if config.init_from:
        init_adapter, config = starting_adapter(config, root)
    work = root / FINETUNE_DIR
    work.mkdir(parents=True, exist_ok=True)
    write_text_atomic(work / PENDING, json.dumps(config.to_json(), indent=2))
    records = load_dataset()
    teacher = teacher_object or (resolve_lm(config.teacher_lm) if config.teacher_lm else None)
    settings = config.program_settings()
    program = load("uncompiled", store=store, settings=settings, lm_object=resolve_lm(config.lm))
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
               TimeElapsedColumn(), TimeRemainingColumn())
    with tracking.run("finetune", tracking_uri, config.to_json()) as (mlflow, active), \
            Progress(*columns, console=console, transient=True) as progress:
        build = progress.add_task("examples", total=None)
        train = progress.add_task("training", total=None, visible=False)

        def on_example(done: int, total: int) -> None:
            progress.update(build, completed=done, total=total)

        def on_step(state) -> None:
            progress.update(train, visible=True, completed=state.step, total=state.total,
                            description=f"training, loss {state.loss:.3f}")
            mlflow.log_metric("loss", state.loss, step=state.step)

        result = finetune(config, program, records, work, resume=resume, teacher=teacher, on_example=on_example,
                          on_step=on_step, init_adapter=init_adapter)
        mlflow.log_metric("train_seconds", result.training.seconds)
        mlflow.log_metric("examples_per_second", result.training.examples_per_second)
        tried = _score_settings(config, settings, result.adapter, records, store, progress, try_demos)
        best = max(tried, key=lambda k: (tried[k]["execution_accuracy"], -tried[k]["p50_seconds"]))
        for name, scores in tried.items():
            for key, value in scores.items():
                mlflow.log_metric(f"dev_{name}_{key}", float(value))
        chosen = with_demos(settings, best == "with_demos")
        manifest = finetune_manifest(config, result, records=records, settings=chosen, dev_scores=tried[best],
                                     kb_fingerprint=program.runtime.endpoint.fingerprint(),
                                     mlflow_run_id=active.info.run_id, settings_tried=tried)
        version = write_version(program, manifest, root, files={"adapter.gguf": result.adapter})
        # The same adapter in peft's form beside the GGUF, for LM servers that load peft adapters (vLLM).
        from nl2sparql.optimize.finetune.peft_export import PEFT_DIR, export_peft

        export_peft(version.path / "adapter.gguf", version.path / PEFT_DIR, config.base_model())
        mlflow.set_tag("nl2sparql.version", version.name)
        mlflow.log_artifacts(str(version.path), artifact_path="version")
    program.close()
    for leftover in ("checkpoint.pt", "adapter.gguf", PENDING):
        (work / leftover).unlink(missing_ok=True)
    return version, tried


def starting_adapter(config: FinetuneConfig, root: Path) -> tuple[Path, FinetuneConfig]:
    """The adapter file of the version a run starts from (checked against its manifest's checksum), and the
    config with that checksum in its LoRA settings (so a checkpoint resumes only onto the same start)."""
    from dataclasses import replace

    from nl2sparql.artifacts.store import open_version
    from nl2sparql.modules.adapter import LoraAdapter

    version = open_version(config.init_from, root)
    adapter = LoraAdapter.from_manifest(version.path, version.manifest)
    if adapter is None:
        raise Nl2SparqlError(f"{version.name} has no adapter to start from: pass a fine-tuned version to --from")
    adapter.verify()
    if adapter.base_model != config.base_model():
        raise Nl2SparqlError(f"{version.name} is fine-tuned for local/{adapter.base_model}, not {config.lm}")
    return adapter.path, replace(config, init_from=version.name, lora=replace(config.lora, init_adapter=adapter.sha256))


def _score_settings(config: FinetuneConfig, settings, adapter_file: Path, records, store, progress,
                    try_demos: bool) -> dict[str, dict]:
    """Dev scores of the fine-tuned generate step shown only the question, and with retrieved examples."""
    from nl2sparql.artifacts.load import NL2SPARQL
    from nl2sparql.eval.scoring.gold import GoldCache
    from nl2sparql.eval.scoring.program import score_program
    from nl2sparql.modules.adapter import LoraAdapter, file_sha256
    from nl2sparql.modules.lm import adapter_lm
    from nl2sparql.modules.runtime import Runtime, RuntimeConfig
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric, examples

    dev = [r for r in records if r.split == config.dev_split][: config.dev_limit]
    if not dev:
        return {"without_demos": {"execution_accuracy": 0.0, "p50_seconds": 0.0}}
    lm = adapter_lm(LoraAdapter(adapter_file, file_sha256(adapter_file), config.base_model(), "new"), cache=False)
    runtime = Runtime(RuntimeConfig(endpoint=EndpointConfig(store_path=store)))
    metric = ExecutionMetric({r.id: r for r in records}, GoldCache(runtime.endpoint))
    choices = {"without_demos": False, "with_demos": True} if try_demos else {"without_demos": settings.use_examples}
    tried = {}
    try:
        for name, demos in choices.items():
            program = NL2SPARQL(with_demos(settings, demos), runtime)
            program.set_lm(lm)
            task = progress.add_task(f"dev ({name})", total=len(dev))
            scored = score_program(program, examples(dev), metric,
                                   on_result=lambda q, s, t=task: progress.update(t, completed=len(s.questions)))
            tried[name] = scored.summary()
    finally:
        lm.engine.close()
        runtime.close()
    return tried
