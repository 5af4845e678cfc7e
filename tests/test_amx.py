"""The local model on CPUs with AMX: llama.cpp's extra buffer types off there (on elsewhere), a crash in a first
generation turned into one red line by the child-process smoke check, and `nl2sparql doctor`."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from nl2sparql.cli import main
from nl2sparql.errors import ModelCrashed
from nl2sparql.modules import llama_load, smoke
from nl2sparql.modules.llama_load import LoadParams, cpu_flags, load_params, open_llama
from nl2sparql.modules.local_lm import LOCAL_MODELS, LlamaCppEngine, LlamaSettings, assemble
from nl2sparql.paths import ARTIFACTS_ENV

SAPPHIRE_RAPIDS = frozenset({"avx2", "avx512f", "avx512_vnni", "amx_tile", "amx_int8", "amx_bf16"})
EPYC = frozenset({"avx2", "avx512f", "avx512_vnni", "avx512_bf16"})
SEGFAULT = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]


@pytest.fixture
def fresh_record(tmp_path, monkeypatch):
    """No smoke check remembered: the next first load runs one."""
    monkeypatch.setattr(smoke, "_record_file", lambda: tmp_path / "smoke.json")
    return tmp_path / "smoke.json"


@pytest.mark.parametrize("flags, extra", [(SAPPHIRE_RAPIDS, False), (EPYC, True), (frozenset(), True)])
def test_extra_buffers_are_off_exactly_where_the_cpu_has_amx(flags, extra):
    assert load_params(flags).extra_buffers is extra
    assert load_params(flags, extra_buffers=not extra).extra_buffers is (not extra)  # a caller's choice wins


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Intel Xeon\nflags\t\t: fpu avx2 amx_tile amx_int8\n\n")
    assert {"amx_tile", "amx_int8", "avx2"} <= cpu_flags(info)
    assert cpu_flags(tmp_path / "missing") == frozenset()


@pytest.mark.slow
@pytest.mark.parametrize("flags, extra", [(SAPPHIRE_RAPIDS, False), (EPYC, True)])
def test_the_engine_loads_the_model_with_the_parameters_its_cpu_needs(flags, extra, monkeypatch, fresh_record):
    real_amx = bool(llama_load.AMX_FLAGS & cpu_flags())
    monkeypatch.setattr(llama_load, "cpu_flags", lambda *_: flags)
    engine = LlamaCppEngine("qwen-0.5b", LlamaSettings(n_ctx=512, prompt_cache_bytes=1 << 24))
    if extra and real_amx:  # told "no AMX" on a CPU that has it: the smoke check stops the crash as one line
        with pytest.raises(ModelCrashed, match="cannot run on this machine"):
            engine._load()
        engine.close()
        return
    try:
        llama = engine._load()
        assert llama.model_params.use_extra_bufts is extra
        out = llama.create_completion("SELECT ?lemma WHERE", max_tokens=4, temperature=0.0)
        assert out["choices"][0]["text"]  # it generates
    finally:
        engine.close()
    assert len(json.loads(fresh_record.read_text())) == 1  # the first load was smoke-checked and remembered


def test_open_llama_leaves_the_default_parameters_as_they_were():
    import llama_cpp.llama_cpp as capi

    before = capi.llama_model_default_params
    path = str(assemble(LOCAL_MODELS["qwen-0.5b"]))
    llama = open_llama(path, LoadParams(False, "test"), vocab_only=True, verbose=False)
    assert llama.model_params.use_extra_bufts is False
    assert capi.llama_model_default_params is before and capi.llama_model_default_params().use_extra_bufts


def test_a_crash_in_the_child_is_a_result_and_a_pass_is_remembered(monkeypatch, fresh_record):
    path = assemble(LOCAL_MODELS["qwen-0.5b"])
    params = load_params()
    real = smoke.child_command
    monkeypatch.setattr(smoke, "child_command", lambda *_: SEGFAULT)
    crashed = smoke.smoke_generate(path, params)
    assert not crashed.ok and crashed.detail == "llama.cpp crashed (SIGSEGV)"
    with pytest.raises(ModelCrashed, match=r"cannot run on this machine: llama.cpp crashed \(SIGSEGV\)"):
        smoke.ensure_runs("qwen-0.5b", path, params)
    assert not fresh_record.exists()
    monkeypatch.setattr(smoke, "child_command", real)
    smoke.ensure_runs("qwen-0.5b", path, params)  # the real child generates a token
    monkeypatch.setattr(smoke, "child_command", lambda *_: SEGFAULT)
    smoke.ensure_runs("qwen-0.5b", path, params)  # remembered: no child this time


@pytest.mark.parametrize("command", [["ask", "Quali lemmi esprimono gioia?"], ["chat"], ["web", "--port", "1"]])
def test_a_model_that_crashes_is_one_red_line_and_exit_2(command, kb_store, tmp_path, monkeypatch, fresh_record):
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path))
    monkeypatch.setattr(smoke, "child_command", lambda *_: SEGFAULT)
    result = CliRunner().invoke(main, [*command, "--version", "uncompiled", "--lm", "local/qwen-0.5b",
                                       "--store", str(kb_store)], input="")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "local model qwen-0.5b cannot run on this machine: llama.cpp crashed (SIGSEGV)" \
        in lines[0] and "nl2sparql doctor" in lines[0]


@pytest.mark.slow
def test_doctor_json_on_the_test_kb_and_the_small_model(kb_store, tmp_path, monkeypatch):
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path))
    result = CliRunner().invoke(main, ["doctor", "--json", "--lm", "local/qwen-0.5b", "--store", str(kb_store)])
    report = json.loads(result.output)
    checks = {c["name"]: c for c in report["checks"]}
    assert result.exit_code == 0 and report["ok"] is True, report
    assert {"python", "llama.cpp", "cpu", "model qwen-0.5b", "knowledge base", "artifacts", "generation"} <= set(checks)
    assert "as pinned" in checks["model qwen-0.5b"]["detail"]
    assert "triples" in checks["knowledge base"]["detail"] and "'latest' is shipped" in checks["artifacts"]["detail"]
    assert checks["generation"]["detail"].startswith("local/qwen-0.5b loaded and generated")
    assert "extra buffer types" in checks["cpu"]["detail"]


def test_doctor_says_what_to_do_when_the_kb_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path))
    monkeypatch.setattr(smoke, "child_command", lambda *_: SEGFAULT)
    result = CliRunner().invoke(main, ["doctor", "--json", "--lm", "local/qwen-0.5b",
                                       "--store", str(tmp_path / "nowhere")])
    report = json.loads(result.output)
    checks = {c["name"]: c for c in report["checks"]}
    assert result.exit_code == 1 and report["ok"] is False
    assert not checks["knowledge base"]["ok"] and "nl2sparql kb build" in checks["knowledge base"]["detail"]
    assert not checks["generation"]["ok"] and "SIGSEGV" in checks["generation"]["detail"]
