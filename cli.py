"""The `nl2sparql` command: a thin click layer over the Python API."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from nl2sparql.errors import ArtifactError, Nl2SparqlError


class _Group(click.Group):
    """Prints our errors as one red line (exit 2); tracebacks only with --debug."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except Nl2SparqlError as error:
            if ctx.find_root().params.get("debug"):
                raise
            message = " ".join(str(error).split())  # one line, whatever the input echoed in it
            click.secho(f"error: {message}", fg="red", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="nl2sparql")
def main(debug: bool) -> None:
    """Turn Italian or English questions into SPARQL over LiITA (Linking Italian).

    \b
    nl2sparql kb build                            build the embedded knowledge base (once)
    nl2sparql ask "Quali lemmi esprimono gioia?"  translate, run, repair, answer
    nl2sparql optimize run                        compile a new version
    nl2sparql eval compare zero-shot latest       compare versions on the test split
    nl2sparql artifacts list                      the compiled versions
    nl2sparql mcp serve / nl2sparql web           tools for assistants, a page for people
    """


@main.group(cls=_Group)
def kb() -> None:
    """The knowledge base: build the embedded LiITA store, inspect it, query it."""


def _store_option(func):
    @click.option("--store", "store_path", type=click.Path(path_type=Path), default=None,
                  help="Embedded store folder (default: $NL2SPARQL_HOME/kb or ~/.nl2sparql/kb).")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@kb.command("build")
@click.option("--source", type=click.Path(path_type=Path), default=None,
              help="LiITA open-data folder (default: ../shared/liita beside the repository).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where the store goes (default: $NL2SPARQL_HOME/kb or ~/.nl2sparql/kb).")
@click.option("--json", "as_json", is_flag=True, help="Print the build manifest as JSON.")
def kb_build(source: Path | None, out: Path | None, as_json: bool) -> None:
    """Build the embedded store from real open data (atomic: a failed build keeps the old store)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from nl2sparql.kb.build.store import STEPS, build_store, default_source
    from nl2sparql.kb.endpoint import default_store_path

    source = source or default_source()
    out = out or default_store_path()
    with Progress(TextColumn("{task.description:<18}"), BarColumn(), TimeElapsedColumn(),
                  transient=as_json, disable=as_json, console=_console(stderr=True)) as bar:
        task = bar.add_task("building", total=len(STEPS))

        def step(name: str) -> None:
            bar.update(task, description=name, completed=STEPS.index(name) + 1)

        manifest = build_store(source, out, progress=step)
    if as_json:
        click.echo(json.dumps(manifest, indent=2, ensure_ascii=False))
    else:
        click.echo(f"built {out} in {manifest['build_seconds']} s (fingerprint {manifest['fingerprint']})")


@kb.command("stats")
@_store_option
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def kb_stats(store_path: Path | None, as_json: bool) -> None:
    """What the embedded store holds: graphs, lemma bank, emotions, polarity, dialects, CompL-it."""
    from nl2sparql.kb.embedded import read_manifest
    from nl2sparql.kb.endpoint import default_store_path

    manifest = read_manifest(store_path or default_store_path())
    if as_json:
        click.echo(json.dumps(manifest, indent=2, ensure_ascii=False))
        return
    from nl2sparql.kb.tables import stats_table

    _console().print(stats_table(manifest))


@kb.command("query")
@click.argument("query_file", type=click.File("rb"))
@_store_option
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@click.option("--timeout", "timeout_s", type=float, default=30.0, show_default=True, help="Seconds before the query is stopped.")
@click.option("--row-cap", type=int, default=10_000, show_default=True, help="Rows kept before the result is truncated.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def kb_query(query_file, store_path: Path | None, url: str | None, timeout_s: float, row_cap: int,
             as_json: bool) -> None:
    """Run a read-only SPARQL query from QUERY_FILE ('-' reads standard input)."""
    from nl2sparql.kb.endpoint import EndpointConfig, open_endpoint

    config = EndpointConfig(url=url, store_path=store_path, timeout_s=timeout_s, row_cap=row_cap)
    query = _read_text(query_file)
    endpoint = open_endpoint(config)
    try:
        result = endpoint.execute(query)
    finally:
        endpoint.close()
    from nl2sparql.kb.guard import check

    note = check(query, config.limits).note  # cached: the guard already read this query
    if as_json:
        click.echo(json.dumps({**result.to_json(), "notes": [note] if note else []}, indent=2, ensure_ascii=False))
        return
    from nl2sparql.kb.tables import result_table

    console = _console()
    if note:
        _console(stderr=True).print(f"[yellow]{note}[/yellow]")
    console.print(result_table(result))
    if result.truncated:
        reason = f"timed out after {timeout_s:g} s" if result.timed_out else f"row cap {row_cap}"
        console.print(f"[yellow]truncated: {reason}[/yellow]")


def _read_text(stream) -> str:
    """A query file's text: UTF-8 (a BOM allowed), or a one-line error."""
    name = getattr(stream, "name", "the query file")
    try:
        return stream.read().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise Nl2SparqlError(f"{name} is not UTF-8 text (byte {error.start}): save the query as UTF-8") from None


