"""Benchmark: `agentmem context chat` on a large repository (target: ≤ 1.5× the baseline).

Not a test. Run from the repository root::

    python benchmarks/bench_context.py [RUNS]

Builds, in a temporary folder, a memory repository with 2,000 doctrine rules (doctrine/*.yaml)
and 500 memory files (the actor's filled to about 7,000 of 8,000 characters), then prints the
median (and best) wall time over RUNS runs (default 15) of:

- the baseline ``python -c "import typer, rich.console, yaml"``;
- ``python -m agentmem context chat`` (the hot path: no doctrine read, no typer parsing);
- ``python -m agentmem hook session-start`` with a real SessionStart payload on stdin;
- for comparison, ``context audit --scope contracts/supply`` (reads all 2,000 rules) and
  ``memory show`` (through typer's parser).

Every command runs in a fresh interpreter, as a hook or a prompt would run it.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RULES = 2000
PEOPLE = 500
SECTIONS = ["Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies"]
SESSION_START = (
    Path(__file__).resolve().parents[1] / "tests" / "data" / "hooks" / "macos_session_start.json"
)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _rule(i: int) -> str:
    scope = ["contracts", "contracts/supply", "contracts/lease", "hr/policies", "it/security"][
        i % 5
    ]
    status = ["active", "active", "draft", "suspended", "archived"][i % 5 if i % 7 else 0]
    approval = (
        f"approval:\n  by: bob\n  at: 2026-11-30T08:00:00Z\n  version: 1\n  content_sha256: {'a' * 64}\n"
        if status in ("active", "suspended")
        else "approval: null\n"
    )
    return (
        f"id: rule-{i:04d}\ntitle: Rule number {i} of the team\nstatus: {status}\nscope: {scope}\n"
        f"instruction: Apply clause {i} as the team settled it in {scope}.\nlimits:\n"
        f"  - Not when the counterparty is a public body ({i}).\njustification: Settled in audit {i}.\n"
        "version: 1\nproposed_by: alice\nproposed_at: 2026-11-29T10:02:00Z\norigin_session: null\n"
        f"distinct_from: []\n{approval}review_due: 2099-01-01\n"
    )


def _memory(person: str, target_chars: int) -> str:
    lines = [f"# Memory: {person}\n"]
    size, n = len(lines[0]), 0
    per_section: dict[str, list[str]] = {s: [] for s in SECTIONS}
    while size < target_chars - 200:
        entry = f"- Preference {n}: keep comments short and cite clause {n} before suggesting a change.\n"
        per_section[SECTIONS[n % 4]].append(entry)
        size += len(entry)
        n += 1
    for section in SECTIONS:
        lines.append(f"\n## {section}\n")
        lines.extend(per_section[section])
    return "".join(lines)


def build(root: Path) -> None:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "alice@example.com")
    _git(root, "config", "user.name", "Alice")
    subprocess.run(
        [sys.executable, "-m", "agentmem", "init", str(root)], check=True, capture_output=True
    )
    roles = "alice:\n  email: alice@example.com\n  role: admin\nbob:\n  email: bob@example.com\n  role: admin\n"
    roles += "".join(
        f"p{i:03d}:\n  email: p{i:03d}@example.com\n  role: member\n" for i in range(PEOPLE - 1)
    )
    (root / "roles.yaml").write_text(roles, encoding="utf-8")
    for i in range(RULES):
        (root / "doctrine" / f"rule-{i:04d}.yaml").write_text(_rule(i), encoding="utf-8")
    (root / "memories" / "alice.md").write_text(_memory("alice", 7000), encoding="utf-8")
    for i in range(PEOPLE - 1):
        (root / "memories" / f"p{i:03d}.md").write_text(
            _memory(f"p{i:03d}", 2000), encoding="utf-8"
        )
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench data")


#: Byte-code caching on, as on a person's machine (this sandbox sets PYTHONDONTWRITEBYTECODE,
#: which would make every run recompile agentmem's modules).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(
    cmd: list[str], cwd: Path, runs: int, stdin: str | None = None
) -> tuple[float, float, float]:
    """Median wall, best wall and median CPU (user + system) milliseconds, after a warm-up run."""
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, input=stdin, text=True, env=ENV)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            cmd, cwd=cwd, check=True, capture_output=True, input=stdin, text=True, env=ENV
        )
        wall.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return statistics.median(wall), min(wall), statistics.median(cpu)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    py = sys.executable
    payload = json.dumps(json.loads(SESSION_START.read_text(encoding="utf-8"))[0])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        build(root)
        check = subprocess.run(
            [py, "-m", "agentmem", "context", "chat"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
        assert "Preference 0" in check.stdout and "rule-" not in check.stdout
        rows = [
            (
                "python -c 'import typer, rich.console, yaml'",
                _time([py, "-c", "import typer, rich.console, yaml"], root, runs),
            ),
            ("agentmem context chat", _time([py, "-m", "agentmem", "context", "chat"], root, runs)),
            (
                "agentmem hook session-start (real payload)",
                _time([py, "-m", "agentmem", "hook", "session-start"], root, runs, payload),
            ),
            (
                "agentmem memory show (typer's parser)",
                _time([py, "-m", "agentmem", "memory", "show"], root, runs),
            ),
            (
                "agentmem context audit --scope contracts/supply",
                _time(
                    [py, "-m", "agentmem", "context", "audit", "--scope", "contracts/supply"],
                    root,
                    max(3, runs // 3),
                ),
            ),
        ]
    base, base_cpu = rows[0][1][0], rows[0][1][2]
    print(f"repository: {RULES} rules, {PEOPLE} memory files; {runs} runs, fresh interpreter each")
    for name, (median, best, cpu) in rows:
        print(
            f"{name:50s} wall median {median:7.1f} ms  best {best:7.1f}  ({median / base:.2f}x)"
            f"  cpu median {cpu:7.1f} ms ({cpu / base_cpu:.2f}x)"
        )
    ratio = rows[1][1][0] / base
    print(
        f"context chat / baseline (wall): {ratio:.2f}x (target ≤ 1.5x): {'OK' if ratio <= 1.5 else 'OVER'}"
    )


if __name__ == "__main__":
    main()
