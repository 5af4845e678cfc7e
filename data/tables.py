"""Rich tables for the dataset: check offenders and duplicates, pattern × split counts."""

from __future__ import annotations

from rich.table import Table

from nl2sparql.data.check import CheckReport, pattern_counts
from nl2sparql.data.dataset import PATTERNS, SPLITS, Record


def check_tables(report: CheckReport) -> list[Table]:
    summary = Table("records", "offenders", "duplicates", "multi-pattern", title="data check")
    summary.add_row(str(report.records), str(len(report.offenders)), str(len(report.duplicates)),
                    f"{report.multi_pattern} ({report.multi_pattern / max(report.records, 1):.0%})")
    tables = [summary]
    if report.offenders:
        offenders = Table("id", "where", "problem", title="offenders", style="red")
        for offender in report.offenders:
            offenders.add_row(offender.id, offender.source, offender.problem)
        tables.append(offenders)
    if report.duplicates:
        duplicates = Table("first", "second", "what", title="duplicates", style="red")
        for row in report.duplicates:
            duplicates.add_row(*row)
        tables.append(duplicates)
    return tables


def stats_table(records: list[Record]) -> Table:
    counts = pattern_counts(records)
    table = Table("pattern", *SPLITS, "total", title=f"{len(records)} pairs")
    for pattern in PATTERNS:
        row = counts[pattern]
        table.add_row(pattern, *(str(row.get(s, 0)) for s in SPLITS), str(sum(row.values())))
    per_split = {s: sum(r.split == s for r in records) for s in SPLITS}
    table.add_row("[bold]pairs[/bold]", *(str(per_split[s]) for s in SPLITS), str(len(records)))
    multi = sum(len(r.patterns) > 1 for r in records)
    table.caption = f"multi-pattern: {multi} ({multi / max(len(records), 1):.0%}); unassigned: " \
                    f"{sum(r.split not in SPLITS for r in records)}"
    return table


def chains_table(chains: list) -> Table:
    """Follow-up chains: turns per kind × split."""
    from nl2sparql.data.chains import CHAIN_SPLITS, kind_counts

    counts = kind_counts(chains)
    follow_ups = sum(len(c.turns) - 1 for c in chains)
    table = Table("follow-up chains", *CHAIN_SPLITS, "total",
                  title=f"{len(chains)} chains, {sum(len(c.turns) for c in chains)} turns, {follow_ups} follow-ups")
    for kind, row in counts.items():
        table.add_row(kind, *(str(row.get(s, 0)) for s in CHAIN_SPLITS), str(sum(row.values())))
    return table
