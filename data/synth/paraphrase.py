"""Rewordings of a share of the kept pairs by a language model passed in; a rewording is kept only when it still
says every slot value of its pair (words, numbers, resources, emotions), is in the template's language, says the
same operations (count, minimum, maximum, average, share, grouping, absence: `cues.json`), differs from the
template wording and is still a question when the template was one."""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path

from nl2sparql.data.check import normalise_question
from nl2sparql.data.synth.text import keeps_slots


def paraphrase_records(records: list[dict], reword: Callable[[str, str], str | None], share: float, seed: int,
                       progress: Callable[[int], None] = lambda done: None) -> dict:
    """Adds `paraphrases` to the chosen records in place; returns the counts and the pace (rewordings a minute)."""
    rng = random.Random(f"paraphrase-{seed}")  # its own stream: the pairs do not depend on whether this runs
    chosen = [record for record in records if rng.random() < share]
    outcome, started = Counter(), time.perf_counter()
    for done, record in enumerate(chosen, start=1):
        for language in ("it", "en"):
            original = record[f"question_{language}"]
            text = reword(original, language)
            verdict = _verdict(text, original, record["trace"]["slots"], language)
            outcome[verdict] += 1
            if verdict == "kept":
                record.setdefault("paraphrases", {}).setdefault(language, []).append(text)
        progress(done)
    seconds = time.perf_counter() - started
    asked = sum(outcome.values())
    return {"share": share, "pairs": len(chosen), "asked": asked, "outcome": dict(sorted(outcome.items())),
            "seconds": round(seconds, 1), "per_minute": round(asked / seconds * 60, 1) if seconds else 0.0}


def _verdict(text: str | None, original: str, slots: list[str], language: str) -> str:
    if not text:
        return "unreadable"
    if normalise_question(text) == normalise_question(original):
        return "same as the template"
    if not keeps_slots(text, slots):
        return "lost a slot value"
    if not in_language(text, language):
        return "another language"
    if cue_families(text, language) != cue_families(original, language):
        return "changed an operation"
    if original.rstrip().endswith("?") and not text.rstrip().endswith("?"):
        return "no longer a question"  # the small model tends to answer or assert instead of rewording
    return "kept"


@cache
def _cues() -> dict:
    return json.loads((Path(__file__).with_name("cues.json")).read_text(encoding="utf-8"))


def cue_families(text: str, language: str) -> frozenset[str]:
    """The operations a wording says (`cues.json` families: count, minimum, maximum, average, share, …)."""
    lowered = text.lower()
    return frozenset(name for name, patterns in _cues()["families"].items()
                     if re.search(patterns[language], lowered))


def in_language(text: str, language: str) -> bool:
    """False when the wording has more common words of the other language than of its own."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    own, other = (sum(word in _common_words(lang) for word in words)
                  for lang in (language, "en" if language == "it" else "it"))
    return own >= other


@cache
def _common_words(language: str) -> frozenset[str]:
    return frozenset(_cues()["language"][language])
