"""`optimize run --optimizer finetune`: train a LoRA adapter for the generate step and save it as a version.

The version is an ordinary `vN` folder: the uncompiled program's state, the adapter GGUF and a manifest that
names the adapter (file, SHA-256, base model and its checksum), the training settings and figures, and the
program settings the adapter was trained with (how much context the generate step is shown).
"""

from __future__ import annotations

import datetime
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

from nl2sparql.data.dataset import Record
from nl2sparql.errors import LMConfigError, Nl2SparqlError
from nl2sparql.modules.program import ProgramSettings, without_prefix_lines
from nl2sparql.optimize.finetune.examples import TrainExample, build_examples, training_records
from nl2sparql.optimize.finetune.lora import LoraSettings, TrainProgress, TrainResult

FINETUNE_DIR = ".finetune"  # under the artifact root: the interrupted run's checkpoint and settings


@dataclass(frozen=True)
class FinetuneConfig:
    lm: str = "local/qwen-0.5b"  # the base model: a local GGUF the engine runs
    teacher_lm: str | None = None
    train_split: str = "train"
    dev_split: str = "dev"
    train_limit: int | None = None
    dev_limit: int | None = None
    demos: bool = False  # the generate step shows retrieved examples (False: analysis + question only)
    answer_prefixes: bool = False  # the answer carries its PREFIX lines (False: they are declared after)
    followups: bool = True  # the train follow-up chains join: the rewrite step and their standalone questions
    followup_mode: str = "both"  # follow-ups taught as rewrites, as generate reading the chat turns, or both
    lora: LoraSettings = LoraSettings()
    synth: str | None = None  # a `data synth` folder or JSONL file whose pairs join the train examples
    synth_ratio: float = 1.0  # synthetic pairs per curated train record
    synth_wordings: str = "both"  # every wording of a synthetic pair, or "one" language per pair in turn
    compact_prompt: bool = False  # generate asked in the compact format (modules/compact.py), trained and run so
    init_from: str | None = None  # a version whose adapter training starts from (same base model and rank)

    def program_settings(self) -> ProgramSettings:
        return ProgramSettings(use_examples=self.demos, use_constraints=False, ontology_k=0,
                               demo_prefixes=self.answer_prefixes, compact_prompt=self.compact_prompt)

    def base_model(self) -> str:
        from nl2sparql.modules.local_lm import LOCAL_MODELS

        name = (self.lm or "").removeprefix("local/")
        if not (self.lm or "").startswith("local/") or name not in LOCAL_MODELS:
            raise LMConfigError("fine-tuning trains a local model's weights: --lm must be one of "
                                + ", ".join(f"local/{n}" for n in LOCAL_MODELS) + f", not {self.lm}")
        return name

    def to_json(self) -> dict:
        data = asdict(self)
        data["lora"] = asdict(self.lora)
        return data


@dataclass
class FinetuneResult:
    adapter: Path
    examples: list[TrainExample]
    training: TrainResult
    build_seconds: float


def make_examples(config: FinetuneConfig, program, records, teacher=None,
                  on_example: Callable[[int, int], None] | None = None) -> list[TrainExample]:
    """Gold examples from the train split and the train follow-up chains, plus the teacher's exact answers when a
    teacher LM is given."""
    chosen = training_records(records, config.train_split)[: config.train_limit]
    answer = None if config.answer_prefixes else without_prefix_lines
    examples = build_examples(program, chosen, answer_sparql=answer, on_example=on_example)
    if config.synth:
        from nl2sparql.optimize.finetune.synth import one_language_each, synth_records

        pairs = synth_records(Path(config.synth), list(records), round(config.synth_ratio * len(chosen)))
        wordings = one_language_each(pairs) if config.synth_wordings == "one" else Record.questions
        examples += [replace(e, source="synth") for e in build_examples(program, pairs, answer_sparql=answer,
                                                                         on_example=on_example, wordings_of=wordings)]
    if config.followups and config.train_split == "train":
        from nl2sparql.data.chains import load_chains
        from nl2sparql.optimize.finetune.followups import chain_examples

        examples += chain_examples(program, [c for c in load_chains() if c.split == "train"], answer_sparql=answer,
                                   mode=config.followup_mode)
        if config.synth:  # the synthetic chains teach the follow-up step only (their turns are like the pairs)
            from nl2sparql.optimize.finetune.synth import synth_chains

            examples += [replace(e, source=f"synth-{e.source}")
                         for e in chain_examples(program, synth_chains(Path(config.synth), list(records)),
                                                 answer_sparql=answer, mode=config.followup_mode, standalone=False)]
    if teacher is not None:
        from nl2sparql.optimize.finetune.teacher import teacher_examples

        examples += teacher_examples(program, chosen, teacher, answer_sparql=answer)
    return examples


