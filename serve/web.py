"""`nl2sparql web`: a page on 127.0.0.1 for people who do not write SPARQL (Gradio, served offline)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from nl2sparql.serve.answer_view import labels_for
from nl2sparql.serve.tools import Toolbox, describe_line, program_description
from nl2sparql.serve.web_conversation import conversation_tab

SERVER_CONCURRENCY = 8  # questions answered at once through --lm-server
EXAMPLES = ["Quali lemmi esprimono tristezza?", "What is the Sicilian word for 'cane'?",
            "Quante definizioni ha la parola «casa» in CompL-it?"]


def _rows_table(variables: list[str], rows: list[list[str]]):
    import pandas as pd

    return pd.DataFrame(rows, columns=variables) if variables else pd.DataFrame()


def _png_image(png: bytes):
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:  # drawn in memory: an answer writes no file
        return image.copy()


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

    def shown(out: dict, variables: list[str], rows: list[list[str]], sparql: str):
        """The table, its CSV download, the live-endpoint link and, for a grouped count, its chart."""
        from nl2sparql.serve.answer_view import bar_chart_png, chart_data, download_html, live_link_html

        data = chart_data(variables, rows, sparql)
        chart = gr.Image(value=_png_image(bar_chart_png(data)), visible=True) if data else gr.Image(value=None,
                                                                                                    visible=False)
        return (sparql, _rows_table(variables, rows), download_html(variables, rows, out["question"]),
                live_link_html(sparql, out["question"]), chart)

    def translate(question: str):
        from nl2sparql.serve.answer_view import alternative_choices, answer_markdown, table_of

        try:
            out = toolbox.translate(question)
        except Nl2SparqlError as error:
            raise gr.Error(str(error)) from None
        choices = alternative_choices(out)
        others = gr.Radio(choices=choices, value=None, visible=bool(choices),
                          label=labels_for(out["question"])["others"])
        if not out["in_scope"]:
            return answer_markdown(out), others, *shown(out, [], [], ""), "", out
        return (answer_markdown(out), others, *shown(out, *table_of(out), out["sparql"]),
                _attempts_markdown(out["attempts"]), out)

    def pick_alternative(choice: str | None, out: dict | None):
        """One click on another reading: its words, answer, query, table, download and chart."""
        from nl2sparql.serve.answer_view import answer_markdown, table_of

        if not choice or not out:
            raise gr.Error("Ask a question first.")
        number = int(choice.split(".", 1)[0])
        alternative = out["doubt"]["alternatives"][number - 2]
        picked = {**out, "understood_as": alternative["reading"], "answer": alternative["answer"], "ok": True,
                  "doubt": None, "notes": [], "table": {"variables": alternative["variables"],
                                                        "rows": alternative["rows"]}}
        return (answer_markdown(picked), *shown(picked, *table_of(picked), alternative["sparql"]))

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
        return comparison.to_markdown(), _png_image(chart_png(comparison))

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
            others = gr.Radio(choices=[], label="Other readings", visible=False, elem_id="alternatives")
            sparql = gr.Code(label="SPARQL", language="sql")
            rows = gr.Dataframe(label="Rows", interactive=False, elem_id="rows")
            with gr.Row():
                download = gr.HTML(elem_id="download")
                live = gr.HTML(elem_id="live")
            chart = gr.Image(label="Chart", type="pil", visible=False, elem_id="chart")
            attempts = gr.Markdown(label="Attempts")
            last = gr.State(None)
            outputs = [answer, others, sparql, rows, download, live, chart, attempts, last]
            ask.click(translate, question, outputs)
            question.submit(translate, question, outputs)
            others.input(pick_alternative, [others, last], [answer, sparql, rows, download, live, chart])
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
    # With a shared LM server, users' questions go out at once (it queues them itself); with a model in this process
    # they wait their turn in Gradio's queue, which shows each user the place in line.
    app.queue(default_concurrency_limit=SERVER_CONCURRENCY if toolbox.config.lm_server else 1)
    return app


def launch(app, host: str = "127.0.0.1", port: int = 7860, block: bool = True):
    import gradio as gr

    theme = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                              font_mono=["ui-monospace", "monospace"])  # no web fonts: the page works offline
    return app.launch(server_name=host, server_port=port, share=False, inbrowser=False, quiet=True,
                      prevent_thread_lock=not block, theme=theme)