@main.group(cls=_Group)
def data() -> None:
    """The curated dataset: check every gold query, count pairs, assign splits."""


def _dataset_option(func):
    @click.option("--dataset", "dataset_dir", type=click.Path(path_type=Path), default=None,
                  help="Folder of *.jsonl dataset files (default: the shipped data/dataset).")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@data.command("check")
@_dataset_option
@_store_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def data_check(dataset_dir: Path | None, store_path: Path | None, as_json: bool) -> None:
    """Run every gold query on the embedded KB; fail (exit 1) with a table of offenders."""
    from rich.progress import track

    from nl2sparql.data.check import check_dataset
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.data.tables import check_tables
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    records = load_dataset(dataset_dir)
    with EmbeddedEndpoint(EndpointConfig(store_path=store_path)) as endpoint:
        bar = iter(track(range(len(records)), description="checking gold", console=_console(stderr=True),
                         disable=as_json, transient=True))
        next(bar, None)
        report = check_dataset(records, endpoint, progress=lambda record: next(bar, None))
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for table in check_tables(report):
            _console().print(table)
    if not report.ok:
        raise SystemExit(1)


@data.command("stats")
@_dataset_option
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def data_stats(dataset_dir: Path | None, as_json: bool) -> None:
    """Pairs per pattern and split, multi-pattern share, languages."""
    from nl2sparql.data.check import pattern_counts
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.data.tables import stats_table

    records = load_dataset(dataset_dir)
    if as_json:
        counts = pattern_counts(records)
        click.echo(json.dumps({"records": len(records), "multi_pattern": sum(len(r.patterns) > 1 for r in records),
                               "counts": counts}, indent=2))
        return
    _console().print(stats_table(records))


@data.command("split")
@_dataset_option
@click.option("--seed", type=int, default=13, show_default=True, help="Seed of the stratified shuffle.")
@click.option("--reassign", is_flag=True, help="Also reassign records that already have train/dev/test.")
def data_split(dataset_dir: Path | None, seed: int, reassign: bool) -> None:
    """Assign train/dev/test to records marked 'auto' and store the splits in the files."""
    from nl2sparql.data.dataset import default_dataset_dir, load_dataset, write_jsonl
    from nl2sparql.data.split import assign_splits

    directory = dataset_dir or default_dataset_dir()
    records = assign_splits(load_dataset(directory), seed=seed, reassign=reassign)
    by_file: dict[str, list] = {}
    for record in records:
        by_file.setdefault(record.source.rsplit(":", 1)[0], []).append(record)
    for name, file_records in by_file.items():
        write_jsonl(directory / name, file_records)
    click.echo(f"assigned splits to {len(records)} records (seed {seed}) in {len(by_file)} files")


@main.command("retrieve")
@click.argument("question")
@_dataset_option
@click.option("--split", "splits", multiple=True, default=("train",), show_default=True,
              help="Dataset splits to retrieve examples from (repeatable).")
@click.option("--embedder", type=click.Choice(["e5", "minilm"]), default="e5", show_default=True)
@click.option("--top-k", type=int, default=5, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print patterns, examples and constraints as JSON.")
def retrieve_command(question: str, dataset_dir: Path | None, splits: tuple[str, ...], embedder: str, top_k: int,
                     as_json: bool) -> None:
    """Show the patterns of QUESTION, the closest dataset examples with their scores, and the rules."""
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.kb.endpoint import default_home
    from nl2sparql.retrieval.constraints import select_constraints
    from nl2sparql.retrieval.hybrid import HybridRetriever, RetrieverConfig
    from nl2sparql.retrieval.patterns import analyze_patterns

    records = [r for r in load_dataset(dataset_dir) if r.split in splits]
    config = RetrieverConfig(embedder=embedder, top_k=top_k, cache_dir=default_home() / "index")
    analysis = analyze_patterns(question)
    examples = HybridRetriever.build(records, config).retrieve(question, analysis=analysis)
    constraints = select_constraints(set(analysis.labels))
    from nl2sparql.retrieval.tables import retrieval_json, retrieval_view

    if as_json:
        click.echo(json.dumps(retrieval_json(analysis, examples, constraints), indent=2, ensure_ascii=False))
        return
    _console().print(retrieval_view(analysis, examples, constraints))


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr)


