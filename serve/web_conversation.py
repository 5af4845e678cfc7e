"""The web page's Conversation tab: turns stacked (question, what a follow-up was taken to mean, answer, SPARQL,
the first rows), a follow-up building on the turns above, and a button that starts a new conversation."""

from __future__ import annotations

from typing import Any

SHOWN_ROWS = 10


def new_state() -> dict[str, Any]:
    return {"id": None, "turns": []}


def ask_turn(toolbox, question: str, state: dict[str, Any]) -> dict[str, Any]:
    """The state after `question` is answered in the state's conversation (a new one on the first turn)."""
    out = toolbox.translate(question, conversation_id=state["id"])
    table = out["table"]
    turn = {"question": question, "standalone": out.get("standalone_question", question),
            "built_on": out.get("built_on"), "ok": out["ok"], "sparql": out["sparql"],
            "answer": out["answer"] if out["ok"] else "No valid query: " + (out["errors"] or [""])[-1],
            "variables": table["variables"], "rows": table["rows"][:SHOWN_ROWS], "count": table["count"],
            "understood_as": out.get("understood_as", ""), "doubt": out.get("doubt")}
    return {"id": out["conversation_id"], "turns": [*state["turns"], turn]}


def transcript(state: dict[str, Any]) -> str:
    """Every turn in Markdown, oldest first."""
    return "\n\n---\n\n".join(_turn_markdown(i, t) for i, t in enumerate(state["turns"], 1))


def _turn_markdown(number: int, turn: dict[str, Any]) -> str:
    lines = [f"**{number}. {_cell(turn['question'])}**"]
    if turn["built_on"] is not None:
        lines.append(f"*→ {_cell(turn['standalone'])}*")
    if turn.get("understood_as"):
        lines.append(f"*{_cell(turn['understood_as'])}*")
    lines += ["", f"### {turn['answer']}"]
    doubt = turn.get("doubt")
    if doubt:
        lines += ["", f"> ⚠ {_cell(doubt['line'])}" + (f"  \n> {_cell(doubt['explanation'])}"
                                                      if doubt["explanation"] else "")]
        lines += [f"> {n}. {_cell(a['reading'])} → {_cell(a['answer'])}"
                  for n, a in enumerate(doubt["alternatives"], start=2)]
    lines += ["", "```sparql", turn["sparql"].strip(), "```"]
    if turn["variables"]:
        lines += ["", "| " + " | ".join(turn["variables"]) + " |", "|---" * len(turn["variables"]) + "|"]
        lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in turn["rows"]]
        if turn["count"] > len(turn["rows"]):
            lines.append(f"\n… {turn['count'] - len(turn['rows'])} more rows")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return str("" if value is None else value).replace("|", "\\|").replace("\n", " ")


def conversation_tab(gr, toolbox) -> None:
    """Adds the tab to the page being built (inside `gr.Blocks`)."""
    from nl2sparql.errors import Nl2SparqlError

    def ask(question: str, state: dict[str, Any]):
        if not question.strip():
            raise gr.Error("Type a question first.")
        try:
            state = ask_turn(toolbox, question, state)
        except Nl2SparqlError as error:
            raise gr.Error(str(error)) from None
        return state, transcript(state), ""

    def start_over():
        return new_state(), "", ""

    with gr.Tab("Conversation"):
        state = gr.State(new_state())
        turns = gr.Markdown(elem_id="conversation")
        question = gr.Textbox(label="Question (a follow-up such as \"e quanti sono?\" builds on the answers above)",
                              elem_id="conversation-question")
        with gr.Row():
            send = gr.Button("Ask", variant="primary", elem_id="conversation-ask")
            new = gr.Button("New conversation", elem_id="conversation-new")
        send.click(ask, [question, state], [state, turns, question])
        question.submit(ask, [question, state], [state, turns, question])
        new.click(start_over, None, [state, turns, question])
