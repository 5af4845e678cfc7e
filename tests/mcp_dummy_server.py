"""The real MCP server over stdio, its translations written by DummyLM (for tests/test_mcp.py).

    python tests/mcp_dummy_server.py STORE SPARQL
"""

import sys
from pathlib import Path

from dspy.utils.dummies import DummyLM

from nl2sparql.modules.program import ProgramSettings
from nl2sparql.serve.mcp import serve
from nl2sparql.serve.tools import Toolbox, ToolboxConfig

if __name__ == "__main__":
    store, sparql = Path(sys.argv[1]), sys.argv[2]
    settings = ProgramSettings(examples_k=0, ontology_k=0, max_repairs=0)
    toolbox = Toolbox(ToolboxConfig(version="uncompiled", store=store, settings=settings),
                      lm_object=DummyLM([{"sparql": sparql}] * 4))
    serve(toolbox)
