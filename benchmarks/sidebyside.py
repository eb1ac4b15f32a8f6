"""Side-by-side timing for the benchmarks: each command and its floor run alternately, in fresh
processes, so that a loaded machine slows both alike; medians and min–max, ratio of medians.

Used by ``bench_cli.py`` and ``bench_hook.py`` (not a test).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Byte-code caching on, as on a person's machine (a sandbox may set PYTHONDONTWRITEBYTECODE,
#: which would make every run recompile agentmem's modules).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Case:
    """One command line: its name in the table, argv, folder, stdin, and its floor's name."""

    name: str
    argv: Sequence[str]
    cwd: Path
    stdin: str = ""
    floor: str = ""
    samples: list[float] | None = None
    cpu: list[float] | None = None


def run_once(case: Case) -> tuple[float, float]:
    """Wall and CPU (user + system) milliseconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        list(case.argv), cwd=case.cwd, input=case.stdin, capture_output=True, text=True, env=ENV
    )
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{case.name}: exit {proc.returncode}\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return elapsed, cpu


def alternate(cases: Sequence[Case], runs: int) -> None:
    """Run every case once (warm-up), then ``runs`` rounds of every case in turn."""
    for case in cases:
        run_once(case)
        case.samples, case.cpu = [], []
    for _ in range(runs):
        for case in cases:
            wall, cpu = run_once(case)
            assert case.samples is not None and case.cpu is not None
            case.samples.append(wall)
            case.cpu.append(cpu)


def table(cases: Sequence[Case], target: dict[str, float] | None = None) -> list[str]:
    """One line per case: wall median, min–max and the ratio to its floor's median (and the
    target when ``target`` names one for the case); then the same ratio in CPU time (user +
    system), steadier than wall time on a loaded machine."""
    by_name = {c.name: c for c in cases}
    lines = []
    for case in cases:
        samples = case.samples or [0.0]
        median = statistics.median(samples)
        line = (
            f"{case.name:44s} median {median:7.1f} ms  min–max {min(samples):6.1f}–"
            f"{max(samples):6.1f}  cpu {statistics.median(case.cpu or [0.0]):6.1f}"
        )
        if case.floor:
            floor = statistics.median(by_name[case.floor].samples or [1.0])
            ratio = median / floor
            cpu_ratio = statistics.median(case.cpu or [0.0]) / statistics.median(
                by_name[case.floor].cpu or [1.0]
            )
            line += f"  {ratio:5.2f}× {case.floor} (cpu {cpu_ratio:4.2f}×)"
            limit = (target or {}).get(case.name)
            if limit is not None:
                line += f"  target ≤ {limit:.1f}×: {'OK' if ratio <= limit else 'OVER'}"
        lines.append(line)
    return lines


def load_note() -> str:
    """The machine's load when the figures were taken (they are noisy on a loaded machine)."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"
