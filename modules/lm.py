"""Language models by name: `local/<model>` runs in-process offline; anything else goes through litellm."""

from __future__ import annotations

import os

from nl2sparql.errors import LMConfigError
from nl2sparql.modules.local_lm import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, LlamaCppEngine, LlamaSettings

DEFAULT_LM = f"local/{DEFAULT_LOCAL_MODEL}"
# Providers whose key litellm reads from the environment; a missing one is a one-line error here,
# not a stack trace on the first call.
_KEYS = {
    "openai": ("OPENAI_API_KEY",), "anthropic": ("ANTHROPIC_API_KEY",), "gemini": ("GEMINI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",), "groq": ("GROQ_API_KEY",), "together_ai": ("TOGETHERAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",), "deepseek": ("DEEPSEEK_API_KEY",), "cohere": ("COHERE_API_KEY",),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"), "xai": ("XAI_API_KEY",),
    "azure": ("AZURE_API_KEY",),
}


def required_keys(model: str) -> tuple[str, ...]:
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return _KEYS.get(provider, ())


def resolve_lm(model: str | None = None, *, temperature: float = 0.0, max_tokens: int = 512, cache: bool = True,
               n_threads: int | None = None):
    """A dspy.LM for a model string: `local/qwen-1.5b` (default), `local/qwen-0.5b`, or a litellm id."""
    import dspy

    model = model or os.environ.get("NL2SPARQL_LM") or DEFAULT_LM
    if model.startswith("local/"):
        name = model.split("/", 1)[1]
        if name not in LOCAL_MODELS:
            raise LMConfigError(f"unknown local model '{name}': choose one of "
                                + ", ".join(f"local/{n}" for n in LOCAL_MODELS))
        engine = LlamaCppEngine(name, LlamaSettings(n_threads=n_threads))
        return dspy.LM(model, engine=engine, temperature=temperature, max_tokens=max_tokens, cache=cache)
    keys = required_keys(model)
    if keys and not any(os.environ.get(k) for k in keys):
        raise LMConfigError(f"{model} needs {' or '.join(keys)} in the environment (or use the offline default "
                            f"--lm {DEFAULT_LM})")
    return dspy.LM(model, temperature=temperature, max_tokens=max_tokens, cache=cache)


def adapter_lm(adapter, *, temperature: float = 0.0, max_tokens: int = 512, cache: bool = True,
               n_threads: int | None = None):
    """A dspy.LM running a fine-tuned version: its base local model with its LoRA adapter (checked first)."""
    import dspy

    adapter.verify()
    if adapter.base_model not in LOCAL_MODELS:
        raise LMConfigError(f"version {adapter.version} was fine-tuned on local/{adapter.base_model}, which this "
                            "nl2sparql does not know: choose one of " + ", ".join(f"local/{n}" for n in LOCAL_MODELS))
    engine = LlamaCppEngine(adapter.base_model, LlamaSettings(n_threads=n_threads, lora_path=str(adapter.path)))
    return dspy.LM(adapter.lm_id, engine=engine, temperature=temperature, max_tokens=max_tokens, cache=cache)


def preflight(program) -> None:
    """Before the first question: every local model the program runs can generate on this machine. Each is tried
    once per machine and llama.cpp build in a child process (modules/smoke.py), so a crash inside llama.cpp is a
    one-line LMConfigError here instead of the silent death of the process that serves the answer."""
    from nl2sparql.modules.server_lm import ServerEngine

    seen = set()
    for lm in (program.generate.predict.lm, getattr(program, "followup_lm", None)):
        engine = getattr(lm, "engine", None)
        if isinstance(engine, (LlamaCppEngine, ServerEngine)) and id(engine) not in seen:
            seen.add(id(engine))
            engine.check()  # a shared server: it answers and serves the version's adapter
