"""Rewordings of a share of the kept pairs by a language model passed in; a rewording is kept only when it still
says every slot value of its pair (words, numbers, resources, emotions), differs from the template wording and is
still a question when the template was one."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable

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
            verdict = _verdict(text, original, record["trace"]["slots"])
            outcome[verdict] += 1
            if verdict == "kept":
                record.setdefault("paraphrases", {}).setdefault(language, []).append(text)
        progress(done)
    seconds = time.perf_counter() - started
    asked = sum(outcome.values())
    return {"share": share, "pairs": len(chosen), "asked": asked, "outcome": dict(sorted(outcome.items())),
            "seconds": round(seconds, 1), "per_minute": round(asked / seconds * 60, 1) if seconds else 0.0}


def _verdict(text: str | None, original: str, slots: list[str]) -> str:
    if not text:
        return "unreadable"
    if normalise_question(text) == normalise_question(original):
        return "same as the template"
    if not keeps_slots(text, slots):
        return "lost a slot value"
    if original.rstrip().endswith("?") and not text.rstrip().endswith("?"):
        return "no longer a question"  # the small model tends to answer or assert instead of rewording
    return "kept"
