"""`nl2sparql web`: a page on 127.0.0.1 for people who do not write SPARQL (Gradio, served offline)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from nl2sparql.serve.tools import Toolbox, describe_line, program_description
from nl2sparql.serve.web_conversation import conversation_tab

EXAMPLES = ["Quali lemmi esprimono tristezza?", "What is the Sicilian word for 'cane'?",
            "Quante definizioni ha la parola «casa» in CompL-it?"]


def _rows_table(variables: list[str], rows: list[list[str]]):
    import pandas as pd

    return pd.DataFrame(rows, columns=variables) if variables else pd.DataFrame()


def _attempts_markdown(attempts: list[dict]) -> str:
    lines = ["| step | outcome | rows | detail |", "|---|---|---|---|"]
    for a in attempts:
        detail = (a.get("detail") or "").replace("|", "\\|").replace("\n", " ")[:160]
        lines.append(f"| {a['step']} | {a['outcome']} | {a.get('rows', 0)} | {detail} |")
    return "\n".join(lines)


def build_app(toolbox: Toolbox, artifact_root: Path | None = None):
    """The page: tabs Translate, Analyze, Search ontology, Run SPARQL, Compare versions."""
    from nl2sparql.errors import Nl2SparqlError

    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    try:
        import gradio as gr
    except ImportError:
        raise Nl2SparqlError("the web page needs Gradio: pip install 'nl2sparql[web]'") from None

    def translate(question: str):
        try:
            out = toolbox.translate(question)
        except Nl2SparqlError as error:
            raise gr.Error(str(error)) from None
        notes = "\n".join(f"- {n}" for n in out["notes"])
        if not out["in_scope"]:
            return out["answer"], "", _rows_table([], []), ""
        text = out["answer"] if out["ok"] else "No valid query: " + (out["errors"][-1] if out["errors"] else "")
        answer = f"### {text}" + (f"\n\n{notes}" if notes else "")
        table = out["table"]
        return answer, out["sparql"], _rows_table(table["variables"], table["rows"]), \
            _attempts_markdown(out["attempts"])

    def analyze(question: str):
        return toolbox.analyze_patterns(question)

    def search(query: str, k: float):
        hits = toolbox.search_ontology(query, int(k))
        return "\n\n".join(f"**{h['id']}** ({h['kind']}) — {h.get('description', '')}"
                           + (f"\n\n`{h['usage']}`" if h.get("usage") else "") for h in hits) or "No match."

    def run_sparql(sparql: str, language: str):
        checked = toolbox.validate_sparql(sparql)
        if not checked["valid"]:
            raise gr.Error(checked["error"])
        try:
            out = toolbox.execute_sparql(sparql, language)
        except Nl2SparqlError as error:
            raise gr.Error(str(error)) from None
        findings = "\n".join(f"- {f['rule']}: {f['message']}" for f in checked["findings"])
        return f"### {out['answer']}" + (f"\n\n{findings}" if findings else ""), _rows_table(out["variables"],
                                                                                          out["rows"])

    def report_choices():
        from nl2sparql.eval.report import saved_reports

        return [(f"{r.version} · {r.split} · {r.lm} · {len(r.questions)} questions", str(p))
                for p, r in saved_reports(artifact_root)]

    def compare(paths: list[str]):
        from nl2sparql.eval.comparison import chart_png, compare_reports
        from nl2sparql.eval.report import Report

        if len(paths or []) < 2:
            raise gr.Error("Pick two reports or more (run `nl2sparql eval run` to make them).")
        reports = [Report.from_json(json.loads(Path(p).read_text(encoding="utf-8"))) for p in paths]
        try:
            comparison = compare_reports(reports)
        except Nl2SparqlError as error:
            raise gr.Error(str(error)) from None
        import io

        from PIL import Image

        with Image.open(io.BytesIO(chart_png(comparison))) as image:  # drawn in memory: a click writes no file
            return comparison.to_markdown(), image.copy()

    answering = describe_line(program_description(toolbox.program()))  # builds the program; loads no model
    with gr.Blocks(title="nl2sparql · LiITA") as app:
        gr.Markdown("# nl2sparql · LiITA\nAsk about Italian words, their emotions, polarity, Sicilian and "
                    "Parmigiano translations and CompL-it senses, in Italian or English.")
        gr.Markdown(f"<small>{answering}</small>", elem_id="program")
        with gr.Tab("Translate"):
            question = gr.Textbox(label="Question", placeholder=EXAMPLES[0], elem_id="question")
            ask = gr.Button("Translate", variant="primary", elem_id="translate")
            gr.Examples(EXAMPLES, inputs=question)
            answer = gr.Markdown(elem_id="answer")
            sparql = gr.Code(label="SPARQL", language="sql")
            rows = gr.Dataframe(label="Rows", interactive=False, elem_id="rows")
            attempts = gr.Markdown(label="Attempts")
            ask.click(translate, question, [answer, sparql, rows, attempts])
            question.submit(translate, question, [answer, sparql, rows, attempts])
        conversation_tab(gr, toolbox)
        with gr.Tab("Analyze"):
            analyzed_question = gr.Textbox(label="Question")
            analyzed = gr.JSON(label="Patterns, words and dialects")
            gr.Button("Analyze").click(analyze, analyzed_question, analyzed)
        with gr.Tab("Search ontology"):
            terms_query = gr.Textbox(label="Words", placeholder="emotion polarity translation")
            how_many = gr.Slider(1, 15, value=5, step=1, label="How many")
            terms = gr.Markdown()
            gr.Button("Search").click(search, [terms_query, how_many], terms)
        with gr.Tab("Run SPARQL"):
            query = gr.Code(label="SPARQL (read-only)", language="sql", interactive=True)
            language = gr.Radio(["it", "en"], value="it", label="Answer language")
            run_answer = gr.Markdown()
            run_rows = gr.Dataframe(label="Rows", interactive=False)
            gr.Button("Run").click(run_sparql, [query, language], [run_answer, run_rows])
        with gr.Tab("Compare versions"):
            chosen = gr.CheckboxGroup(label="Saved evaluation reports", choices=report_choices())
            refresh = gr.Button("Refresh the list")
            comparison = gr.Markdown()
            chart = gr.Image(label="Accuracy per pattern", type="pil")
            refresh.click(lambda: gr.CheckboxGroup(choices=report_choices()), None, chosen)
            gr.Button("Compare").click(compare, chosen, [comparison, chart])
    return app


def launch(app, host: str = "127.0.0.1", port: int = 7860, block: bool = True):
    import gradio as gr

    theme = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                              font_mono=["ui-monospace", "monospace"])  # no web fonts: the page works offline
    return app.launch(server_name=host, server_port=port, share=False, inbrowser=False, quiet=True,
                      prevent_thread_lock=not block, theme=theme)
