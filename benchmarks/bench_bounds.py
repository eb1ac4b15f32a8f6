"""Benchmark: bounded work (docs/design.md §Write path, *Bounded work*) — what a command costs on
the sizes that used to hang it.

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_bounds.py [--pending 10000] [--only review]

Cases (each in a fresh repository under a temporary folder, each command a fresh process):

- ``review``: ``--pending`` proposals in one person's inbox (written as ``write_to_inbox``
  renders them, committed with ONE plain ``git commit``: building them one harvest at a time
  would take longer than the benchmark), then ``agentmem review --reject all``, and in a copy
  ``agentmem review --accept all`` (the memory fills after a few hundred).

Prints, per case: wall and CPU seconds (the process and its git children), commits made, and
the first lines of stderr. On a shared machine quote the CPU figure and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _run(root: Path, *args: str) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds of one ``agentmem`` process (children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def _repository(root: Path) -> None:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "alice@example.com")
    _git(root, "config", "user.name", "Alice Martin")
    _git(root, "config", "commit.gpgsign", "false")
    _run(root, "init", ".")


def _fill_inbox(root: Path, count: int) -> None:
    from agentmem.proposals.inbox import proposal_relpath, render_proposal
    from agentmem.proposals.model import parse_proposal

    words = ["annexes", "clauses", "prices", "dates", "signatures", "parties", "terms", "fees"]
    for n in range(count):
        proposal = parse_proposal(
            {
                "action": "add",
                "route": "memory",
                "section": "Writing style",
                "target": None,
                "text": f"Check the {words[n % 8]} of batch {n} before item {n * 7 + 3}.",
                "justification": "benchmark",
                "basis": "declared",
            },
            person="alice",
            session=f"bench-{n // 6}",
            source="offline",
            scope=None,
            where="benchmark",
        )
        path = root / proposal_relpath(proposal)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_proposal(proposal), encoding="utf-8")
    _git(root, "add", "inbox")
    _git(root, "commit", "-qm", f"{count} pending proposals")


def _report(name: str, root: Path, wall: float, cpu: float, commits_before: int, err: str) -> None:
    commits = int(_git(root, "rev-list", "--count", "HEAD")) - commits_before
    print(f"{name:<34} {wall:7.1f} s wall {cpu:7.1f} s CPU {commits:6d} commit(s)")
    for line in err.splitlines()[:3]:
        print(f"    {line[:110]}")


def bench_review(base: Path, pending: int) -> None:
    root = base / "review"
    _repository(root)
    _fill_inbox(root, pending)
    copy = base / "review-accept"
    shutil.copytree(root, copy, symlinks=True)
    for name, where, flag in (
        (f"review --reject all ({pending:,})", root, "--reject"),
        (f"review --accept all ({pending:,})", copy, "--accept"),
    ):
        before = int(_git(where, "rev-list", "--count", "HEAD"))
        wall, cpu, proc = _run(where, "review", flag, "all")
        _report(name, where, wall, cpu, before, proc.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--only", choices=["review"], default=None)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPU(s)")
    with tempfile.TemporaryDirectory(prefix="bench-bounds-") as folder:
        base = Path(folder)
        if args.only in (None, "review"):
            bench_review(base, args.pending)


if __name__ == "__main__":
    main()
