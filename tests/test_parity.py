"""Every entry point runs the program `nl2sparql.load(version)` builds: ask, chat, the web toolbox, the MCP tool and
eval run get the version's own settings and its adapter, so the same question sends the same prompt to the same
LM. An entry point that built its program another way (default settings, another LM) fails here."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from click.testing import CliRunner
from dspy.utils.dummies import DummyLM

import nl2sparql
from nl2sparql.artifacts.load import manifest_settings
from nl2sparql.cli import main
from nl2sparql.modules.program import NL2SPARQL
from nl2sparql.paths import ARTIFACTS_ENV, HOME_ENV
from nl2sparql.serve.commands.servers import serving_toolbox
from nl2sparql.serve.tools import describe_line

from test_conversation import SADNESS
from test_pairing import fine_tuned

QUESTION = "Quali parole ELITA esprimono tristezza?"
# Settings a fine-tune writes, none of them ProgramSettings' default: a toolbox that fell back to the defaults
# would send a longer prompt (examples, ontology terms, rules) in another format.
OWN = {"compact_prompt": True, "use_examples": False, "ontology_k": 0, "use_constraints": False,
       "repair_empty": False, "followup_mode": "chat", "max_repairs": 1, "deadline_s": 45.0,
       "ground_entities": False}


class AdapterLMs:
    """Stands in for `adapter_lm`: each fine-tuned LM an entry point asks for is a DummyLM under the adapter's
    model string, kept to read the prompts it was sent."""

    def __init__(self):
        self.made: list[DummyLM] = []

    def __call__(self, adapter, **_):
        lm = DummyLM([{"sparql": SADNESS}] * 8)
        lm.model = adapter.lm_id
        self.made.append(lm)
        return lm

    def last_prompt(self) -> tuple[str, list[dict], dict]:
        """The model string and first prompt of the LM asked last, and the settings of the program made last."""
        asked = [lm for lm in self.made if lm.history]
        assert asked, "no fine-tuned LM was asked anything"
        lm = asked[-1]
        return lm.model, lm.history[0]["messages"], dataclasses.asdict(self.built[-1].settings)


@pytest.fixture
def version(tmp_path, monkeypatch, kb_store):
    root = tmp_path / "artifacts"
    found = fine_tuned(root, tmp_path, b"parity adapter", settings=OWN)
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    lms = AdapterLMs()
    monkeypatch.setattr("nl2sparql.modules.lm.adapter_lm", lms)
    built = []  # every program made, whichever way an entry point makes it
    init = NL2SPARQL.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(NL2SPARQL, "__init__", recording_init)
    lms.built = built
    return found, lms


def _through_api(kb_store, lms):
    with nl2sparql.load("v1", store=kb_store) as program:
        program(QUESTION)
        return program.settings, lms.last_prompt()


def _through_ask(kb_store, lms):
    table = CliRunner().invoke(main, ["ask", QUESTION, "--version", "v1", "--store", str(kb_store), "--format", "csv"])
    assert table.exit_code == 0 and table.stdout.startswith("lemma,italianWord\npiangere,piangere\n") and "tristezza" in table.stdout, table.output
    text = CliRunner().invoke(main, ["ask", QUESTION, "--version", "v1", "--store", str(kb_store)])
    assert text.exit_code == 0 and text.stdout.startswith("Inteso come: Parole italiane"), text.output  # first line
    result = CliRunner().invoke(main, ["ask", QUESTION, "--version", "v1", "--store", str(kb_store), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["understood_as"].startswith("Parole italiane")
    return lms.last_prompt()


def _through_chat(kb_store, lms):
    result = CliRunner().invoke(main, ["chat", "--version", "v1", "--store", str(kb_store)], input=QUESTION + "\n")
    assert result.exit_code == 0, result.output
    assert "Inteso come: Parole italiane" in result.output
    return lms.last_prompt()


def _through_web(kb_store, lms):
    toolbox = serving_toolbox("v1", None, None, kb_store)  # what `nl2sparql web` serves
    try:
        assert toolbox.translate(QUESTION)["ok"]
        return toolbox.configuration()["program"], lms.last_prompt()
    finally:
        toolbox.close()


def _through_mcp(kb_store, lms):
    from nl2sparql.serve.mcp import create_server

    toolbox = serving_toolbox("v1", None, None, kb_store)  # what `nl2sparql mcp serve` serves
    server = create_server(toolbox)
    try:
        configuration = asyncio.run(server.call_tool("configuration", {}))
        asyncio.run(server.call_tool("translate", {"question": QUESTION}))
        return json.loads(configuration.content[0].text)["program"], lms.last_prompt()
    finally:
        toolbox.close()


def _through_eval(kb_store, lms, tmp_path):
    from nl2sparql.data.dataset import load_dataset

    record = next(r for r in load_dataset() if r.split == "dev" and "emotion" in r.patterns)
    split = tmp_path / "one.jsonl"
    split.write_text(json.dumps(dataclasses.replace(record, question_it=QUESTION, paraphrases={}).to_json()) + "\n")
    result = CliRunner().invoke(main, ["eval", "run", "--version", "v1", "--split", str(split), "--store",
                                       str(kb_store), "--json"])
    assert result.exit_code == 0, result.output
    return lms.last_prompt()


@pytest.mark.slow
def test_every_entry_point_sends_the_prompt_load_sends_to_the_versions_adapter(version, kb_store, tmp_path):
    found, lms = version
    adapter_id = f"local/qwen-1.5b+lora-{found.manifest['adapter']['sha256'][:8]}"
    settings, api = _through_api(kb_store, lms)
    assert settings == manifest_settings(found.manifest) and settings.compact_prompt and not settings.use_examples
    assert api[0] == adapter_id
    web_program, web = _through_web(kb_store, lms)
    assert web_program["settings"] == dataclasses.asdict(settings) and web_program["lm"] == adapter_id
    mcp_program, mcp = _through_mcp(kb_store, lms)
    assert mcp_program == web_program
    prompts = {"ask": _through_ask(kb_store, lms), "chat": _through_chat(kb_store, lms), "web": web, "mcp": mcp,
               "eval": _through_eval(kb_store, lms, tmp_path)}
    for entry, (model, messages, entry_settings) in prompts.items():
        assert model == adapter_id, entry
        assert entry_settings == dataclasses.asdict(settings), f"{entry} runs other settings than nl2sparql.load"
        assert messages == api[1], f"{entry} sent another prompt than nl2sparql.load"


def test_a_flag_changes_only_its_own_setting_and_the_page_says_what_answers(version, kb_store):
    found, _ = version
    toolbox = serving_toolbox("v1", None, None, kb_store, {"deadline_s": 5.0})
    try:
        program = toolbox.configuration()["program"]
    finally:
        toolbox.close()
    own = dataclasses.asdict(manifest_settings(found.manifest))
    assert program["settings"] == {**own, "deadline_s": 5.0}
    line = describe_line(program)
    assert line.startswith("Answering: v1 (finetune; local/qwen-1.5b+lora-") and "compact prompt on" in line
    assert "examples 0" in line and "deadline 5 s" in line


def test_an_unknown_setting_is_one_line(version):
    from nl2sparql.errors import Nl2SparqlError

    with pytest.raises(Nl2SparqlError, match="unknown program setting deadline: choose among"):
        nl2sparql.load("v1", overrides={"deadline": 5})