@main.command("ask")
@click.argument("question")
@click.option("--version", "version", default="latest", show_default=True,
              help="Compiled version to use: latest, vN, a tag, or 'uncompiled'.")
@click.option("--lm", default=None, help="Model: local/qwen-1.5b (default, offline), local/qwen-0.5b, or any "
                                         "litellm id such as openai/gpt-4.1-mini (key from the environment).")
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@_store_option
@click.option("--max-repairs", type=int, default=2, show_default=True, help="LM repair attempts at most.")
@click.option("--rows", "max_rows", type=int, default=20, show_default=True, help="Rows shown in the table.")
@click.option("--json", "as_json", is_flag=True, help="Print SPARQL, rows, attempts and usage as JSON.")
def ask_command(question: str, version: str, lm: str | None, url: str | None, store_path: Path | None,
                max_repairs: int, max_rows: int, as_json: bool) -> None:
    """Answer QUESTION (Italian or English): generate SPARQL, run it, repair it if needed.

    \b
    nl2sparql ask "Quali lemmi esprimono tristezza?"
    nl2sparql ask "Which Sicilian words translate 'casa'?" --lm openai/gpt-4.1-mini --json
    """
    import dataclasses

    from nl2sparql.artifacts.load import load
    from nl2sparql.modules.answer import answer_for, prediction_json

    program = load(version, lm=lm, endpoint=url, store=store_path)  # with the settings the version was made with
    program.settings = dataclasses.replace(program.settings, max_repairs=max_repairs)
    try:
        if as_json:
            out = program(question)
        else:
            with _console(stderr=True).status("thinking (the local model takes a while on CPU)…"):
                out = program(question)
        answer = answer_for(out, program.runtime.endpoint)
    finally:
        program.runtime.close()
    if as_json:
        click.echo(json.dumps(prediction_json(out, answer), indent=2, ensure_ascii=False))
        return
    from rich.syntax import Syntax

    from nl2sparql.kb.tables import result_table

    console = _console()
    for note in out.get("notes", []):
        console.print(f"[yellow]{note}[/yellow]")
    console.print(Syntax(out.sparql or "(no query)", "sparql", word_wrap=True))
    if out.ok:
        console.print(f"[bold]{answer.text}[/bold]")
    if out.result is not None:
        console.print(result_table(_head(out.result, max_rows)))
        if len(out.result.rows) > max_rows:
            console.print(f"… {len(out.result.rows) - max_rows} more rows (--rows N, or --json)")
    steps = ", ".join(f"{a.step} → {a.outcome}" for a in out.attempts)
    usage = out.usage
    console.print(f"[dim]attempts: {steps}; LM calls {usage['calls']}, tokens {usage['prompt_tokens']}+"
                  f"{usage['completion_tokens']}; {out.seconds:.1f} s[/dim]")
    if not out.ok:
        console.print(f"[red]no valid query: {out.errors[-1] if out.errors else 'unknown failure'}[/red]")
        raise SystemExit(1)


def _head(result, n: int):
    from dataclasses import replace

    return replace(result, rows=result.rows[:n])


@main.group(cls=_Group)
def artifacts() -> None:
    """Compiled versions: list them, show a manifest, tag one, remove one (tagged versions are kept)."""


@artifacts.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the versions as JSON.")
def artifacts_list(as_json: bool) -> None:
    """Every compiled version, oldest first, with its tags and dev score."""
    from nl2sparql.artifacts.tables import version_rows, versions_table

    rows = version_rows()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    _console().print(versions_table(rows) if rows else "no compiled versions yet: `nl2sparql optimize run` makes one")


@artifacts.command("show")
@click.argument("version")
def artifacts_show(version: str) -> None:
    """Print the manifest of VERSION (vN, latest, a tag, or shipped) as JSON."""
    from nl2sparql.artifacts.store import SHIPPED, effective_name, open_shipped, open_version

    name = effective_name(version)
    if name == "uncompiled":
        raise ArtifactError("the uncompiled program has no manifest: nothing is compiled or shipped yet")
    manifest = open_shipped().manifest if name == SHIPPED else open_version(name).manifest
    click.echo(json.dumps(manifest, indent=2, ensure_ascii=False))


