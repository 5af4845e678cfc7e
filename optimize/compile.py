"""`optimize run`: compile the program with a DSPy optimizer, score it against its parent, save a version."""

from __future__ import annotations

import datetime
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import dspy

from nl2sparql.data.dataset import dataset_hash, load_dataset
from nl2sparql.errors import DatasetError, Nl2SparqlError
from nl2sparql.eval.scoring.gold import GoldCache
from nl2sparql.eval.scoring.program import SplitScore, score_program
from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric, FeedbackMetric, examples

OPTIMIZERS = ("bootstrap", "random-search", "mipro", "gepa")
BUDGETS = {"light": 0, "medium": 1, "heavy": 2}


@dataclass(frozen=True)
class CompileConfig:
    optimizer: str = "bootstrap"
    lm: str | None = None
    teacher_lm: str | None = None
    train_split: str = "train"
    dev_split: str = "dev"
    budget: str = "light"
    seed: int = 13
    threads: int = 1
    train_limit: int | None = None
    dev_limit: int | None = None
    # MIPRO and GEPA select candidates on a validation set: the train records after the first train_limit,
    # so the dev split they are scored on afterwards is never seen while compiling.
    val_limit: int = 12
    parent: str = "uncompiled"
    dataset_dir: Path | None = None

    def budget_level(self) -> int | None:
        """0/1/2 for light/medium/heavy; None when the budget is a number of metric calls."""
        if self.budget in BUDGETS:
            return BUDGETS[self.budget]
        if not self.budget.isdigit() or int(self.budget) < 1:
            raise Nl2SparqlError(f"--budget must be light, medium, heavy or a positive number, not '{self.budget}'")
        return None


@dataclass
class CompileResult:
    program: dspy.Module
    records: list
    parent_dev: SplitScore
    dev: SplitScore
    seconds: float
    optimizer_config: dict = field(default_factory=dict)
    lm_calls: int | None = None  # completions the model ran while compiling (None: the LM does not count them)


