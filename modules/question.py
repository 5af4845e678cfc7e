"""What counts as a question at all: refused at once, before any LM call, when there is nothing to translate.

The CLI, the Python API (`program(question)`), the MCP tools and the web page all call `check_question`, so
each says the same one line.
"""

from __future__ import annotations

import unicodedata

from nl2sparql.errors import QuestionRejected

MAX_QUESTION_CHARS = 2_000
_EXAMPLE = "e.g. \"Quali lemmi esprimono tristezza?\""


def check_question(text: object) -> str:
    """The question without surrounding white space; QuestionRejected when it is not a string, is empty or white
    space, has no letter (only punctuation, digits or symbols), is over 2,000 characters or holds control
    characters."""
    if not isinstance(text, str):
        raise QuestionRejected(f"the question must be a string, not {type(text).__name__}")
    question = text.strip()
    if not question:
        raise QuestionRejected(f"the question is empty: ask about Italian words, {_EXAMPLE}")
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionRejected(f"the question is too long: {len(question):,} characters, the limit is "
                               f"{MAX_QUESTION_CHARS:,}")
    control = next((c for c in question if unicodedata.category(c) == "Cc" and c not in "\t\n\r"), None)
    if control is not None:
        raise QuestionRejected(f"the question holds a control character (U+{ord(control):04X}): type it as "
                               "plain text")
    if not any(c.isalpha() for c in question):
        raise QuestionRejected(f"the question has no words, only digits or punctuation: ask about Italian "
                               f"words, {_EXAMPLE}")
    return question
