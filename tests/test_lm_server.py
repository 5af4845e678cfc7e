"""One LM server for many front ends: `nl2sparql lm serve` with the small model and a small adapter of ours answers
an OpenAI-style chat request that carries a grammar; a program through it writes what the in-process engine writes;
a server without the version's adapter is refused in one line; a server killed mid-answer is one line, and once it is
back the same program answers again; Ctrl-C stops it cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from nl2sparql.cli import main
from nl2sparql.errors import LMServerError
from nl2sparql.paths import ARTIFACTS_ENV

QUESTIONS = ["Quanti verbi esprimono tristezza in ELITA?", "Which Sicilian words translate 'casa'?"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def small_adapter_version(root: Path, made: Path, seed: int = 0, scale: float = 0.01):
    """A version of the 0.5B model with a rank-4 LoRA adapter of ours (small random A and B: it changes the model)."""
    import gguf
    import numpy as np

    from nl2sparql.artifacts.store import write_version
    from nl2sparql.modules.adapter import ADAPTER_FILE, file_sha256
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.modules.program import NL2SPARQL
    from nl2sparql.optimize.finetune.gguf_lora import LAYER_TENSORS, AdapterTensors, write_adapter

    base = assemble(LOCAL_MODELS["qwen-0.5b"])
    shapes = {t.name: [int(n) for n in t.shape] for t in gguf.GGUFReader(str(base)).tensors}
    rng, rank, tensors = np.random.default_rng(seed), 4, {}
    for name, (n_in, n_out) in ((n, s) for n, s in shapes.items() if n.startswith("blk.")
                                and n.split(".")[2] in LAYER_TENSORS.values() and n.endswith(".weight")):
        tensors[f"{name}.lora_a"] = rng.normal(0, scale, (rank, n_in))
        tensors[f"{name}.lora_b"] = rng.normal(0, scale, (n_out, rank))
    path = write_adapter(AdapterTensors(tensors, 8.0, rank), made / ADAPTER_FILE, base_model="qwen-0.5b")
    return write_version(NL2SPARQL(), {
        "parent": None, "created_at": "2026-11-28T00:00:00+00:00", "optimizer": "finetune", "lm": "local/qwen-0.5b",
        "dataset_hash": "x", "adapter": {"file": ADAPTER_FILE, "sha256": file_sha256(path), "base_model": "qwen-0.5b"},
        "program_settings": {"use_examples": False, "use_constraints": False, "ontology_k": 0, "max_repairs": 0,
                             "check_scope": False, "doubt": False, "ground_entities": False}}, root, files={
        ADAPTER_FILE: path})


def start_server(version: str, port: int, env: dict) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "nl2sparql", "lm", "serve", "--version", version, "--port",
                                str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"lm serve ended: {process.stdout.read()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise AssertionError("lm serve did not start in 120 s")


@pytest.fixture
def versions(tmp_path, monkeypatch):
    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    served = small_adapter_version(root, tmp_path / "a", seed=0)
    other = small_adapter_version(root, tmp_path / "b", seed=1)
    return served, other, {**os.environ, ARTIFACTS_ENV: str(root)}


def _program(version: str, kb_store, url: str | None):
    import nl2sparql

    program = nl2sparql.load(version, store=kb_store, lm_server=url)
    program.generate.predict.lm.cache = False
    program.generate.predict.lm.kwargs["max_tokens"] = 48  # short answers: the comparison is token by token anyway
    return program


@pytest.mark.slow
def test_lm_serve_answers_like_the_engine_in_this_process_and_survives_a_kill(versions, kb_store):
    served, other, env = versions
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(served.name, port, env)
    try:
        aliases = [m["id"] for m in httpx.get(f"{url}/v1/models").json()["data"]]
        sha = served.manifest["adapter"]["sha256"]
        assert aliases == [f"{served.name}-answer-{sha[:16]}"]
        through = _program(served.name, kb_store, url)
        here = _program(served.name, kb_store, None)
        written = {}
        try:
            for question in QUESTIONS:
                remote, local = through(question), here(question)
                assert remote.sparql == local.sparql, question  # greedy both ways: the same tokens
                written[question] = remote.sparql
            assert remote.usage["calls"] == 1 and through.generate.predict.lm.model.endswith("@server")
        finally:
            here.close()
        # (after the comparison: a prompt before it would leave the server's cache in another state than this
        # process's, and llama.cpp's sums in another order can flip a near tie)
        reply = httpx.post(f"{url}/v1/chat/completions", timeout=120, json={
            "model": aliases[0], "temperature": 0.0, "max_tokens": 8, "grammar": 'root ::= "sì" | "no"',
            "messages": [{"role": "user", "content": "La parola «casa» è un nome? Rispondi sì o no."}]}).json()
        assert reply["choices"][0]["message"]["content"] in ("sì", "no")  # the grammar held

        refused = CliRunner().invoke(main, ["ask", QUESTIONS[0], "--version", other.name, "--store", str(kb_store),
                                            "--lm-server", url])
        assert refused.exit_code == 2 and f"does not serve {other.name}-answer-" in refused.output
        assert len(refused.output.strip().splitlines()) == 1

        failed: list[BaseException] = []
        through.generate.predict.lm.kwargs["max_tokens"] = 400
        asking = threading.Thread(target=lambda: _catch(lambda: through(QUESTIONS[1] + " "), failed))
        asking.start()
        time.sleep(1.5)
        server.kill()  # mid-answer
        asking.join(60)
        assert failed and isinstance(failed[0], LMServerError) and "nothing was written" in str(failed[0])
        server.wait(10)

        server = start_server(served.name, port, env)  # back: the same program answers again
        through.generate.predict.lm.kwargs["max_tokens"] = 48
        assert through(QUESTIONS[0]).sparql == written[QUESTIONS[0]]
        through.close()
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGINT)  # Ctrl-C
            assert server.wait(30) == 0


def _catch(call, into: list) -> None:
    try:
        call()
    except BaseException as error:  # noqa: BLE001 - the test reads what was raised
        into.append(error)


def test_a_server_that_does_not_answer_is_one_line(kb_store, tmp_path):
    result = CliRunner().invoke(main, ["ask", QUESTIONS[0], "--version", "uncompiled", "--lm", "local/qwen-0.5b",
                                       "--store", str(kb_store), "--lm-server", f"http://127.0.0.1:{free_port()}"])
    assert result.exit_code == 2 and "does not answer" in result.output and "lm serve" in result.output
