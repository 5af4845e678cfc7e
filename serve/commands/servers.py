"""`nl2sparql mcp serve` and `nl2sparql web`: the MCP server and the web page over one toolbox."""

from __future__ import annotations

from pathlib import Path

import click

from nl2sparql.serve.commands.options import lm_server_option, program_options, store_option


def _serving_options(func):
    """The options the MCP server and the web page share: which version answers, with which LM, on which KB."""
    options = [
        click.option("--version", "version", default="latest", show_default=True,
                     help="Compiled version that translates: latest, vN, a tag, shipped or uncompiled."),
        click.option("--lm", default=None, help="Model for translations (default: local/qwen-1.5b, offline)."),
        click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the "
                                                              "embedded store."),
        lm_server_option,
        store_option,
        program_options,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def serving_toolbox(version: str, lm: str | None, url: str | None, store_path: Path | None,
                    overrides: dict | None = None, lm_server: str | None = None):
    """The toolbox behind `web` and `mcp serve`: the version with its own settings, changed only by the flags
    the user gave (as `ask` and `chat` do)."""
    from nl2sparql.artifacts.store import effective_name
    from nl2sparql.serve.tools import Toolbox, ToolboxConfig

    effective_name(version)  # an unknown version is refused now, not at the first question
    return Toolbox(ToolboxConfig(version=version, lm=lm, endpoint_url=url, store=store_path,
                                 overrides=dict(overrides or {}), lm_server=lm_server))


def _warn(message: str | None) -> None:
    if message:
        click.secho(f"warning: translations will fail: {message}", fg="yellow", err=True)


@click.group()
def mcp() -> None:
    """Serve the pipeline to assistants over the Model Context Protocol."""


@mcp.command("serve")
@_serving_options
@click.option("--transport", type=click.Choice(["stdio", "streamable-http"]), default="stdio", show_default=True,
              help="stdio for a client that starts the server itself (Claude Desktop, IDEs); streamable-http "
                   "to serve on --host/--port.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8765, show_default=True)
def mcp_serve(version: str, lm: str | None, url: str | None, lm_server: str | None, store_path: Path | None,
              overrides: dict, transport: str, host: str, port: int) -> None:
    """Run the MCP server: tools translate, analyze_patterns, retrieve_examples, search_ontology,
    get_constraints, validate_sparql, execute_sparql, fix_case_filters, check_variable_reuse; resources
    nl2sparql://ontology, nl2sparql://constraints/base, nl2sparql://config. Components load on first use.

    Register it in a client with the command `nl2sparql mcp serve` (see serve/README.md)."""
    from nl2sparql.serve.mcp import serve

    toolbox = serving_toolbox(version, lm, url, store_path, overrides, lm_server)
    _warn(toolbox.preflight())
    serve(toolbox, transport, host, port)


@click.command("web")
@_serving_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (this machine only "
                                                                      "by default).")
@click.option("--port", type=int, default=7860, show_default=True)
def web_command(version: str, lm: str | None, url: str | None, lm_server: str | None, store_path: Path | None,
                overrides: dict, host: str, port: int) -> None:
    """Serve the web page: Translate (question → SPARQL, readable answer, rows, attempts), Analyze, Search
    ontology, Run SPARQL, Compare versions (saved evaluation reports and their chart)."""
    from nl2sparql.serve.web import build_app, launch

    toolbox = serving_toolbox(version, lm, url, store_path, overrides, lm_server)
    _warn(toolbox.preflight())
    click.echo(f"nl2sparql web on http://{host}:{port} (Ctrl-C stops it)", err=True)
    try:
        launch(build_app(toolbox), host, port)
    finally:
        toolbox.close()


@click.group("lm")
def lm_group() -> None:
    """A shared language-model server for many front ends."""


@lm_group.command("serve")
@click.option("--version", "version", default="latest", show_default=True,
              help="The fine-tuned version whose adapter(s) to serve (a version without one: the base --lm).")
@click.option("--lm", default=None, help="The base local model for a version without an adapter (default "
                                         "local/qwen-1.5b).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (this machine only by "
                                                                      "default).")
@click.option("--port", type=int, default=8010, show_default=True)
@click.option("--threads", type=int, default=None, help="CPU threads for generation (default: all cores).")
def lm_serve(version: str, lm: str | None, host: str, port: int, threads: int | None) -> None:
    """Serve a version's model through llama-cpp-python's OpenAI-compatible server.

    Each adapter is served under an alias that names the version and the adapter's checksum; front ends reach it
    with --lm-server URL (ask, chat, web, mcp serve, eval run) or nl2sparql.load(..., lm_server=URL), and refuse a
    server that does not serve their version's adapter.

    \b
    nl2sparql lm serve --version v14 &
    nl2sparql web --version v14 --lm-server http://127.0.0.1:8010
    """
    from nl2sparql.serve.lm_server import build_app, serve, served_models

    models = served_models(version, lm)
    app = build_app(models, host, port, threads)  # loads the first model now: a broken one fails before listening
    click.echo(f"nl2sparql lm serve on http://{host}:{port} (OpenAI-compatible: /v1/chat/completions; Ctrl-C stops "
               "it)", err=True)
    for model in models:
        adapter = f" + {model.lora_path.name}" if model.lora_path else ""
        click.echo(f"  model {model.alias}: {model.model_path.name}{adapter}", err=True)
    serve(app, host, port)
