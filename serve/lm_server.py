"""`nl2sparql lm serve`: llama-cpp-python's OpenAI-compatible server (`llama_cpp.server`) with a version's base GGUF
and its adapter(s), each under an alias that names the version and the adapter's checksum, for many front ends
(`--lm-server URL` on ask, chat, web, mcp serve, eval run and `nl2sparql.load`).

It is llama.cpp's own server app, run in this process with two things of ours: every model is opened with the load
parameters this CPU needs (extra buffer types off where AMX would crash llama.cpp, `modules/llama_load.py`), and a
request that carries a grammar and asks for greedy decoding is decoded by `GreedyGrammar` (the request's grammar,
tested on the tokens greedy decoding would pick) instead of llama.cpp's sampler over the whole vocabulary at every
token: the same tokens, at the in-process engine's cost. The server keeps one model loaded at a time (llama-cpp-
python's design): a paired version's follow-ups reload the base with the follow-up adapter when they alternate.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 8010
PROMPT_CACHE_BYTES = 1 << 30  # as LlamaSettings.prompt_cache_bytes


@dataclass(frozen=True)
class ServedModel:
    alias: str
    model_path: Path
    lora_path: Path | None = None


def served_models(version: str | None, lm: str | None = None) -> list[ServedModel]:
    """The models `lm serve` loads: a fine-tuned version's adapters (answer, then followup) on its base model, or a
    base local model alone (`lm`, for a version without an adapter)."""
    from nl2sparql.artifacts.store import resolve_version
    from nl2sparql.errors import LMConfigError
    from nl2sparql.modules.adapter import LoraAdapter
    from nl2sparql.modules.local_lm import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, assemble
    from nl2sparql.modules.server_lm import adapter_alias, base_alias

    found = resolve_version(version) if version else None
    models = []
    if found is not None:
        for role, key in (("answer", "adapter"), ("followup", "followup_adapter")):
            adapter = LoraAdapter.from_manifest(found.path, found.manifest, key)
            if adapter is None:
                continue
            adapter.verify()
            adapter.check_base(lm)
            models.append(ServedModel(adapter_alias(found.name, role, adapter.sha256),
                                      assemble(LOCAL_MODELS[adapter.base_model]), adapter.path))
    if not models:
        name = (lm or f"local/{DEFAULT_LOCAL_MODEL}").removeprefix("local/")
        if name not in LOCAL_MODELS:
            raise LMConfigError("lm serve runs local models: choose one of "
                                + ", ".join(f"local/{n}" for n in LOCAL_MODELS))
        models.append(ServedModel(base_alias(name), assemble(LOCAL_MODELS[name])))
    return models


def _greedy_grammar_requests() -> None:
    """In this process, a chat completion with a grammar at temperature 0 is decoded by GreedyGrammar."""
    import llama_cpp

    from nl2sparql.modules.grammar import GreedyGrammar

    original = llama_cpp.Llama.create_chat_completion
    if getattr(original, "_nl2sparql", False):
        return

    def create_chat_completion(self, *args, **kwargs):
        grammar = kwargs.get("grammar")
        if grammar is None or kwargs.get("temperature") != 0.0 or kwargs.get("logits_processor"):
            return original(self, *args, **kwargs)
        processor = GreedyGrammar(self, grammar._grammar)
        kwargs.update(grammar=None, logits_processor=llama_cpp.LogitsProcessorList([processor]))
        try:
            out = original(self, *args, **kwargs)
        except BaseException:
            processor.close()
            raise
        if not kwargs.get("stream"):
            processor.close()
            return out

        def chunks():
            try:
                yield from out
            finally:
                processor.close()

        return chunks()

    create_chat_completion._nl2sparql = True
    llama_cpp.Llama.create_chat_completion = create_chat_completion


def _load_with_our_params() -> None:
    """Every model the server opens goes through `open_llama`'s parameters for this CPU."""
    from llama_cpp import LlamaRAMCache
    from llama_cpp.server.model import LlamaProxy

    from nl2sparql.modules.llama_load import _model_defaults, load_params
    from nl2sparql.modules.llama_state import counted_cache, use_lean_state

    original = LlamaProxy.load_llama_from_model_settings
    if getattr(original, "_nl2sparql", False):
        return
    params = load_params()

    def load(settings):
        from llama_cpp._utils import suppress_stdout_stderr

        def apply(model_params) -> None:
            model_params.use_extra_bufts = params.extra_buffers

        # llama.cpp prints a line per adapter tensor even when not verbose; nobody needs them.
        with _model_defaults(apply), suppress_stdout_stderr(disable=settings.lora_path is None):
            llama = original(settings)
        # The prompt cache of the in-process engine: states kept without their logits buffer (modules/llama_state.py:
        # llama-cpp-python copies ~300 MB of logits a save otherwise), so each request's shared prefix is reused.
        llama.set_cache(counted_cache(LlamaRAMCache)(capacity_bytes=PROMPT_CACHE_BYTES))
        use_lean_state(llama)
        return llama

    load._nl2sparql = True
    LlamaProxy.load_llama_from_model_settings = staticmethod(load)


def build_app(models: list[ServedModel], host: str = "127.0.0.1", port: int = DEFAULT_PORT,
              n_threads: int | None = None, n_ctx: int = 8192):
    """The server's ASGI app, its first model loaded."""
    import os

    try:
        from llama_cpp.server.app import create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError as error:
        from nl2sparql.errors import LMConfigError

        raise LMConfigError(f"lm serve needs llama-cpp-python's server ({error.name} is missing): pip install "
                            "'nl2sparql[server]'") from None
    threads = n_threads or max(1, os.cpu_count() or 1)
    _greedy_grammar_requests()
    _load_with_our_params()
    settings = [ModelSettings(model=str(m.model_path), model_alias=m.alias,
                              lora_path=str(m.lora_path) if m.lora_path else None, n_ctx=n_ctx, n_threads=threads,
                              n_threads_batch=threads, seed=0, cache=False,  # ours, set on load
                              logits_all=False, use_mlock=False,  # as the in-process engine opens it
                              verbose=False) for m in models]
    return create_app(server_settings=ServerSettings(host=host, port=port, interrupt_requests=False),
                      model_settings=settings)


def serve(app, host: str, port: int) -> None:
    """Serve until Ctrl-C (uvicorn stops cleanly on SIGINT and SIGTERM)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
