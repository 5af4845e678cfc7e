"""A fine-tuned version answered by a shared LM server (`nl2sparql lm serve`: llama-cpp-python's OpenAI-compatible
server; or vLLM with the adapter loaded as a LoRA module), instead of a llama.cpp copy inside this process.

The engine sends the chat messages the in-process engine gives llama.cpp, and the same grammar per request (the
SPARQL grammar for a request of the `sparql` field, the yes/no grammar for the relevance step) in the request's
`grammar` field, to the model alias that names the version's adapter and its checksum. Before the first question
the server's aliases are read: a server without the version's adapter is refused in one line. Completions are
streamed, so the question's deadline ends one as the in-process engine does (what was written so far answers), and
a server that dies mid-answer is a one-line error, never a half-written answer.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from nl2sparql.errors import LMServerError

CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 300.0  # one completion at most, when the question has no deadline


def server_failure(error: BaseException) -> LMServerError | None:
    """The LMServerError behind an error DSPy raised for it (DSPy wraps an engine's error, keeping it as the
    cause), so a dead server is our one line, not a traceback."""
    seen = 0
    while error is not None and seen < 8:
        if isinstance(error, LMServerError):
            return error
        error, seen = error.__cause__ or error.__context__, seen + 1
    return None


def adapter_alias(version: str, role: str, sha256: str) -> str:
    """The model alias `lm serve` gives a version's adapter: the version, its role (answer, followup) and the first
    16 hex digits of the adapter's SHA-256."""
    return f"{version}-{role}-{sha256[:16]}"


def base_alias(model: str) -> str:
    """The alias of a base model served without an adapter (`lm serve --lm local/qwen-0.5b`)."""
    return f"base-{model}"


def server_models(url: str, timeout_s: float = CONNECT_TIMEOUT_S) -> list[str]:
    """The model aliases an OpenAI-compatible server lists (GET /v1/models)."""
    import httpx

    try:
        response = httpx.get(f"{url.rstrip('/')}/v1/models", timeout=timeout_s)
        response.raise_for_status()
        return [m["id"] for m in response.json().get("data", [])]
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
        raise LMServerError(f"the LM server at {url} does not answer ({type(error).__name__}): start it with "
                            "`nl2sparql lm serve --version V`, or check the URL") from None


