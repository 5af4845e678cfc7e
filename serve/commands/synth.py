"""`nl2sparql data synth`: synthetic training pairs from the knowledge base, and their counts."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.serve.commands.options import make_console, store_option

SYNTH_TIMEOUT_S = 5.0  # a candidate slower than this is dropped: a training pair should answer quickly
SYNTH_ROW_CAP = 200    # above the readable-list cap, so a long answer is seen as long without being read whole


@click.group("synth", invoke_without_command=True)
@click.option("--n", "n", type=click.IntRange(min=1), default=100, show_default=True, help="How many pairs to keep.")
@click.option("--seed", type=int, default=1, show_default=True, help="Same seed and store: same pairs.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Folder for synth.jsonl and manifest.json (default: synth/seed-S in the nl2sparql home, "
                   "~/.nl2sparql unless set).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=SYNTH_TIMEOUT_S, show_default=True,
              help="Seconds a candidate may run; slower ones are dropped (raise it on a busy machine).")
@click.option("--grammar/--no-grammar", default=True, show_default=True,
              help="Keep only queries the local model's SPARQL grammar accepts (needs llama-cpp-python).")
@click.option("--paraphrase", "share", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Share of the pairs the local model rewords (a rewording that loses a slot value is dropped).")
@click.option("--lm", default="local/qwen-0.5b", show_default=True, help="The model that rewords.")
@click.option("--chains", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also this many two-turn follow-up chains (a list, then 'how many?', 'only the verbs', 'the "
                   "first k'…), written to chains.jsonl for the fine-tune's follow-up examples.")
@store_option
@click.pass_context
def synth(ctx: click.Context, n: int, seed: int, out_dir: Path | None, timeout_s: float, grammar: bool, share: float,
          lm: str, chains: int, store_path: Path | None) -> None:
    """Generate pairs from the schema and the KB, run each, keep the meaningful ones, write them with a manifest."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.progress import Progress

    from nl2sparql.data.synth.engine import synthesize, write_synth
    from nl2sparql.data.synth.pools import open_pools
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig
    from nl2sparql.paths import resolve

    out_dir = out_dir or resolve().home / "synth" / f"seed-{seed}"
    console = make_console(stderr=True)
    with EmbeddedEndpoint(EndpointConfig(store_path=store_path, timeout_s=timeout_s, row_cap=SYNTH_ROW_CAP,
                                         cache_size=0)) as endpoint, Progress(console=console, transient=True) as bar:
        task = bar.add_task("sampling the knowledge base", total=n)
        accepts = _grammar(console) if grammar else None
        report = synthesize(endpoint, n, seed, pools=open_pools(store_path), accepts=accepts,
                            progress=lambda kept: _progress(bar, task, console, kept, n))
        if share > 0:
            report.paraphrase = _paraphrase(report.records, share, seed, lm, bar)
        if chains and not report.interrupted:
            from nl2sparql.data.synth.engine import synthesize_chains

            chain_task = bar.add_task("follow-up chains", total=chains)
            report.chains, _ = synthesize_chains(
                endpoint, chains, seed, pools=open_pools(store_path), accepts=accepts,
                progress=lambda kept: bar.update(chain_task, completed=kept))
        path, manifest = write_synth(report, out_dir, endpoint.fingerprint())
    click.echo(f"kept {manifest['kept']} of {manifest['attempts']} candidates in {manifest['seconds']} s "
               f"(seed {seed}) -> {path}")
    if manifest.get("chains"):
        shapes = ", ".join(f"{k} {v}" for k, v in manifest["chains"]["shapes"].items())
        click.echo(f"follow-up chains: {manifest['chains']['kept']} ({shapes}) -> {path.parent / 'chains.jsonl'}")
    if manifest.get("paraphrase"):
        done = manifest["paraphrase"]
        click.echo(f"paraphrases: {done['outcome']} ({done['per_minute']} a minute with {lm})")
    _print_counts(manifest)


def _progress(bar, task, console, kept: int, n: int) -> None:
    bar.update(task, completed=kept, description="kept pairs")
    if not console.is_terminal and (kept % 100 == 0 or kept == n):  # a log file gets a line now and then
        console.print(f"kept {kept} of {n} pairs")


def _paraphrase(records: list[dict], share: float, seed: int, lm: str, bar) -> dict:
    from nl2sparql.data.synth.paraphrase import paraphrase_records
    from nl2sparql.modules.lm import resolve_lm
    from nl2sparql.modules.paraphrase import paraphraser

    reword = paraphraser(resolve_lm(lm, temperature=0.0, max_tokens=96, cache=False))
    task = bar.add_task("rewording", total=round(len(records) * share) or None)
    return paraphrase_records(records, reword, share, seed, progress=lambda done: bar.update(task, completed=done))


def _grammar(console):
    """The grammar check of modules/grammar.py over the small model's vocabulary, or None (with a note) without it."""
    try:
        from llama_cpp import Llama
    except ImportError:
        console.print("note: llama-cpp-python is not installed, so queries are not checked against the grammar")
        return None
    from nl2sparql.modules.grammar import GrammarChecker, catalog_grammar
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble

    from llama_cpp._utils import suppress_stdout_stderr

    with suppress_stdout_stderr(disable=False):  # llama.cpp notes on the context size, irrelevant to a vocabulary
        llama = Llama(model_path=str(assemble(LOCAL_MODELS["qwen-0.5b"])), vocab_only=True, verbose=False)
        checker = GrammarChecker(llama, catalog_grammar())
    return lambda query: checker.accepts(f"[[ ## sparql ## ]]\n{query.strip()}\n\n[[ ## completed ## ]]")


@synth.command("stats")
@click.argument("folder", type=click.Path(path_type=Path, exists=True), required=False)
@click.option("--seed", type=int, default=1, show_default=True, help="Which default folder, when none is given.")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def synth_stats(folder: Path | None, seed: int, as_json: bool) -> None:
    """Pairs per operator, resource, form, generator and pattern of a synth folder (or its JSONL file)."""
    from nl2sparql.data.synth.engine import counts_of, read_synth
    from nl2sparql.errors import DatasetError
    from nl2sparql.paths import resolve

    folder = folder or resolve().home / "synth" / f"seed-{seed}"
    try:
        records = read_synth(folder)
    except (OSError, json.JSONDecodeError) as error:
        raise DatasetError(f"cannot read synthetic pairs from {folder}: {error}") from None
    manifest = {"kept": len(records), "counts": counts_of(records)}
    if as_json:
        click.echo(json.dumps(manifest, indent=2, ensure_ascii=False))
        return
    click.echo(f"{len(records)} pairs in {folder}")
    _print_counts(manifest)


def _print_counts(manifest: dict) -> None:
    from rich.table import Table

    console = make_console()
    for name, counts in manifest["counts"].items():
        table = Table(title=f"pairs per {name}")
        table.add_column(name)
        table.add_column("pairs", justify="right")
        for key, value in counts.items():
            table.add_row(key, str(value))
        console.print(table)
    if manifest.get("rejected"):
        table = Table(title="candidates not kept")
        table.add_column("why")
        table.add_column("candidates", justify="right")
        for key, value in manifest["rejected"].items():
            table.add_row(key, str(value))
        console.print(table)
