"""A table taken away: CSV or TSV text of an answer's rows, and a link that runs a query on the live LiITA endpoint
(built here, never fetched by us)."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

LIVE_ENDPOINT = "https://liita.it/sparql"  # the live LiITA GraphDB endpoint (../shared/liita/SCHEMA.md)
FORMATS = ("csv", "tsv")


def delimited(variables, rows, fmt: str = "csv") -> str:
    """The table as CSV (RFC 4180, quoted where needed) or TSV (tabs and newlines inside a cell become spaces),
    a header line first."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown table format {fmt!r}: one of {', '.join(FORMATS)}")
    buffer = io.StringIO()
    if fmt == "csv":
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(list(variables))
        writer.writerows([["" if v is None else str(v) for v in row] for row in rows])
        return buffer.getvalue()
    clean = lambda v: " ".join(("" if v is None else str(v)).split())  # noqa: E731
    lines = ["\t".join(clean(v) for v in variables)] + ["\t".join(clean(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def result_rows(result) -> tuple[list[str], list[list[str]]]:
    """A query result's columns and cell values (IRIs in full; an ASK as one column `ask`)."""
    if result.boolean is not None:
        return ["ask"], [["true" if result.boolean else "false"]]
    return list(result.variables), [["" if t is None else t.value for t in row] for row in result.rows]


def live_url(sparql: str) -> str:
    """The live endpoint's URL that runs `sparql` (SPARQL 1.1 protocol, GET)."""
    return f"{LIVE_ENDPOINT}?{urlencode({'query': sparql})}"