@artifacts.command("tag")
@click.argument("version")
@click.argument("name")
def artifacts_tag(version: str, name: str) -> None:
    """Give VERSION the tag NAME (moves the tag if it existed)."""
    from nl2sparql.artifacts.store import tag_version

    click.echo(f"{name} → {tag_version(version, name)}")


@artifacts.command("rm")
@click.argument("version")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def artifacts_rm(version: str, yes: bool) -> None:
    """Remove VERSION for good (refused while a tag points at it)."""
    from nl2sparql.artifacts.store import remove_version, resolve_name

    name = resolve_name(version)
    if not yes:
        click.confirm(f"remove {name} for good?", abort=True)
    click.echo(f"removed {remove_version(name)}")


@main.group(cls=_Group)
def optimize() -> None:
    """Compile the program with a DSPy optimizer and save it as a new version."""


@optimize.command("run")
@click.option("--optimizer", type=click.Choice(["bootstrap", "random-search", "mipro", "gepa", "finetune"]),
              default="bootstrap", show_default=True,
              help="DSPy optimizer: few-shot bootstrap, bootstrap + random search, MIPROv2, GEPA; or finetune: a LoRA "
                   "adapter for the local model's generate step, trained on the train split (CPU by default).")
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
@click.option("--from", "parent", default="uncompiled", show_default=True, help="Version to start from.")
@click.option("--resume", is_flag=True, help="Re-run the interrupted compile with its settings; LM calls it already "
                                             "made come from DSPy's cache.")
@click.option("--tracking-uri", default=None, help="MLflow tracking URI (default: sqlite under $NL2SPARQL_HOME).")
@click.option("--rank", type=int, default=16, show_default=True, help="finetune: LoRA rank (alpha is twice it).")
@click.option("--learning-rate", type=float, default=3e-4, show_default=True, help="finetune: AdamW learning rate.")
@click.option("--epochs", type=int, default=1, show_default=True, help="finetune: passes over the train examples.")
@click.option("--device", default="cpu", show_default=True, help="finetune: torch device (cuda where one exists).")
@_store_option
@click.option("--json", "as_json", is_flag=True, help="Print the new version's manifest as JSON.")
def optimize_run(optimizer: str, lm: str | None, teacher_lm: str | None, train_split: str, dev_split: str,
                 budget: str, seed: int, threads: int, train_limit: int | None, dev_limit: int | None,
                 val_limit: int, parent: str, resume: bool, tracking_uri: str | None, rank: int, learning_rate: float,
                 epochs: int, device: str, store_path: Path | None, as_json: bool) -> None:
    """Compile, score parent and compiled program on dev side by side, and write a new version.

    \b
    nl2sparql optimize run --optimizer bootstrap --budget light
    nl2sparql optimize run --optimizer gepa --lm openai/gpt-4.1-mini --budget 200
    nl2sparql optimize run --optimizer finetune --lm local/qwen-0.5b      # ~1 h on 2 cores; Ctrl-C, then --resume
    """
    from nl2sparql.optimize.compile import CompileConfig
    from nl2sparql.optimize.run import pending_config, run_compile, side_by_side

    if optimizer == "finetune":
        _finetune(lm, teacher_lm, train_split, dev_split, seed, train_limit, dev_limit, resume, tracking_uri, rank,
                  learning_rate, epochs, device, store_path, as_json)
        return

    config = CompileConfig(optimizer=optimizer, lm=lm, teacher_lm=teacher_lm, train_split=train_split,
                           dev_split=dev_split, budget=budget, seed=seed, threads=threads, train_limit=train_limit,
                           dev_limit=dev_limit, val_limit=val_limit, parent=parent)
    if resume:
        config = pending_config()
    config.budget_level()
    version, result = run_compile(config, store=store_path, tracking_uri=tracking_uri, console=_console(stderr=True))
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    _console().print(side_by_side(result, config.parent, version.name, version.path))


