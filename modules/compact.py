"""The compact prompt of a fine-tuned generate step: the task in one paragraph and the fields that have a value.

DSPy's ChatAdapter opens every request with a description of each field and of the message structure (~230
tokens for generate), which a model fine-tuned on the format no longer needs: its adapter learned the structure.
`CompactAdapter` keeps the same markers (`[[ ## analysis ## ]]`, `[[ ## sparql ## ]]`, the closing request that
tells the local engine to apply its SPARQL grammar), so answers parse as before, and drops the field and
structure descriptions and the inputs left empty (no examples, constraints or notes for a fine-tuned version).
A version trained with it says so (`ProgramSettings.compact_prompt`) and is asked the same way at run time.
"""

from __future__ import annotations

import textwrap
from typing import Any

import dspy
from dspy.adapters.chat_adapter import ChatAdapter


class CompactAdapter(ChatAdapter):
    """ChatAdapter's markers without its field descriptions, and without empty inputs."""

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        return " ".join(textwrap.dedent(signature.instructions).split())

    def format_user_message_content(self, signature: type[dspy.Signature], inputs: dict[str, Any], prefix: str = "",
                                    suffix: str = "", main_request: bool = False) -> str:
        filled = {name: value for name, value in inputs.items() if not (isinstance(value, str) and not value.strip())}
        return super().format_user_message_content(signature, filled, prefix, suffix, main_request)


def generate_adapter(settings) -> ChatAdapter:
    """The adapter the generate step is asked through: compact for a version trained on it, else DSPy's own."""
    if settings.compact_prompt:
        return CompactAdapter()
    return dspy.settings.adapter or ChatAdapter()
