"""The import graph goes one way: each part imports only parts below it (every import counted, the ones inside
functions too). Run with -s to see the graph."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
# Bottom to top; a part may import the parts of lower layers only (and itself).
LAYERS: list[set[str]] = [
    {"errors", "files", "paths"},
    {"kb"},
    {"data"},
    {"retrieval"},
    {"signatures"},
    {"modules"},
    {"artifacts"},
    {"eval.scoring"},     # how right an answer is: shared by compile and evaluation
    {"optimize", "eval"},  # side by side: neither imports the other
    {"serve"},
    {"cli"},
    {"__main__", "__init__"},  # `python -m nl2sparql` and `nl2sparql.load`
]
RANK = {part: rank for rank, layer in enumerate(LAYERS) for part in layer}


def part_of(module: str) -> str:
    parts = module.split(".")[1:] or ["__init__"]
    return "eval.scoring" if parts[:2] == ["eval", "scoring"] else parts[0]


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in ("tests", "bench", ".venv", "build"):
            continue
        source = part_of("nl2sparql." + ".".join(relative.with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("nl2sparql.") and part_of(name) != source:
                    graph[source].add(part_of(name))
    return graph


def test_every_part_is_placed_in_a_layer():
    graph = import_graph()
    assert set(graph) | set().union(*graph.values()) <= set(RANK)


def test_imports_go_down_only():
    graph = import_graph()
    for source in sorted(graph, key=RANK.get):
        print(f"{source:13} -> {', '.join(sorted(graph[source], key=RANK.get))}")
    upward = [f"{source} imports {target}" for source, targets in graph.items() for target in targets
              if RANK[target] >= RANK[source]]
    assert upward == []


def test_kb_imports_nothing_of_ours_but_the_leaves():
    assert import_graph()["kb"] <= LAYERS[0]


def test_nothing_imports_the_cli_or_the_servers():
    graph = import_graph()
    assert [s for s, targets in graph.items() if "cli" in targets] == ["__main__"]
    assert [s for s, targets in graph.items() if "serve" in targets] == ["cli"]


def _modules_loaded_by(imports: str, prefix: str) -> list[str]:
    code = f"import sys, {imports}; print(sorted(m for m in sys.modules if m.startswith('{prefix}')))"
    return eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_loading_eval_brings_no_optimize_and_optimize_only_the_shared_scoring():
    assert _modules_loaded_by("nl2sparql.eval.runner, nl2sparql.eval.comparison", "nl2sparql.optimize") == []
    loaded = _modules_loaded_by("nl2sparql.optimize.compile, nl2sparql.optimize.run, nl2sparql.optimize.finetune.job",
                                "nl2sparql.eval")
    assert loaded and {m for m in loaded if not m.startswith("nl2sparql.eval.scoring")} == {"nl2sparql.eval"}
