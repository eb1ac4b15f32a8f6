"""Benchmark: how long ``agentmem mcp`` takes to answer ``initialize`` (target ≤ 1.5 s on a quiet
machine), and to answer ``tools/list`` (the SDK loaded and serving).

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_mcp.py [RUNS]

Builds a fresh memory repository (``agentmem init``), then RUNS times (default 7): spawns
``python -m agentmem mcp`` with byte-code caching on, sends ``initialize`` over stdio and times
its answer, then ``notifications/initialized`` and ``tools/list`` and times that answer from the
start, and closes stdin. Beside it, the floor a server needs at least: ``python -c pass``
answering nothing. Prints each median and min–max (wall clock, milliseconds).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sidebyside import ENV  # noqa: E402

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench_mcp", "version": "1"},
    },
}
TARGET_MS = 1500


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def one_session(root: Path) -> tuple[float, float]:
    """Milliseconds from the spawn to the answer to initialize, and to that of tools/list."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentmem", "mcp"],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    assert proc.stdout is not None and proc.stdin is not None
    _send(proc, INITIALIZE)
    answer = json.loads(proc.stdout.readline())
    initialized = (time.perf_counter() - start) * 1000
    assert answer["result"]["serverInfo"]["name"] == "agentmem", answer
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = json.loads(proc.stdout.readline())
    listed = (time.perf_counter() - start) * 1000
    assert tools["result"]["tools"], tools
    proc.stdin.close()
    proc.wait(timeout=60)
    return initialized, listed


def floor() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=ENV)
    return (time.perf_counter() - start) * 1000


def _line(name: str, samples: list[float]) -> str:
    return (
        f"{name:<28} median {statistics.median(samples):7.0f} ms"
        f"   ({min(samples):.0f}–{max(samples):.0f})"
    )


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        root.mkdir()
        for args in (
            ["git", "init", "-q"],
            ["git", "config", "user.name", "Alice"],
            ["git", "config", "user.email", "alice@example.com"],
        ):
            subprocess.run(args, cwd=root, check=True)
        subprocess.run(
            [sys.executable, "-m", "agentmem", "init"], cwd=root, check=True, capture_output=True
        )
        one_session(root)  # warm-up: byte code written
        init, listed, bare = [], [], []
        for _ in range(runs):
            a, b = one_session(root)
            init.append(a)
            listed.append(b)
            bare.append(floor())
    print(_line("python -c pass", bare))
    print(_line("agentmem mcp: initialize", init))
    print(_line("agentmem mcp: tools/list", listed))
    verdict = "ok" if statistics.median(init) <= TARGET_MS else "OVER"
    print(f"initialize target ≤ {TARGET_MS} ms: {verdict}")


if __name__ == "__main__":
    main()
