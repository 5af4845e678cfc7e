"""Compile into the weights: LoRA training, the adapter GGUF llama.cpp reads, examples from train only, resume,
and versions that carry an adapter (checksum, base model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nl2sparql.artifacts.store import write_version
from nl2sparql.data.dataset import load_dataset
from nl2sparql.errors import ArtifactError, DatasetError
from nl2sparql.modules.adapter import ADAPTER_FILE, file_sha256
from nl2sparql.optimize.finetune.examples import build_examples, training_records
from nl2sparql.optimize.finetune.gguf_lora import LAYER_TENSORS, from_peft_state, gguf_name, write_adapter
from nl2sparql.optimize.finetune.lora import LoraSettings, TokenizedExample, TrainProgress, train_lora
from nl2sparql.paths import ARTIFACTS_ENV

TINY = dict(vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=128, tie_word_embeddings=True)


def tiny_model(seed: int = 0):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    return Qwen2ForCausalLM(Qwen2Config(**TINY))


def tiny_examples() -> list[TokenizedExample]:
    return [TokenizedExample(tuple([1, 5, 9, 13, 2] + [40 + i, 41 + i, 42 + i, 3]), 5) for i in range(4)]


FAST = LoraSettings(rank=4, alpha=8, learning_rate=1e-2, warmup_steps=1, bf16=False, checkpoint_every=2, seed=3)


def test_lora_trains_and_writes_the_tensors_llama_cpp_expects(tmp_path):
    import gguf

    result = train_lora(tiny_model(), tiny_examples() * 3, FAST, tmp_path / "work")
    assert result.steps == 12 and len(result.losses) == 12
    assert sum(result.losses[-3:]) / 3 < sum(result.losses[:3]) / 3  # it learns the answers
    path = write_adapter(from_peft_state(result.state, FAST.alpha, FAST.rank), tmp_path / "adapter.gguf",
                         base_model="qwen-0.5b", base_sha256="ab" * 32)
    reader = gguf.GGUFReader(str(path))

    def field(key):
        value = reader.fields[key]
        return value.contents() if hasattr(value, "contents") else value.parts[value.data[0]]

    assert field("general.architecture") == "qwen2" and field("general.type") == "adapter"
    assert field("adapter.type") == "lora" and field("adapter.lora.alpha") == pytest.approx(8.0)
    assert field("nl2sparql.base_model") == "qwen-0.5b"
    hidden, inner, kv = TINY["hidden_size"], TINY["intermediate_size"], TINY["hidden_size"] // 4 * 2
    dims = {"attn_q": (hidden, hidden), "attn_k": (hidden, kv), "attn_v": (hidden, kv),
            "attn_output": (hidden, hidden), "ffn_gate": (hidden, inner), "ffn_up": (hidden, inner),
            "ffn_down": (inner, hidden)}  # (in, out) = the model tensor's ne[0], ne[1]
    names = set()
    for tensor in reader.tensors:
        match = re.fullmatch(r"blk\.(\d)\.(\w+)\.weight\.lora_(a|b)", tensor.name)
        assert match, tensor.name
        names.add(tensor.name)
        n_in, n_out = dims[match.group(2)]
        ne = [int(n) for n in tensor.shape]  # GGUF order: ne[0] first
        assert ne == ([n_in, FAST.rank] if match.group(3) == "a" else [FAST.rank, n_out]), tensor.name
    assert len(names) == TINY["num_hidden_layers"] * len(LAYER_TENSORS) * 2


def test_peft_names_map_to_llama_cpp_names():
    assert gguf_name("base_model.model.model.layers.3.mlp.up_proj.lora_A.weight") == "blk.3.ffn_up.weight.lora_a"
    assert gguf_name("base_model.model.model.layers.0.self_attn.o_proj.lora_B.weight") == \
        "blk.0.attn_output.weight.lora_b"
    with pytest.raises(ValueError):
        gguf_name("base_model.model.lm_head.lora_A.weight")


def test_an_interrupted_run_resumes_from_its_checkpoint_and_ends_where_an_unbroken_one_does(tmp_path):
    import torch

    examples = tiny_examples() * 2
    unbroken = train_lora(tiny_model(), examples, FAST, tmp_path / "a")

    def stop_after_five(progress: TrainProgress) -> None:
        if progress.step == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_lora(tiny_model(), examples, FAST, tmp_path / "b", on_step=stop_after_five)
    seen = []
    resumed = train_lora(tiny_model(), examples, FAST, tmp_path / "b", resume=True,
                         on_step=lambda p: seen.append(p.step))
    assert seen == [6, 7, 8]  # only the steps not done before the interruption
    assert resumed.losses == pytest.approx(unbroken.losses, rel=1e-4)
    for name, tensor in unbroken.state.items():
        assert torch.allclose(tensor, resumed.state[name], atol=1e-5), name


def test_resume_refuses_a_checkpoint_of_other_examples(tmp_path):
    from nl2sparql.errors import Nl2SparqlError

    with pytest.raises(KeyboardInterrupt):
        train_lora(tiny_model(), tiny_examples(), FAST, tmp_path, on_step=lambda p: (_ for _ in ()).throw(
            KeyboardInterrupt()) if p.step == 2 else None)
    with pytest.raises(Nl2SparqlError, match="other examples or settings"):
        train_lora(tiny_model(), tiny_examples()[:3], FAST, tmp_path, resume=True)
    with pytest.raises(Nl2SparqlError, match="nothing to resume"):
        train_lora(tiny_model(), tiny_examples(), FAST, tmp_path / "none", resume=True)


def test_examples_come_from_train_only_never_from_scored_splits():
    records = load_dataset()
    for split in ("dev", "test", "generalization"):
        with pytest.raises(DatasetError, match="never learns"):
            training_records(records, split)
    train = training_records(records)
    assert train and {r.split for r in train} == {"train"}
    with pytest.raises(DatasetError, match="only come from the train split"):
        build_examples(None, [r for r in records if r.split == "test"][:1])


def test_every_wording_becomes_an_example_with_the_generate_steps_prompt(kb_store):
    from nl2sparql.artifacts.load import load
    from nl2sparql.modules.program import without_prefix_lines
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    config = FinetuneConfig()
    program = load("uncompiled", store=kb_store, settings=config.program_settings(), lm_object=object())
    try:
        train = training_records(load_dataset())
        chosen = [r for r in train if r.paraphrases][:2] + train[:1]
        examples = build_examples(program, chosen, answer_sparql=without_prefix_lines)
    finally:
        program.close()
    assert len(examples) == sum(len(r.questions()) for r in chosen)
    assert {e.record_id for e in examples} <= {r.id for r in chosen}
    for example in examples:
        system, user = example.messages
        assert "Write one SPARQL query" in system["content"]
        assert example.question in user["content"] and "[[ ## sparql ## ]]" in user["content"]
        assert example.answer.startswith("[[ ## sparql ## ]]\n") and example.answer.rstrip().endswith(
            "[[ ## completed ## ]]")
        assert "PREFIX" not in example.answer  # declared after generation, not learnt


def _adapter_version(root: Path, tmp_path: Path, base: str = "qwen-0.5b"):
    adapter = tmp_path / "made" / ADAPTER_FILE
    adapter.parent.mkdir(parents=True, exist_ok=True)
    adapter.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    from nl2sparql.modules.program import NL2SPARQL

    manifest = {"parent": None, "created_at": "2026-11-25T00:00:00+00:00", "optimizer": "finetune",
                "lm": f"local/{base}", "dataset_hash": "x",
                "adapter": {"file": ADAPTER_FILE, "sha256": file_sha256(adapter), "base_model": base},
                "program_settings": {"use_examples": False, "use_constraints": False, "ontology_k": 0}}
    return write_version(NL2SPARQL(), manifest, root, files={ADAPTER_FILE: adapter})


def test_a_fine_tuned_version_carries_its_adapter_and_checksum(tmp_path, monkeypatch, kb_store):
    import nl2sparql

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    version = _adapter_version(root, tmp_path)
    stored = version.path / ADAPTER_FILE
    assert stored.exists() and file_sha256(stored) == version.manifest["adapter"]["sha256"]
    program = nl2sparql.load(version.name, store=kb_store)
    try:
        lm = program.generate.predict.lm
        adapter_id = f"local/qwen-0.5b+lora-{version.manifest['adapter']['sha256'][:8]}"
        assert lm.model == adapter_id
        assert lm.engine.settings.lora_path == str(stored) and lm.engine.model == "qwen-0.5b"
        assert program.settings.use_examples is False and program.settings.ontology_k == 0
    finally:
        program.close()
    # An eval hands every version the run's local model: a fine-tuned one takes its own instead, keeping the
    # run's cache setting; a fake LM passed on purpose is used as is.
    from dspy.utils.dummies import DummyLM

    from nl2sparql.modules.lm import resolve_lm

    program = nl2sparql.load(version.name, store=kb_store, lm_object=resolve_lm("local/qwen-1.5b", cache=False))
    lm = program.generate.predict.lm
    assert lm.model == adapter_id and lm.cache is False
    program.close()
    dummy = DummyLM([{"sparql": "ASK {}"}])
    program = nl2sparql.load(version.name, store=kb_store, lm_object=dummy)
    assert program.generate.predict.lm is dummy
    program.close()


def test_a_corrupt_or_missing_adapter_and_a_wrong_base_model_are_one_line_errors(tmp_path, monkeypatch):
    import nl2sparql

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    version = _adapter_version(root, tmp_path)
    with pytest.raises(ArtifactError, match="fine-tuned for local/qwen-0.5b; it cannot run on local/qwen-1.5b") as err:
        nl2sparql.load(version.name, lm="local/qwen-1.5b")
    assert "\n" not in str(err.value)
    stored = version.path / ADAPTER_FILE
    data = bytearray(stored.read_bytes())
    data[10] ^= 0xFF
    stored.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match=r"is corrupt: adapter adapter.gguf has checksum") as err:
        nl2sparql.load(version.name)
    assert "\n" not in str(err.value)
    stored.unlink()
    with pytest.raises(ArtifactError, match="adapter.gguf is missing"):
        nl2sparql.load(version.name)
    manifest = json.loads((version.path / "manifest.json").read_text())
    manifest["adapter"] = {"file": "../../etc/passwd", "sha256": "0", "base_model": "qwen-0.5b"}
    (version.path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ArtifactError, match="not in its folder"):
        nl2sparql.load(version.name)


def test_finetune_refuses_a_remote_model_in_one_line():
    from click.testing import CliRunner

    from nl2sparql.cli import main

    result = CliRunner().invoke(main, ["optimize", "run", "--optimizer", "finetune", "--lm", "openai/gpt-4.1-mini"])
    assert result.exit_code == 2
    assert "fine-tuning trains a local model's weights" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_llama_cpp_runs_the_real_model_with_an_adapter_of_ours(kb_store, tmp_path, monkeypatch):
    """The 0.5B GGUF with a LoRA adapter written by write_adapter, loaded by llama.cpp through a version folder,
    answers a question (lora_B is zero, as peft starts it, so the answer is the base model's)."""
    import gguf
    import numpy as np

    import nl2sparql
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.optimize.finetune.gguf_lora import AdapterTensors

    base = assemble(LOCAL_MODELS["qwen-0.5b"])
    shapes = {t.name: [int(n) for n in t.shape] for t in gguf.GGUFReader(str(base)).tensors}
    rank, tensors = 4, {}
    for name, (n_in, n_out) in ((n, s) for n, s in shapes.items() if n.startswith("blk.")
                                and n.split(".")[2] in LAYER_TENSORS.values() and n.endswith(".weight")):
        tensors[f"{name}.lora_a"] = np.random.default_rng(0).normal(0, 0.01, (rank, n_in))
        tensors[f"{name}.lora_b"] = np.zeros((n_out, rank))
    made = write_adapter(AdapterTensors(tensors, 8.0, rank), tmp_path / "made" / ADAPTER_FILE, base_model="qwen-0.5b")
    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    from nl2sparql.modules.program import NL2SPARQL

    version = write_version(NL2SPARQL(), {
        "parent": None, "created_at": "2026-11-25T00:00:00+00:00", "optimizer": "finetune", "lm": "local/qwen-0.5b",
        "dataset_hash": "x", "adapter": {"file": ADAPTER_FILE, "sha256": file_sha256(made), "base_model": "qwen-0.5b"},
        "program_settings": {"use_examples": False, "use_constraints": False, "ontology_k": 0, "max_repairs": 0}},
        root, files={ADAPTER_FILE: made})
    program = nl2sparql.load(version.name, store=kb_store)
    lm = program.generate.predict.lm
    lm.cache = False  # a run before this one must not answer from DSPy's cache
    try:
        out = program("Quali lemmi esprimono tristezza?")
        assert out.usage["calls"] == 1 and lm.engine.calls == 1 and out.usage["completion_tokens"] > 0
        assert re.search(r"\b(SELECT|ASK)\b", out.sparql)  # the grammar let only SPARQL through
        llama = lm.engine._llama
        assert llama is not None and llama._lora_adapter is not None  # llama.cpp accepted the adapter
    finally:
        program.close()
        lm.engine.close()


def test_a_teacher_adds_only_the_answers_that_execute_like_the_gold(endpoint):
    from dspy.utils.dummies import DummyLM

    from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
    from nl2sparql.modules.runtime import Runtime
    from nl2sparql.optimize.finetune.teacher import teacher_examples

    train = training_records(load_dataset())
    right, wrong = train[0], train[1]
    assert right.sparql != wrong.sparql
    settings = ProgramSettings(use_examples=False, use_constraints=False, ontology_k=0, max_repairs=0,
                               ground_entities=False)
    program = NL2SPARQL(settings, Runtime(endpoint=endpoint))
    # Each record is asked in Italian and English: the teacher answers `right` twice with its gold query and
    # `wrong` twice with a query about another word.
    teacher = DummyLM([{"sparql": right.sparql}] * 2 + [{"sparql": right.sparql}] * 2)
    found = teacher_examples(program, [right, wrong], teacher)
    assert [(e.record_id, e.language) for e in found] == [(right.id, "it"), (right.id, "en")]
    assert all(e.source == teacher.model and right.sparql.strip() in e.answer for e in found)
    assert found[0].messages == tuple(program.generate_messages(right.question_it, exclude_ids=(right.id,)))


class RecordingEngine:
    """A DSPy engine that keeps the requests it is sent and answers with a fixed query (unit tests only)."""

    def __init__(self, answer: str):
        self.answer, self.requests = answer, []

    def complete(self, request):
        from dspy.lm15 import Message, Response, TextPart, Usage

        self.requests.append(request)
        return Response(id="r", model="recording", message=Message.assistant([TextPart(self.answer)]),
                        finish_reason="stop", usage=Usage(input_tokens=1, output_tokens=1))


@pytest.mark.parametrize("compact", [False, True])
def test_the_training_prompt_is_what_the_engine_is_sent_at_inference(endpoint, compact):
    """The messages an example is trained on equal those the local engine hands llama.cpp for that question,
    and the trained answer is parsed back by the adapter into the same query (compact prompt or not)."""
    import dspy

    from nl2sparql.modules.local_lm import chat_messages
    from nl2sparql.modules.program import NL2SPARQL, without_prefix_lines
    from nl2sparql.modules.runtime import Runtime
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    record = training_records(load_dataset())[0]
    program = NL2SPARQL(FinetuneConfig(compact_prompt=compact).program_settings(), Runtime(endpoint=endpoint))
    [example] = [e for e in build_examples(program, [record], answer_sparql=without_prefix_lines)
                 if e.language == "en"]
    assert ("Your input fields are" in example.messages[0]["content"]) is not compact
    engine = RecordingEngine(example.answer)
    program.set_lm(dspy.LM("local/recording", engine=engine, cache=False))
    out = program(record.question_en, exclude_ids=(record.id,))
    assert chat_messages(engine.requests[0]) == list(example.messages)
    assert without_prefix_lines(out.attempts[0].sparql) == without_prefix_lines(record.sparql)


def test_resume_without_a_recorded_fine_tune_or_with_corrupt_settings_is_a_one_line_error(tmp_path):
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.optimize.finetune.job import PENDING, pending_finetune
    from nl2sparql.optimize.finetune.run import FINETUNE_DIR

    with pytest.raises(Nl2SparqlError, match="nothing to resume"):
        pending_finetune(tmp_path)
    (tmp_path / FINETUNE_DIR).mkdir()
    (tmp_path / FINETUNE_DIR / PENDING).write_text('{"lm": "local/qwen-0.5b"')
    with pytest.raises(Nl2SparqlError, match="are corrupt") as err:
        pending_finetune(tmp_path)
    assert "\n" not in str(err.value)


def test_train_follow_up_chains_give_rewrite_and_generate_examples_and_no_other_split_does(endpoint):
    from nl2sparql.data.chains import load_chains
    from nl2sparql.modules.program import NL2SPARQL, without_prefix_lines
    from nl2sparql.modules.runtime import Runtime
    from nl2sparql.optimize.finetune.followups import chain_examples
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    chains = load_chains()
    program = NL2SPARQL(FinetuneConfig().program_settings(), Runtime(endpoint=endpoint))
    [chain] = [c for c in chains if c.split == "train"][:1]
    examples = chain_examples(program, [chain], answer_sparql=without_prefix_lines)
    rewrites = [e for e in examples if e.source == "followup"]
    assert len(rewrites) == len(chain.turns) - 1 and len(examples) == 2 * len(chain.turns) - 1
    last = rewrites[-1]
    assert chain.turns[-1].question in last.messages[-1]["content"]
    assert chain.turns[-2].standalone in last.messages[-1]["content"]  # the gold history
    assert "Respond with the corresponding output" not in last.messages[-1]["content"]  # as the engine sends it
    assert chain.turns[-1].standalone in last.answer and "[[ ## standalone_question ## ]]" in last.answer
    assert any(chain.turns[-1].standalone in e.messages[-1]["content"] and "[[ ## sparql ## ]]" in e.answer
               for e in examples if e.source == "gold")
    with pytest.raises(DatasetError, match="train chains"):
        chain_examples(program, [c for c in chains if c.split == "test"][:1])


def test_resume_without_an_optimizer_continues_whichever_job_was_interrupted(tmp_path):
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.optimize.finetune.job import pending_path
    from nl2sparql.optimize.run import interrupted_job, pending_compile_path

    with pytest.raises(Nl2SparqlError, match="nothing to resume: no interrupted compile or fine-tune"):
        interrupted_job(tmp_path)
    pending_compile_path(tmp_path).write_text("{}")
    assert interrupted_job(tmp_path) == "bootstrap"  # the compile's settings name its optimizer
    pending_path(tmp_path).parent.mkdir()
    pending_path(tmp_path).write_text("{}")
    with pytest.raises(Nl2SparqlError, match="--optimizer finetune or --optimizer bootstrap"):
        interrupted_job(tmp_path)
    pending_compile_path(tmp_path).unlink()
    assert interrupted_job(tmp_path) == "finetune"
