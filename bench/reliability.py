"""Reliability under hostile input, threads, slow servers and killed builds, without any LM call.

    python bench/reliability.py [--store DIR] [--source DIR] [--threads 6] [--calls 30] [--timeout 3] [--json]

Prints, and exits 1 when any is not zero: hostile forms that got through or made a connection, answers that
went to the wrong thread (or failed), calls that ran past the timeout by more than a second, and temp
folders left after a killed build and the sweep that follows it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hostile_cases import SERVICE_ESCAPES, UPDATES, Listener, Trickle, fill  # noqa: E402

from nl2sparql.errors import Nl2SparqlError  # noqa: E402
from nl2sparql.paths import HOME_ENV  # noqa: E402
from nl2sparql.kb.build.store import default_source, sweep_stale  # noqa: E402
from nl2sparql.kb.embedded import EmbeddedEndpoint  # noqa: E402
from nl2sparql.kb.endpoint import EndpointConfig, default_store_path  # noqa: E402
from nl2sparql.kb.guard import check  # noqa: E402
from nl2sparql.kb.remote import RemoteEndpoint  # noqa: E402

SLOW_QUERY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def hostile_forms(endpoint: EmbeddedEndpoint) -> dict:
    """Every SERVICE escape and Update form, through the guard and the embedded endpoint."""
    tried = passed = 0
    with Listener() as listener:
        for template in [*SERVICE_ESCAPES.values(), *UPDATES.values()]:
            query = fill(template, listener)
            for run in (check, endpoint.execute):
                tried += 1
                try:
                    run(query)
                    passed += 1
                except Nl2SparqlError:
                    pass
        connections = listener.connections
    return {"forms": len(SERVICE_ESCAPES) + len(UPDATES), "tried": tried, "refused": tried - passed,
            "passed": passed, "connections": connections}


def threaded(endpoint: EmbeddedEndpoint, threads: int, calls: int) -> dict:
    """threads × calls: guard parses of distinct texts and store queries that echo a token of the caller."""
    def caller(thread: int) -> int:
        wrong = 0
        for call in range(calls):
            token = f"t{thread}-c{call}"
            try:
                checked = check(f"SELECT * WHERE {{ ?s <http://p/{token}> ?o }}")
                result = endpoint.execute(f'SELECT ?token WHERE {{ VALUES ?token {{ "{token}" }} ?s ?p ?o }} LIMIT 2')
                ok = checked.triple_patterns == 1 and [str(r[0]) for r in result.rows] == [token, token]
            except Exception:
                ok = False
            wrong += not ok
        return wrong

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        wrong = sum(pool.map(caller, range(threads)))
    return {"threads": threads, "calls": threads * calls, "wrong": wrong,
            "seconds": round(time.perf_counter() - started, 2)}


def timeouts(store: Path, timeout_s: float) -> dict:
    """Wall time of calls that cannot finish: a cross product on the store, and two trickling servers."""
    times = {}
    with EmbeddedEndpoint(EndpointConfig(store_path=store, timeout_s=timeout_s, cache_size=0)) as endpoint:
        endpoint.execute("ASK { ?s ?p ?o }")  # the worker's start is not the query's time
        for name, query in (("embedded cross product", SLOW_QUERY),
                            ("embedded, longest admitted query", largest_query(endpoint.config.limits.max_chars))):
            started = time.perf_counter()
            endpoint.execute(query)
            times[name] = time.perf_counter() - started
    for in_headers in (False, True):
        remote = RemoteEndpoint(EndpointConfig(url=Trickle(in_headers).url, timeout_s=timeout_s))
        started = time.perf_counter()
        remote.execute("ASK { ?s ?p ?o }")
        times[f"remote trickling {'headers' if in_headers else 'body'}"] = time.perf_counter() - started
    worst = max(times.values())
    return {"timeout_s": timeout_s, "max_wall_s": round(worst, 2), "over": sum(t > timeout_s + 1 for t in times.values()),
            "calls": {name: round(t, 2) for name, t in times.items()}}


def largest_query(max_chars: int) -> str:
    """A valid query just under the guard's length limit (its parse time counts against the timeout)."""
    words, size, n = [], 40, 0
    while size + len(f' "w{n}"') < max_chars:
        words.append(f'"w{n}"')
        size += len(words[-1]) + 1
        n += 1
    return f"SELECT ?x WHERE {{ VALUES ?x {{ {' '.join(words)} }} ?x ?p ?o }}"


def killed_builds(source: Path) -> dict:
    """A build stopped by SIGTERM, and one by SIGKILL followed by the next build's sweep: folders left over."""
    left = {}
    with tempfile.TemporaryDirectory() as tmp:
        for how in (signal.SIGTERM, signal.SIGKILL):
            out = Path(tmp) / f"store-{how.name}"
            process = subprocess.Popen([sys.executable, "-m", "nl2sparql", "kb", "build", "--source", str(source),
                                        "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            work = out.parent / f".{out.name}.building-{process.pid}"
            deadline = time.monotonic() + 120
            while not work.exists() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)
            process.send_signal(how)
            process.wait(timeout=60)
            if how == signal.SIGKILL:
                sweep_stale(out)
            left[how.name] = sum(1 for p in Path(tmp).iterdir() if p.name.startswith(f".{out.name}."))
    return {"leftover": sum(left.values()), "after": left}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None, help=f"Built store (default: ${HOME_ENV}/kb).")
    parser.add_argument("--source", type=Path, default=None, help="LiITA open data, for the killed builds.")
    parser.add_argument("--threads", type=int, default=6)
    parser.add_argument("--calls", type=int, default=30, help="Calls per thread.")
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    store = args.store or default_store_path()
    with EmbeddedEndpoint(EndpointConfig(store_path=store, cache_size=0)) as endpoint:
        report = {"hostile": hostile_forms(endpoint), "threads": threaded(endpoint, args.threads, args.calls),
                  "network_isolated_worker": endpoint.isolated}
    report["timeouts"] = timeouts(store, args.timeout)
    report["killed_builds"] = killed_builds(args.source or default_source())
    failures = (report["hostile"]["passed"] + report["hostile"]["connections"] + report["threads"]["wrong"]
                + report["timeouts"]["over"] + report["killed_builds"]["leftover"])
    report["failures"] = failures
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        h, t, w, k = report["hostile"], report["threads"], report["timeouts"], report["killed_builds"]
        print(f"hostile forms   {h['forms']} forms × guard and endpoint: {h['tried']} tried, {h['refused']} refused, "
              f"{h['passed']} passed, {h['connections']} connections to the listener")
        print(f"worker network  {'none (own network namespace)' if report['network_isolated_worker'] else 'SHARED'}")
        print(f"threads         {t['threads']} threads × {t['calls'] // t['threads']} calls: {t['wrong']} wrong or "
              f"failed, {t['seconds']} s")
        print(f"timeouts        --timeout {w['timeout_s']:g}: max wall {w['max_wall_s']} s "
              f"({', '.join(f'{n} {s} s' for n, s in w['calls'].items())}); {w['over']} over by > 1 s")
        print(f"killed builds   leftover temp folders: {k['after']['SIGTERM']} after SIGTERM, "
              f"{k['after']['SIGKILL']} after SIGKILL and the sweep")
        print(f"failures        {failures}")
    os._exit(1 if failures else 0)  # trickling servers' threads need not be waited for


if __name__ == "__main__":
    main()
