"""Benchmark: `agentmem context chat` on a full memory file with a record on every entry, against
the same file without records (target: ≤ 1.1×).

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_records.py [RUNS]

Builds two memory repositories in a temporary folder holding the same memory: entries filling
the 8,000-character budget (what reaches the prompt: the budget does not count the markers). In
the first every entry ends with a record marker (``<!-- am: basis=… since=… review=… … -->``,
half of them inferred with an expiry date; dates differ from entry to entry); in the second the same entries carry none. Then it
runs ``python -m agentmem context chat`` in each, alternating (A, B, A, B …) in fresh
interpreters, RUNS times each (default 21, after a warm-up), and prints medians, min–max and
the ratio. Both runs append their chat line to the usage log, as a session would.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

SECTIONS = ["Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies"]
BUDGET = 8000


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _marker(n: int) -> str:
    """A record of its own for entry ``n`` (dates differ from entry to entry, as in a memory
    built over months: no two markers alike)."""
    since = date(2026, 1, 1) + timedelta(days=n * 3)
    if n % 2:
        review, expires = since + timedelta(days=30), since + timedelta(days=90)
        return f" <!-- am: basis=inferred since={since} review={review} expires={expires} -->"
    return f" <!-- am: basis=declared since={since} review={since + timedelta(days=365)} -->"


def memory(person: str, records: bool) -> str:
    """A memory whose prompt text (markers stripped) is just under the budget."""
    head = f"# Memory: {person}\n"
    per_section: dict[str, list[str]] = {s: [] for s in SECTIONS}
    size = len(head) + sum(len(f"\n## {s}\n") for s in SECTIONS)
    n = 0
    while True:
        text = f"- Preference {n}: keep comments short and cite clause {n} before a change."
        if size + len(text) + 1 > BUDGET - 10:
            break
        per_section[SECTIONS[n % 4]].append(text + (_marker(n) if records else "") + "\n")
        size += len(text) + 1
        n += 1
    return head + "".join(f"\n## {s}\n" + "".join(per_section[s]) for s in SECTIONS)


def build(root: Path, records: bool) -> None:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "alice@example.com")
    _git(root, "config", "user.name", "Alice")
    subprocess.run(
        [sys.executable, "-m", "agentmem", "init", str(root)], check=True, capture_output=True
    )
    (root / "memories" / "alice.md").write_text(memory("alice", records), encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench data")


#: Byte-code caching on, as on a person's machine.
ENV = {
    k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "AGENTMEM_TODAY")
}
CMD = [sys.executable, "-m", "agentmem", "context", "chat"]


def _once(cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) milliseconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(CMD, cwd=cwd, check=True, capture_output=True, env=ENV)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def _in_process(marked: Path, plain: Path, runs: int) -> dict[str, list[float]]:
    """What the records change, without the interpreter's start: read, parse, keep, render the
    block and build its usage line (the command's own work), alternating, in milliseconds."""
    # lazy: the benchmark's own interpreter loads agentmem only here
    from agentmem.config import load_config
    from agentmem.delivery.context import build_chat, render_chat
    from agentmem.delivery.usagelog import chat_line
    from agentmem.memory import records
    from agentmem.store.repo import Repository

    repos = {"marked": marked, "plain": plain}
    loaded = {name: Repository(root, load_config(root)) for name, root in repos.items()}
    times: dict[str, list[float]] = {"marked": [], "plain": []}
    for _ in range(runs):
        for name, repo in loaded.items():
            records.forget()  # a fresh process has read no marker yet
            start = time.perf_counter()
            ctx = build_chat(repo, "alice", None)
            render_chat(ctx, "text")
            chat_line(ctx, "alice", "bench")
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    with tempfile.TemporaryDirectory() as tmp:
        marked, plain = Path(tmp) / "marked", Path(tmp) / "plain"
        build(marked, True)
        build(plain, False)
        out = {
            name: subprocess.run(
                CMD, cwd=root, check=True, capture_output=True, text=True, env=ENV
            ).stdout
            for name, root in (("marked", marked), ("plain", plain))
        }
        assert "am:" not in out["marked"] and "[inferred]" in out["marked"]
        entries = sum(1 for ln in out["plain"].splitlines() if ln[:1].isdigit())
        sizes = {
            name: len((root / "memories" / "alice.md").read_text(encoding="utf-8"))
            for name, root in (("marked", marked), ("plain", plain))
        }
        times: dict[str, list[float]] = {"marked": [], "plain": []}
        cpus: dict[str, list[float]] = {"marked": [], "plain": []}
        for _ in range(runs):
            for name, root in (("marked", marked), ("plain", plain)):
                wall, cpu = _once(root)
                times[name].append(wall)
                cpus[name].append(cpu)
        inner = _in_process(marked, plain, runs * 10)
    print(
        f"memory: {entries} entries, {sizes['plain']:,} characters without records, "
        f"{sizes['marked']:,} with a record on every entry; {runs} alternating runs each"
    )
    for name in ("plain", "marked"):
        values = times[name]
        print(
            f"context chat, {name:6s}  median {statistics.median(values):7.1f} ms  "
            f"min {min(values):7.1f}  max {max(values):7.1f}  "
            f"cpu median {statistics.median(cpus[name]):7.1f} ms"
        )
    for name in ("plain", "marked"):
        values = inner[name]
        print(
            f"read+parse+render+log, in process, {name:6s}  median "
            f"{statistics.median(values):6.2f} ms  min {min(values):6.2f}  max {max(values):6.2f}"
        )
    ratio = statistics.median(times["marked"]) / statistics.median(times["plain"])
    verdict = "OK" if ratio <= 1.1 else "OVER"
    print(f"with records / without (median wall): {ratio:.2f}x (target ≤ 1.1x): {verdict}")
    cpu = statistics.median(cpus["marked"]) / statistics.median(cpus["plain"])
    print(f"with records / without (median cpu): {cpu:.2f}x")
    best = min(inner["marked"]) - min(inner["plain"])
    print(f"the part that differs, in process (best of each): {best:+.2f} ms")


if __name__ == "__main__":
    main()