def _finetune(lm, teacher_lm, train_split, dev_split, seed, train_limit, dev_limit, resume, tracking_uri, rank,
              learning_rate, epochs, device, store_path, as_json) -> None:
    from nl2sparql.optimize.finetune.job import pending_finetune, run_finetune
    from nl2sparql.optimize.finetune.lora import LoraSettings
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    settings = LoraSettings(rank=rank, alpha=2 * rank, learning_rate=learning_rate, epochs=epochs, seed=seed,
                            device=device)
    config = FinetuneConfig(lm=lm or "local/qwen-0.5b", teacher_lm=teacher_lm, train_split=train_split,
                            dev_split=dev_split, train_limit=train_limit, dev_limit=dev_limit, lora=settings)
    if resume:
        config = pending_finetune()
    version, tried = run_finetune(config, resume=resume, store=store_path, tracking_uri=tracking_uri,
                                  console=_console(stderr=True))
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    from rich.table import Table

    table = Table("dev", *tried, title=f"{version.name} written to {version.path} "
                                       f"(generate step: {'with' if version.manifest['program_settings']['use_examples'] else 'without'} examples)")
    for key in ("execution_accuracy", "mean_f1", "valid_sparql_rate", "lm_calls_per_question",
                "prompt_tokens_per_question", "p50_seconds"):
        table.add_row(key, *(f"{scores.get(key, 0.0):.3f}" for scores in tried.values()))
    _console().print(table)


@main.group("eval", cls=_Group)
def eval_group() -> None:
    """Evaluate versions on a split and compare them (paired tests, per-pattern chart)."""


def _eval_options(func):
    for option in reversed([
        click.option("--split", default="test", show_default=True,
                     help="test, dev, generalization, train, or a .jsonl file of records."),
        click.option("--lm", default=None, help="Model (default local/qwen-1.5b; any litellm id)."),
        click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the store."),
        _store_option,
        click.option("--limit", type=int, default=None, help="Only the first N questions of the split."),
        click.option("--force", is_flag=True, help="Re-run even when a report (or a stopped run's journal) for this version/split/LM/KB exists."),
        click.option("--tracking-uri", default=None, help="MLflow tracking URI (default: sqlite under $NL2SPARQL_HOME)."),
    ]):
        func = option(func)
    return func


def _progress_callback(console, total: int):
    from rich.progress import Progress

    progress = Progress(console=console, transient=True)
    task = progress.add_task("questions", total=total)

    def on_result(report):
        summary = report.summary()
        progress.update(task, completed=len(report.questions),
                        description=f"{report.version}: accuracy {summary['execution_accuracy']:.2f}")

    return progress, on_result


@eval_group.command("run")
@click.option("--version", "version", default="latest", show_default=True,
              help="vN, latest, a tag, or a baseline: zero-shot, static-rag, uncompiled.")
@_eval_options
@click.option("--json", "as_json", is_flag=True, help="Print the summary and breakdowns as JSON.")
def eval_run(version: str, split: str, lm: str | None, url: str | None, store_path: Path | None, limit: int | None,
             force: bool, tracking_uri: str | None, as_json: bool) -> None:
    """Run VERSION on every question of the split; save a JSON + Markdown report beside the version.

    Each scored question is journaled as it is scored: a run that is stopped goes on where it was
    when it is started again with the same version, split, LM and KB."""
    from nl2sparql.eval.runner import run_eval, split_records
    from nl2sparql.modules.lm import resolve_lm

    total = len(split_records(split)[:limit])
    progress, on_result = _progress_callback(_console(stderr=True), total)
    with progress:
        report, path, reused = run_eval(version, split, lm=resolve_lm(lm, cache=False), endpoint=url,
                                        store=store_path, force=force, limit=limit, on_result=on_result,
                                        tracking_uri=tracking_uri)
    if as_json:
        data = report.to_json()
        data.pop("questions")
        click.echo(json.dumps({**data, "report": str(path), "reused": reused}, indent=2, ensure_ascii=False))
        return
    from rich.markdown import Markdown

    console = _console()
    console.print(Markdown(report.to_markdown()))
    console.print(f"[dim]{'reused' if reused else 'written'}: {path}[/dim]")


