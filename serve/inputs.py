"""Checks on what callers hand the toolbox (MCP clients, the web page): types, sizes and ranges, each a
one-line InputError, so a wrong call is refused at once instead of running for minutes or failing deep inside."""

from __future__ import annotations

from typing import Any

from nl2sparql.errors import InputError
from nl2sparql.modules.question import MAX_QUESTION_CHARS  # noqa: F401  (the toolbox checks questions by it)

MAX_SEARCH_CHARS = 500
MAX_SPARQL_CHARS = 20_000  # the guard's default; the endpoint's own limit applies where one is open
MAX_K = 20
MAX_PATTERNS = 20
LANGUAGES = ("it", "en")


def text(value: Any, name: str, limit: int) -> str:
    """A non-empty string of at most `limit` characters."""
    if not isinstance(value, str):
        raise InputError(f"{name} must be a string, not {type(value).__name__}")
    if not value.strip():
        raise InputError(f"{name} is empty")
    if len(value) > limit:
        raise InputError(f"{name} is too long: {len(value):,} characters, the limit is {limit:,}")
    return value


def count(value: Any, name: str, high: int = MAX_K) -> int:
    """A whole number from 1 to `high`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number, not {type(value).__name__}")
    if not 1 <= value <= high:
        raise InputError(f"{name} must be from 1 to {high}, not {value}")
    return value


def choice(value: Any, name: str, options: tuple[str, ...]) -> str:
    if value not in options:
        raise InputError(f"{name} must be one of {', '.join(options)}, not {value!r}")
    return value


def optional_name(value: Any, name: str) -> str | None:
    """None, or a short string (a version name or tag)."""
    return None if value is None else text(value, name, 100)


def names(value: Any, name: str) -> list[str]:
    """None or a list of at most MAX_PATTERNS short strings."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or len(value) > MAX_PATTERNS:
        raise InputError(f"{name} must be a list of at most {MAX_PATTERNS} names")
    return [text(item, f"each of {name}", 100) for item in value]
