"""What the MCP server and the web page offer, as plain Python returning JSON-able data.

Everything loads on first use: the endpoint on the first query, the retriever on the first retrieval, the
program (and its LM) on the first translation.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.serve import inputs
from nl2sparql.serve.conversations import Conversations
from nl2sparql.modules.program import ProgramSettings
from nl2sparql.modules.runtime import Runtime, RuntimeConfig


@dataclass(frozen=True)
class ToolboxConfig:
    """The version translations use, its LM (None: the version's own default), and where queries go. The
    version runs with its own program settings, changed only by `overrides` (the --deadline and --max-repairs
    a user gave) or replaced whole by `settings` (a test's or a script's choice, never the CLI's)."""

    version: str = "latest"
    lm: str | None = None
    endpoint_url: str | None = None
    store: Path | None = None
    max_rows: int = 50
    overrides: dict[str, Any] = field(default_factory=dict)
    settings: ProgramSettings | None = None
    lm_server: str | None = None  # a shared LM server's URL (`nl2sparql lm serve`) in place of an in-process model

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["store"] = str(self.store) if self.store else None
        return data


def program_description(program) -> dict[str, Any]:
    """Which program answers: version, optimizer, the settings it runs with and its LM(s) (adapter checksums in
    their names), without loading a model."""
    followup = getattr(program, "followup_lm", None)
    return {"version": program.version, "optimizer": program.manifest.get("optimizer", "none"),
            "settings": asdict(program.settings), "lm": getattr(program.generate.predict.lm, "model", None),
            "followup_lm": getattr(followup, "model", None)}


def describe_line(description: dict[str, Any]) -> str:
    """One line for a page footer: the version, its LM and the settings that shape its prompt."""
    s = description["settings"]
    deadline = f"{s['deadline_s']:g} s" if s.get("deadline_s") else "none"
    parts = [f"compact prompt {'on' if s['compact_prompt'] else 'off'}",
             f"examples {s['examples_k'] if s['use_examples'] else 0}", f"ontology terms {s['ontology_k']}",
             f"constraints {'on' if s['use_constraints'] else 'off'}", f"repairs {s['max_repairs']}",
             f"follow-ups {s['followup_mode']}", f"deadline {deadline}"]
    lms = description["lm"] or "LM not set"
    if description["followup_lm"]:
        lms += f", follow-ups {description['followup_lm']}"
    return f"Answering: {description['version']} ({description['optimizer']}; {lms}) · " + ", ".join(parts)


class Toolbox:
    def __init__(self, config: ToolboxConfig | None = None, *, lm_object=None, runtime: Runtime | None = None):
        self.config = config or ToolboxConfig()
        self._lm_object = lm_object
        self.runtime = runtime or Runtime(RuntimeConfig(endpoint=EndpointConfig(url=self.config.endpoint_url,
                                                                                 store_path=self.config.store)))
        self._programs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.conversations = Conversations()

    # -- the pipeline -------------------------------------------------------------------------------
    def program(self, version: str | None = None):
        name = inputs.optional_name(version, "version") or self.config.version
        with self._lock:
            if name not in self._programs:
                from nl2sparql.artifacts.load import load

                self._programs[name] = load(name, lm=self.config.lm, lm_object=self._lm_object,
                                            settings=self.config.settings, overrides=self.config.overrides,
                                            runtime=self.runtime, lm_server=self.config.lm_server)
            return self._programs[name]

    def preflight(self) -> str | None:
        """Before serving: the version's local model(s) can generate on this machine (tried in a child process),
        so a model that would crash the server is refused at start (ModelCrashed), not with every user on the page.
        A model that cannot be set up at all (weights not installed) is returned as a warning: the tools that need
        no model still serve, and `translate` says the same line to whoever calls it."""
        from nl2sparql.errors import LMConfigError, ModelCrashed
        from nl2sparql.modules.lm import preflight

        try:
            preflight(self.program())
        except ModelCrashed:
            raise
        except LMConfigError as error:
            return str(error)
        return None

    def translate(self, question: str, version: str | None = None,
                  conversation_id: str | None = None) -> dict[str, Any]:
        """Question → SPARQL, executed, with a readable answer, the rows and every attempt. The question is a
        turn of conversation `conversation_id` (a new one when None), whose id the answer carries."""
        from nl2sparql.kb.export import live_url
        from nl2sparql.modules.answer import answer_table, prediction_json
        from nl2sparql.modules.question import check_question

        question = check_question(question)
        conversation_id = inputs.optional_name(conversation_id, "conversation_id")
        out = self.conversations.ask(conversation_id, question, lambda: self.program(version))
        variables, rows = answer_table(out)
        data = prediction_json(out)
        data.pop("result")  # the table below says the same, with labels for IRIs
        data["table"] = {"variables": variables, "count": len(rows), "rows": rows[: self.config.max_rows]}
        data["live_url"] = live_url(out.sparql) if out.sparql else ""
        return data

    def analyze_patterns(self, question: str) -> dict[str, Any]:
        """The query patterns a question needs, the words it names (grounded in the lemma bank, dialect words
        spotted as the program spots them), its dialects."""
        from nl2sparql.retrieval.grounding import ground_question
        from nl2sparql.retrieval.patterns import analyze_patterns

        question = inputs.text(question, "question", inputs.MAX_QUESTION_CHARS)
        analysis = analyze_patterns(question)
        grounding = ground_question(question, analysis.entities, analysis.dialects, self.runtime.lexicon,
                                    self.runtime.dialect_lexicons)
        return {"patterns": list(analysis.labels), "scores": {k: round(v, 3) for k, v in analysis.scores.items() if v},
                "entities": list(analysis.entities), "dialects": list(analysis.dialects),
                "grounding": [g.to_json() for g in grounding]}

    def retrieve_examples(self, question: str, k: int = 3) -> list[dict[str, Any]]:
        """The k curated question/SPARQL pairs closest to the question."""
        question = inputs.text(question, "question", inputs.MAX_QUESTION_CHARS)
        k = inputs.count(k, "k")
        return [{"id": e.record.id, "question_it": e.record.question_it, "question_en": e.record.question_en,
                 "patterns": list(e.record.patterns), "sparql": e.record.sparql.strip(), "score": round(e.score, 3)}
                for e in self.runtime.retriever.retrieve(question, top_k=k)]

    def search_ontology(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Classes and properties of the LiITA schema that match the words of `query`."""
        query = inputs.text(query, "query", inputs.MAX_SEARCH_CHARS)
        k = inputs.count(k, "k")
        return [{**{k_: v for k_, v in asdict(term).items() if v}, "score": round(score, 3)}
                for term, score in self.runtime.ontology.search(query, k)]

    @staticmethod
    def get_constraints(patterns: list[str] | None = None) -> str:
        """The rules generation follows: the base rules plus those of the given patterns (Markdown)."""
        from nl2sparql.retrieval.constraints import format_constraints, select_constraints

        return format_constraints(select_constraints(tuple(inputs.names(patterns, "patterns"))))

    # -- SPARQL -------------------------------------------------------------------------------------
    def validate_sparql(self, sparql: str) -> dict[str, Any]:
        """Parse, read-only guard, size limits and LiITA rules, without executing anything."""
        from nl2sparql.errors import Nl2SparqlError
        from nl2sparql.kb.guard import check
        from nl2sparql.kb.lint import lint

        limits = self.runtime.config.endpoint.limits
        sparql = inputs.text(sparql, "sparql", limits.max_chars + 1)  # the guard words the too-long error
        try:
            checked = check(sparql, limits)
        except Nl2SparqlError as error:
            return {"valid": False, "error": str(error), "findings": []}
        findings = [{"rule": f.rule, "message": f.message} for f in lint(checked.text)]
        return {"valid": True, "error": None, "form": checked.form, "triple_patterns": checked.triple_patterns,
                "depth": checked.depth, "findings": findings, "notes": [checked.note] if checked.note else []}

    def execute_sparql(self, sparql: str, language: str = "en") -> dict[str, Any]:
        """Run a read-only query: the rows (IRIs with their labels) and a readable summary."""
        from nl2sparql.modules.answer import fetch_labels, render

        sparql = inputs.text(sparql, "sparql", self.runtime.config.endpoint.limits.max_chars + 1)
        language = inputs.choice(language, "language", inputs.LANGUAGES)
        endpoint = self.runtime.endpoint
        result = endpoint.execute(sparql)
        answer = render(result, language, fetch_labels(endpoint, result))
        return {"answer": answer.text, "variables": list(result.variables), "count": len(result.rows),
                "rows": [list(r) for r in answer.rows[: self.config.max_rows]], "boolean": result.boolean,
                "truncated": result.truncated, "seconds": round(result.elapsed_s, 3)}

    @staticmethod
    def fix_case_filters(sparql: str) -> dict[str, Any]:
        """Exact string equality in FILTERs made case-insensitive ("Rabbia" finds "rabbia")."""
        from nl2sparql.modules.fixes import case_insensitive_filters

        fix = case_insensitive_filters(inputs.text(sparql, "sparql", inputs.MAX_SPARQL_CHARS))
        return {"changed": fix is not None, "sparql": fix.sparql if fix else sparql}

    @staticmethod
    def check_variable_reuse(sparql: str) -> dict[str, Any]:
        """Variables that do two jobs: a written form used as a resource, one Italian entry for two dialects."""
        from nl2sparql.kb.lint import lint

        sparql = inputs.text(sparql, "sparql", inputs.MAX_SPARQL_CHARS)
        findings = [{"rule": f.rule, "message": f.message} for f in lint(sparql)
                    if f.rule in ("iri-and-literal", "shared-entry")]
        return {"ok": not findings, "findings": findings}

    # -- resources ----------------------------------------------------------------------------------
    @staticmethod
    def ontology_catalog() -> list[dict[str, Any]]:
        from nl2sparql.retrieval.ontology import load_ontology

        return [{k: v for k, v in asdict(t).items() if v} for t in load_ontology()]

    def configuration(self) -> dict[str, Any]:
        """The configuration, with the program that answers: its version, settings and LM (nothing loads)."""
        from nl2sparql.artifacts.store import effective_name

        return {**self.config.to_json(), "resolved_version": effective_name(self.config.version),
                "program": program_description(self.program()),
                "limits": asdict(self.runtime.config.endpoint.limits)}

    def close(self) -> None:
        self.runtime.close()
