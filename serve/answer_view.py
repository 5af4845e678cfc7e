"""How the web page shows an answer: what it was understood as, the answer, the doubt, a CSV download of the table,
a link to the live endpoint, and a bar chart where a grouped count reads faster as one."""

from __future__ import annotations

import base64
import html
import re
from typing import Any

MAX_BARS = 30
_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")
LABELS = {"it": {"understood": "Inteso come", "others": "Altre letture", "download": "Scarica la tabella (CSV)",
                 "live": "Esegui sull'endpoint LiITA dal vivo"},
          "en": {"understood": "Understood as", "others": "Other readings", "download": "Download the table (CSV)",
                 "live": "Run on the live LiITA endpoint"}}


def labels_for(question: str) -> dict[str, str]:
    from nl2sparql.retrieval.language import guess_language

    return LABELS[guess_language(question)]


def _md(text: str) -> str:
    """Text shown in Markdown as written (no emphasis, links or HTML of its own)."""
    return re.sub(r"([\\`*_{}\[\]<>#|])", r"\\\1", text)


def answer_markdown(out: dict[str, Any]) -> str:
    """The answer block: "Understood as: …", the answer, the notes, the doubt and why an empty answer is empty."""
    words = labels_for(out["question"])
    lines = []
    if out.get("understood_as"):
        lines.append(f"**{words['understood']}:** {_md(out['understood_as'])}")
    text = out["answer"] if out["ok"] or not out.get("in_scope", True) else \
        "No valid query: " + (out["errors"][-1] if out["errors"] else "")
    lines.append(f"### {_md(text)}")
    lines += [f"- {_md(n)}" for n in out.get("notes", [])]
    doubt = out.get("doubt")
    if doubt:
        lines.append(f"> ⚠ {_md(doubt['line'])}" + (f"  \n> {_md(doubt['explanation'])}" if doubt["explanation"] else ""))
    return "\n\n".join(lines)


def alternative_choices(out: dict[str, Any]) -> list[str]:
    """The other readings as the page lists them: "2. reading → answer" (the answer shown is 1)."""
    doubt = out.get("doubt") or {}
    return [f"{n}. {a['reading']} → {a['answer']}" for n, a in enumerate(doubt.get("alternatives", []), start=2)]


def table_of(out: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    table = out.get("table") or {}
    return list(table.get("variables", [])), [list(r) for r in table.get("rows", [])]


def download_html(variables: list[str], rows: list[list[str]], question: str, name: str = "answer.csv") -> str:
    """A link that downloads the table as CSV, carried in the page itself (nothing is written on the server)."""
    if not variables:
        return ""
    from nl2sparql.kb.export import delimited

    data = base64.b64encode(delimited(variables, rows, "csv").encode("utf-8")).decode("ascii")
    label = labels_for(question)["download"]
    return (f'<a id="download-csv" download="{html.escape(name)}" href="data:text/csv;charset=utf-8;base64,{data}">'
            f"⬇ {html.escape(label)}</a>")


def live_link_html(sparql: str, question: str) -> str:
    """A link that opens the query on the live LiITA endpoint in the user's browser (we never fetch it)."""
    if not sparql:
        return ""
    from nl2sparql.kb.export import live_url

    label = labels_for(question)["live"]
    return (f'<a id="live-endpoint" href="{html.escape(live_url(sparql))}" target="_blank" rel="noopener">'
            f"↗ {html.escape(label)}</a>")


def chart_data(variables: list[str], rows: list[list[str]], sparql: str) -> tuple[str, str, list] | None:
    """(label column, number column, [(label, value)]) for a grouped count or distribution: a GROUP BY answer with
    one numeric column and one label column, 2 to MAX_BARS groups; None otherwise."""
    if not re.search(r"\bGROUP\s+BY\b", sparql or "", re.I) or not 2 <= len(rows) <= MAX_BARS:
        return None
    numeric = [i for i in range(len(variables)) if all(_NUMBER.match((r[i] or "").strip()) for r in rows)]
    labels = [i for i in range(len(variables)) if i not in numeric]
    if len(numeric) != 1 or not labels:
        return None
    key, value = labels[0], numeric[0]
    return variables[key], variables[value], [(r[key] or "—", float(r[value])) for r in rows]


def bar_chart_png(data: tuple[str, str, list]) -> bytes:
    """The bar chart of `chart_data`'s groups as PNG bytes, drawn in memory."""
    import matplotlib

    from nl2sparql.eval.comparison import png_bytes

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    key, value, pairs = data
    fig, ax = plt.subplots(figsize=(max(6, len(pairs) * 0.45), 4))
    ax.bar(range(len(pairs)), [v for _, v in pairs], color="#4c72b0")
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels([str(k)[:24] for k, _ in pairs], rotation=45 if len(pairs) > 6 else 0, ha="right"
                       if len(pairs) > 6 else "center")
    ax.set_xlabel(key)
    ax.set_ylabel(value)
    return png_bytes(fig)