def finetune(config: FinetuneConfig, program, records, work_dir: Path, *, resume: bool = False, teacher=None,
             on_example: Callable[[int, int], None] | None = None,
             on_step: Callable[[TrainProgress], None] | None = None,
             init_adapter: Path | None = None) -> FinetuneResult:
    """Build the examples, tokenize them as llama.cpp will, train (from `init_adapter`'s weights when given), and
    write the adapter GGUF in `work_dir`."""
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.optimize.finetune.chat import ChatTokenizer
    from nl2sparql.optimize.finetune.gguf_lora import from_peft_state, write_adapter
    from nl2sparql.optimize.finetune.lora import load_base_model, train_lora

    base = LOCAL_MODELS[config.base_model()]
    started = time.perf_counter()
    examples = make_examples(config, program, records, teacher, on_example)
    gguf_path = assemble(base)
    tokenizer = ChatTokenizer(gguf_path)
    try:
        tokenized = [tokenizer.example(e.messages, e.answer) for e in examples]
    finally:
        tokenizer.close()
    build_seconds = time.perf_counter() - started
    init_state = start_state(init_adapter, config) if init_adapter else None
    model = load_base_model(gguf_path, config.lora)
    training = train_lora(model, tokenized, config.lora, work_dir, resume=resume, on_step=on_step,
                          init_state=init_state)
    adapter = write_adapter(from_peft_state(training.state, config.lora.alpha, config.lora.rank),
                            work_dir / "adapter.gguf", base_model=base.name, base_sha256=base.sha256)
    return FinetuneResult(adapter, examples, training, build_seconds)


def start_state(path: Path, config: FinetuneConfig) -> dict:
    """The peft state of the adapter a run starts from, refused in one line when it was trained on another base
    model or with another rank."""
    from nl2sparql.optimize.finetune.gguf_lora import read_adapter, to_peft_state

    adapter, base_model = read_adapter(path)
    if base_model and base_model != config.base_model():
        raise Nl2SparqlError(f"{config.init_from}'s adapter was trained on local/{base_model}, not {config.lm}")
    if adapter.rank != config.lora.rank:
        raise Nl2SparqlError(f"{config.init_from}'s adapter has rank {adapter.rank}: pass --rank {adapter.rank}")
    return to_peft_state(adapter)


def adapter_manifest(config: FinetuneConfig, result: FinetuneResult) -> dict:
    from nl2sparql.modules.adapter import ADAPTER_FILE, file_sha256
    from nl2sparql.modules.local_lm import LOCAL_MODELS

    base = LOCAL_MODELS[config.base_model()]
    training = result.training
    from collections import Counter

    languages = Counter(e.language if e.source == "gold" else e.source for e in result.examples)
    return {
        "file": ADAPTER_FILE, "sha256": file_sha256(result.adapter), "size": result.adapter.stat().st_size,
        "base_model": base.name, "base_file": base.filename, "base_sha256": base.sha256, "format": "gguf-lora",
        "training": {**config.to_json(), "examples": len(result.examples), "examples_by_source": dict(languages),
                     "records": len({e.record_id for e in result.examples}), "skipped_too_long": training.skipped,
                     "steps": training.steps, "tokens": training.tokens, "seconds": round(training.seconds, 1),
                     "examples_per_second": round(training.examples_per_second, 4),
                     "example_build_seconds": round(result.build_seconds, 1),
                     "final_loss": round(sum(training.losses[-20:]) / max(1, len(training.losses[-20:])), 4),
                     "first_loss": round(sum(training.losses[:20]) / max(1, len(training.losses[:20])), 4),
                     **({"synth_manifest": _synth_manifest(config.synth)} if config.synth else {})},
    }


def _synth_manifest(path: str) -> dict:
    from nl2sparql.optimize.finetune.synth import synth_manifest

    return synth_manifest(Path(path))


def finetune_manifest(config: FinetuneConfig, result: FinetuneResult, *, records, settings: ProgramSettings,
                      dev_scores: dict, kb_fingerprint: str, mlflow_run_id: str | None,
                      settings_tried: dict | None = None) -> dict:
    import dspy

    import nl2sparql
    from nl2sparql.data.dataset import dataset_hash

    sizes = {split: sum(r.split == split for r in records) for split in ("train", "dev", "test", "generalization")}
    return {
        "parent": config.init_from, "optimizer": "finetune", "optimizer_config": config.to_json(),
        "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "lm": f"local/{config.base_model()}", "teacher_lm": config.teacher_lm, "dataset_hash": dataset_hash(records),
        "split_sizes": sizes, "kb_fingerprint": kb_fingerprint, "code_version": nl2sparql.__version__,
        "dspy_version": dspy.__version__, "adapter": adapter_manifest(config, result),
        "program_settings": asdict(settings), "dev_scores": dev_scores, "parent_dev_scores": {},
        "settings_tried": settings_tried or {},
        "compile_seconds": round(result.build_seconds + result.training.seconds, 1), "mlflow_run_id": mlflow_run_id,
    }


def with_demos(settings: ProgramSettings, demos: bool) -> ProgramSettings:
    return replace(settings, use_examples=demos)


def check_config(config: FinetuneConfig) -> None:
    from nl2sparql.optimize.finetune.lora import require_training_packages

    config.base_model()
    require_training_packages()
    if config.lora.rank < 1 or config.lora.epochs < 1 or config.lora.learning_rate <= 0:
        raise Nl2SparqlError("--rank and --epochs must be at least 1 and --learning-rate above 0")
