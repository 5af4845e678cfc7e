"""`nl2sparql artifacts`: list, show, tag and remove compiled versions."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2sparql.errors import ArtifactError
from nl2sparql.serve.commands.options import make_console


@click.group()
def artifacts() -> None:
    """Compiled versions: list them, show a manifest, tag one, remove one (tagged versions are kept)."""


@artifacts.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the versions as JSON.")
def artifacts_list(as_json: bool) -> None:
    """Every compiled version, oldest first, with its tags and dev score."""
    from nl2sparql.artifacts.tables import version_rows, versions_table

    rows = version_rows()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    make_console().print(versions_table(rows) if rows
                         else "no compiled versions yet: `nl2sparql optimize run` makes one")


@artifacts.command("show")
@click.argument("version")
def artifacts_show(version: str) -> None:
    """Print the manifest of VERSION (vN, latest, a tag, or shipped) as JSON."""
    from nl2sparql.artifacts.store import SHIPPED, effective_name, open_shipped, open_version

    name = effective_name(version)
    if name == "uncompiled":
        raise ArtifactError("the uncompiled program has no manifest: nothing is compiled or shipped yet")
    manifest = open_shipped().manifest if name == SHIPPED else open_version(name).manifest
    click.echo(json.dumps(manifest, indent=2, ensure_ascii=False))


@artifacts.command("tag")
@click.argument("version")
@click.argument("name")
def artifacts_tag(version: str, name: str) -> None:
    """Give VERSION the tag NAME (moves the tag if it existed)."""
    from nl2sparql.artifacts.store import tag_version

    click.echo(f"{name} → {tag_version(version, name)}")


@artifacts.command("rm")
@click.argument("version")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def artifacts_rm(version: str, yes: bool) -> None:
    """Remove VERSION for good (refused while a tag points at it)."""
    from nl2sparql.artifacts.store import remove_version, resolve_name

    name = resolve_name(version)
    if not yes:
        click.confirm(f"remove {name} for good?", abort=True)
    click.echo(f"removed {remove_version(name)}")


@artifacts.command("pair")
@click.argument("first")
@click.argument("followup")
@click.option("--note", default=None, help="The new manifest's note (default: what each version answers).")
@click.option("--json", "as_json", is_flag=True, help="Print the new version's manifest as JSON.")
def artifacts_pair(first: str, followup: str, note: str | None, as_json: bool) -> None:
    """A new version that answers questions asked alone with FIRST and follow-ups with FOLLOWUP's adapter.

    \b
    FIRST keeps its program, settings and adapter for every question asked alone and every first turn of a
    conversation; FOLLOWUP's adapter (a version fine-tuned with --followup-mode chat) writes each follow-up,
    reading the earlier turns as chat turns. Nothing is retrained; both adapters are checked and must share
    one base model. Example: nl2sparql artifacts pair v11 v13
    """
    from nl2sparql.artifacts.pairing import pair_versions

    version = pair_versions(first, followup, note=note)
    if as_json:
        click.echo(json.dumps(version.manifest, indent=2, ensure_ascii=False))
        return
    paired = version.manifest["paired"]
    click.echo(f"{version.name}: {paired['first']} for questions asked alone, {paired['followup']}'s adapter for "
               f"follow-ups ({version.path})")


@artifacts.command("export")
@click.argument("version")
@click.option("--peft", "peft_dir", type=click.Path(path_type=Path), required=True,
              help="A new folder for the adapter(s) in peft's form: DIR/answer (and DIR/followup for a paired version).")
def artifacts_export(version: str, peft_dir: Path) -> None:
    """Write VERSION's LoRA adapter(s) in peft's form (safetensors + adapter_config.json), for an LM server that
    loads peft adapters.

    \b
    nl2sparql artifacts export v14 --peft exported/v14
    vllm serve Qwen/Qwen2.5-Coder-1.5B-Instruct --enable-lora --max-lora-rank 16 \\
        --lora-modules v14-answer-9d9696e875fd46a8=exported/v14/answer
    """
    from nl2sparql.artifacts.store import resolve_version
    from nl2sparql.modules.adapter import LoraAdapter
    from nl2sparql.modules.server_lm import adapter_alias
    from nl2sparql.optimize.finetune.peft_export import export_peft

    found = resolve_version(version)
    adapters = [(role, LoraAdapter.from_manifest(found.path, found.manifest, key)) for role, key in
                (("answer", "adapter"), ("followup", "followup_adapter"))] if found else []
    adapters = [(role, a) for role, a in adapters if a is not None]
    if not adapters:
        raise ArtifactError(f"version {version} has no LoRA adapter to export")
    for role, adapter in adapters:
        adapter.verify()
        out = export_peft(adapter.path, peft_dir / role, adapter.base_model)
        click.echo(f"{adapter_alias(found.name, role, adapter.sha256)}={out}")
