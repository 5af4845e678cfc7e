"""`nl2sparql chat`: a conversation in the terminal, each follow-up read against the answers before it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import click

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.serve.commands.options import make_console, program_options, store_option

HELP = ("/new starts a new conversation, /sparql shows the last query, /save FILE writes the conversation as JSON, "
        "/help shows this; Ctrl-D leaves.")


@click.command("chat")
@click.option("--version", "version", default="latest", show_default=True,
              help="Compiled version to use: latest, vN, a tag, or 'uncompiled'.")
@click.option("--lm", default=None, help="Model: local/qwen-1.5b (default, offline), local/qwen-0.5b, or a litellm id.")
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@store_option
@program_options
@click.option("--rows", "max_rows", type=int, default=20, show_default=True, help="Rows shown in each table.")
def chat_command(version: str, lm: str | None, url: str | None, store_path: Path | None, overrides: dict,
                 max_rows: int) -> None:
    """Ask questions one after another; follow-ups ("e quanti sono?", "only the verbs") build on the last answer.

    \b
    nl2sparql chat
    › Quali parole ELITA esprimono tristezza?
    › E quante sono?
    """
    import readline  # noqa: F401  (line editing and in-session history for input(); nothing is written to disk)

    from nl2sparql.artifacts.load import load
    from nl2sparql.modules.lm import preflight

    with load(version, lm=lm, endpoint_url=url, store=store_path, overrides=overrides) as program:
        preflight(program)  # a model that would crash this process is one red line instead
        chat_loop(program.conversation(), make_console(), max_rows=max_rows)


def chat_loop(conversation, console, read: Callable[[str], str] = input, max_rows: int = 20) -> None:
    """Read questions and commands until end of input; an error ends the turn, not the conversation."""
    console.print(f"[dim]{HELP}[/dim]")
    while True:
        try:
            line = read("› ").strip()
        except EOFError:
            console.print()
            return
        except KeyboardInterrupt:
            console.print()
            continue
        if not line:
            continue
        if line.startswith("/"):
            _command(conversation, console, line)
            continue
        try:
            with console.status("thinking…"):
                out = conversation.ask(line)
        except Nl2SparqlError as error:
            console.print(f"[red]error: {' '.join(str(error).split())}[/red]")
            continue
        print_turn(console, out, max_rows)


def _command(conversation, console, line: str) -> None:
    from rich.syntax import Syntax

    name, _, argument = line.partition(" ")
    if name == "/new":
        conversation.new()
        console.print("[dim]new conversation[/dim]")
    elif name == "/sparql":
        console.print(Syntax(conversation.last_sparql, "sparql", word_wrap=True) if conversation.last_sparql
                      else "[dim](no query yet)[/dim]")
    elif name == "/save" and argument.strip():
        path = Path(argument.strip()).expanduser()
        try:
            conversation.save(path)
        except OSError as error:
            console.print(f"[red]error: cannot write {path}: {error.strerror}[/red]")
            return
        console.print(f"[dim]saved {len(conversation.turns)} turns to {path}[/dim]")
    else:
        console.print(f"[dim]{HELP}[/dim]")


def print_turn(console, out, max_rows: int) -> None:
    """One answer, as `ask` prints it, after what the follow-up was taken to mean."""
    from nl2sparql.serve.commands.ask import print_answer

    if out.get("built_on") is not None:
        console.print(f"[dim]→ {out.standalone_question}[/dim]")
    print_answer(console, out, max_rows)