@eval_group.command("compare")
@click.argument("versions", nargs=-1, required=True)
@_eval_options
@click.option("--allow-mismatch", is_flag=True, help="Compare reports made on different splits or KB fingerprints.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Folder for the Markdown report and PNG chart (default: beside the last version's reports).")
@click.option("--so-far", is_flag=True, help="Run nothing: compare what finished reports and the journals of "
                                             "runs still going hold, on the questions all versions have answered.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def eval_compare(versions: tuple[str, ...], split: str, lm: str | None, url: str | None, store_path: Path | None,
                 limit: int | None, force: bool, tracking_uri: str | None, allow_mismatch: bool, out: Path | None,
                 so_far: bool, as_json: bool) -> None:
    """Compare VERSIONS (two or more) on the same split: runs what has no report yet, then tables,
    exact McNemar on exact match, paired bootstrap CI on F1, flipped questions and a chart."""
    from nl2sparql.eval.comparison import compare_reports, write_outputs
    from nl2sparql.eval.runner import report_dir, run_evals, split_records
    from nl2sparql.modules.lm import resolve_lm

    if len(versions) < 2:
        raise Nl2SparqlError("compare needs at least two versions")
    if so_far and force:
        raise Nl2SparqlError("--so-far reads what is there; it cannot be combined with --force")
    total = len(split_records(split)[:limit])
    progress, on_result = _progress_callback(_console(stderr=True), total)
    with progress:  # versions take turns question by question: a stopped compare resumes with all of them level
        reports = [report for report, _, _ in run_evals(
            list(versions), split, lm=resolve_lm(lm, cache=False), endpoint=url, store=store_path, force=force,
            limit=limit, on_result=on_result, tracking_uri=tracking_uri, so_far=so_far)]
    if not reports[0].questions:
        raise Nl2SparqlError("no question has been answered by every version yet: run the compare without --so-far")
    comparison = compare_reports(reports, allow_mismatch=allow_mismatch)
    markdown, chart = write_outputs(comparison, out or report_dir(versions[-1]))
    if as_json:
        click.echo(json.dumps({
            **comparison.to_json(),
            "markdown": str(markdown), "chart": str(chart)}, indent=2, ensure_ascii=False))
        return
    from rich.markdown import Markdown

    console = _console()
    console.print(Markdown(comparison.to_markdown()))
    console.print(f"[dim]report: {markdown}\nchart: {chart}[/dim]")


def _serving_options(func):
    """The options the MCP server and the web page share: which version answers, with which LM, on which KB."""
    options = [
        click.option("--version", "version", default="latest", show_default=True,
                     help="Compiled version that translates: latest, vN, a tag, shipped or uncompiled."),
        click.option("--lm", default=None, help="Model for translations (default: local/qwen-1.5b, offline)."),
        click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the "
                                                              "embedded store."),
        _store_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _toolbox(version: str, lm: str | None, url: str | None, store_path: Path | None):
    from nl2sparql.artifacts.store import effective_name
    from nl2sparql.serve.tools import Toolbox, ToolboxConfig

    effective_name(version)  # an unknown version is refused now, not at the first question
    return Toolbox(ToolboxConfig(version=version, lm=lm, endpoint_url=url, store=store_path))


@main.group(cls=_Group)
def mcp() -> None:
    """Serve the pipeline to assistants over the Model Context Protocol."""


@mcp.command("serve")
@_serving_options
@click.option("--transport", type=click.Choice(["stdio", "streamable-http"]), default="stdio", show_default=True,
              help="stdio for a client that starts the server itself (Claude Desktop, IDEs); streamable-http "
                   "to serve on --host/--port.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8765, show_default=True)
def mcp_serve(version: str, lm: str | None, url: str | None, store_path: Path | None, transport: str, host: str,
              port: int) -> None:
    """Run the MCP server: tools translate, analyze_patterns, retrieve_examples, search_ontology,
    get_constraints, validate_sparql, execute_sparql, fix_case_filters, check_variable_reuse; resources
    nl2sparql://ontology, nl2sparql://constraints/base, nl2sparql://config. Components load on first use.

    Register it in a client with the command `nl2sparql mcp serve` (see serve/README.md)."""
    from nl2sparql.serve.mcp import serve

    serve(_toolbox(version, lm, url, store_path), transport, host, port)


@main.command("web")
@_serving_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (this machine only "
                                                                      "by default).")
@click.option("--port", type=int, default=7860, show_default=True)
def web_command(version: str, lm: str | None, url: str | None, store_path: Path | None, host: str, port: int) -> None:
    """Serve the web page: Translate (question → SPARQL, readable answer, rows, attempts), Analyze, Search
    ontology, Run SPARQL, Compare versions (saved evaluation reports and their chart)."""
    from nl2sparql.serve.web import build_app, launch

    toolbox = _toolbox(version, lm, url, store_path)
    click.echo(f"nl2sparql web on http://{host}:{port} (Ctrl-C stops it)", err=True)
    try:
        launch(build_app(toolbox), host, port)
    finally:
        toolbox.close()


if __name__ == "__main__":
    main(sys.argv[1:])
