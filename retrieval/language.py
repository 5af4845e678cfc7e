"""Which language a question is in (Italian or English), from function words; no model needed."""

from __future__ import annotations

import re

_ITALIAN = set("il lo la i gli le un una uno di da del della dei delle che chi quali quale quanti quante quanto "
               "sono è ha hanno con per tra fra nel nella nei non come dove mostra elenca trova dammi parole "
               "lemmi lemma parola significa".split())
_ENGLISH = set("the a an of which what who how many much are is has have with for in on not show list find give "
               "words lemmas lemma word does do mean".split())
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def guess_language(text: str) -> str:
    """'it' or 'en'; ties go to Italian, the KB's language."""
    words = [w.lower() for w in _WORD.findall(text)]
    italian = sum(w in _ITALIAN for w in words) + sum(w.endswith(("zione", "mente", "ità")) for w in words)
    english = sum(w in _ENGLISH for w in words)
    return "en" if english > italian else "it"
