"""The same version through `nl2sparql.load()` and through the web page: the same SPARQL, and what the web adds.

    python bench/parity.py [--version latest] [--split dev] [--limit 10] [--port 7871] [--out bench/parity-runs]

Starts the real web app (`nl2sparql web --version V`) in its own process, loads the same version here with
`nl2sparql.load(V)`, and asks each of the first --limit questions of the split (Italian wording) of both, one
after the other: first through the page's HTTP API (gradio_client, as a browser's click would), then through the
Python API. Neither answers from a cache: each process gets a fresh, empty DSPy cache folder. It prints, per
question, the seconds each way and whether the SPARQL is the same, then p50 / p90 / max, and writes
<out>/<version>-<split>.json. Run it with nothing else on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def figures(values: list[float]) -> dict:
    return {"p50": round(statistics.median(values), 2), "p90": round(percentile(values, 0.9), 2),
            "max": round(max(values), 2)}


def start_web(version: str, port: int, cache_dir: str) -> subprocess.Popen:
    env = {**os.environ, "DSPY_CACHEDIR": cache_dir}
    command = [sys.executable, "-m", "nl2sparql", "web", "--version", version, "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the web app stopped: {process.stderr.read()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
            return process
        except OSError:
            time.sleep(1)
    process.kill()
    raise SystemExit("the web app did not answer within 300 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="latest")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--port", type=int, default=7871)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "parity-runs")
    args = parser.parse_args()

    os.environ["DSPY_CACHEDIR"] = tempfile.mkdtemp(prefix="parity-api-")  # before dspy is imported

    from gradio_client import Client

    import nl2sparql
    from nl2sparql.artifacts.store import effective_name
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.eval.journal import code_fingerprint
    from nl2sparql.files import write_text_atomic
    from nl2sparql.modules.lm import resolve_lm
    from nl2sparql.serve.tools import describe_line, program_description

    records = [r for r in load_dataset() if r.split == args.split][: args.limit]
    web = start_web(args.version, args.port, tempfile.mkdtemp(prefix="parity-web-"))
    rows = []
    try:
        client = Client(f"http://127.0.0.1:{args.port}/", verbose=False)
        with nl2sparql.load(args.version, lm_object=resolve_lm(cache=False)) as program:
            answering = describe_line(program_description(program))
            resolved = program.version
            print(answering)
            for record in records:
                question = record.question_it
                started = time.perf_counter()
                _, web_sparql, _, _ = client.predict(question, api_name="/translate")
                web_s = time.perf_counter() - started
                started = time.perf_counter()
                out = program(question)
                api_s = time.perf_counter() - started
                same = (out.sparql or "").strip() == (web_sparql or "").strip()
                rows.append({"id": record.id, "question": question, "api_s": round(api_s, 2),
                             "web_s": round(web_s, 2), "same_sparql": same,
                             "api_sparql": out.sparql, "web_sparql": web_sparql})
                print(f"{record.id}: api {api_s:5.1f} s, web {web_s:5.1f} s, same SPARQL: {same}", flush=True)
    finally:
        web.terminate()
        web.wait(timeout=30)
    api = figures([r["api_s"] for r in rows])
    webf = figures([r["web_s"] for r in rows])
    added = figures([r["web_s"] - r["api_s"] for r in rows])
    summary = {"version": resolved, "asked_as": effective_name(args.version), "program": answering, "split": args.split,
               "questions": len(rows), "same_sparql": sum(r["same_sparql"] for r in rows), "api_s": api,
               "web_s": webf, "web_added_s": added, "web_p50_over_api_p50": round(webf["p50"] / api["p50"], 3),
               "code": code_fingerprint(), "rows": rows}
    print(f"same SPARQL {summary['same_sparql']}/{len(rows)}; seconds p50/p90/max: api {api['p50']}/{api['p90']}/"
          f"{api['max']}, web {webf['p50']}/{webf['p90']}/{webf['max']}; web p50 / api p50 = "
          f"{summary['web_p50_over_api_p50']}; the web adds p50 {added['p50']} s")
    write_text_atomic(args.out / f"{summary['version']}-{args.split}.json", json.dumps(summary, indent=2,
                                                                                      ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
