"""`nl2sparql optimize run`: compile the program (or fine-tune the local model) into a new version."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.paths import HOME_ENV
from nl2sparql.serve.commands.options import make_console, store_option


@click.group()
def optimize() -> None:
    """Compile the program with a DSPy optimizer and save it as a new version."""


@optimize.command("run")
@click.option("--optimizer", type=click.Choice(["bootstrap", "random-search", "mipro", "gepa", "finetune", "ranker"]),
              default=None,
              help="DSPy optimizer: few-shot bootstrap (the default), bootstrap + random search, MIPROv2, GEPA; "
                   "finetune: a LoRA adapter for the local model's generate step, trained on the train split (CPU by "
                   "default); or ranker: the --from version plus a ranker over the plans the enumerator proposes, "
                   "trained on CPU (minutes). With --resume and no --optimizer: whichever job was interrupted.")
@click.option("--lm", default=None, help="Student model (default local/qwen-1.5b; any litellm id).")
@click.option("--teacher-lm", "--reflection-lm", "teacher_lm", default=None,
              help="Teacher for bootstrapping, or reflection LM for GEPA (default: the student).")
@click.option("--train", "train_split", default="train", show_default=True, help="Split to compile on.")
@click.option("--dev", "dev_split", default="dev", show_default=True, help="Split to score parent and result on.")
@click.option("--budget", default="light", show_default=True, help="light, medium, heavy, or a number of metric calls.")
@click.option("--seed", type=int, default=13, show_default=True)
@click.option("--threads", type=int, default=1, show_default=True, help="Parallel metric calls (1 for the local LM).")
@click.option("--train-limit", type=int, default=None, help="Use only the first N train records.")
@click.option("--dev-limit", type=int, default=None, help="Score on only the first N dev records.")
@click.option("--val-limit", type=int, default=12, show_default=True,
              help="MIPRO/GEPA: choose among candidates on the next N train records (never on dev).")
@click.option("--from", "parent", default="uncompiled", show_default=True,
              help="Version to start from (finetune: a fine-tuned version whose adapter training continues).")
@click.option("--resume", is_flag=True, help="Continue the interrupted compile or fine-tune with its settings: a "
                                             "fine-tune from its last checkpoint, a compile with the LM calls it "
                                             "made answered from DSPy's cache.")
@click.option("--tracking-uri", default=None, help=f"MLflow tracking URI (default: sqlite under ${HOME_ENV}).")
@click.option("--rank", type=int, default=16, show_default=True, help="finetune: LoRA rank (alpha is twice it).")
@click.option("--learning-rate", type=float, default=None,
              help="finetune: AdamW learning rate (default 3e-4); ranker: Adam's (default 0.01).")
@click.option("--epochs", type=int, default=None, help="Passes over the train examples (finetune: 1, ranker: 20).")
@click.option("--device", default="cpu", show_default=True, help="finetune: torch device (cuda where one exists).")
@click.option("--synth", "synth", type=click.Path(path_type=Path, exists=True), default=None,
              help="finetune: a 'data synth' folder or JSONL whose pairs join the train examples.")
@click.option("--synth-ratio", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="finetune: synthetic pairs per curated train record.")
@click.option("--synth-wordings", type=click.Choice(["both", "one"]), default="both", show_default=True,
              help="finetune: every wording of each synthetic pair (Italian, English, paraphrases), or one language "
                   "per pair, Italian and English in turn (twice the pairs for the same tokens).")
@click.option("--compact-prompt", is_flag=True,
              help="finetune: train (and later ask) the generate step with the compact prompt: the task in one "
                   "paragraph, no field descriptions, empty inputs left out (about a third of the tokens).")
@click.option("--followup-mode", type=click.Choice(["rewrite", "chat", "both", "none"]), default="both",
              show_default=True,
              help="finetune: how the train follow-up chains teach follow-ups: as rewrites into a standalone question, "
                   "as generate reading the earlier turns itself (ProgramSettings.followup_mode chat), both, or "
                   "none (single questions only: a version meant for 'artifacts pair' with another's follow-ups).")
@click.option("--dev-report", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="ranker: the --from version's `eval run` report on dev; the thresholds are chosen by replaying the "
                   "choice on its answers (without it: by the ranker's precision on dev).")
@click.option("--check-report", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="ranker: the --from version's `eval run` report on the check half of the --outside pairs (a .jsonl "
                   "split of those records); the thresholds are replayed on its answers and dev's together.")
@click.option("--negatives", is_flag=True,
              help="ranker: also train on the gold plan's one-block changes (measured on dev: they lowered top-1).")
@click.option("--paraphrases", is_flag=True,
              help="ranker: also train on the curated paraphrases of the train questions (other wordings, same gold).")
@click.option("--outside", "outside", type=click.Path(path_type=Path, exists=True), multiple=True,
              help="ranker: also train on the design half of pairs written outside the project (bench/outside: "
                   "files or folders; repeat the option); their check half is never trained on.")
@click.option("--ensemble", default="", metavar="SEEDS",
              help="ranker: more seeds, comma-separated (e.g. 7,21); one ranker is trained per seed, --seed's too, "
                   "and the version's ranker is their average (minutes more per seed).")
@click.option("--plan-share", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="ranker: the least share of dev questions the chosen thresholds answer from ranked plans alone, "
                   "without an LM call (above one half, the median question needs no generation); 0: the most "
                   "accurate thresholds on dev, however often they ask the generator.")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print the new version's manifest as JSON.")
def optimize_run(optimizer: str | None, lm: str | None, teacher_lm: str | None, train_split: str, dev_split: str,
                 budget: str, seed: int, threads: int, train_limit: int | None, dev_limit: int | None,
                 val_limit: int, parent: str, resume: bool, tracking_uri: str | None, rank: int, learning_rate: float,
                 epochs: int, device: str, synth: Path | None, synth_ratio: float, synth_wordings: str,
                 compact_prompt: bool, followup_mode: str, dev_report: Path | None, check_report: Path | None,
                 negatives: bool,
                 paraphrases: bool, outside: tuple[Path, ...], ensemble: str, plan_share: float,
                 store_path: Path | None, as_json: bool) -> None:
    """Compile, score parent and compiled program on dev side by side, and write a new version.

    \b
    nl2sparql optimize run --optimizer bootstrap --budget light
    nl2sparql optimize run --optimizer gepa --lm openai/gpt-4.1-mini --budget 200
    nl2sparql optimize run --optimizer finetune --lm local/qwen-0.5b      # ~1 h on 2 cores; Ctrl-C, then --resume
    """
    from nl2sparql.optimize.compile import CompileConfig
    from nl2sparql.optimize.run import interrupted_job, pending_config, run_compile, side_by_side

    optimizer = optimizer or (interrupted_job() if resume else "bootstrap")
    if optimizer == "ranker":
        _ranker(parent, train_split, dev_split, synth, train_limit, dev_limit, epochs, learning_rate, seed, resume,
                store_path, tracking_uri, as_json, dev_report, negatives, paraphrases, outside,
                plan_share=plan_share, ensemble=_seeds(ensemble), check_report=check_report)
        return
    learning_rate = 3e-4 if learning_rate is None else learning_rate
    epochs = 1 if epochs is None else epochs
    if optimizer == "finetune":
        _finetune(lm, teacher_lm, train_split, dev_split, seed, train_limit, dev_limit, resume, tracking_uri, rank,
                  learning_rate, epochs, device, store_path, as_json, synth, synth_ratio, compact_prompt, followup_mode,
                  parent, synth_wordings)
        return

    config = CompileConfig(optimizer=optimizer, lm=lm, teacher_lm=teacher_lm, train_split=train_split,
                           dev_split=dev_split, budget=budget, seed=seed, threads=threads, train_limit=train_limit,
                           dev_limit=dev_limit, val_limit=val_limit, parent=parent)
    if resume:
        config = pending_config()
    config.budget_level()
    version, result = run_compile(config, store=store_path, tracking_uri=tracking_uri,
                                  console=make_console(stderr=True))
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    make_console().print(side_by_side(result, config.parent, version.name, version.path))


def _ranker(parent, train_split, dev_split, synth, train_limit, dev_limit, epochs, learning_rate, seed, resume,
            store_path, tracking_uri, as_json, dev_report=None, negatives=False, paraphrases=False,
            outside: tuple[Path, ...] = (), *, plan_share: float, ensemble: tuple[int, ...] = (),
            check_report: Path | None = None) -> None:
    from rich.progress import Progress
    from rich.table import Table

    from nl2sparql.optimize.ranker.job import RankerJob, run_ranker_job
    from nl2sparql.paths import resolve

    job = RankerJob(parent="latest" if parent == "uncompiled" else parent, train_split=train_split,
                    dev_split=dev_split, synth=str(synth) if synth else None, train_limit=train_limit,
                    dev_limit=dev_limit, epochs=RankerJob.epochs if epochs is None else epochs,
                    learning_rate=RankerJob.learning_rate if learning_rate is None else learning_rate, seed=seed,
                    dev_report=str(dev_report) if dev_report else None, negatives=negatives,
                    paraphrases=paraphrases, outside=tuple(str(p) for p in outside), plan_share=plan_share,
                    check_report=str(check_report) if check_report else None,
                    ensemble=ensemble)
    paths = resolve()
    with Progress(console=make_console(stderr=True), transient=True) as progress:
        version, figures = run_ranker_job(job, home=paths.home, root=paths.artifacts, store=store_path,
                                          tracking_uri=tracking_uri, resume=resume, progress=progress)
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    table = Table("dev (enumerated candidates)", "share", title=f"{version.name} written to {version.path}")
    for label, value in (("some candidate right (oracle)", figures.oracle),
                         ("enumerator's first candidate right", figures.enumerator_first),
                         ("ranker's first candidate right", figures.ranker_top1),
                         (f"answered without the generator (p ≥ {figures.accept:g})", figures.accepted_share),
                         ("… and right there", figures.accepted_precision),
                         ("the choice replayed on the parent's dev answers", figures.replayed),
                         ("the parent alone on the same questions", figures.parent_right),
                         ("outside check half: the choice replayed there", figures.check_replayed),
                         ("outside check half: the parent alone", figures.check_parent_right)):
        if value is not None:
            table.add_row(label, f"{value:.3f}")
    make_console().print(table)


def _seeds(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of integers", param_hint="--ensemble") \
            from None


def _finetune(lm, teacher_lm, train_split, dev_split, seed, train_limit, dev_limit, resume, tracking_uri, rank,
              learning_rate, epochs, device, store_path, as_json, synth=None, synth_ratio=1.0,
              compact_prompt=False, followup_mode="both", parent="uncompiled", synth_wordings="both") -> None:
    from nl2sparql.optimize.finetune.job import pending_finetune, run_finetune
    from nl2sparql.optimize.finetune.lora import LoraSettings
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    settings = LoraSettings(rank=rank, alpha=2 * rank, learning_rate=learning_rate, epochs=epochs, seed=seed,
                            device=device)
    config = FinetuneConfig(lm=lm or "local/qwen-0.5b", teacher_lm=teacher_lm, train_split=train_split,
                            dev_split=dev_split, train_limit=train_limit, dev_limit=dev_limit, lora=settings,
                            synth=str(synth) if synth else None, synth_ratio=synth_ratio, synth_wordings=synth_wordings,
                            compact_prompt=compact_prompt, followups=followup_mode != "none",
                            followup_mode="rewrite" if followup_mode == "none" else followup_mode,
                            init_from=None if parent == "uncompiled" else parent)
    if resume:
        config = pending_finetune()
    version, tried = run_finetune(config, resume=resume, store=store_path, tracking_uri=tracking_uri,
                                  console=make_console(stderr=True))
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    from rich.table import Table

    table = Table("dev", *tried, title=f"{version.name} written to {version.path} "
                                       f"(generate step: {'with' if version.manifest['program_settings']['use_examples'] else 'without'} examples)")
    for key in ("execution_accuracy", "mean_f1", "valid_sparql_rate", "lm_calls_per_question",
                "prompt_tokens_per_question", "p50_seconds"):
        table.add_row(key, *(f"{scores.get(key, 0.0):.3f}" for scores in tried.values()))
    make_console().print(table)


@optimize.command("soup")
@click.argument("versions", nargs=-1, required=True)
@click.option("--weights", default=None, help="One weight per version, summing to 1 (default: equal).")
@click.option("--note", default=None, help="The new manifest's note (default: the versions and weights).")
@click.option("--json", "as_json", is_flag=True, help="Print the new version's manifest as JSON.")
def optimize_soup(versions: tuple[str, ...], weights: str | None, note: str | None, as_json: bool) -> None:
    """A new version whose adapter is the weighted mean of VERSIONS' fine-tuned adapters (nothing is retrained).

    \b
    The mean of LoRA updates is written exactly as one adapter of their summed rank; the new version keeps the
    first version's program, settings and follow-up adapter. The adapters must share one base model and prompt.
    Score it before shipping: python bench/eval.py --versions vA,vNEW --splits dev
    Example: nl2sparql optimize soup v11 v16
    """
    from nl2sparql.optimize.finetune.soup import describe_soup, parse_weights, soup_versions

    version = soup_versions(list(versions), parse_weights(weights, len(versions)), note=note)
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    click.echo(f"{version.name}: adapter soup {describe_soup(version.manifest['soup'])}, "
               f"rank {version.manifest['adapter']['rank']} ({version.path})")