def _optimizer(config: CompileConfig, metric: ExecutionMetric, teacher_object, train_size: int, lm_object=None):
    level = config.budget_level()
    calls = None if level is not None else int(config.budget)
    if config.optimizer == "bootstrap":
        demos = (1, 2, 4)[level] if level is not None else max(1, min(8, calls // 8))
        options = {"max_bootstrapped_demos": demos, "max_labeled_demos": 0, "max_rounds": 1}
        teacher = {"lm": teacher_object} if teacher_object is not None else {}
        return dspy.BootstrapFewShot(metric=metric, teacher_settings=teacher, **options), options
    if config.optimizer == "random-search":
        demos = (1, 2, 4)[level] if level is not None else 2
        candidates = (2, 4, 8)[level] if level is not None else max(1, calls // max(1, train_size))
        options = {"max_bootstrapped_demos": demos, "max_labeled_demos": 0, "num_candidate_programs": candidates,
                   "num_threads": config.threads}
        return dspy.BootstrapFewShotWithRandomSearch(metric=metric, **options), options
    if config.optimizer == "mipro":
        options = {"auto": ("light", "medium", "heavy")[level] if level is not None else None,
                   "max_bootstrapped_demos": 1, "max_labeled_demos": 0, "num_threads": config.threads,
                   "seed": config.seed}
        if calls is not None:
            options.update(num_candidates=max(2, calls // 10))
        # MIPRO reads its models when built, before compile's dspy.context: name them.
        return dspy.MIPROv2(metric=metric, prompt_model=teacher_object or lm_object, task_model=lm_object,
                            teacher_settings={"lm": teacher_object} if teacher_object else {}, **options), options
    if config.optimizer == "gepa":
        from nl2sparql.modules.lm import resolve_lm

        feedback = FeedbackMetric(metric.records, metric.gold)
        reflection = teacher_object or resolve_lm(config.lm, temperature=1.0, max_tokens=2048)
        options = ({"auto": ("light", "medium", "heavy")[level]} if level is not None
                   else {"max_metric_calls": calls})
        options.update(num_threads=config.threads, seed=config.seed)
        return dspy.GEPA(metric=feedback, reflection_lm=reflection, **options), options
    raise Nl2SparqlError(f"unknown optimizer '{config.optimizer}': choose one of {', '.join(OPTIMIZERS)}")


def compile_program(config: CompileConfig, *, lm_object, teacher_object=None, endpoint_url: str | None = None,
                    store: Path | None = None, on_dev: Callable | None = None, program_settings=None) -> CompileResult:
    """Compile from `config.parent`, then score parent and compiled program on the dev split."""
    from nl2sparql.artifacts.load import load

    records = load_dataset(config.dataset_dir)
    train_pool = [r for r in records if r.split == config.train_split]
    train_records = train_pool[: config.train_limit]
    val_records = train_pool[len(train_records):][: config.val_limit] or train_records
    dev_records = [r for r in records if r.split == config.dev_split][: config.dev_limit]
    if not train_records or not dev_records:
        raise DatasetError(f"empty split: {len(train_records)} {config.train_split} and {len(dev_records)} "
                           f"{config.dev_split} records")
    parent = load(config.parent, endpoint_url=endpoint_url, store=store, lm_object=lm_object,
                  settings=program_settings)
    gold = GoldCache(parent.runtime.endpoint)
    metric = ExecutionMetric({r.id: r for r in records}, gold)
    trainset, valset, devset = examples(train_records), examples(val_records), examples(dev_records)
    started = time.perf_counter()
    optimizer, options = _optimizer(config, metric, teacher_object, len(trainset), lm_object)
    student = parent.deepcopy()
    compile_kwargs = {"trainset": trainset}
    if config.optimizer in ("mipro", "gepa"):
        compile_kwargs["valset"] = valset
    if config.optimizer == "mipro":
        compile_kwargs["minibatch"] = len(valset) > 35
        if config.budget_level() is None:
            compile_kwargs["num_trials"] = max(1, int(config.budget) // max(1, len(valset)))
    calls_before = _model_calls(lm_object)
    with dspy.context(lm=lm_object):
        compiled = optimizer.compile(student, **compile_kwargs)
    lm_calls = None if calls_before is None else _model_calls(lm_object) - calls_before
    compact_demos(compiled)
    compiled.set_lm(lm_object)
    seconds = time.perf_counter() - started
    parent_dev = score_program(parent, devset, metric, on_result=on_dev and (lambda q, s: on_dev("parent", q, s)))
    dev = score_program(compiled, devset, metric, on_result=on_dev and (lambda q, s: on_dev("compiled", q, s)))
    return CompileResult(compiled, records, parent_dev, dev, seconds, options, lm_calls)


def _model_calls(lm) -> int | None:
    """Completions the local engine has run so far (None for LMs that do not count them)."""
    return getattr(getattr(lm, "engine", None), "calls", None)


# What a demo keeps: the retrieved context of a demo is long and says nothing its question and answer don't.
DEMO_FIELDS = {"question", "analysis", "sparql", "failed_sparql", "diagnosis", "patterns", "entities", "dialects",
               "needs_service", "plan", "hints"}


def compact_demos(program: dspy.Module) -> None:
    """Drop the long context fields from bootstrapped demos (DSPy renders them as not supplied)."""
    for _, predictor in program.named_predictors():
        predictor.demos = [dspy.Example({k: v for k, v in dict(d).items() if k in DEMO_FIELDS})
                           for d in predictor.demos]


def manifest_for(config: CompileConfig, result: CompileResult, *, lm_id: str, teacher_id: str | None,
                 kb_fingerprint: str, retriever: dict, mlflow_run_id: str | None) -> dict:
    import nl2sparql

    records = result.records
    sizes = {split: sum(r.split == split for r in records) for split in ("train", "dev", "test", "generalization")}
    config_data = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(config).items()}
    return {
        "parent": None if config.parent == "uncompiled" else config.parent,
        "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "optimizer": config.optimizer, "optimizer_config": {**config_data, **_jsonable(result.optimizer_config)},
        "lm": lm_id, "teacher_lm": teacher_id, "dataset_hash": dataset_hash(records), "split_sizes": sizes,
        "retriever": retriever, "kb_fingerprint": kb_fingerprint, "code_version": nl2sparql.__version__,
        "dspy_version": dspy.__version__, "dev_scores": result.dev.summary(),
        "parent_dev_scores": result.parent_dev.summary(), "compile_seconds": round(result.seconds, 1),
        "mlflow_run_id": mlflow_run_id,
    }


def _jsonable(options: dict) -> dict:
    return {k: v if isinstance(v, (str, int, float, bool, type(None))) else str(v) for k, v in options.items()}
