"""What several command groups share: the --store and --dataset options and the rich console."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from nl2sparql.paths import HOME_ENV


def lm_server_option(func):
    return click.option("--lm-server", "lm_server", default=None, metavar="URL",
                        help="Answer through a shared LM server (`nl2sparql lm serve`, or vLLM serving the adapter) "
                             "instead of a model in this process.")(func)


def store_option(func):
    @click.option("--store", "store_path", type=click.Path(path_type=Path), default=None,
                  help=f"Embedded store folder (default: ${HOME_ENV}/kb or ~/.nl2sparql/kb).")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def dataset_option(func):
    @click.option("--dataset", "dataset_dir", type=click.Path(path_type=Path), default=None,
                  help="Folder of *.jsonl dataset files (default: the shipped data/dataset).")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def program_options(func):
    """The settings a user may change on any entry point that answers questions (ask, chat, web, mcp serve);
    left out, the version's own apply. The command receives them as one `overrides` dict for `load()`."""

    @click.option("--max-repairs", type=int, default=None,
                  help="LM repair attempts at most (default: the version's own, usually 2).")
    @click.option("--deadline", type=float, default=None,
                  help="Seconds a question may take, 0 for no limit (default: the version's own, usually 60); "
                       "past it, the best query so far is the answer.")
    @functools.wraps(func)
    def wrapper(*args, max_repairs: int | None, deadline: float | None, **kwargs):
        overrides: dict = {}
        if max_repairs is not None:
            overrides["max_repairs"] = max_repairs
        if deadline is not None:
            overrides["deadline_s"] = deadline or None
        return func(*args, overrides=overrides, **kwargs)

    return wrapper


def make_console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr)
