"""How a local GGUF is opened by llama.cpp on this CPU: every full load of a model goes through `open_llama`.

On CPUs with AMX (Intel Sapphire Rapids and later) a llama.cpp built for the native CPU puts the weights in its
AMX buffer type, and the first `decode` on them crashes the process (a segfault, nothing to catch). Loading with
llama.cpp's extra buffer types off keeps the weights in plain CPU buffers, which decode safely. Elsewhere the extra
buffers stay on: there they hold the weight repacking that makes matrix products faster.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

AMX_FLAGS = frozenset({"amx_tile", "amx_int8", "amx_bf16"})
_PARAMS_LOCK = threading.Lock()  # the default-params function is swapped for the length of one load


def _cpuinfo_field(keys: tuple[str, ...], cpuinfo: Path) -> str | None:
    """The first value of one of `keys` in /proc/cpuinfo (Linux); None where it cannot be read."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in keys:
            return value.strip()
    return None


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The feature flags of this machine's CPU; empty where they cannot be read."""
    return frozenset((_cpuinfo_field(("flags", "Features"), cpuinfo) or "").split())


def cpu_name(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    return _cpuinfo_field(("model name",), cpuinfo) or "unknown CPU"


@dataclass(frozen=True)
class LoadParams:
    """The llama.cpp model parameters we choose per CPU, and why."""

    extra_buffers: bool
    reason: str


def load_params(flags: frozenset[str] | None = None, extra_buffers: bool | None = None) -> LoadParams:
    """Extra buffer types off where the CPU has AMX, on elsewhere; `extra_buffers` set by the caller wins."""
    if extra_buffers is not None:
        return LoadParams(extra_buffers, "chosen by the caller")
    flags = cpu_flags() if flags is None else flags
    amx = sorted(AMX_FLAGS & flags)
    if amx:
        return LoadParams(False, f"the CPU has AMX ({', '.join(amx)}): llama.cpp's AMX buffers crash in decode")
    return LoadParams(True, "no AMX on this CPU: llama.cpp's weight repacking stays on")


@contextlib.contextmanager
def _model_defaults(change: Callable[[Any], None]) -> Iterator[None]:
    """llama-cpp-python's `Llama` does not expose every model parameter: for one load, its default-parameters
    function hands out parameters that `change` has edited."""
    import llama_cpp.llama_cpp as capi

    with _PARAMS_LOCK:
        original = capi.llama_model_default_params

        def edited():
            params = original()
            change(params)
            return params

        capi.llama_model_default_params = edited
        try:
            yield
        finally:
            capi.llama_model_default_params = original


def open_llama(model_path: str, params: LoadParams | None = None, **options) -> Any:
    """A `llama_cpp.Llama` for a full load (weights, not vocabulary only), with the parameters this CPU needs."""
    from llama_cpp import Llama

    params = params or load_params()

    def apply(model_params) -> None:
        model_params.use_extra_bufts = params.extra_buffers

    with _model_defaults(apply):
        return Llama(model_path=model_path, **options)
