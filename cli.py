"""The `nl2sparql` command: a thin click layer over the Python API; the commands live in serve/commands."""

from __future__ import annotations

import sys

import click

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.serve.commands.artifacts import artifacts
from nl2sparql.serve.commands.ask import ask_command, retrieve_command
from nl2sparql.serve.commands.chat import chat_command
from nl2sparql.serve.commands.data import data
from nl2sparql.serve.commands.doctor import doctor_command
from nl2sparql.serve.commands.eval import eval_group
from nl2sparql.serve.commands.kb import kb
from nl2sparql.serve.commands.optimize import optimize
from nl2sparql.serve.commands.plans import plan_command
from nl2sparql.serve.commands.servers import lm_group, mcp, web_command


class _Group(click.Group):
    """Prints our errors as one red line (exit 2); tracebacks only with --debug. On the root group it covers
    every command of every group below it."""

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
    nl2sparql chat                                a conversation: follow-ups build on the last answer
    nl2sparql optimize run                        compile a new version
    nl2sparql eval compare zero-shot latest       compare versions on the test split
    nl2sparql artifacts list                      the compiled versions
    nl2sparql mcp serve / nl2sparql web           tools for assistants, a page for people
    nl2sparql lm serve --version v14              one LM server for many front ends (--lm-server URL)
    nl2sparql plan "Quali verbi esprimono gioia?"   the executed query plans a question may mean
    nl2sparql doctor                              check the installation when something is wrong
    """


for command in (kb, data, retrieve_command, ask_command, chat_command, artifacts, optimize, eval_group, mcp,
                web_command, lm_group, doctor_command, plan_command):
    main.add_command(command)


if __name__ == "__main__":
    main(sys.argv[1:])
