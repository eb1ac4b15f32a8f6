"""Test isolation that fails loudly: no real home, no real git config, no API key."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmem.cli import app

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
CORPUS = REPO_ROOT.parent / "shared" / "corpus"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
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
    scratch = tmp_path_factory.mktemp("tmp")
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
    return home


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` and return its stdout (tests only)."""
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def set_identity(root: Path, name: str, email: str) -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", email)


@pytest.fixture
def memrepo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh memory repository; alice (alice@example.com) is its admin; cwd is its root."""
    from agentmem.store.repo import init_repository

    root = tmp_path / "mem"
    init_repository(root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str, input: str | None = None):  # noqa: A002
    """Run the CLI in-process; stdout and stderr are separate (typer ≥ 0.26)."""
    return runner.invoke(app, list(args), input=input)
