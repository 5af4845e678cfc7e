"""Several users at once on the web page: N simulated users, each asking K questions in a conversation of its own.

    python bench/load.py --version v14 [--lm-server http://127.0.0.1:8010 | --serve [--kill-after S]] [--users 4]
                         [--questions 5] [--timeout 900] [--name NAME] [--out bench/load-runs]

Starts `nl2sparql web` on a free loopback port (with --lm-server when given), then asks through the page's own API
(gradio_client, the Conversation tab's `ask`): first one user alone (the single-user seconds), then all users at
once, each in its own session and conversation. Every user's questions name a word of its own ("casa", "cane", …),
so an answer that carries another user's word, or a conversation that shows another user's question, is counted
as mixed up. The page runs with an empty DSPy cache, so every answer asks the model. Writes <out>/<name>.json with users, questions, completed, failed, mixed_up, p50_s, p90_s, max_s,
single_user_p90_s, lm_server and every answer's seconds. `--serve` starts `nl2sparql lm serve` itself; with
`--kill-after S` it kills the LM server S seconds into the users' phase and starts it again: the answers asked
while it is down fail (a user pauses 5 s after an error, then asks the next question), and `sessions_kept` counts
the users whose conversation still holds every answered turn.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PAUSE_AFTER_ERROR_S = 5.0
WORDS = ["casa", "cane", "acqua", "pane", "libro", "sole", "mare", "fuoco"]
TEMPLATES = ["Quali sono le traduzioni siciliane di «{w}»?", "Quante definizioni ha la parola «{w}» in CompL-it?",
             "La parola «{w}» esprime un'emozione in ELITA?", "Qual è la polarità di «{w}» in Sentix?",
             "Quali sono gli iperonimi di «{w}» in CompL-it?", "Come si dice «{w}» in parmigiano?"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(process: subprocess.Popen, url: str, what: str, seconds: float = 300) -> subprocess.Popen:
    """`process` once `url` answers 200; the bench stops with one line if it ends or takes longer."""
    import httpx

    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"error: {what} ended before it answered")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(1)
    process.kill()
    raise SystemExit(f"error: {what} did not answer in {seconds:.0f} s")


def start_web(version: str, lm_server: str | None, port: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "nl2sparql", "web", "--version", version, "--port", str(port)]
    if lm_server:
        command += ["--lm-server", lm_server]
    # A DSPy cache of its own: an answer cached by an earlier run would come back without asking the model.
    env = {**os.environ, "DSPY_CACHEDIR": tempfile.mkdtemp(prefix="nl2sparql-load-")}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return wait_for(process, f"http://127.0.0.1:{port}/", "nl2sparql web")


def start_lm_server(version: str, port: int) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "nl2sparql", "lm", "serve", "--version", version, "--port",
                                str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return wait_for(process, f"http://127.0.0.1:{port}/v1/models", "nl2sparql lm serve")


def ask_all(url: str, user: int, questions: list[str], until: float, out: list[dict]) -> None:
    """One user: a session of its own, its questions in turn, each answer checked against its word."""
    from gradio_client import Client

    word = WORDS[user]
    others = [w for w in WORDS if w != word]  # (the single user's word is its own: it asks alone)
    client = Client(url, verbose=False)
    answered = 0  # turns the user's conversation holds so far (a failed question adds none)
    for question in questions:
        if time.time() > until:
            out.append({"user": user, "question": question, "ok": False, "error": "out of time", "seconds": 0.0})
            continue
        started = time.perf_counter()
        try:
            transcript, _ = client.predict(question, api_name="/ask")
        except Exception as error:  # noqa: BLE001 - a failed request is a figure, not a crash of the bench
            out.append({"user": user, "question": question, "ok": False, "error": str(error)[:200],
                        "seconds": round(time.perf_counter() - started, 3)})
            time.sleep(PAUSE_AFTER_ERROR_S)  # as a person would, before the next question
            continue
        seconds = time.perf_counter() - started
        turns = transcript.split("\n\n---\n\n")
        last = turns[-1] if turns else ""
        answered += 1
        mixed = len(turns) != answered or any(f"«{w}»" in transcript for w in others) or question not in last
        out.append({"user": user, "question": question, "ok": True, "mixed_up": mixed, "seconds": round(seconds, 3),
                    "failed_answer": "No valid query" in last, "transcript_questions": [
                        q for q in questions if any(q in turn for turn in turns)]})


def run(url: str, users: int, questions: int, timeout_s: float, chaos=None) -> dict:
    single: list[dict] = []  # one user alone, with a word no user of the next phase has (nothing cached for them)
    ask_all(url, users, [t.format(w=WORDS[users]) for t in TEMPLATES[:questions]], time.time() + timeout_s, single)
    answers: list[dict] = []
    until = time.time() + timeout_s
    threads = [threading.Thread(target=ask_all, args=(url, u, [t.format(w=WORDS[u]) for t in TEMPLATES[:questions]],
                                                     until, answers)) for u in range(users)]
    if chaos is not None:
        threads.append(threading.Thread(target=chaos))
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    done = [a for a in answers if a["ok"]]
    seconds = [a["seconds"] for a in done]
    kept = 0
    for user in range(users):
        mine = [a for a in answers if a["user"] == user]
        answered = [a["question"] for a in mine if a["ok"]]
        last = next((a for a in reversed(mine) if a["ok"]), None)
        kept += last is None or last["transcript_questions"] == answered  # every answered turn still there, in order
    return {"users": users, "questions": users * questions, "completed": len(done), "sessions_kept": kept,
            "failed": len(answers) - len(done), "mixed_up": sum(a["mixed_up"] for a in done),
            "no_valid_query": sum(a["failed_answer"] for a in done),
            "p50_s": round(percentile(seconds, 0.5), 2), "p90_s": round(percentile(seconds, 0.9), 2),
            "max_s": round(max(seconds, default=0.0), 2), "wall_s": round(wall, 1),
            "single_user_p90_s": round(percentile([a["seconds"] for a in single if a["ok"]], 0.9), 2),
            "single_user_failed": sum(not a["ok"] for a in single), "answers": answers, "single_user": single}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="latest")
    parser.add_argument("--lm-server", default=None)
    parser.add_argument("--serve", action="store_true", help="start `nl2sparql lm serve` for the version here")
    parser.add_argument("--kill-after", type=float, default=None, help="with --serve: kill the LM server this many "
                                                                        "seconds into the users' phase, then restart it")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds each phase may take")
    parser.add_argument("--name", default=None)
    parser.add_argument("--out", type=Path, default=BENCH / "load-runs")
    args = parser.parse_args()
    if not 1 <= args.users < len(WORDS) or not 1 <= args.questions <= len(TEMPLATES):
        parser.error(f"--users 1…{len(WORDS) - 1}, --questions 1…{len(TEMPLATES)}")

    from nl2sparql.eval.journal import code_fingerprint
    from nl2sparql.files import write_text_atomic
    from nl2sparql.modules.llama_load import cpu_name

    lm = {"process": None, "outage_s": None}
    if args.serve:
        lm_port = free_port()
        lm["process"] = start_lm_server(args.version, lm_port)
        args.lm_server = f"http://127.0.0.1:{lm_port}"

    def chaos() -> None:
        time.sleep(args.kill_after)
        began = time.perf_counter()
        lm["process"].kill()
        lm["process"].wait(30)
        lm["process"] = start_lm_server(args.version, lm_port)
        lm["outage_s"] = round(time.perf_counter() - began, 1)

    port = free_port()
    web = start_web(args.version, args.lm_server, port)
    try:
        result = run(f"http://127.0.0.1:{port}/", args.users, args.questions, args.timeout,
                     chaos if args.serve and args.kill_after is not None else None)
    finally:
        web.terminate()
        web.wait(30)
        if lm["process"] is not None:
            lm["process"].terminate()
            lm["process"].wait(30)
    report = {"version": args.version, "lm_server": bool(args.lm_server), **result,
              "killed_after_s": args.kill_after if args.serve else None, "outage_s": lm["outage_s"],
              "machine": f"{os.cpu_count()} cores, {cpu_name()}", "code": code_fingerprint()}
    name = args.name or (f"{args.version}-{args.users}x{args.questions}-{'server' if args.lm_server else 'inprocess'}"
                         + ("-killed" if report["killed_after_s"] is not None else ""))
    write_text_atomic(args.out / f"{name}.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"{name}: {report['completed']}/{report['questions']} completed, {report['failed']} failed, "
          f"{report['mixed_up']} mixed up; seconds p50 {report['p50_s']}, p90 {report['p90_s']}, max "
          f"{report['max_s']} (one user alone: p90 {report['single_user_p90_s']}); wall {report['wall_s']} s; "
          f"sessions kept {report['sessions_kept']}/{report['users']}")


if __name__ == "__main__":
    main()
