"""`nl2sparql doctor`: what a user runs when something is wrong. Each check says ok, or what to do.

Python, the llama.cpp build and the CPU features it uses, the load parameters chosen for this CPU, each local
model's file and checksum, the knowledge base, the artifact store and the shipped version, and a timed one-token
generation in a child process (a crash there is reported, not suffered).
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info < (3, 11):
        return Check("python", False, f"Python {version}: nl2sparql needs 3.11 or newer")
    return Check("python", True, f"Python {version} ({sys.executable})")


def llama_features(info: str) -> list[str]:
    """The features a llama.cpp system-info line says are on ("AVX2 = 1 | AMX_INT8 = 1 | …")."""
    on = []
    for part in info.replace("|", " | ").split("|"):
        key, _, value = part.partition("=")
        if value.strip() == "1" and key.strip():
            on.append(key.strip())
    return on


def check_llama() -> Check:
    try:
        import llama_cpp
    except ImportError:
        return Check("llama.cpp", False, "llama-cpp-python is not installed: pip install 'nl2sparql[local]'")
    info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    features = llama_features(info)
    return Check("llama.cpp", True, f"llama-cpp-python {llama_cpp.__version__}; CPU features used: "
                                    f"{', '.join(features) or 'none reported'}")


def check_cpu() -> Check:
    from nl2sparql.modules.llama_load import cpu_name, load_params

    params = load_params()
    return Check("cpu", True, f"{cpu_name()}; extra buffer types {'on' if params.extra_buffers else 'off'}: "
                              f"{params.reason}")


def check_models(in_use: str) -> list[Check]:
    """Each local model: installed or not, its assembled file and checksum. Only the model in use must be there."""
    from nl2sparql.errors import LMConfigError
    from nl2sparql.modules.adapter import file_sha256
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble, part_files

    checks = []
    for name, model in LOCAL_MODELS.items():
        label = f"model {name}"
        try:
            part_files(model)
        except LMConfigError as error:
            needed = name == in_use
            checks.append(Check(label, not needed, ("not installed: " if needed else "not installed (optional): ")
                                + str(error).split(": ", 1)[-1]))
            continue
        try:
            path = assemble(model)
        except LMConfigError as error:
            checks.append(Check(label, False, str(error)))
            continue
        actual = file_sha256(path)
        ok = actual == model.sha256
        checks.append(Check(label, ok, f"{path} sha256 {actual[:12]}… " + (
            "as pinned" if ok else f"differs from the pinned {model.sha256[:12]}…: delete it and run again")))
    return checks


def check_kb(store: Path | None) -> Check:
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    try:
        with EmbeddedEndpoint(EndpointConfig(store_path=store)) as endpoint:
            triples = sum(endpoint.manifest.get("graphs", {}).values())
            started = time.perf_counter()
            answered = endpoint.execute("ASK { GRAPH <http://liita.it/data> { ?s ?p ?o } }").boolean
            seconds = time.perf_counter() - started
            where = endpoint.path
            fingerprint = endpoint.fingerprint()
    except Nl2SparqlError as error:
        return Check("knowledge base", False, f"{error} (build it with `nl2sparql kb build`)")
    if not answered:
        return Check("knowledge base", False, f"{where} has no lemma bank: rebuild it with `nl2sparql kb build`")
    return Check("knowledge base", True, f"{where}: fingerprint {fingerprint}, {triples:,} triples, "
                                         f"answered a query in {seconds:.2f} s")


def check_artifacts() -> tuple[Check, str | None]:
    """The artifact store, the version `latest` stands for, and the base model it runs on (None: the default)."""
    from nl2sparql.artifacts.store import artifact_root, effective_name, resolve_version, versions
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.modules.adapter import LoraAdapter

    root = artifact_root()
    try:
        name = effective_name("latest")
        found = resolve_version("latest")
        adapter = LoraAdapter.from_manifest(found.path, found.manifest) if found else None
        if adapter is not None:
            adapter.verify()
    except Nl2SparqlError as error:
        return Check("artifacts", False, f"{root}: {error}"), None
    own = len(versions(root))
    base = f"local/{adapter.base_model}" if adapter else (found.manifest.get("lm") if found else None)
    detail = (f"{root}: {own} version(s) of your own; 'latest' is {name}"
              + (f" ({found.name}, {found.manifest.get('optimizer', 'none')})" if found and found.name != name else "")
              + (f", adapter {adapter.sha256[:8]} checked" if adapter else ""))
    return Check("artifacts", True, detail), base


def check_smoke(model: str) -> Check:
    """A timed one-token generation of the model in use, in a child process (nothing remembered, nothing cached)."""
    from nl2sparql.errors import LMConfigError
    from nl2sparql.modules.llama_load import load_params
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.modules.smoke import smoke_generate

    if model not in LOCAL_MODELS:
        return Check("generation", True, f"{model} is not a local model: nothing to run here")
    try:
        import llama_cpp  # noqa: F401

        path = assemble(LOCAL_MODELS[model])
    except (ImportError, LMConfigError) as error:
        return Check("generation", False, f"local/{model} cannot load: {error}")
    params = load_params()
    result = smoke_generate(path, params)
    if not result.ok:
        return Check("generation", False, f"local/{model}: {result.detail}; rebuild llama.cpp with "
                                          "CMAKE_ARGS=\"-DGGML_AMX=OFF\" or use --lm with a hosted model")
    return Check("generation", True, f"local/{model} loaded and {result.detail} in {result.seconds:.1f} s")


def run_checks(lm: str | None = None, store: Path | None = None) -> list[Check]:
    """Every check, in the order a user reads them. `lm`: the model to try (default: the one 'latest' runs on)."""
    from nl2sparql.modules.lm import DEFAULT_LM

    checks = [check_python(), check_llama(), check_cpu()]
    artifacts, base = check_artifacts()
    model = (lm or base or DEFAULT_LM).removeprefix("local/")
    checks += check_models(model)
    checks += [check_kb(store), artifacts, check_smoke(model)]
    return checks


def checks_json(checks: list[Check]) -> dict:
    return {"ok": all(c.ok for c in checks), "checks": [asdict(c) for c in checks]}
