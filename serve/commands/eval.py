"""`nl2sparql eval`: run versions on a split and compare them."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.paths import HOME_ENV
from nl2sparql.serve.commands.options import lm_server_option, make_console, store_option


@click.group("eval")
def eval_group() -> None:
    """Evaluate versions on a split and compare them (paired tests, per-pattern chart)."""


def _eval_options(func):
    for option in reversed([
        click.option("--split", default="test", show_default=True,
                     help="test, dev, generalization, train, a .jsonl file of records, or a follow-up split: "
                          "followup-test|dev|train (gold history; add :alone or :concat for the naive baselines)."),
        click.option("--own-history", is_flag=True,
                     help="On a follow-up split: each turn sees the system's own earlier turns, not the gold ones."),
        click.option("--lm", default=None, help="Model (default local/qwen-1.5b; any litellm id)."),
        click.option("--endpoint", "url", default=None, help="A remote SPARQL endpoint URL instead of the store."),
        store_option,
        click.option("--limit", type=int, default=None, help="Only the first N questions of the split."),
        click.option("--force", is_flag=True, help="Re-run even when a report (or a stopped run's journal) exists "
                     "for this version, split, LM, adapter, settings, KB and code."),
        click.option("--tracking-uri", default=None, help=f"MLflow tracking URI (default: sqlite under ${HOME_ENV})."),
    ]):
        func = option(func)
    return func


def _with_history(split: str, own_history: bool) -> str:
    """`followup-test` + --own-history → `followup-test:own` (eval/followup.py names the history modes)."""
    if not own_history:
        return split
    if not split.startswith("followup-") or ":" in split:
        raise Nl2SparqlError(f"--own-history applies to a follow-up split with gold history, not {split!r}")
    return f"{split}:own"


def _progress_callback(console, total: int):
    from rich.progress import Progress

    progress = Progress(console=console, transient=True)
    task = progress.add_task("questions", total=total)

    def on_result(report):
        summary = report.summary()
        progress.update(task, completed=len(report.questions),
                        description=f"{report.version}: accuracy {summary['execution_accuracy']:.2f}")

    return progress, on_result


@eval_group.command("run")
@click.option("--version", "version", default="latest", show_default=True,
              help="vN, latest, a tag, or a baseline: zero-shot, static-rag, uncompiled.")
@_eval_options
@click.option("--deadline", type=float, default=None,
              help="Seconds per question (0: no limit; default: the version's own, 60 s unless it says otherwise).")
@lm_server_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary and breakdowns as JSON.")
def eval_run(version: str, split: str, own_history: bool, lm: str | None, url: str | None, store_path: Path | None,
             limit: int | None, force: bool, tracking_uri: str | None, deadline: float | None, lm_server: str | None,
             as_json: bool) -> None:
    """Run VERSION on every question of the split; save a JSON + Markdown report beside the version.

    Each scored question is journaled as it is scored: a run that is stopped goes on where it was
    when it is started again with the same version, split, LM and KB."""
    from nl2sparql.eval.runner import run_eval, split_records
    from nl2sparql.modules.lm import resolve_lm

    split = _with_history(split, own_history)
    total = len(split_records(split)[:limit])
    progress, on_result = _progress_callback(make_console(stderr=True), total)
    with progress:
        report, path, reused = run_eval(version, split, lm_object=resolve_lm(lm, cache=False), endpoint_url=url,
                                        store=store_path, force=force, limit=limit, on_result=on_result,
                                        tracking_uri=tracking_uri, deadline=deadline, lm_server=lm_server)
    if as_json:
        data = report.to_json()
        data.pop("questions")
        click.echo(json.dumps({**data, "report": str(path), "reused": reused}, indent=2, ensure_ascii=False))
        return
    from rich.markdown import Markdown

    console = make_console()
    console.print(Markdown(report.to_markdown()))
    console.print(f"[dim]{'reused' if reused else 'written'}: {path}[/dim]")


@eval_group.command("compare")
@click.argument("versions", nargs=-1, required=True)
@_eval_options
@click.option("--allow-mismatch", is_flag=True,
              help="Compare reports made on different splits, KB fingerprints or program code (marked †).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Folder for the Markdown report and PNG chart (default: beside the last version's reports).")
@click.option("--so-far", is_flag=True, help="Run nothing: compare what finished reports and the journals of "
                                             "runs still going hold, on the questions all versions have answered.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def eval_compare(versions: tuple[str, ...], split: str, own_history: bool, lm: str | None, url: str | None,
                 store_path: Path | None, limit: int | None, force: bool, tracking_uri: str | None,
                 allow_mismatch: bool, out: Path | None,
                 so_far: bool, as_json: bool) -> None:
    """Compare VERSIONS (two or more) on the same split: runs what has no report yet, then tables,
    exact McNemar on exact match, paired bootstrap CI on F1, flipped questions and a chart.

    VERSIONS may instead be saved report files (`reports/*.json`): they are compared as they are, nothing runs."""
    from nl2sparql.eval.comparison import compare_reports, write_outputs
    from nl2sparql.eval.report import report_dir
    from nl2sparql.eval.runner import run_evals, split_records
    from nl2sparql.modules.lm import resolve_lm

    if len(versions) < 2:
        raise Nl2SparqlError("compare needs at least two versions")
    if so_far and force:
        raise Nl2SparqlError("--so-far reads what is there; it cannot be combined with --force")
    if any(v.endswith(".json") for v in versions):
        reports = _read_reports(versions)
        default_out = Path(versions[-1]).parent
    else:
        split = _with_history(split, own_history)
        total = len(split_records(split)[:limit])
        progress, on_result = _progress_callback(make_console(stderr=True), total)
        with progress:  # versions take turns question by question: a stopped compare resumes with all of them level
            reports = [report for report, _, _ in run_evals(
                list(versions), split, lm_object=resolve_lm(lm, cache=False), endpoint_url=url, store=store_path,
                force=force, limit=limit, on_result=on_result, tracking_uri=tracking_uri, so_far=so_far)]
        default_out = report_dir(versions[-1])
    if not reports[0].questions:
        raise Nl2SparqlError("no question has been answered by every version yet: run the compare without --so-far")
    comparison = compare_reports(reports, allow_mismatch=allow_mismatch)
    markdown, chart = write_outputs(comparison, out or default_out)
    if as_json:
        click.echo(json.dumps({
            **comparison.to_json(),
            "markdown": str(markdown), "chart": str(chart)}, indent=2, ensure_ascii=False))
        return
    from rich.markdown import Markdown

    console = make_console()
    console.print(Markdown(comparison.to_markdown()))
    console.print(f"[dim]report: {markdown}\nchart: {chart}[/dim]")


def _read_reports(paths: tuple[str, ...]) -> list:
    """Saved reports named on the command line (all of them files: a version name cannot be mixed in)."""
    from nl2sparql.eval.report import Report

    if not all(p.endswith(".json") for p in paths):
        raise Nl2SparqlError("compare either versions or saved report files (.json), not both")
    reports = []
    for name in paths:
        try:
            reports.append(Report.from_json(json.loads(Path(name).read_text(encoding="utf-8"))))
        except OSError as error:
            raise Nl2SparqlError(f"cannot read the report {name}: {error.strerror}") from None
        except (ValueError, KeyError):
            raise Nl2SparqlError(f"{name} is not an eval report (reports/*.json written by eval run)") from None
    return reports
