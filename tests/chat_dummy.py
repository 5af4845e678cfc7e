"""The terminal chat over the real store, its answers written by DummyLM (for tests/test_chat.py).

    python tests/chat_dummy.py STORE ANSWERS.json
"""

import json
import readline  # noqa: F401  (as `nl2sparql chat` does)
import sys
from pathlib import Path

import dspy
from dspy.utils.dummies import DummyLM
from rich.console import Console

from nl2sparql.kb.embedded import EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime
from nl2sparql.serve.commands.chat import chat_loop

if __name__ == "__main__":
    store, answers = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
    dspy.configure(lm=DummyLM(answers))
    settings = ProgramSettings(examples_k=0, ontology_k=0, ground_entities=False, max_repairs=0)
    with NL2SPARQL(settings, Runtime(endpoint=EmbeddedEndpoint(EndpointConfig(store_path=store)))) as program:
        chat_loop(program.conversation(), Console(width=200))
