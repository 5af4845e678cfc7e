"""The MCP server, reached through the SDK's own stdio client: tools listed, translate called (DummyLM)."""

import asyncio
import json
import sys
from pathlib import Path

from conftest import PREFIXES
from nl2sparql.paths import ARTIFACTS_ENV

CASA = PREFIXES + 'SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } }'
TOOLS = {"translate", "analyze_patterns", "retrieve_examples", "search_ontology", "get_constraints",
         "validate_sparql", "execute_sparql", "fix_case_filters", "check_variable_reuse"}


def session_run(params, work):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)

    return asyncio.run(asyncio.wait_for(main(), timeout=240))


def payload(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


def test_tools_and_resources_are_listed_and_translate_answers(kb_store, tmp_path):
    from mcp.client.stdio import StdioServerParameters

    server = Path(__file__).with_name("mcp_dummy_server.py")
    params = StdioServerParameters(command=sys.executable, args=[str(server), str(kb_store), CASA],
                                   env={ARTIFACTS_ENV: str(tmp_path)})

    async def work(session):
        tools = {t.name for t in (await session.list_tools()).tools}
        resources = {str(r.uri) for r in (await session.list_resources()).resources}
        translated = payload(await session.call_tool("translate", {"question": "Qual è il lemma di «casa»?"}))
        config = await session.read_resource("nl2sparql://config")
        return tools, resources, translated, json.loads(config.contents[0].text)

    tools, resources, translated, config = session_run(params, work)
    assert TOOLS <= tools
    assert {"nl2sparql://ontology", "nl2sparql://constraints/base", "nl2sparql://config"} <= resources
    assert translated["ok"] and translated["sparql"].strip() == CASA.strip()
    assert translated["answer"] == "Risposta: casa." and translated["entities"] == ["casa"]
    assert translated["understood_as"] == "Parole italiane scritte «casa»: lemma" and translated["doubt"] is None
    assert translated["live_url"].startswith("https://liita.it/sparql?query=")
    assert config["version"] == "uncompiled" and config["limits"]["max_triple_patterns"] > 0


def test_the_cli_server_checks_and_runs_sparql(kb_store, tmp_path):
    from mcp.client.stdio import StdioServerParameters

    cli = Path(sys.executable).with_name("nl2sparql")
    params = StdioServerParameters(command=str(cli), args=["mcp", "serve", "--store", str(kb_store)],
                                   env={ARTIFACTS_ENV: str(tmp_path)})
    reuse = PREFIXES + ('SELECT ?it WHERE { ?it vartrans:translatableAs ?sc , ?pr . '
                        '?sc ontolex:canonicalForm ?f . ?pr ontolex:canonicalForm ?g }')
    upper = PREFIXES + 'SELECT ?e WHERE { ?e rdfs:label ?l FILTER(?l = "Rabbia") }'

    async def work(session):
        calls = {
            "valid": ("validate_sparql", {"sparql": CASA}),
            "update": ("validate_sparql", {"sparql": "DELETE WHERE { ?s ?p ?o }"}),
            "rows": ("execute_sparql", {"sparql": CASA, "language": "it"}),
            "reuse": ("check_variable_reuse", {"sparql": reuse}),
            "case": ("fix_case_filters", {"sparql": upper}),
            "constraints": ("get_constraints", {"patterns": ["emotion"]}),
            "analyze": ("analyze_patterns", {"question": "Quali emozioni esprime la parola «citta»?"}),
        }
        return {key: payload(await session.call_tool(name, args)) for key, (name, args) in calls.items()}

    out = session_run(params, work)
    assert out["valid"]["valid"] and out["valid"]["form"] == "SELECT" and out["valid"]["findings"] == []
    assert not out["update"]["valid"] and "read-only" in out["update"]["error"]
    assert out["rows"]["count"] == 1 and out["rows"]["answer"] == "Risposta: casa."
    assert not out["reuse"]["ok"] and out["reuse"]["findings"][0]["rule"] == "shared-entry"
    assert out["case"]["changed"] and "LCASE" in out["case"]["sparql"]
    assert "elita" in out["constraints"].lower()
    assert "emotion" in out["analyze"]["patterns"] and out["analyze"]["grounding"][0]["form"] == "città"
