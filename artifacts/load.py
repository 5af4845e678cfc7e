"""`nl2sparql.load(...)`: a ready program for a version name, with its LM and endpoint."""

from __future__ import annotations

from pathlib import Path

from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime, RuntimeConfig

def load(version: str = "latest", *, lm: str | None = None, endpoint: str | None = None,
         store: Path | None = None, settings: ProgramSettings | None = None, lm_object=None,
         runtime: Runtime | None = None) -> NL2SPARQL:
    """The program for `version` ("latest", "vN", a tag, or "uncompiled"), bound to its own LM.

    With no compiled version of your own, "latest" is the version the package ships. `lm` is a model string
    (`local/qwen-1.5b` by default, or any litellm id); `endpoint` a remote SPARQL URL instead of the
    embedded store; `runtime` one already open (then `endpoint` and `store` are its own). Nothing is loaded
    until the first question.
    """
    from nl2sparql.artifacts.store import resolve_program_file

    return _build(resolve_program_file(version), lm=lm, endpoint=endpoint, store=store, settings=settings,
                  lm_object=lm_object, runtime=runtime)


def load_from_folder(folder: Path, **options) -> NL2SPARQL:
    """The program saved in a version folder copied elsewhere (e.g. an MLflow model's artifacts)."""
    return _build(folder / "program.json", **options)


def _build(state: Path | None, *, lm: str | None = None, endpoint: str | None = None, store: Path | None = None,
           settings: ProgramSettings | None = None, lm_object=None, runtime: Runtime | None = None) -> NL2SPARQL:
    from nl2sparql.modules.lm import resolve_lm

    runtime = runtime or Runtime(RuntimeConfig(endpoint=EndpointConfig(url=endpoint, store_path=store)))
    program = NL2SPARQL(settings, runtime)
    if state is not None:
        try:
            program.load(str(state))
        except Exception as error:  # a save edited or cut short after the version was checked
            from nl2sparql.errors import ArtifactError, first_line

            raise ArtifactError(f"the saved program {state} cannot be loaded: {first_line(error)}") from None
    program.set_lm(lm_object if lm_object is not None else resolve_lm(lm))
    return program
