"""Benchmark: the SessionEnd and PreCompact hooks (target: under 0.3 s; Claude Code gives
SessionEnd 1.5 s).

Not a test. Run from the repository root::

    python benchmarks/bench_hook.py [RUNS]

Pipes the real SessionEnd / PreCompact payloads of ``tests/data/hooks/`` into a fresh
``agentmem hook session-end`` (and ``pre-compact``) RUNS times (default 20) in a temporary memory
repository, through ``python -m agentmem`` and through the installed console script when it is
found next to the interpreter, and prints the median, best and worst wall times, with
``python -c pass`` for the interpreter's own start.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HOOKS = Path(__file__).resolve().parents[1] / "tests" / "data" / "hooks"
TARGET_MS = 300.0


def _payloads(name: str) -> list[str]:
    return [json.dumps(p) for p in json.loads((HOOKS / f"{name}.json").read_text(encoding="utf-8"))]


#: Byte-code caching on, as on a person's machine (this sandbox sets PYTHONDONTWRITEBYTECODE,
#: which would make every run recompile agentmem's modules).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(
    cmd: list[str], cwd: Path, stdins: list[str], runs: int
) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) milliseconds of each run, after one warm-up run."""
    subprocess.run(
        cmd, cwd=cwd, check=True, capture_output=True, input=stdins[0], text=True, env=ENV
    )
    wall, cpu = [], []
    for i in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            cmd,
            cwd=cwd,
            check=True,
            capture_output=True,
            input=stdins[i % len(stdins)],
            text=True,
            env=ENV,
        )
        wall.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall, cpu


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    py = sys.executable
    script = Path(sysconfig.get_path("scripts")) / "agentmem"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        root.mkdir()
        for args in (
            ["init", "-q", "-b", "main"],
            ["config", "user.email", "bench@example.com"],
            ["config", "user.name", "Bench"],
        ):
            subprocess.run(["git", "-C", str(root), *args], check=True)
        subprocess.run([py, "-m", "agentmem", "init", str(root)], check=True, capture_output=True)
        end = _payloads("macos_session_end") + _payloads("windows_session_end")
        compact = _payloads("macos_pre_compact") + _payloads("windows_pre_compact")
        rows = [("python -c pass", _time([py, "-c", "pass"], root, [""], runs))]
        rows.append(
            (
                "python -m agentmem hook session-end",
                _time([py, "-m", "agentmem", "hook", "session-end"], root, end, runs),
            )
        )
        rows.append(
            (
                "python -m agentmem hook pre-compact",
                _time([py, "-m", "agentmem", "hook", "pre-compact"], root, compact, runs),
            )
        )
        if script.is_file():
            rows.append(
                (
                    f"{script} hook session-end",
                    _time([str(script), "hook", "session-end"], root, end, runs),
                )
            )
        queued = (root / ".agentmem" / "queue.jsonl").read_text(encoding="utf-8").count("\n")
    print(f"{runs} runs each, fresh process each; {queued} lines queued")
    for name, (wall, cpu) in rows:
        median = statistics.median(wall)
        flag = (
            ""
            if name.startswith("python -c")
            else ("  OK" if median < TARGET_MS else "  OVER 300 ms")
        )
        print(
            f"{name:60s} wall median {median:6.1f} ms  best {min(wall):6.1f}  worst {max(wall):6.1f}"
            f"  cpu median {statistics.median(cpu):6.1f}{flag}"
        )


if __name__ == "__main__":
    main()
