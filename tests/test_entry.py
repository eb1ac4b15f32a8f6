"""The console script's hot path (``entry.plan``): only exact hot command lines skip typer, and their usage errors and help still come from typer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("argv", "fast"),
    [
        (["context", "chat"], True),
        (["context", "chat", "--person", "bob", "--format", "json"], True),
        (["context", "chat", "-p", "bob", "-f", "markdown"], True),
        (["context", "chat", "--format=json"], True),
        (["--repo", "/x", "hook", "session-end"], True),
        (["--repo=/x", "hook", "pre-compact"], True),
        (["hook", "session-start"], True),
        (["context", "chat", "--help"], False),
        (["context", "chat", "--person"], False),
        (["context", "chat", "--format", "yaml"], False),
        (["context", "chat", "--verbose"], False),
        (["context", "audit", "--scope", "x"], False),
        (["hook", "session-end", "--help"], False),
        (["hook", "stop"], False),
        (["--repo"], False),
        (["memory", "show"], False),
        ([], False),
    ],
)
def test_the_fast_path_takes_only_exact_hot_command_lines(
    argv: list[str], fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.entry import plan

    monkeypatch.delenv("AGENTMEM_REPO", raising=False)
    assert (plan(argv) is not None) is fast
    if not fast:
        assert "AGENTMEM_REPO" not in os.environ  # nothing changed before typer parses it


@pytest.mark.slow
def test_usage_errors_of_hot_commands_still_come_from_typer(memrepo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", "context", "chat", "--format", "yaml"],
        cwd=memrepo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert (
        "Invalid value for '--format'" in proc.stderr
        and "expected one of text, markdown, json (the value typed is not shown)" in proc.stderr
    )
    helped = subprocess.run(
        [sys.executable, "-m", "agentmem", "hook", "session-end", "--help"],
        cwd=memrepo,
        capture_output=True,
        text=True,
    )
    assert helped.returncode == 0 and "SessionEnd: queue the session" in helped.stdout


def test_a_hot_line_ends_with_the_collector_off_and_any_other_line_gets_it_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The collector's pass at exit is skipped for a hot command; typer's commands run with it
    on, as they found it (docs/design/code.md §Hot path)."""
    import gc

    import agentmem.cli
    from agentmem import entry

    seen: list[tuple[bool, str | None]] = []

    def note() -> None:
        seen.append((gc.isenabled(), os.environ.get("GIT_TERMINAL_PROMPT")))

    monkeypatch.setattr(agentmem.cli, "main", note)
    monkeypatch.setattr(sys, "argv", ["agentmem", "memory", "show"])
    monkeypatch.setattr(entry, "run", lambda argv: note())
    assert gc.isenabled()
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "")  # restored after the test, whatever main sets
    monkeypatch.delenv("GIT_TERMINAL_PROMPT")
    entry.main()
    # the hot path's git inherits GIT_TERMINAL_PROMPT=0 (store/gitrun.py); typer's line runs
    # in the environment it was given
    assert seen == [(False, "0"), (True, None)] and gc.isenabled()
    monkeypatch.setattr(entry, "run", lambda argv: 0)
    try:
        with pytest.raises(SystemExit) as stopped:
            entry.main()
        assert stopped.value.code == 0 and not gc.isenabled()
        assert os.environ["GIT_TERMINAL_PROMPT"] == "0"
    finally:
        gc.enable()
