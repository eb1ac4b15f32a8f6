"""Benchmark: the hot path against a standard-library-only script doing the same job
(``floor_hook.py``). Targets: ``hook session-start``, ``context chat`` and ``hook session-end``
each ≤ 1.5× their floor; Claude Code gives SessionEnd 1.5 s in all.

Not a test. Run from the repository root (about a minute; under 3 on a loaded 2-core machine)::

    PYTHONPATH=src python benchmarks/bench_hook.py [RUNS]

Builds a fresh memory repository whose person has 12 accepted entries (through ``remember`` and
``review``), then runs each hot command and its floor alternately RUNS times (default 15) in
fresh processes, with byte-code caching on, piping the real payloads of ``tests/data/hooks/``,
and prints each median, min–max, CPU time and the ratio to its floor's median; ``python -c
pass`` is the interpreter's own start. ``agentmem`` is also run through the installed console
script when it is found next to the interpreter.

A start where nothing changed finds its parses and verdicts in the hot path's cache
(``.agentmem/hotcache.json``, docs/design/code.md §Hot path); the rows "cache cleared" delete
it first (the same interpreter, then the same entry point): what the first start after a
change of every input costs (PyYAML, the guard and the history judge all load). Before timing,
the floor's
stdout is checked to be the very bytes agentmem prints (the floor does the same job).
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sidebyside import ENV, Case, alternate, load_note, table  # noqa: E402

HERE = Path(__file__).resolve().parent
HOOKS = HERE.parent / "tests" / "data" / "hooks"
FLOOR = str(HERE / "floor_hook.py")
#: The hot command with the hot path's cache deleted first (same interpreter, same entry point).
COLD = (
    "import os\n"
    "try:\n"
    "    os.unlink('.agentmem/hotcache.json')\n"
    "except FileNotFoundError:\n"
    "    pass\n"
    "from agentmem.entry import main\n"
    "main()\n"
)
ENTRIES = (
    "Answer in French.",
    "Cite the clause number when quoting a contract.",
    "Prefer tables for comparisons of more than three items.",
    "Write dates as YYYY-MM-DD.",
    "Keep summaries under 150 words.",
    "Flag any penalty clause above 10 percent.",
    "Use British spelling in client letters.",
    "Name the governing law first in a contract review.",
    "Put open questions at the end, numbered.",
    "Never round amounts in a financial summary.",
    "Quote the source document's title in italics.",
    "List the parties before the obligations.",
)


def _payload(name: str, cwd: Path) -> str:
    first = json.loads((HOOKS / f"{name}.json").read_text(encoding="utf-8"))[0]
    return json.dumps({**first, "cwd": str(cwd)})


def _repository(tmp: Path) -> Path:
    root = tmp / "mem"
    root.mkdir()
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "bench@example.com"],
        ["config", "user.name", "Bench"],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True)
    py = [sys.executable, "-m", "agentmem"]
    subprocess.run([*py, "init", str(root)], check=True, capture_output=True, env=ENV)
    for text in ENTRIES:
        subprocess.run([*py, "remember", text], cwd=root, check=True, capture_output=True, env=ENV)
    subprocess.run(
        [*py, "review", "--accept", "all"], cwd=root, check=True, capture_output=True, env=ENV
    )
    return root


def _same_output(root: Path, am: list[str], start: str) -> str:
    """``yes`` when each floor prints what its command prints, else what differs."""
    pairs = (
        ("start", [*am, "hook", "session-start"], [sys.executable, FLOOR, "start"], start),
        ("chat", [*am, "context", "chat"], [sys.executable, FLOOR, "chat"], ""),
    )
    differ = []
    for name, command, floor, stdin in pairs:
        outs = [
            subprocess.run(argv, cwd=root, input=stdin, capture_output=True, text=True, env=ENV)
            for argv in (command, floor)
        ]
        if outs[0].stdout != outs[1].stdout or not outs[0].stdout:
            differ.append(name)
    return "yes" if not differ else f"NO ({', '.join(differ)})"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    py = sys.executable
    script = Path(sysconfig.get_path("scripts")) / "agentmem"
    with tempfile.TemporaryDirectory() as tmp:
        root = _repository(Path(tmp))
        start = _payload("macos_session_start", root)
        end = _payload("macos_session_end", root)
        compact = _payload("macos_pre_compact", root)
        am = [py, "-m", "agentmem"]
        same = _same_output(root, am, start)
        cases = [
            Case("python -c pass", [py, "-c", "pass"], root),
            Case("floor: start", [py, FLOOR, "start"], root, start),
            Case("agentmem hook session-start", [*am, "hook", "session-start"], root, start, "floor: start"),
            Case("floor: chat", [py, FLOOR, "chat"], root),
            Case("agentmem context chat", [*am, "context", "chat"], root, floor="floor: chat"),
            Case("session-start, cache cleared", [py, "-c", COLD, "hook", "session-start"], root, start, "floor: start"),
            Case("context chat, cache cleared", [py, "-c", COLD, "context", "chat"], root, floor="floor: chat"),
            Case("floor: end", [py, FLOOR, "end"], root, end),
            Case("agentmem hook session-end", [*am, "hook", "session-end"], root, end, "floor: end"),
            Case("agentmem hook pre-compact", [*am, "hook", "pre-compact"], root, compact, "floor: end"),
        ]  # fmt: skip
        if script.is_file():
            cases.append(
                Case(
                    "agentmem (console script) hook session-start",
                    [str(script), "hook", "session-start"],
                    root,
                    start,
                    "floor: start",
                )
            )
        alternate(cases, runs)
        queued = (root / ".agentmem" / "queue.jsonl").read_text(encoding="utf-8").count("\n")
    targets = {
        "agentmem hook session-start": 1.5,
        "agentmem context chat": 1.5,
        "agentmem hook session-end": 1.5,
    }
    print(f"{runs} alternating runs each, fresh processes; {queued} lines queued")
    print(f"the floors print the very bytes agentmem prints: {same}")
    print(load_note())
    print("\n".join(table(cases, targets)))


if __name__ == "__main__":
    main()
