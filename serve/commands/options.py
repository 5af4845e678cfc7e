"""What several command groups share: the --store and --dataset options and the rich console."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from nl2sparql.paths import HOME_ENV


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


def make_console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr)
