"""`nl2sparql data plans` (how much of the curated data query plans can say) and `nl2sparql plan` (the plans the
enumerator proposes for a question, each executed)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.serve.commands.options import dataset_option, make_console, store_option


@click.command("plans")
@dataset_option
@store_option
@click.option("--split", "splits", default="train,dev", show_default=True,
              help="Splits to read, comma-separated (design on train and dev; test and generalization are scored "
                   "once per version, not designed on).")
@click.option("--json", "as_json", is_flag=True, help="Print total, parsed, round_trip, per pattern, missing blocks "
                                                      "and each record as JSON.")
def data_plans(dataset_dir: Path | None, store_path: Path | None, splits: str, as_json: bool) -> None:
    """Parse each gold query of the splits into a query plan, compile the plan back to SPARQL, run both and compare
    the answers (the eval metric's exactness). Shows how many parse and round-trip, per pattern, and which blocks
    the others lack."""
    from rich.progress import track

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.eval.plan_coverage import round_trip, summarize
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    wanted = {s.strip() for s in splits.split(",") if s.strip()}
    records = [r for r in load_dataset(dataset_dir) if r.split in wanted]
    if not records:
        from nl2sparql.errors import DatasetError

        raise DatasetError(f"no records in split(s) {', '.join(sorted(wanted))}: choose among train, dev, test, "
                           "generalization")
    with EmbeddedEndpoint(EndpointConfig(store_path=store_path)) as endpoint:
        results = [round_trip(r, endpoint) for r in track(records, description="round-tripping gold queries",
                                                           console=make_console(stderr=True), disable=as_json,
                                                           transient=True)]
    summary = summarize(results)
    if as_json:
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    make_console().print(_table(summary))


def _table(summary: dict):
    from rich.console import Group
    from rich.table import Table

    table = Table(title=f"Query plans: {summary['round_trip']} of {summary['total']} gold queries round-trip "
                        f"({summary['round_trip'] / summary['total']:.0%}), {summary['parsed']} parse")
    for column in ("pattern", "total", "parsed", "round trip"):
        table.add_column(column, justify="left" if column == "pattern" else "right")
    for pattern, counts in summary["per_pattern"].items():
        table.add_row(pattern, str(counts["total"]), str(counts.get("parsed", 0)), str(counts.get("round_trip", 0)))
    missing = Table(title="Blocks the other queries need")
    missing.add_column("queries", justify="right")
    missing.add_column("missing block, or why the answer differs")
    for reason, count in [*summary["missing_blocks"].items(), *summary["answer_differs"].items()]:
        missing.add_row(str(count), reason)
    return Group(table, missing)


@click.command("plan")
@click.argument("question")
@store_option
@click.option("--top", "top", type=int, default=10, show_default=True, help="Candidates shown.")
@click.option("--budget", type=float, default=1.6, show_default=True, help="Seconds the enumeration may take.")
@click.option("--json", "as_json", is_flag=True, help="Print the signals and every candidate (plan text, Italian and "
                                                      "English reading, SPARQL, rows, answer fingerprint) as JSON.")
def plan_command(question: str, store_path: Path | None, top: int, budget: float, as_json: bool) -> None:
    """Propose executed query plans for QUESTION: the blocks its words name (words, parts of speech, emotions,
    polarity, dialects, CompL-it relations, affixes, numbers), combined one block at a time, empty sets pruned, each
    candidate run once; candidates with the same answer are shown once.

    \b
    nl2sparql plan "Quali verbi esprimono tristezza in ELITA?"
    nl2sparql plan "How many Sicilian translations does 'cane' have?" --json
    """
    import dataclasses

    from nl2sparql.modules.question import check_question
    from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans, enumeration_endpoint
    from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
    from nl2sparql.retrieval.signals import read_signals

    question = check_question(question)
    with enumeration_endpoint(store_path) as endpoint:
        signals = read_signals(question, Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint))
        found = enumerate_plans(signals, endpoint, EnumerationConfig(budget_s=budget))
    shown = found.candidates[:top]
    if as_json:
        data = {"question": question, "signals": {k: (sorted(v) if isinstance(v, frozenset) else v)
                                                  for k, v in dataclasses.asdict(signals).items()},
                "candidates": [c.to_json() for c in shown], "total": len(found.candidates),
                "sets_tried": found.sets_tried, "sets_pruned": found.sets_pruned,
                "seconds": round(found.seconds, 3), "stopped_early": found.stopped_early}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    console = make_console()
    for number, candidate in enumerate(shown, 1):
        answer = f"{candidate.boolean}" if candidate.boolean is not None else f"{candidate.rows} rows"
        console.print(f"[bold]{number}.[/bold] {candidate.to_json()['en']} [dim]→ {answer}[/dim]", highlight=False)
        console.print(f"   [dim]{candidate.plan.text()}[/dim]", highlight=False)
    console.print(f"[dim]{len(found.candidates)} candidates from {found.sets_tried} sets ({found.sets_pruned} empty, "
                  f"pruned) in {found.seconds:.2f} s{'; stopped at the budget' if found.stopped_early else ''}[/dim]")
