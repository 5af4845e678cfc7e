"""Filling the generator's templates: SPARQL with its PREFIX lines, wordings, and the slot-value check."""

from __future__ import annotations

import re
from string import Template

from nl2sparql.kb.vocab import PREFIXES

_PREFIXED = re.compile(r"(?<![\w<#/])([a-z]+):[A-Za-z_]")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def fill(template: str | list[str], slots: dict[str, object]) -> str:
    """Substitute ${slot} placeholders; a template that names a slot not given raises KeyError."""
    text = "\n".join(template) if isinstance(template, list) else template
    return Template(text).substitute({k: str(v) for k, v in slots.items()})


def with_prefixes(body: str) -> str:
    """The query with one PREFIX line per namespace it uses, in the catalog's order."""
    used = set(_PREFIXED.findall(_strip_strings(body)))
    lines = [f"PREFIX {name}: <{iri}>" for name, iri in PREFIXES.items() if name in used]
    return "\n".join(lines + [body.strip()]) + "\n"


def _strip_strings(text: str) -> str:
    return re.sub(r'"[^"\n]*"|<[^>\s]*>', '""', text)


def indent(lines: list[str], by: str = "  ") -> list[str]:
    return [by + line for line in lines]


def sentence(text: str) -> str:
    """Capitalise the first letter and collapse doubled spaces and ' ,' left by empty slots."""
    text = re.sub(r"\s+([,?.])", r"\1", re.sub(r" {2,}", " ", text)).strip()
    return text[:1].upper() + text[1:]


def number_it(value: float | int) -> str:
    """Decimal comma in Italian wordings (0,5), as an Italian linguist writes it."""
    return str(value).replace(".", ",")


def keeps_slots(text: str, values: list[str]) -> bool:
    """Whether a wording still says every slot value (words, numbers, resources, emotions), case-insensitively;
    a number may be written with a decimal point or comma, a value with alternatives as 'a|b' is kept by either,
    and '~stem' is kept by any word that starts with the stem (siciliano, siciliana, Sicilian)."""
    lowered = text.lower()
    for value in values:
        options = value.lower().split("|")
        for option in list(options):
            if _NUMBER.match(option):
                options.append(option.replace(".", ","))
        if not any(_contains(lowered, option) for option in options):
            return False
    return True


def _contains(text: str, value: str) -> bool:
    if not value:
        return True
    if value.startswith("~"):
        return re.search(rf"(?<![\w]){re.escape(value[1:])}", text) is not None
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", text) is not None or (
        not value[0].isalnum() and value in text) or (not value[-1].isalnum() and value in text)
