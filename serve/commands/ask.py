"""`nl2sparql retrieve` and `nl2sparql ask`: what the program sees for a question, and its answer."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.retrieval.language import guess_language
from nl2sparql.serve.commands.options import (dataset_option, lm_server_option, make_console, program_options,
                                              store_option)


@click.command("retrieve")
@click.argument("question")
@dataset_option
@click.option("--split", "splits", multiple=True, default=("train",), show_default=True,
              help="Dataset splits to retrieve examples from (repeatable).")
@click.option("--embedder", type=click.Choice(["e5", "minilm"]), default="e5", show_default=True)
@click.option("--top-k", type=int, default=5, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print patterns, examples and constraints as JSON.")
def retrieve_command(question: str, dataset_dir: Path | None, splits: tuple[str, ...], embedder: str, top_k: int,
                     as_json: bool) -> None:
    """Show the patterns of QUESTION, the closest dataset examples with their scores, and the rules."""
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.paths import resolve
    from nl2sparql.retrieval.constraints import select_constraints
    from nl2sparql.retrieval.hybrid import HybridRetriever, RetrieverConfig
    from nl2sparql.retrieval.patterns import analyze_patterns

    records = [r for r in load_dataset(dataset_dir) if r.split in splits]
    config = RetrieverConfig(embedder=embedder, top_k=top_k, cache_dir=resolve().index)
    analysis = analyze_patterns(question)
    examples = HybridRetriever.build(records, config).retrieve(question, analysis=analysis)
    constraints = select_constraints(set(analysis.labels))
    from nl2sparql.retrieval.tables import retrieval_json, retrieval_view

    if as_json:
        click.echo(json.dumps(retrieval_json(analysis, examples, constraints), indent=2, ensure_ascii=False))
        return
    make_console().print(retrieval_view(analysis, examples, constraints))


@click.command("ask")
@click.argument("question")
@click.option("--version", "version", default="latest", show_default=True,
              help="Compiled version to use: latest, vN, a tag, or 'uncompiled'.")
@click.option("--lm", default=None, help="Model: local/qwen-1.5b (default, offline), local/qwen-0.5b, or any "
                                         "litellm id such as openai/gpt-4.1-mini (key from the environment).")
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@lm_server_option
@store_option
@program_options
@click.option("--rows", "max_rows", type=int, default=20, show_default=True, help="Rows shown in the table.")
@click.option("--json", "as_json", is_flag=True, help="Print SPARQL, rows, attempts and usage as JSON (= --format json).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "tsv"]), default="text", show_default=True,
              help="text: for people; json: everything; csv/tsv: the answer's table alone (labels for IRIs), to save.")
def ask_command(question: str, version: str, lm: str | None, url: str | None, lm_server: str | None,
                store_path: Path | None, overrides: dict, max_rows: int, as_json: bool, fmt: str) -> None:
    """Answer QUESTION (Italian or English): generate SPARQL, run it, repair it if needed.

    \b
    nl2sparql ask "Quali lemmi esprimono tristezza?"
    nl2sparql ask "Which Sicilian words translate 'casa'?" --lm openai/gpt-4.1-mini --json
    nl2sparql ask "Quanti lemmi per emozione in ELITA?" --format csv > emozioni.csv
    """
    from nl2sparql.artifacts.load import load
    from nl2sparql.modules.answer import prediction_json
    from nl2sparql.modules.lm import preflight
    from nl2sparql.modules.question import check_question

    question = check_question(question)  # nothing to translate: one line, before any model loads
    with load(version, lm=lm, endpoint_url=url, store=store_path, overrides=overrides, lm_server=lm_server) as program:
        preflight(program)  # a model that would crash this process is one red line instead
        with make_console(stderr=True).status("analyze…") as status:  # on stderr: --json output stays clean
            out = program(question, progress=_progress(status))
    if as_json or fmt == "json":
        click.echo(json.dumps(prediction_json(out), indent=2, ensure_ascii=False))
        return
    if fmt in ("csv", "tsv"):
        from nl2sparql.errors import Nl2SparqlError
        from nl2sparql.kb.export import delimited
        from nl2sparql.modules.answer import answer_table

        if not out.ok:
            raise Nl2SparqlError(f"no table to write: {out.errors[-1] if out.errors else out.answer}")
        click.echo(delimited(*answer_table(out), fmt), nl=False)
        return
    if not print_answer(make_console(), out, max_rows):
        raise SystemExit(1)


def print_answer(console, out, max_rows: int) -> bool:
    """An answer as a person reads it (also each turn of `chat`): what the question was understood as, then the
    off-topic reply, or notes, query, readable answer, the first rows, the doubt with other readings, and the
    attempts; False when no valid query answered an in-scope question."""
    from rich.markup import escape
    from rich.syntax import Syntax

    from nl2sparql.kb.tables import result_table

    if out.get("understood_as"):
        label = "Inteso come" if guess_language(out.question) == "it" else "Understood as"
        console.print(f"[cyan]{label}:[/cyan] {escape(out.understood_as)}", highlight=False)
    if not out.get("in_scope", True):
        console.print(out.answer, markup=False)
        console.print(f"[dim]off-topic: {out.scope_reason}; {out.seconds:.1f} s[/dim]")
        return True
    for note in out.get("notes", []):
        console.print(f"[yellow]{note}[/yellow]")
    console.print(Syntax(out.sparql or "(no query)", "sparql", word_wrap=True))
    if out.ok:
        console.print(f"[bold]{out.answer}[/bold]")
    if out.result is not None:
        console.print(result_table(_head(out.result, max_rows), out.readable.rows))
        if len(out.result.rows) > max_rows:
            console.print(f"… {len(out.result.rows) - max_rows} more rows (--rows N, or --json)")
    print_doubt(console, out)
    _print_candidates(console, out)
    steps = ", ".join(f"{a.step} → {a.outcome} ({a.lm_seconds + a.exec_seconds:.1f} s)" for a in out.attempts)
    usage = out.usage
    refused = sum(a.grammar_refused for a in out.attempts)
    grammar = (f"; grammar refused {refused} tokens ({sum(a.grammar_seconds for a in out.attempts):.1f} s)"
               if refused else "")
    console.print(f"[dim]attempts: {steps}; LM calls {usage['calls']}, tokens {usage['prompt_tokens']}+"
                  f"{usage['completion_tokens']}; {out.seconds:.1f} s{grammar}[/dim]")
    if not out.ok:
        console.print(f"[red]no valid query: {out.errors[-1] if out.errors else 'unknown failure'}[/red]")
    return out.ok


def print_doubt(console, out) -> None:
    """The doubt line, why an empty answer is empty, and the other readings numbered from 2 (the answer is 1)."""
    from rich.markup import escape

    doubt = out.get("doubt")
    if not doubt:
        return
    console.print(f"[yellow]{escape(doubt['line'])}[/yellow]", highlight=False)
    if doubt["explanation"]:
        console.print(f"[yellow]{escape(doubt['explanation'])}[/yellow]", highlight=False)
    if doubt["alternatives"]:
        italian = guess_language(out.question) == "it"
        console.print("Altre letture (/alt N in chat):" if italian else "Other readings (/alt N in chat):")
        for number, alternative in enumerate(doubt["alternatives"], start=2):
            console.print(f"  {number}. {escape(alternative['reading'])} → {escape(alternative['answer'])}",
                          highlight=False)


def _print_candidates(console, out) -> None:
    """A ranking version's top candidates with their probabilities, and which answered (plan or generator)."""
    from rich.markup import escape

    choice = out.get("choice")
    if not choice:
        return
    lines = [f"{'→' if c['chosen'] else ' '} {c['probability']:.2f}  {c['reading']} ({c['rows']} rows)"
             for c in out.get("candidates", [])]
    console.print("[dim]" + escape("\n".join([f"candidates ({choice['enumeration_seconds']:.1f} s), answered by the "
                                       f"{choice['answered_by']}: {choice['reason']}", *lines])) + "[/dim]",
                  highlight=False)


_PROGRESS = {"doubt": "check an answer that may be wrong", "enumerate": "propose and run query plans",
             "scope": "check the question is about LiITA", "analyze": "analyze the question",
             "generate": "generate the query (local models take a while on CPU)",
             "sample": "sample another query", "run": "run the query", "repair": "repair the query"}


def _progress(status):
    """A progress callback that shows each step of the program, with the seconds since the question began."""
    import time

    started = time.perf_counter()

    def show(step: str) -> None:
        status.update(f"{_PROGRESS.get(step, step)}… [dim]{time.perf_counter() - started:.0f} s in[/dim]")

    return show


def _head(result, n: int):
    from dataclasses import replace

    return replace(result, rows=result.rows[:n])
