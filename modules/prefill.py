"""A one-field text answer, started for the model: the field's opening marker is put at the start of the reply and
generation stops at the end of the field's line.

A request for one plain-text output field (the follow-up step's rewrite, a paraphrase) is answered by DSPy's
ChatAdapter format: `[[ ## field ## ]]`, the text, `[[ ## completed ## ]]`. About 20 of the ~35 tokens a rewrite
generates are those two markers, one token at a time. Here the opening marker is part of the prompt (one batched
evaluation), the reply stops at the end of its line, before the closing marker, and both markers are put back around
the text, so the adapter parses the same reply. The chat template is the model's own (from the GGUF's metadata).

DSPy's closing request ("Respond with the corresponding output fields, …") is left out of the prompt: the reply
is already started, and the request follows the question, so the prompt cache never holds its ~34 tokens and
every call evaluates them again. The fine-tune's rewrite examples leave it out too (`without_request`).
"""

from __future__ import annotations

import re
from typing import Any

# DSPy's closing request when exactly one output field is asked for (with two or more it lists the others first).
_ONE_FIELD = re.compile(r"Respond with the corresponding output fields?, starting with the field `\[\[ ## (\w+) ## \]\]`, "
                        r"and then ending with the marker for `\[\[ ## completed ## \]\]`\.\s*$")
# The field is one line (a question): the reply ends at its first line break, one token after the text, where
# waiting for the closing marker cost three more decode steps.
STOP = ["\n"]


def single_text_field(messages: list[dict]) -> str | None:
    """The output field a request asks for when it asks for exactly one, else None."""
    if not messages or messages[-1].get("role") != "user":
        return None
    found = _ONE_FIELD.search(messages[-1].get("content") or "")
    return found.group(1) if found else None


def without_request(messages: list[dict]) -> list[dict]:
    """The messages with DSPy's closing request (and the blank line before it) cut from the last one."""
    last = messages[-1]
    return [*messages[:-1], {**last, "content": _ONE_FIELD.sub("", last.get("content") or "").rstrip()}]


def opening(field: str) -> str:
    return f"[[ ## {field} ## ]]\n"


def chat_tokens(llama, messages: list[dict]) -> list[int]:
    """The tokens the chat path evaluates for `messages` (the model's chat template, ready for the reply)."""
    from llama_cpp import llama_chat_format

    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise ValueError("the model carries no chat template")
    eos, bos = llama.token_eos(), llama.token_bos()
    formatter = llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=llama._model.token_get_text(eos) if eos != -1 else "",
        bos_token=llama._model.token_get_text(bos) if bos != -1 else "", stop_token_ids=[eos])
    result = formatter(messages=messages)
    return llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)


def complete_field(llama, messages: list[dict], field: str, **options: Any) -> dict:
    """Complete the reply after the field's opening marker, the closing request left out; the result has the shape
    of a chat completion, with the reply whole (both markers), so it parses as if the model had written them. The marker is tokenized on its
    own, as the model writes it after the template's opening of the reply."""
    marker = llama.tokenize(opening(field).encode("utf-8"), add_bos=False, special=False)
    out = llama.create_completion(prompt=chat_tokens(llama, without_request(messages)) + marker, stop=STOP,
                                  **options)
    choice = out["choices"][0]
    text = opening(field) + (choice.get("text") or "").strip() + "\n\n[[ ## completed ## ]]\n"
    return {"id": out.get("id"), "usage": out.get("usage", {}),
            "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": choice.get("finish_reason")}]}
