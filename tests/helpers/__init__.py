"""Helpers shared by the test modules (no tests, no fixtures here: fixtures live in
tests/conftest.py). Import them as ``from tests.helpers import git, invoke``; the submodules
hold the helpers of one area (``team``: rule files, people and plain-git commits; ``history``:
``check --history`` in JSON and merges; ``context``: memory and doctrine for context blocks;
``guard_cases``: the guard corpus with its generated secrets)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from agentmem.cli.tree import build_app, command_named, subcommand_named

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = REPO_ROOT / "tests" / "data"
CORPUS = DATA / "corpus"  # real sessions, hook payloads and exports: see its SOURCES.md


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` and return its stdout (tests only)."""
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def set_identity(root: Path, name: str, email: str) -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", email)


def invoke(runner: CliRunner, *args: str, input: str | None = None) -> Result:  # noqa: A002
    """Run the CLI in-process; stdout and stderr are separate (typer ≥ 0.26).

    The tree is the one the console script builds for the same line
    (:func:`agentmem.cli.tree.main`): the one command the line names, the whole tree for
    ``--help``, a typo or completion. Handing typer the whole tree made it turn every
    parameter of every command into click's for each call, most of a short test's time;
    ``tests/cli/test_params.py`` checks that one command's tree answers as the whole tree."""
    argv = list(args)
    only = None if "_AGENTMEM_COMPLETE" in os.environ else command_named(argv)
    return runner.invoke(build_app(only, subcommand_named(argv)), argv, input=input)


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path, scratch: Path) -> None:
    """The environment every test runs in (``tests/conftest.py`` sets it for each test; a
    fixture that builds a repository once for a module sets it too): ``home`` as HOME, Alice's git identity, ``scratch``
    as TMPDIR, no colour, and none of the person's agentmem, Anthropic or git settings."""
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Alice Martin\n\temail = alice@example.com\n[init]\n\tdefaultBranch = main\n"
        "[commit]\n\tgpgsign = false\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # Temporary files (a refused `memory edit` keeps the person's text in one) stay in the
    # test's own folder, not in the machine's /tmp.
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "dumb")
    for name in list(os.environ):
        if name.startswith(
            ("ANTHROPIC_", "AGENTMEM_", "GIT_AUTHOR", "GIT_COMMITTER", "VISUAL", "EDITOR")
        ):
            monkeypatch.delenv(name, raising=False)


HOOKS = DATA / "hooks"


def payloads(name: str) -> list[dict]:
    """The real Claude Code payloads of ``tests/data/hooks/<name>.json``, without the logging template's ``logged_at``."""
    items = json.loads((HOOKS / f"{name}.json").read_text(encoding="utf-8"))
    return [{k: v for k, v in item.items() if k != "logged_at"} for item in items]
