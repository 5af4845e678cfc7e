"""Work cut short: a build stopped by SIGTERM or SIGKILL leaves no debris behind (at once, or at the next
build), and a remote endpoint that trickles bytes cannot hold a caller past its timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hostile_cases import Trickle
from nl2sparql.kb.build.store import default_source, sweep_stale
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.kb.remote import RemoteEndpoint


def start_build(out: Path) -> tuple[subprocess.Popen, Path]:
    process = subprocess.Popen([sys.executable, "-m", "nl2sparql", "kb", "build", "--source", str(default_source()),
                                "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    work = out.parent / f".{out.name}.building-{process.pid}"
    deadline = time.monotonic() + 120
    while not work.exists():
        assert process.poll() is None and time.monotonic() < deadline, "the build never started"
        time.sleep(0.05)
    time.sleep(1.0)  # well into reading the sources
    return process, work


@pytest.mark.slow
def test_sigterm_stops_a_build_like_ctrl_c(tmp_path):
    out = tmp_path / "store"
    out.mkdir()
    (out / "keep.txt").write_text("the old store")
    process, work = start_build(out)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) != 0
    assert not work.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
    assert (out / "keep.txt").read_text() == "the old store"


@pytest.mark.slow
def test_after_sigkill_the_next_build_sweeps_the_debris(tmp_path):
    out = tmp_path / "store"
    process, work = start_build(out)
    process.kill()
    process.wait(timeout=30)
    assert work.exists()  # SIGKILL cannot be handled: the folder stays …
    other = tmp_path / ".other.old-999999999"  # nor another store's
    other.mkdir()
    parent_build = tmp_path / f".store.old-{os.getppid()}"  # a live process's folder is left alone
    parent_build.mkdir()
    assert sweep_stale(out) == [work]
    assert not work.exists() and other.exists() and parent_build.exists()


@pytest.mark.parametrize("in_headers", [False, True], ids=["body", "headers"])
def test_remote_timeout_is_wall_clock_against_a_trickling_server(in_headers):
    server = Trickle(in_headers)
    endpoint = RemoteEndpoint(EndpointConfig(url=server.url, timeout_s=2))
    started = time.perf_counter()
    result = endpoint.execute("ASK { ?s ?p ?o }")
    elapsed = time.perf_counter() - started
    assert result.timed_out and elapsed < 3.0, elapsed


_HOLD_A_QUERY = r'''
import sys
from pathlib import Path
from nl2sparql.kb.embedded import EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig
endpoint = EmbeddedEndpoint(EndpointConfig(store_path=Path(sys.argv[1]), timeout_s=600))
endpoint._ensure_worker()
print(endpoint._process.pid, flush=True)
endpoint.execute("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }")  # runs for minutes
'''


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] == "Z"
    except FileNotFoundError:
        return True


def test_a_killed_caller_leaves_no_store_worker_running_its_query(kb_store):
    caller = subprocess.Popen([sys.executable, "-c", _HOLD_A_QUERY, str(kb_store)], stdout=subprocess.PIPE, text=True)
    worker = int(caller.stdout.readline())
    time.sleep(2.0)  # the worker is deep in the cross product
    assert not _gone(worker)
    caller.send_signal(signal.SIGKILL)
    caller.wait()
    deadline = time.monotonic() + 10
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not _gone(worker):
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the store worker went on alone after its caller was killed")
