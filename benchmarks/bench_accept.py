"""Benchmark: what one accepted proposal costs, in git processes and time, as the repository grows.

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_accept.py [--files 11000] [--runs 5]

Builds two memory repositories in a temporary folder: one with 10 other files, one with
``--files`` other files (committed with plain git), each with the same 6 pending proposals
(``agentmem remember``). Then, alternating, it times ``agentmem review --accept all`` (a fresh
process) in each, putting the repository back (``git reset --hard``) between runs, and counts
the git processes the accepts start (a ``git`` first on ``PATH`` that logs each call).
Targets (docs/design/write-path.md §Write path): at most 4 git processes per accepted proposal, and the 6
accepts in the large repository within 1.5× the small one. Prints medians (min–max).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEXTS = [
    "Keep answers short.",
    "Use British English.",
    "List the clauses first.",
    "Prefer tables for figures.",
    "Sign off with the initials.",
    "Quote the article number.",
]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _agentmem(root: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(
        [sys.executable, "-m", "agentmem", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={**os.environ, **(env or {})},
    )


def _build(root: Path, files: int) -> str:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "alice@example.com")
    _git(root, "config", "user.name", "Alice")
    _agentmem(root, "init", ".")
    other = root / "other"
    for n in range(files):
        folder = other / f"{n // 500:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{n}.txt").write_text(f"file {n}\n", encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "other files")
    for text in TEXTS:
        _agentmem(root, "remember", text)
    return _git(root, "rev-parse", "HEAD").strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=11_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="agentmem-bench-accept-"))
    try:
        shim = tmp / "shim"
        shim.mkdir()
        log = tmp / "git.log"
        real = shutil.which("git")
        (shim / "git").write_text(f'#!/bin/sh\necho "$3" >> {log}\nexec {real} "$@"\n')
        (shim / "git").chmod(0o755)
        env = {"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}
        repos = {"small": tmp / "small", "large": tmp / "large"}
        print(f"building: 10 and {args.files:,} other files, 6 pending proposals each")
        bases = {"small": _build(repos["small"], 10), "large": _build(repos["large"], args.files)}
        times: dict[str, list[float]] = {"small": [], "large": []}
        calls: dict[str, int] = {}
        for _ in range(args.runs):
            for name, root in repos.items():
                _git(root, "reset", "-q", "--hard", bases[name])
                log.write_text("")
                start = time.perf_counter()
                _agentmem(root, "review", "--accept", "all", env=env)
                times[name].append(time.perf_counter() - start)
                calls[name] = len(log.read_text().split())
        for name in repos:
            t = times[name]
            print(
                f"{name:5}: 6 accepts {statistics.median(t):.3f} s ({min(t):.3f}–{max(t):.3f}); "
                f"{calls[name]} git processes in all ({calls[name] / 6:.1f} per proposal, "
                "with the command's own start-up calls)"
            )
        ratio = statistics.median(times["large"]) / statistics.median(times["small"])
        print(f"large / small: {ratio:.2f}x (target <= 1.5x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
