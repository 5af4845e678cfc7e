"""`nl2sparql.load(...)`: a ready program for a version name, with its LM and endpoint."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Mapping

from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime, RuntimeConfig


def load(version: str = "latest", *, lm: str | None = None, endpoint_url: str | None = None,
         store: Path | None = None, settings: ProgramSettings | None = None,
         overrides: Mapping[str, Any] | None = None, lm_object=None, runtime: Runtime | None = None,
         lm_server: str | None = None) -> NL2SPARQL:
    """The program for `version` ("latest", "vN", a tag, or "uncompiled"), bound to its own LM.

    Every entry point (ask, chat, the web page, MCP, eval, Python) builds its program here, so each runs the
    version with the settings it was compiled or fine-tuned with. `overrides` changes named settings of those
    (`{"deadline_s": 30}`); `settings` replaces them all (the eval's zero-shot and static-rag baselines).
    With no compiled version of your own, "latest" is the version the package ships. `lm` is a model string
    (`local/qwen-1.5b` by default, or any litellm id); `endpoint_url` a remote SPARQL endpoint instead of the
    embedded store; `lm_object` an LM object in place of `lm`; `runtime` one already open (then `endpoint_url`
    and `store` are its own); `lm_server` the URL of a shared LM server (`nl2sparql lm serve`) that answers in
    place of a model in this process, under the alias of the version's adapter. Nothing is loaded until the
    first question.
    """
    from nl2sparql.artifacts.store import resolve_version

    found = resolve_version(version)
    return _build(found.program_file if found else None, found.manifest if found else {}, lm=lm,
                  endpoint_url=endpoint_url, store=store, settings=settings, overrides=overrides,
                  lm_object=lm_object, runtime=runtime, name=found.name if found else "uncompiled",
                  lm_server=lm_server)


def load_from_folder(folder: Path, **options) -> NL2SPARQL:
    """The program saved in a version folder copied elsewhere (e.g. an MLflow model's artifacts)."""
    import json

    manifest_file = folder / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8")) if manifest_file.exists() else {}
    return _build(folder / "program.json", manifest, name=manifest.get("version") or folder.name, **options)


def manifest_settings(manifest: dict) -> ProgramSettings | None:
    """The program settings a version was compiled with (a fine-tuned one: how much context it is shown)."""
    data = manifest.get("program_settings")
    if not isinstance(data, dict):
        return None
    known = {f.name for f in dataclasses.fields(ProgramSettings)}
    return ProgramSettings(**{k: v for k, v in data.items() if k in known})


def effective_settings(manifest: dict, settings: ProgramSettings | None = None,
                       overrides: Mapping[str, Any] | None = None) -> ProgramSettings:
    """What a program runs with: `settings` if given, else the version's own, with `overrides` applied."""
    base = settings or manifest_settings(manifest) or ProgramSettings()
    if not overrides:
        return base
    known = {f.name for f in dataclasses.fields(ProgramSettings)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        from nl2sparql.errors import Nl2SparqlError

        raise Nl2SparqlError(f"unknown program setting {', '.join(unknown)}: choose among {', '.join(sorted(known))}")
    return dataclasses.replace(base, **overrides)


def _build(state: Path | None, manifest: dict, *, lm: str | None = None, endpoint_url: str | None = None,
           store: Path | None = None, settings: ProgramSettings | None = None,
           overrides: Mapping[str, Any] | None = None, lm_object=None, runtime: Runtime | None = None,
           name: str = "uncompiled", lm_server: str | None = None) -> NL2SPARQL:
    from nl2sparql.modules.adapter import LoraAdapter
    from nl2sparql.modules.lm import adapter_lm, resolve_lm
    from nl2sparql.modules.ranker import RankerFile

    adapter = LoraAdapter.from_manifest(state.parent, manifest) if state is not None else None
    followup = LoraAdapter.from_manifest(state.parent, manifest, "followup_adapter") if state is not None else None
    followup_lm = None
    if lm_server:
        lm_object, followup_lm = _server_lms(lm_server, name, adapter, followup, lm, getattr(lm_object, "cache",
                                                                                             True))
    elif (adapter is not None or followup is not None) and (lm_object is None or _is_local(lm_object)):
        # A fine-tuned version runs on its base model + adapter, in place of any local model it is given (an
        # eval's or a compile's); a fake or remote LM object passed on purpose is used as is.
        cache = getattr(lm_object, "cache", True)
        if followup is not None:
            followup.check_base(lm)
            followup_lm = adapter_lm(followup, cache=cache)
        if adapter is not None:
            adapter.check_base(lm)
            lm_object = adapter_lm(adapter, cache=cache)
    program_settings = effective_settings(manifest, settings, overrides)  # a bad override fails before anything opens
    runtime = runtime or Runtime(RuntimeConfig(endpoint=EndpointConfig(url=endpoint_url, store_path=store)))
    program = NL2SPARQL(program_settings, runtime, version=name, manifest=manifest)
    if state is not None:
        try:
            program.load(str(state))
        except Exception as error:  # a save edited or cut short after the version was checked
            from nl2sparql.errors import ArtifactError, first_line

            raise ArtifactError(f"the saved program {state} cannot be loaded: {first_line(error)}") from None
    program.set_lm(lm_object if lm_object is not None else resolve_lm(lm))
    program.followup_lm = followup_lm
    ranker = RankerFile.from_manifest(state.parent, manifest) if state is not None else None
    if ranker is not None:
        program.ranker = ranker.load()  # a missing or edited file is refused here, before any question
    return program


def _server_lms(url: str, name: str, adapter, followup, lm: str | None, cache: bool):
    """The version's LM(s) answered by the shared server at `url`: each adapter under the alias `lm serve` gives it
    (its checksum read from the manifest: the adapter file need not be on this machine), or the base local model."""
    from nl2sparql.errors import LMConfigError
    from nl2sparql.modules.local_lm import DEFAULT_LOCAL_MODEL
    from nl2sparql.modules.server_lm import adapter_alias, base_alias, server_lm

    if adapter is None:
        model = (lm or f"local/{DEFAULT_LOCAL_MODEL}")
        if not model.startswith("local/"):
            raise LMConfigError(f"--lm-server serves local models; {model} is reached without it")
        answer = server_lm(url, base_alias(model.removeprefix("local/")), model, cache=cache)
    else:
        adapter.check_base(lm)
        answer = server_lm(url, adapter_alias(name, "answer", adapter.sha256), adapter.lm_id, cache=cache)
    follow = server_lm(url, adapter_alias(name, "followup", followup.sha256), followup.lm_id, cache=cache) \
        if followup is not None else None
    return answer, follow


def _is_local(lm) -> bool:
    return str(getattr(lm, "model", "")).startswith("local/")