class ServerEngine:
    """A DSPy engine whose completions come from an OpenAI-compatible server, under one model alias."""

    def __init__(self, url: str, alias: str, *, grammar: bool = True, seed: int = 0):
        self.url = url.rstrip("/")
        self.alias = alias
        self.grammar = grammar
        self.seed = seed
        self.calls = 0
        self._checked = False
        self._lock = threading.Lock()
        self._client: Any = None

    def __deepcopy__(self, memo) -> ServerEngine:
        return self  # optimizers copy programs and their LMs; the connection is shared

    def dump_state(self) -> dict:
        return {"url": self.url, "alias": self.alias, "grammar": self.grammar, "seed": self.seed}

    @classmethod
    def load_state(cls, state: dict) -> ServerEngine:
        return cls(state["url"], state["alias"], grammar=state.get("grammar", True), seed=state.get("seed", 0))

    def check(self) -> None:
        """The server answers and serves this alias (once; a one-line LMServerError otherwise)."""
        if self._checked:
            return
        aliases = server_models(self.url)
        if self.alias not in aliases:
            raise LMServerError(f"the LM server at {self.url} does not serve {self.alias} (it serves "
                                f"{', '.join(aliases) or 'nothing'}): start `nl2sparql lm serve` with the version "
                                "(or --lm) this program runs")
        self._checked = True

    def _http(self):
        import httpx

        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S))
            return self._client

    def request_body(self, messages: list[dict], max_tokens: int, temperature: float) -> dict:
        """The request for `messages`: the grammar the in-process engine would apply, and its token cap."""
        from nl2sparql.modules.grammar import SCOPE_GRAMMAR, asks_for_scope, asks_for_sparql, catalog_grammar
        from nl2sparql.modules.local_lm import SCOPE_MAX_TOKENS, SPARQL_MAX_TOKENS

        # The sampling parameters of the in-process engine (llama-cpp-python's defaults), not the server's own
        # (its repeat penalty of 1.1 would change greedy answers).
        body: dict[str, Any] = {"model": self.alias, "messages": messages, "temperature": temperature,
                                "seed": self.seed, "stream": True, "top_p": 0.95, "top_k": 40, "min_p": 0.05,
                                "repeat_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0}
        grammar = None
        if self.grammar and asks_for_sparql(messages):
            grammar, max_tokens = catalog_grammar(), min(max_tokens, SPARQL_MAX_TOKENS)
        elif self.grammar and asks_for_scope(messages):
            grammar, max_tokens = SCOPE_GRAMMAR, min(max_tokens, SCOPE_MAX_TOKENS)
        if grammar is not None:
            # llama.cpp's server reads `grammar`; vLLM reads `guided_grammar` (xgrammar takes GBNF). Each ignores
            # the other's field. (Not tried against a vLLM server here: it needs a GPU.)
            body["grammar"] = body["guided_grammar"] = grammar
        body["max_tokens"] = max_tokens
        return body

    def complete(self, request):
        from dspy.clients.engines.base import validate_request
        from dspy.lm15 import Message, Response, TextPart, Usage

        from nl2sparql.modules.clock import current_call
        from nl2sparql.modules.local_lm import chat_messages

        validate_request(request)
        self.check()
        config = request.config
        call = current_call()
        stop_at = call.stop_at if call is not None else None
        temperature = 0.0 if config.temperature is None else config.temperature
        body = self.request_body(chat_messages(request), config.max_tokens or 512, temperature)
        if config.stop:
            body["stop"] = list(config.stop)
        text, finish, usage, cut = self._stream(body, stop_at)
        if call is not None:
            call.cut |= cut
        self.calls += 1
        return Response(id=None, model=self.alias, message=Message.assistant([TextPart(text)]),
                        finish_reason="length" if finish == "length" else "stop",
                        usage=Usage(input_tokens=usage.get("prompt_tokens"),
                                    output_tokens=usage.get("completion_tokens")))

    def _stream(self, body: dict, stop_at: float | None) -> tuple[str, str, dict, bool]:
        """The streamed completion: (text, finish reason, usage, whether the deadline cut it)."""
        import httpx

        parts: list[str] = []
        finish, usage, tokens = "stop", {}, 0
        try:
            with self._http().stream("POST", f"{self.url}/v1/chat/completions", json=body) as response:
                if response.status_code != 200:
                    detail = response.read().decode("utf-8", "replace")[:200]
                    raise LMServerError(f"the LM server at {self.url} refused the request (HTTP "
                                        f"{response.status_code}): {' '.join(detail.split())}")
                for line in response.iter_lines():
                    if stop_at is not None and time.perf_counter() >= stop_at:
                        # the deadline: what was written so far answers, as in-process
                        return "".join(parts), "stop", usage or {"completion_tokens": tokens}, True
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    chunk = json.loads(data)
                    usage = chunk.get("usage") or usage
                    for choice in chunk.get("choices", []):
                        content = (choice.get("delta") or {}).get("content")
                        if content:
                            parts.append(content)
                            tokens += 1  # llama.cpp's server streams one token a chunk
                        finish = choice.get("finish_reason") or finish
                else:
                    raise LMServerError(f"the LM server at {self.url} stopped in the middle of an answer: start "
                                        "it again; nothing was written")
        except httpx.HTTPError as error:
            raise LMServerError(f"the LM server at {self.url} stopped answering ({type(error).__name__}): start it "
                                "again with `nl2sparql lm serve`; nothing was written") from None
        return "".join(parts), finish, usage or {"completion_tokens": tokens}, False

    def stream(self, request):
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def server_lm(url: str, alias: str, model_id: str, *, temperature: float = 0.0, max_tokens: int = 512,
              cache: bool = True):
    """A dspy.LM answered by the server at `url` under `alias`; `model_id` names it in reports and DSPy's cache
    (the in-process model string with `@server`, so the two never share cached answers)."""
    import dspy

    return dspy.LM(f"{model_id}@server", engine=ServerEngine(url, alias), temperature=temperature,
                   max_tokens=max_tokens, cache=cache)
