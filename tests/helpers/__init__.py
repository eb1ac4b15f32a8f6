"""Helpers shared by the test modules (no tests, no fixtures here: fixtures live in
tests/conftest.py). Import them as ``from tests.helpers import git, invoke``; the submodules
hold the helpers of one area (``team``: rule files, people and plain-git commits; ``history``:
``check --history`` in JSON and merges; ``context``: memory and doctrine for context blocks;
``guard_cases``: the guard corpus with its generated secrets)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from agentmem.cli import app

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
    """Run the CLI in-process; stdout and stderr are separate (typer ≥ 0.26)."""
    return runner.invoke(app, list(args), input=input)
