"""`nl2sparql chat` driven through a pseudo-terminal with DummyLM: three turns, a follow-up rewritten,
/sparql, /save, /new (the next follow-up has no history), Ctrl-D leaves."""

from __future__ import annotations

import codecs
import json
import os
import pty
import select
import sys
import time
from pathlib import Path

from test_conversation import CANE, SADNESS, SADNESS_COUNT

HERE = Path(__file__).resolve().parent


class Terminal:
    """A child process on a pseudo-terminal: type lines, read until a prompt shows."""

    def __init__(self, argv: list[str], env: dict):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        self.seen = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may straddle two reads

    def read_until(self, text: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        start = len(self.seen)
        while text not in self.seen[start:]:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no {text!r} in:\n{self.seen[start:]}"
            if select.select([self.fd], [], [], remaining)[0]:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                self.seen += self.decoder.decode(chunk)
        return self.seen[start:]

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def exit_code(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.1)
        os.kill(self.pid, 9)
        raise AssertionError("the chat did not leave on Ctrl-D")


def test_chat_in_a_terminal(kb_store, tmp_path):
    answers = [{"sparql": SADNESS}, {"standalone_question": "Quante parole ELITA esprimono tristezza?"},
               {"sparql": SADNESS_COUNT}, {"sparql": CANE}]
    (tmp_path / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")]),
           "TERM": "dumb", "COLUMNS": "200"}
    term = Terminal([sys.executable, str(HERE / "chat_dummy.py"), str(kb_store), str(tmp_path / "answers.json")], env)
    term.read_until("› ")
    term.type("Quali parole ELITA esprimono tristezza?")
    assert "66" in term.read_until("› ")
    term.type("E quante sono?")
    shown = term.read_until("› ")
    assert "→ Quante parole ELITA esprimono tristezza?" in shown and "66" in shown
    term.type("/sparql")
    assert "COUNT" in term.read_until("› ")
    term.type(f"/save {tmp_path / 'chat.json'}")
    assert "saved 2 turns" in term.read_until("› ")
    term.type("/new")
    term.read_until("› ")
    term.type("Quali parole siciliane traducono «cane»?")  # no history after /new: passed through as asked
    shown = term.read_until("› ")
    assert "\n→ " not in shown and "cane" in shown  # no line saying what the question was taken to mean
    os.write(term.fd, b"\x04")
    assert term.exit_code() == 0
    saved = json.loads((tmp_path / "chat.json").read_text(encoding="utf-8"))
    assert [t["standalone_question"] for t in saved["turns"]] == [
        "Quali parole ELITA esprimono tristezza?", "Quante parole ELITA esprimono tristezza?"]
