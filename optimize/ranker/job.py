"""`optimize run --optimizer ranker`: a new version that is its parent plus a trained ranker over the enumerator's
plans (`modules/plan_choice.py`).

Steps, each resumable: the training lists (train split in both languages, and synthetic pairs when given) and the dev
lists are built into a work folder, one line per question; the ranker trains on CPU with a checkpoint per epoch; the
thresholds are chosen by replaying the choice on the parent's dev answers (and, given its report on them, on the
outside pairs' check half too); the version is written with the parent's files, the ranker's
weights, their checksum in the manifest, and the choice switched on in its program settings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from nl2sparql.modules.ranker import RANKER_FILE, Ranker
from nl2sparql.optimize.ranker.thresholds import GRID, DevQuestion, choose, dev_questions, replay
from nl2sparql.optimize.ranker.train import (FeaturedList, TrainConfig, featurize, member_checkpoints, member_seeds,
                                             top1, train_ensemble, training_views)


@dataclass(frozen=True)
class RankerJob:
    parent: str = "latest"
    train_split: str = "train"
    dev_split: str = "dev"
    synth: str | None = None  # a `data synth` folder whose pairs join the training lists
    synth_limit: int | None = 300
    train_limit: int | None = None
    dev_limit: int | None = None
    epochs: int = 20
    # 0.01 (0.05 before): trained on the train split and outside rounds 1-4, round 5's design lists got a median of 84
    # of 254 right at 0.01 against 74 at 0.05 (three seeds each; 73-81 at 0.05), dev top-1 0.778 against 0.722
    # (`bench/ranker_design.py`, bench/ranker-runs/design-R5-*.json)
    learning_rate: float = 0.01
    l2: float = 1e-3
    seed: int = 13
    # More seeds, each training a ranker of its own; the version's ranker is their average with `seed`'s
    # (`train.train_ensemble`). Empty: one ranker.
    ensemble: tuple[int, ...] = ()
    dev_report: str | None = None  # the parent's `eval run` report on dev: thresholds replayed on its answers
    # Train with the gold plan's one-block changes as more negatives (`negatives.py`). Off: on dev they lowered the
    # ranker's top-1 (0.71 → 0.55 Italian, 0.68 → 0.54 English; label-0 changes only, or at the enumerator's ranks,
    # did not beat training without them either).
    negatives: bool = False
    # Also train on the curated paraphrases of the train questions (each with its record's gold): other people's
    # wordings of the same plans.
    paraphrases: bool = False
    # Also train on the design half of pairs written outside the project (`bench/outside`, `data/outside.py`), in both
    # languages: compositions and wordings no train question has. Their check half is never trained on.
    outside: tuple[str, ...] = ()
    # The least share of dev the thresholds must answer from ranked plans alone, without an LM call: above one half,
    # the median question costs the enumeration and no generation (the p50 seconds target; a generation alone takes
    # 6-8 s on 2 cores). 0: the thresholds of the best replayed dev accuracy, however often they ask the generator.
    plan_share: float = 0.5
    # The parent's `eval run` report on the check half of the outside pairs (a `.jsonl` split of those records, each
    # asked in the language the eval chose): the thresholds are then replayed on those answers and dev's together.
    # Dev is written by us, like train; the check half by others, and never trained on. Needs `outside`.
    check_report: str | None = None


def work_dir(home: Path, kb_fingerprint: str, code: str) -> Path:
    """Lists depend on the questions, the KB and the enumerator: the folder is named by the KB and the code that
    makes lists (`artifacts.code.lists_fingerprint`: the enumerator, its cues, the plans and the scoring, not the
    ranker's features), so lists made by another enumerator are never reused, while a ranker with new features trains
    on the lists already built; within the folder a list is reused for the same question key (--resume)."""
    return home / "ranker" / f"{kb_fingerprint}-{code}"


def dev_view(made: dict) -> dict:
    """A dev list as the program sees it: the enumerated candidates only (no gold plan added)."""
    if made.get("positive") != "gold_plan":
        return made
    return {**made, "candidates": made["candidates"][:-1], "positive": "none"}


@dataclass(frozen=True)
class DevFigures:
    questions: int
    oracle: float  # some candidate is right
    enumerator_first: float  # the enumerator's own first candidate is right
    ranker_top1: float
    accept: float  # chosen thresholds
    fallback: float
    accepted_share: float  # questions answered without the generator at `accept`
    accepted_precision: float
    replayed: float | None = None  # the choice replayed with the parent's dev answers (None without its report)
    parent_right: float | None = None  # the parent alone on the same questions
    check_questions: int | None = None  # outside check-half questions the thresholds were also chosen on
    check_replayed: float | None = None  # the choice replayed there at the chosen thresholds
    check_parent_right: float | None = None


def precision_thresholds(ranker: Ranker, lists: list[FeaturedList], generator_accuracy: float) -> tuple[float, float]:
    """Without the parent's dev answers: `accept`, the lowest probability from which the ranker's first choice is
    right more often than the generator is on dev overall, by a 0.15 margin; `fallback`, by no margin."""
    tops = []
    for x in lists:
        if x.features:
            p = ranker.probabilities(ranker.scores(x.features))
            tops.append((float(p.max()), bool(x.labels[int(np.argmax(p))])))

    def lowest(margin: float) -> float:
        for t in GRID:
            chosen = [right for p, right in tops if p >= t]
            if len(chosen) >= 5 and sum(chosen) / len(chosen) >= min(0.98, generator_accuracy + margin):
                return t
        return GRID[-1]
    accept = lowest(0.15)
    return accept, min(lowest(0.0), accept)


def dev_figures(ranker: Ranker, lists: list[FeaturedList], made: list[dict], generator_accuracy: float,
                report: list[dict] | None = None, endpoint=None, plan_share: float = 0.0,
                check: list[DevQuestion] = ()) -> DevFigures:
    """Top-1 against the oracle and the enumerator's own order, and the thresholds: replayed on the parent's dev
    answers when its report is given (`thresholds.choose`; on dev and the `check` questions together when there are
    any), else by precision."""
    n = max(1, len(lists))
    replayed = parent_right = None
    checked = {}
    if report:
        questions = dev_questions(ranker, lists, made, report, endpoint)
        accept, fallback, _, _ = choose([*questions, *check], plan_share)
        replayed = round(replay(questions, accept, fallback)[0], 3)
        parent_right = round(sum(q.generator_right for q in questions) / max(1, len(questions)), 3)
        if check:
            checked = {"check_questions": len(check), "check_replayed": round(replay(check, accept, fallback)[0], 3),
                       "check_parent_right": round(sum(q.generator_right for q in check) / len(check), 3)}
    else:
        accept, fallback = precision_thresholds(ranker, lists, generator_accuracy)
    tops = [(float(p.max()), bool(x.labels[int(np.argmax(p))])) for x in lists if x.features
            for p in [ranker.probabilities(ranker.scores(x.features))]]
    accepted = [right for p, right in tops if p >= accept]
    return DevFigures(len(lists), round(sum(bool(x.labels.sum()) for x in lists) / n, 3),
                      round(sum(bool(m["candidates"]) and bool(m["candidates"][0]["label"]) for m in made) / n, 3),
                      round(top1(ranker, lists), 3), accept, fallback, round(len(accepted) / n, 3),
                      round(sum(accepted) / len(accepted), 3) if accepted else 0.0, replayed, parent_right,
                      **checked)


def ranker_manifest(parent: dict, ranker_bytes: bytes, job: RankerJob, figures: DevFigures, trained: dict,
                    lists: dict, seconds: float) -> dict:
    settings = {**(parent.get("program_settings") or {}), "rank": True, "rank_accept": figures.accept,
                "rank_fallback": figures.fallback}
    return {**{k: v for k, v in parent.items() if k not in ("version", "dev_scores", "note", "mlflow_run_id")},
            "parent": parent.get("version", job.parent), "optimizer": "ranker",
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "program_settings": settings, "compile_seconds": round(seconds, 1),
            "ranker": {"file": RANKER_FILE, "sha256": hashlib.sha256(ranker_bytes).hexdigest(),
                       "size": len(ranker_bytes), "training": {**dataclasses.asdict(job), **trained, "lists": lists},
                       "dev": dataclasses.asdict(figures)},
            "note": f"{parent.get('version', job.parent)} + a ranker over enumerated plans (dev top-1 "
                    f"{figures.ranker_top1:.3f}, oracle {figures.oracle:.3f})"}


def load_featured(path: Path, view: Callable[[dict], dict] = lambda m: m,
                  negatives: bool = False) -> tuple[list[dict], list[FeaturedList]]:
    from nl2sparql.optimize.ranker.examples import read_lists

    made = [view(m) for m in read_lists(path)] if path.exists() else []
    return made, [featurize(m, negatives) for m in made]


def run_ranker_job(job: RankerJob, *, home: Path, root: Path, store: Path | None = None,
                   tracking_uri: str | None = None, resume: bool = False, progress=None):
    """Build lists, train, choose thresholds, write the version; returns (version, DevFigures)."""
    from nl2sparql.artifacts import tracking
    from nl2sparql.artifacts.store import PROGRAM_FILE, resolve_version, write_version
    from nl2sparql.data.dataset import load_dataset, parse_record
    from nl2sparql.errors import ArtifactError, DatasetError
    from nl2sparql.files import atomic_open
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.optimize.ranker.examples import (add_negatives, build_lists, paraphrase_questions,
                                                   questions_as_evaluated, questions_of, read_lists)

    started = time.perf_counter()
    parent = resolve_version(job.parent, root)
    if parent is None:
        raise ArtifactError("a ranker is added to a compiled or fine-tuned version: name one with --from (e.g. v14)")
    records = load_dataset()
    train_records = [r for r in records if r.split == job.train_split][: job.train_limit]
    dev_records = [r for r in records if r.split == job.dev_split][: job.dev_limit]
    if not train_records or not dev_records:
        raise DatasetError(f"no records in split {job.train_split if not train_records else job.dev_split}")
    with EmbeddedEndpoint(EndpointConfig(store_path=store)) as endpoint:
        fingerprint = endpoint.fingerprint()
    from nl2sparql.artifacts.code import lists_fingerprint

    work = work_dir(home, fingerprint, lists_fingerprint())
    sources = {"train": questions_of(train_records, "train"), "dev": questions_as_evaluated(dev_records, "dev")}
    if job.synth:
        from nl2sparql.data.synth.engine import read_synth

        synth = [parse_record(d, "synth") for d in read_synth(Path(job.synth))][: job.synth_limit]
        sources["synth"] = questions_of(synth, "synth")
    if job.paraphrases:
        sources["paraphrases"] = paraphrase_questions(train_records, "paraphrases")
    if job.outside:
        from nl2sparql.data.outside import read_outside

        missing = [p for p in job.outside if not Path(p).exists()]
        if missing:
            raise DatasetError(f"no outside pairs at {', '.join(missing)}")
        sources["outside"] = questions_of(read_outside([Path(p) for p in job.outside], "design"), "outside")
    for name, questions in sources.items():
        task = progress.add_task(f"{name} lists", total=len(questions)) if progress else None
        for _ in build_lists(questions, work / f"{name}.jsonl", store, negatives=job.negatives):
            if progress:
                progress.advance(task)
        if name != "dev" and job.negatives:
            add_negatives(work / f"{name}.jsonl", questions, store)  # lists built before negatives existed
    train_lists: list[FeaturedList] = []
    wanted = {q.key for name in sources if name != "dev" for q in sources[name]}
    for name in [n for n in sources if n != "dev"]:
        path = work / f"{name}.jsonl"
        for made in (read_lists(path) if path.exists() else []):
            if made["key"] in wanted:
                train_lists += training_views(made, job.negatives)
    dev_keys = {q.key for q in sources["dev"]}
    dev_made, dev_lists = load_featured(work / "dev.jsonl", dev_view)
    dev_made, dev_lists = zip(*[(m, f) for m, f in zip(dev_made, dev_lists) if m["key"] in dev_keys]) or ((), ())
    checkpoint = work / f"checkpoint-{job.seed}.pt"
    config = TrainConfig(epochs=job.epochs, learning_rate=job.learning_rate, l2=job.l2, seed=job.seed)
    if not resume:
        for old in member_checkpoints(checkpoint, member_seeds(config, job.ensemble)):
            old.unlink(missing_ok=True)
    report = _read_report(Path(job.dev_report), job.dev_split) if job.dev_report else None
    check_made, check_lists, check_report = _check_lists(job, work, store, progress)
    with tracking.run("ranker", tracking_uri, dataclasses.asdict(job)) as (mlflow, active):
        ranker = train_ensemble(train_lists, config, job.ensemble, checkpoint,
                                on_epoch=lambda epoch, loss: mlflow.log_metric("train_loss", loss, step=epoch))
        generator_accuracy = float((parent.manifest.get("dev_scores") or {}).get("execution_accuracy", 0.6))
        with EmbeddedEndpoint(EndpointConfig(store_path=store)) as endpoint:
            check = dev_questions(ranker, check_lists, check_made, check_report, endpoint) if check_report else []
            figures = dev_figures(ranker, list(dev_lists), list(dev_made), generator_accuracy, report, endpoint,
                                  job.plan_share, check)
        ranker.info.update({"dev_top1": figures.ranker_top1, "trained_lists": ranker.info.get("lists"),
                            "features_version": ranker.features_version})
        for key, value in dataclasses.asdict(figures).items():
            if value is not None:
                mlflow.log_metric(f"dev_{key}", float(value))
        data = ranker.to_bytes()
        counts = {name: len(qs) for name, qs in sources.items()}
        manifest = ranker_manifest(parent.manifest, data, job, figures, dict(ranker.info), counts,
                                   time.perf_counter() - started)
        manifest["mlflow_run_id"] = active.info.run_id
        staged = work / RANKER_FILE
        with atomic_open(staged, "wb") as out:
            out.write(data)
        files = {name: parent.path / name for name in [PROGRAM_FILE, *(
            parent.manifest[k]["file"] for k in ("adapter", "followup_adapter") if parent.manifest.get(k))]}
        version = write_version(None, manifest, root, files={**files, RANKER_FILE: staged})
        mlflow.set_tag("nl2sparql.version", version.name)
    return version, figures


def _read_report(path: Path, split: str | None) -> list[dict]:
    """The questions of an `eval run` report on `split` (None: on a `.jsonl` split)."""
    from nl2sparql.errors import Nl2SparqlError

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise Nl2SparqlError(f"the report {path} cannot be read: {error}") from None
    named = isinstance(data, dict) and (data.get("split") == split if split else
                                        str(data.get("split", "")).endswith(".jsonl"))
    if not named or not isinstance(data.get("questions"), list):
        raise Nl2SparqlError(f"{path} is not an `eval run` report on {split or 'a .jsonl split'}")
    return data["questions"]


def _check_lists(job: RankerJob, work: Path, store: Path | None, progress) -> tuple[list, list, list | None]:
    """The lists of the questions the parent answered in `job.check_report` (each as the eval asked it: the key's
    language), built into the work folder like the others; (made, featured, report questions), empty without one."""
    from nl2sparql.data.outside import read_outside
    from nl2sparql.errors import DatasetError
    from nl2sparql.optimize.ranker.examples import Question, build_lists

    if not job.check_report:
        return [], [], None
    if not job.outside:
        raise DatasetError("--check-report needs --outside: the pairs whose check half the report answered")
    report = _read_report(Path(job.check_report), None)
    records = {r.id: r for r in read_outside([Path(p) for p in job.outside], "check")}
    questions = []
    for q in report:
        record, language = records.get(q["id"]), q.get("language", "it")
        if record is None:
            raise DatasetError(f"{job.check_report} answers {q['id']}, not in the check half of the --outside pairs")
        text = record.question_it if language == "it" else record.question_en
        questions.append(Question(f"{record.id}:{language}", "outside-check", text, record.sparql,
                                  record.answer_variables))
    path = work / "outside-check-eval.jsonl"
    task = progress.add_task("check lists", total=len(questions)) if progress else None
    for _ in build_lists(questions, path, store):
        if progress:
            progress.advance(task)
    keys = {q.key for q in questions}
    made, featured = load_featured(path, dev_view)
    chosen = [(m, f) for m, f in zip(made, featured) if m["key"] in keys]
    return [m for m, _ in chosen], [f for _, f in chosen], report

