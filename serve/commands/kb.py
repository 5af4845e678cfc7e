"""`nl2sparql kb`: build the embedded LiITA store, inspect it, query it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.paths import HOME_ENV
from nl2sparql.serve.commands.options import make_console, store_option


@click.group()
def kb() -> None:
    """The knowledge base: build the embedded LiITA store, inspect it, query it."""


@kb.command("build")
@click.option("--source", type=click.Path(path_type=Path), default=None,
              help="LiITA open-data folder (default: ../shared/liita beside the repository).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help=f"Where the store goes (default: ${HOME_ENV}/kb or ~/.nl2sparql/kb).")
@click.option("--json", "as_json", is_flag=True, help="Print the build manifest as JSON.")
def kb_build(source: Path | None, out: Path | None, as_json: bool) -> None:
    """Build the embedded store from real open data (atomic: a failed build keeps the old store)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from nl2sparql.kb.build.store import STEPS, build_store, default_source
    from nl2sparql.kb.endpoint import default_store_path

    source = source or default_source()
    out = out or default_store_path()
    with Progress(TextColumn("{task.description:<18}"), BarColumn(), TimeElapsedColumn(),
                  transient=as_json, disable=as_json, console=make_console(stderr=True)) as bar:
        task = bar.add_task("building", total=len(STEPS))

        def step(name: str) -> None:
            bar.update(task, description=name, completed=STEPS.index(name) + 1)

        manifest = build_store(source, out, progress=step)
    if as_json:
        click.echo(json.dumps(manifest, indent=2, ensure_ascii=False))
    else:
        click.echo(f"built {out} in {manifest['build_seconds']} s (fingerprint {manifest['fingerprint']})")


@kb.command("stats")
@store_option
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

    make_console().print(stats_table(manifest))


@kb.command("query")
@click.argument("query_file", type=click.File("rb"))
@store_option
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@click.option("--timeout", "timeout_s", type=float, default=30.0, show_default=True, help="Seconds before the query is stopped.")
@click.option("--row-cap", type=int, default=10_000, show_default=True, help="Rows kept before the result is truncated.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (= --format json).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv"]), default="table", show_default=True,
              help="table: for people; json: with notes; csv/tsv: the values (IRIs in full), to save.")
def kb_query(query_file, store_path: Path | None, url: str | None, timeout_s: float, row_cap: int,
             as_json: bool, fmt: str) -> None:
    """Run a read-only SPARQL query from QUERY_FILE ('-' reads standard input).

    \b
    nl2sparql kb query query.rq --format csv > rows.csv
    """
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
    if as_json or fmt == "json":
        click.echo(json.dumps({**result.to_json(), "notes": [note] if note else []}, indent=2, ensure_ascii=False))
        return
    if fmt in ("csv", "tsv"):
        from nl2sparql.kb.export import delimited, result_rows

        if note or result.truncated:
            make_console(stderr=True).print(f"[yellow]{note or 'truncated'}[/yellow]")
        click.echo(delimited(*result_rows(result), fmt), nl=False)
        return
    from nl2sparql.kb.tables import result_table

    console = make_console()
    if note:
        make_console(stderr=True).print(f"[yellow]{note}[/yellow]")
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
