"""A one-token generation in a child process before a local model is first used on a machine.

A crash inside llama.cpp (a segfault on an unsupported CPU path) cannot be caught in the process it kills, so the
first load of a model on a machine is tried in a child: if the child dies, the user gets one line naming the cause
and the way out instead of a silent "Segmentation fault". A check that passed is remembered under the nl2sparql
home, per llama.cpp build, CPU, model file and load parameters, so it runs once per machine and build.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import ModelCrashed
from nl2sparql.modules.llama_load import LoadParams, cpu_flags, cpu_name

SMOKE_TIMEOUT_S = 300.0
SMOKE_PROMPT = "SELECT ?lemma WHERE"


@dataclass(frozen=True)
class SmokeResult:
    ok: bool
    seconds: float
    detail: str  # the token generated, or how the child died


def llama_build() -> str:
    """llama-cpp-python's version and its shared library's size and time: a rebuild is another build."""
    import llama_cpp

    folder = Path(llama_cpp.__file__).parent / "lib"
    libraries = sorted(p for p in folder.glob("*llama*") if p.is_file()) if folder.is_dir() else []
    stamp = ";".join(f"{p.name}:{p.stat().st_size}:{int(p.stat().st_mtime)}" for p in libraries)
    return f"{llama_cpp.__version__}|{stamp}"


def smoke_key(model_path: Path, params: LoadParams) -> str:
    stat = model_path.stat()
    parts = [llama_build(), cpu_name(), " ".join(sorted(cpu_flags())), model_path.name, str(stat.st_size),
             f"extra_buffers={params.extra_buffers}"]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def child_command(model_path: Path, params: LoadParams) -> list[str]:
    return [sys.executable, "-m", "nl2sparql.modules.smoke", str(model_path), "1" if params.extra_buffers else "0"]


def smoke_generate(model_path: Path, params: LoadParams, timeout: float = SMOKE_TIMEOUT_S) -> SmokeResult:
    """Load the model and generate one token in a child process; how it went, never an exception."""
    started = time.perf_counter()
    try:
        done = subprocess.run(child_command(model_path, params), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return SmokeResult(False, time.perf_counter() - started, f"no token after {timeout:.0f} s")
    seconds = time.perf_counter() - started
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return SmokeResult(False, seconds, f"llama.cpp crashed ({name})")
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return SmokeResult(False, seconds, lines[-1] if lines else f"exit code {done.returncode}")
    try:
        token = json.loads(done.stdout.strip().splitlines()[-1])["token"]
    except (ValueError, KeyError, IndexError):
        return SmokeResult(False, seconds, "the child printed no token")
    return SmokeResult(True, seconds, f"generated {token!r}")


def _record_file() -> Path:
    from nl2sparql.paths import resolve

    return resolve().models / "smoke.json"


def _passed() -> dict:
    try:
        data = json.loads(_record_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def ensure_runs(model_name: str, model_path: Path, params: LoadParams) -> None:
    """Raise one line (ModelCrashed) if this model cannot generate on this machine; remembered once it can."""
    from nl2sparql.files import write_text_atomic

    key = smoke_key(model_path, params)
    if key in _passed():
        return
    result = smoke_generate(model_path, params)
    if not result.ok:
        raise ModelCrashed(
            f"the local model {model_name} cannot run on this machine: {result.detail} at its first generation "
            f"(extra buffer types {'on' if params.extra_buffers else 'off'}); run `nl2sparql doctor`, rebuild "
            "llama.cpp with CMAKE_ARGS=\"-DGGML_AMX=OFF\" pip install --force-reinstall --no-cache-dir "
            "llama-cpp-python==0.3.36, or answer with a hosted model (--lm openai/gpt-4.1-mini)")
    record = _passed()
    record[key] = {"model": model_name, "seconds": round(result.seconds, 2),
                   "extra_buffers": params.extra_buffers, "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    write_text_atomic(_record_file(), json.dumps(record, indent=1) + "\n")


def _child(model_path: str, extra_buffers: str) -> None:
    """The child's work: load and generate one token; print it as JSON."""
    from nl2sparql.modules.llama_load import open_llama

    params = LoadParams(extra_buffers == "1", "smoke check")
    llama = open_llama(model_path, params, n_ctx=256, n_threads=1, verbose=False)
    out = llama.create_completion(SMOKE_PROMPT, max_tokens=1, temperature=0.0)
    print(json.dumps({"token": out["choices"][0]["text"]}))


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
