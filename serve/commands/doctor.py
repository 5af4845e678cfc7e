"""`nl2sparql doctor`: check the installation, one line per check, each saying ok or what to do."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.serve.commands.options import make_console, store_option


@click.command("doctor")
@click.option("--lm", default=None, help="Local model to try (default: the one 'latest' runs on, else "
                                         "local/qwen-1.5b).")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print {ok, checks: [{name, ok, detail}]} as JSON.")
def doctor_command(lm: str | None, store_path: Path | None, as_json: bool) -> None:
    """Check Python, the llama.cpp build and the CPU features it uses, each local model's file and checksum, the
    knowledge base, the artifact store and the shipped version, and a timed one-token generation (run in a child
    process, so a crash is reported here instead of killing the command). Exit 1 when a check fails."""
    from nl2sparql.serve.doctor import checks_json, run_checks

    console = make_console(stderr=True)
    with console.status("checking… (the generation loads the model once, a few seconds)"):
        checks = run_checks(lm, store_path)
    report = checks_json(checks)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        out = make_console()
        for check in checks:
            mark = "[green]ok[/green]  " if check.ok else "[red]FAIL[/red]"
            out.print(f"{mark} [bold]{check.name}[/bold]: {check.detail}", highlight=False)
    if not report["ok"]:
        raise SystemExit(1)
