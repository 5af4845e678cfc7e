"""`nl2sparql mcp serve`: the pipeline's tools and catalogs for assistants that speak MCP (stdio by default)."""

from __future__ import annotations

import json

from nl2sparql.serve.tools import Toolbox

INSTRUCTIONS = (
    "Tools for LiITA (Linking Italian), the linked-data knowledge base of Italian words: lemma bank, ELITA "
    "emotions, Sentix polarity, Sicilian and Parmigiano translations, CompL-it senses. `translate` answers a "
    "question (Italian or English) with SPARQL, rows and a readable answer; `configuration` says which version "
    "answers and with which settings; the other tools help write and check a query by hand: analyze_patterns, "
    "retrieve_examples, search_ontology, get_constraints, validate_sparql, fix_case_filters, check_variable_reuse, "
    "execute_sparql (read-only)."
)


def create_server(toolbox: Toolbox):
    """An MCP server whose tools call `toolbox`; nothing loads until a tool needs it."""
    import nl2sparql
    from nl2sparql.errors import Nl2SparqlError

    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        raise Nl2SparqlError("the MCP server needs the MCP SDK: pip install 'nl2sparql[mcp]'") from None

    server = MCPServer("nl2sparql", instructions=INSTRUCTIONS, version=nl2sparql.__version__)

    @server.tool()
    def translate(question: str, version: str | None = None, conversation_id: str | None = None) -> dict:
        """Answer a question about Italian words: the SPARQL written for it, a readable answer, the rows
        (IRIs with their labels), the words checked against the lemma bank, and every attempt. Pass back the
        answer's conversation_id to ask a follow-up ("and how many are there?") in the same conversation."""
        return toolbox.translate(question, version, conversation_id)

    @server.tool()
    def analyze_patterns(question: str) -> dict:
        """Which LiITA query patterns a question needs (emotion, translation, sense_definition, …), the words
        it names (grounded in the lemma bank, with suggestions for unknown ones) and the dialects it mentions."""
        return toolbox.analyze_patterns(question)

    @server.tool()
    def retrieve_examples(question: str, k: int = 3) -> list[dict]:
        """The k curated question/SPARQL pairs most like the question (Italian and English questions)."""
        return toolbox.retrieve_examples(question, k)

    @server.tool()
    def search_ontology(query: str, k: int = 5) -> list[dict]:
        """Classes and properties of the LiITA schema matching the words of the query, with how to use them."""
        return toolbox.search_ontology(query, k)

    @server.tool()
    def get_constraints(patterns: list[str] | None = None) -> str:
        """The rules a LiITA query must follow (graphs, SERVICE use, multi-entry pattern, hypernym direction):
        the base rules plus those of the given patterns, as Markdown."""
        return toolbox.get_constraints(patterns)

    @server.tool()
    def validate_sparql(sparql: str) -> dict:
        """Check a query without running it: syntax, read-only guard, size limits and LiITA rules."""
        return toolbox.validate_sparql(sparql)

    @server.tool()
    def execute_sparql(sparql: str, language: str = "en") -> dict:
        """Run a read-only query on the knowledge base: rows, their count and a readable summary
        (language 'it' or 'en')."""
        return toolbox.execute_sparql(sparql, language)

    @server.tool()
    def fix_case_filters(sparql: str) -> dict:
        """Make exact string comparisons in FILTERs case-insensitive (labels such as "Rabbia" vs "rabbia")."""
        return toolbox.fix_case_filters(sparql)

    @server.tool()
    def check_variable_reuse(sparql: str) -> dict:
        """Find variables doing two jobs: a written form also used as a resource, or one Italian entry
        variable translated into two dialects (each dialect has its own Italian entry)."""
        return toolbox.check_variable_reuse(sparql)

    @server.tool()
    def configuration() -> dict:
        """Which program answers `translate`: its version, optimizer, LM (a fine-tuned version's adapter
        checksum is in the LM's name) and the settings it runs with, plus the endpoint and its limits."""
        return toolbox.configuration()

    @server.resource("nl2sparql://ontology", mime_type="application/json",
                     description="The LiITA classes and properties the pipeline knows, with usage notes")
    def ontology() -> str:
        return json.dumps(toolbox.ontology_catalog(), ensure_ascii=False, indent=1)

    @server.resource("nl2sparql://constraints/base", mime_type="text/markdown",
                     description="The base rules every generated query follows")
    def base_constraints() -> str:
        return toolbox.get_constraints([])

    @server.resource("nl2sparql://config", mime_type="application/json",
                     description="The configuration this server runs with: version, LM, endpoint, limits")
    def configuration_resource() -> str:
        return json.dumps(toolbox.configuration(), ensure_ascii=False, indent=1)

    return server


def serve(toolbox: Toolbox, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765) -> None:
    server = create_server(toolbox)
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port)
    finally:
        toolbox.close()
