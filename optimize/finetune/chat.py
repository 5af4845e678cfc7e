"""Training examples as token ids, made exactly as the local engine makes them at inference.

The prompt is rendered by llama-cpp-python's own chat formatter from the GGUF's chat template and tokenized
with llama.cpp's vocabulary (a vocabulary-only load: no weights), so the adapter learns on the very tokens it
will be given; the answer ends with the end-of-turn token, where llama.cpp stops.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from nl2sparql.optimize.finetune.lora import TokenizedExample


class ChatTokenizer:
    def __init__(self, gguf_path: Path):
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._llama = Llama(model_path=str(gguf_path), vocab_only=True, verbose=False)
        metadata = self._llama.metadata
        template = metadata.get("tokenizer.chat_template")
        if not template:
            raise ValueError(f"{gguf_path.name} has no chat template")
        eos = self._llama.token_eos()
        bos = self._llama.token_bos()
        self.eos_id = eos
        self._formatter = Jinja2ChatFormatter(template, eos_token=self._piece(eos),
                                              bos_token=self._piece(bos) if bos >= 0 else "")

    def _piece(self, token: int) -> str:
        return self._llama.detokenize([token], special=True).decode("utf-8", errors="replace")

    def prompt(self, messages: Sequence[dict]) -> str:
        return self._formatter(messages=list(messages)).prompt

    def prompt_ids(self, messages: Sequence[dict]) -> list[int]:
        response = self._formatter(messages=list(messages))
        return self._llama.tokenize(response.prompt.encode("utf-8"), add_bos=not response.added_special,
                                    special=True)

    def answer_ids(self, text: str) -> list[int]:
        return self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False) + [self.eos_id]

    def example(self, messages: Sequence[dict], answer: str) -> TokenizedExample:
        prompt = self.prompt_ids(messages)
        return TokenizedExample(tuple(prompt + self.answer_ids(answer)), len(prompt))

    def close(self) -> None:
        self._llama.close()
