"""`nl2sparql chat`: a conversation in the terminal, each follow-up read against the answers before it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import click

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.serve.commands.options import lm_server_option, make_console, program_options, store_option

HELP = ("/new starts a new conversation, /sparql shows the last query, /alt N answers with the other reading N of the "
        "last answer, /save FILE writes the conversation as JSON (FILE.csv or FILE.tsv: the last table), /help shows "
        "this; Ctrl-D leaves.")


@dataclass
class Shown:
    """What the last turn shows: its prediction, and the table on screen (the answer's, or an alternative's)."""

    out: Any = None
    variables: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)


@click.command("chat")
@click.option("--version", "version", default="latest", show_default=True,
              help="Compiled version to use: latest, vN, a tag, or 'uncompiled'.")
@click.option("--lm", default=None, help="Model: local/qwen-1.5b (default, offline), local/qwen-0.5b, or a litellm id.")
@click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the embedded store.")
@lm_server_option
@store_option
@program_options
@click.option("--rows", "max_rows", type=int, default=20, show_default=True, help="Rows shown in each table.")
def chat_command(version: str, lm: str | None, url: str | None, lm_server: str | None, store_path: Path | None,
                 overrides: dict, max_rows: int) -> None:
    """Ask questions one after another; follow-ups ("e quanti sono?", "only the verbs") build on the last answer.

    \b
    nl2sparql chat
    › Quali parole ELITA esprimono tristezza?
    › E quante sono?
    """
    import readline  # noqa: F401  (line editing and in-session history for input(); nothing is written to disk)

    from nl2sparql.artifacts.load import load
    from nl2sparql.modules.lm import preflight

    with load(version, lm=lm, endpoint_url=url, store=store_path, overrides=overrides, lm_server=lm_server) as program:
        preflight(program)  # a model that would crash this process is one red line instead
        chat_loop(program.conversation(), make_console(), max_rows=max_rows)


def chat_loop(conversation, console, read: Callable[[str], str] = input, max_rows: int = 20) -> None:
    """Read questions and commands until end of input; an error ends the turn, not the conversation."""
    from nl2sparql.modules.answer import answer_table

    console.print(f"[dim]{HELP}[/dim]")
    shown = Shown()
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
            _command(conversation, console, line, shown, max_rows)
            continue
        try:
            with console.status("thinking…"):
                out = conversation.ask(line)
        except Nl2SparqlError as error:
            console.print(f"[red]error: {' '.join(str(error).split())}[/red]")
            continue
        print_turn(console, out, max_rows)
        shown.out = out
        shown.variables, shown.rows = answer_table(out) if out.get("in_scope", True) else ([], [])


def _command(conversation, console, line: str, shown: Shown, max_rows: int = 20) -> None:
    from rich.syntax import Syntax

    name, _, argument = line.partition(" ")
    if name == "/new":
        conversation.new()
        console.print("[dim]new conversation[/dim]")
    elif name == "/sparql":
        console.print(Syntax(conversation.last_sparql, "sparql", word_wrap=True) if conversation.last_sparql
                      else "[dim](no query yet)[/dim]")
    elif name == "/alt":
        _alternative(conversation, console, argument.strip(), shown, max_rows)
    elif name == "/save" and argument.strip():
        path = Path(argument.strip()).expanduser()
        table = path.suffix.lower() in (".csv", ".tsv")
        if table and not shown.variables:
            console.print("[red]error: no table yet: ask a question first[/red]")
            return
        try:
            if table:
                from nl2sparql.files import write_text_atomic
                from nl2sparql.kb.export import delimited

                write_text_atomic(path, delimited(shown.variables, shown.rows, path.suffix.lower()[1:]))
            else:
                conversation.save(path)
        except OSError as error:
            console.print(f"[red]error: cannot write {path}: {error.strerror}[/red]")
            return
        what = f"{len(shown.rows)} rows" if table else f"{len(conversation.turns)} turns"
        console.print(f"[dim]saved {what} to {path}[/dim]")
    else:
        console.print(f"[dim]{HELP}[/dim]")


def print_turn(console, out, max_rows: int) -> None:
    """One answer, as `ask` prints it, after what the follow-up was taken to mean."""
    from nl2sparql.serve.commands.ask import print_answer

    if out.get("built_on") is not None:
        console.print(f"[dim]→ {out.standalone_question}[/dim]")
    print_answer(console, out, max_rows)


def _alternative(conversation, console, argument: str, shown: Shown, max_rows: int) -> None:
    """/alt N: the last answer's other reading N (1 is the answer itself), shown and made the turn later follow-ups
    build on."""
    from rich.markup import escape

    from nl2sparql.modules.answer import answer_table

    doubt = shown.out.get("doubt") if shown.out is not None else None
    options = doubt["alternatives"] if doubt else []
    if not argument.isdigit() or not 1 <= int(argument) <= len(options) + 1:
        console.print(f"[red]error: /alt takes a number from 1 to {len(options) + 1}[/red]" if options else
                      "[dim]the last answer has no other reading[/dim]")
        return
    number = int(argument)
    if number == 1:
        chosen = {"reading": shown.out.get("understood_as", ""), "sparql": shown.out.sparql,
                  "answer": shown.out.answer}
        shown.variables, shown.rows = answer_table(shown.out)
    else:
        chosen = options[number - 2]
        shown.variables, shown.rows = list(chosen["variables"]), [list(r) for r in chosen["rows"]]
    conversation.replace_last(chosen["sparql"], shown.variables, shown.rows, chosen.get("count", len(shown.rows)))
    console.print(f"[cyan]{number}.[/cyan] {escape(chosen['reading'])}", highlight=False)
    console.print(f"[bold]{escape(chosen['answer'])}[/bold]", highlight=False)
    if shown.variables:
        from rich.table import Table

        table = Table(*shown.variables)
        for row in shown.rows[:max_rows]:
            table.add_row(*row)
        console.print(table)
