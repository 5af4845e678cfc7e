"""The `nl2sparql` command: a thin click layer over the Python API."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from nl2sparql.errors import Nl2SparqlError


class _Group(click.Group):
    """Prints our errors as one red line (exit 2); tracebacks only with --debug."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except Nl2SparqlError as error:
            if ctx.find_root().params.get("debug"):
                raise
            click.secho(f"error: {error}", fg="red", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="nl2sparql")
def main(debug: bool) -> None:
    """Turn Italian or English questions into SPARQL over LiITA (Linking Italian).

    Start with `nl2sparql kb build` (builds the embedded knowledge base), then
    `nl2sparql kb stats` and `nl2sparql kb query FILE`.
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
@click.argument("query_file", type=click.File("r", encoding="utf-8"))
@_store_option
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@click.option("--timeout", "timeout_s", type=float, default=30.0, show_default=True, help="Seconds before the query is stopped.")
@click.option("--row-cap", type=int, default=10_000, show_default=True, help="Rows kept before the result is truncated.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def kb_query(query_file, store_path: Path | None, url: str | None, timeout_s: float, row_cap: int,
             as_json: bool) -> None:
    """Run a read-only SPARQL query from QUERY_FILE ('-' reads standard input)."""
    from nl2sparql.kb.endpoint import EndpointConfig, open_endpoint

    endpoint = open_endpoint(EndpointConfig(url=url, store_path=store_path, timeout_s=timeout_s, row_cap=row_cap))
    try:
        result = endpoint.execute(query_file.read())
    finally:
        endpoint.close()
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return
    from nl2sparql.kb.tables import result_table

    console = _console()
    console.print(result_table(result))
    if result.truncated:
        reason = f"timed out after {timeout_s:g} s" if result.timed_out else f"row cap {row_cap}"
        console.print(f"[yellow]truncated: {reason}[/yellow]")


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
