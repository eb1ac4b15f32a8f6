"""Benchmark: the review pages (``agentmem serve``) against the commands they stand beside.

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_serve.py [--rules 2000] [--runs 9]

Builds one repository in a temporary folder (``gen_large_repo.py``: ``--rules`` rules, 20
memory files) and, as its admin p0000, 50 pending proposals (``remember``, the domain function
the command calls). Starts the pages on 127.0.0.1 (a thread of this process, uvicorn) and, in
alternating rounds, times

- ``GET /inbox`` against ``agentmem inbox`` (a fresh process), 50 pending proposals;
- ``GET /doctrine`` against ``agentmem doctrine list``;
- an accept from the page (the POST of the form, with its CSRF token and stamp) against
  ``agentmem review --accept ID`` (each on a proposal of its own, added after the listings).

Wall time: the request from sending to the last byte, the command from start to exit. CPU:
the process's own (server and client threads) for a request, the child's for a command.
Targets (docs/design/web.md §Web): the inbox and doctrine pages ≤ 1.5× their command, an accept
≤ 1.2× ``review --accept``. Prints medians (min–max) and the load average.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_large_repo import generate  # noqa: E402
from sidebyside import ENV, load_note  # noqa: E402

TEXTS = [
    "Keep the summary of each contract under {n} lines.",
    "Quote clause {n} with its article number when flagging it.",
    "Use a table when more than {n} figures are compared.",
]


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def command(root: Path, *args: str) -> tuple[float, float]:
    """Wall and CPU milliseconds of ``agentmem ARGS`` in a fresh process."""
    cpu = _child_cpu()
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", *args], cwd=root, capture_output=True, text=True, env=ENV
    )
    wall = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"agentmem {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")
    return wall, _child_cpu() - cpu


def request(call: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one request to the pages (server and client in this
    process)."""
    cpu = _self_cpu()
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000, _self_cpu() - cpu


def _summary(name: str, samples: list[tuple[float, float]]) -> tuple[float, float, str]:
    walls = [w for w, _ in samples]
    cpus = [c for _, c in samples]
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    line = (
        f"{name:34s} median {wall:7.1f} ms  min–max {min(walls):6.1f}–{max(walls):6.1f}"
        f"  cpu {cpu:6.1f}"
    )
    return wall, cpu, line


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)

    import httpx2 as httpx

    from agentmem.proposals.review import remember
    from agentmem.store.repo import open_repository
    from agentmem.web.server import start

    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        root = Path(tmp) / "repo"
        generate(root, args.rules, 20, 200)
        for key, value in (("user.email", "p0000@team.example"), ("user.name", "P0000")):
            subprocess.run(["git", "config", key, value], cwd=root, check=True)
        os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
        repo = open_repository(root)
        actor = repo.actor()

        def add(count: int, start_at: int) -> list[str]:
            ids = []
            for n in range(start_at, start_at + count):
                text = TEXTS[n % len(TEXTS)].format(n=n + 2)
                ids.append(remember(repo, actor, text, "Recurring patterns").id)
            return ids

        add(50, 0)
        running = start(root)
        client = httpx.Client(base_url=running.base, timeout=60)
        client.cookies.set(running.keys.cookie, running.keys.token)

        def page(path: str) -> Callable[[], object]:
            def get() -> object:
                response = client.get(path)
                assert response.status_code == 200, (path, response.status_code)
                return response.content

            return get

        cases = {
            "inbox": ([], []),
            "doctrine": ([], []),
        }
        pairs = {
            "inbox": (("inbox",), "/inbox"),
            "doctrine": (("doctrine", "list"), "/doctrine"),
        }
        for argv_, path in pairs.values():  # warm-up: one of each
            command(root, *argv_)
            request(page(path))
        for _ in range(args.runs):
            for name, (argv_, path) in pairs.items():
                cases[name][0].append(command(root, *argv_))
                cases[name][1].append(request(page(path)))
        shown = len(re.findall(r'class="proposal', client.get("/inbox").text))

        # accepts: a proposal of its own each, added now (the listings above saw 50)
        pool = add(2 * args.runs + 2, 50)
        cli_accept: list[tuple[float, float]] = []
        page_accept: list[tuple[float, float]] = []
        for i in range(args.runs + 1):
            cli_id, page_id = pool[2 * i], pool[2 * i + 1]
            cli = command(root, "review", "--accept", cli_id)
            html = client.get(f"/inbox/{page_id}").text
            stamp = re.search(r'name="stamp" value="([^"]+)"', html)
            assert stamp is not None
            body = urlencode({"csrf": running.keys.csrf, "stamp": stamp.group(1)})

            def post(pid: str = page_id, data: str = body) -> object:
                response = client.post(
                    f"/inbox/{pid}/accept",
                    content=data,
                    headers={"content-type": "application/x-www-form-urlencoded"},
                )
                assert response.status_code == 303, response.text[-500:]
                return response

            web = request(post)
            if i:  # the first pair is the warm-up
                cli_accept.append(cli)
                page_accept.append(web)
        running.stop()

    print(f"{args.rules} rules, {shown} pending proposals shown; {args.runs} runs; {load_note()}")
    targets = {"inbox": 1.5, "doctrine": 1.5, "accept": 1.2}
    results = [
        ("inbox", "agentmem inbox", "GET /inbox", *cases["inbox"]),
        ("doctrine", "agentmem doctrine list", "GET /doctrine", *cases["doctrine"]),
        ("accept", "agentmem review --accept ID", "POST /inbox/ID/accept", cli_accept, page_accept),
    ]
    for key, floor_name, page_name, floor, mine in results:
        f_wall, f_cpu, f_line = _summary(floor_name, floor)
        m_wall, m_cpu, m_line = _summary(page_name, mine)
        ratio, cpu_ratio = m_wall / f_wall, m_cpu / f_cpu if f_cpu else 0.0
        verdict = "OK" if ratio <= targets[key] else "OVER"
        print(f_line)
        print(
            f"{m_line}  {ratio:5.2f}× (cpu {cpu_ratio:4.2f}×)  target ≤ {targets[key]}×: {verdict}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
