"""Benchmark: typer commands against the floor ``python -c "import typer, rich.console, yaml"``
(targets: every command ≤ 1.3×; ``doctrine list`` at 2,000 rules ≤ 1.5×).

Not a test. Run from the repository root (about a minute; under 3 on a loaded 2-core machine)::

    PYTHONPATH=src python benchmarks/bench_cli.py [RUNS]
    PYTHONPATH=src python benchmarks/bench_cli.py --instructions   # needs valgrind, ~2 min

Builds a fresh memory repository (``agentmem init``, one pending proposal) and one of 2,000 rules
(``gen_large_repo.py``), then runs each command and the floor alternately RUNS times (default 9)
in fresh processes, through ``python -m agentmem`` with byte-code caching on, and prints each
median, min–max and its ratio to the floor's median. ``--instructions`` counts instead the
instructions each one executes (valgrind's callgrind, the Python process only, hash seed fixed,
after one run that writes the byte code): a figure the machine's load does not move. The commands are those whose cost is the
command line's own (reading and listing); commands that decide (review, approve) also run git
commits and are measured by their own benchmarks.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_large_repo import generate  # noqa: E402
from sidebyside import ENV, Case, alternate, load_note, table  # noqa: E402

FLOOR = "import typer, rich.console, yaml"
COMMANDS = (
    ("memory", "show"),
    ("memory", "due"),
    ("inbox",),
    ("log",),
    ("doctrine", "list"),
    ("usage",),
    ("guard", "Answer in French."),
    ("search", "French"),  # --limit at its int default
)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _small(tmp: Path) -> Path:
    root = tmp / "mem"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "bench@example.com")
    _git(root, "config", "user.name", "Bench")
    py = [sys.executable, "-m", "agentmem"]
    subprocess.run([*py, "init", str(root)], check=True, capture_output=True, env=ENV)
    subprocess.run(
        [*py, "remember", "Answer in French."], cwd=root, check=True, capture_output=True, env=ENV
    )
    return root


def _large(tmp: Path) -> Path:
    root = tmp / "big"
    generate(root, rules=2000, memories=20, commits=100)
    _git(root, "config", "user.email", "p0000@team.example")  # an admin of the generated team
    _git(root, "config", "user.name", "P0000")
    return root


def _instructions(case: Case) -> int:
    """Instructions one run of ``case`` executes (callgrind, main process only)."""
    env = {**ENV, "PYTHONHASHSEED": "0"}
    subprocess.run(list(case.argv), cwd=case.cwd, env=env, capture_output=True)  # byte code
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *case.argv],
        cwd=case.cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise SystemExit(f"{case.name}: no instruction count from valgrind\n{proc.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    counting = "--instructions" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--instructions"]
    runs = int(args[0]) if args else 9
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        small, large = _small(Path(tmp)), _large(Path(tmp))
        floor = "floor"
        cases = [Case(floor, [py, "-c", FLOOR], small)]
        cases += [
            Case("agentmem " + " ".join(c), [py, "-m", "agentmem", *c], small, floor=floor)
            for c in COMMANDS
        ]
        big = "agentmem doctrine list (2,000 rules)"
        cases.append(Case(big, [py, "-m", "agentmem", "doctrine", "list"], large, floor=floor))
        if counting:
            counts = {case.name: _instructions(case) for case in cases}
        else:
            alternate(cases, runs)
    targets = {c.name: 1.3 for c in cases[1:]}
    targets[big] = 1.5
    if counting:
        print(f'floor: python -c "{FLOOR}"; instructions of one run each (callgrind)')
        for case in cases:
            ratio = counts[case.name] / counts[floor]
            print(f"{case.name:44s} {counts[case.name] / 1e6:8.1f} M instructions  {ratio:5.2f}×")
        return
    print(f'floor: python -c "{FLOOR}"; {runs} alternating runs each, fresh processes')
    print(load_note())
    print("\n".join(table(cases, targets)))


if __name__ == "__main__":
    main()
