"""`nl2sparql data`: check every gold query, count pairs, assign splits."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.serve.commands.options import dataset_option, make_console, store_option
from nl2sparql.serve.commands.plans import data_plans
from nl2sparql.serve.commands.synth import synth


@click.group()
def data() -> None:
    """The curated dataset: check every gold query, count pairs, assign splits, read gold queries as plans."""


@data.command("check")
@dataset_option
@store_option
@click.option("--file", "file", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="Check the pairs of one JSONL file instead (e.g. a synth.jsonl).")
@click.option("--chains", "chains_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Follow-up chains file (default: data/followup/chains.jsonl).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def data_check(dataset_dir: Path | None, store_path: Path | None, file: Path | None, chains_path: Path | None,
               as_json: bool) -> None:
    """Run every gold query (dataset and follow-up chains) on the embedded KB and check the off-topic questions'
    shape, or with --file the pairs of that one file; fail (exit 1) with a table of offenders."""
    from rich.progress import track

    from nl2sparql.data.chains import load_chains
    from nl2sparql.data.check import Offender, check_chains, check_dataset
    from nl2sparql.data.dataset import load_dataset, read_jsonl
    from nl2sparql.data.off_topic import OFF_TOPIC_FILE, load_off_topic, off_topic_problems
    from nl2sparql.data.tables import check_tables
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    records = read_jsonl(file) if file else load_dataset(dataset_dir)
    with EmbeddedEndpoint(EndpointConfig(store_path=store_path)) as endpoint:
        bar = iter(track(range(len(records)), description="checking gold", console=make_console(stderr=True),
                         disable=as_json, transient=True))
        next(bar, None)
        report = check_dataset(records, endpoint, progress=lambda record: next(bar, None), twins=not file)
        if not file:
            report.offenders += check_chains(load_chains(chains_path), endpoint)
    if not file:
        report.offenders += [Offender(i, OFF_TOPIC_FILE.name, problem)
                             for i, problem in off_topic_problems(load_off_topic())]
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for table in check_tables(report):
            make_console().print(table)
    if not report.ok:
        raise SystemExit(1)


@data.command("stats")
@dataset_option
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def data_stats(dataset_dir: Path | None, as_json: bool) -> None:
    """Pairs per pattern and split, multi-pattern share, languages."""
    from nl2sparql.data.chains import kind_counts, load_chains
    from nl2sparql.data.check import pattern_counts
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.data.tables import chains_table, stats_table

    records, chains = load_dataset(dataset_dir), load_chains()
    if as_json:
        counts = pattern_counts(records)
        click.echo(json.dumps({"records": len(records), "multi_pattern": sum(len(r.patterns) > 1 for r in records),
                               "counts": counts, "followup": kind_counts(chains)}, indent=2))
        return
    make_console().print(stats_table(records))
    make_console().print(chains_table(chains))


@data.command("split")
@dataset_option
@click.option("--seed", type=int, default=13, show_default=True, help="Seed of the stratified shuffle.")
@click.option("--reassign", is_flag=True, help="Also reassign records that already have train/dev/test.")
def data_split(dataset_dir: Path | None, seed: int, reassign: bool) -> None:
    """Assign train/dev/test to records marked 'auto' and store the splits in the files."""
    from nl2sparql.data.dataset import default_dataset_dir, load_dataset, write_jsonl
    from nl2sparql.data.split import assign_splits

    from nl2sparql.data.off_topic import assign_off_topic_splits, load_off_topic, write_off_topic

    directory = dataset_dir or default_dataset_dir()
    write_off_topic(assign_off_topic_splits(load_off_topic(), seed=seed))  # those marked 'auto'
    records = assign_splits(load_dataset(directory), seed=seed, reassign=reassign)
    by_file: dict[str, list] = {}
    for record in records:
        by_file.setdefault(record.source.rsplit(":", 1)[0], []).append(record)
    for name, file_records in by_file.items():
        write_jsonl(directory / name, file_records)
    click.echo(f"assigned splits to {len(records)} records (seed {seed}) in {len(by_file)} files")


data.add_command(synth)
data.add_command(data_plans)
