"""Test isolation that fails loudly: no real home, no real git config, no API key. Fixtures
only: the helpers the test modules share live in tests/helpers/."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner


def _isolate(monkeypatch: pytest.MonkeyPatch, home: Path, scratch: Path) -> None:
    """The environment every test runs in: ``home`` as HOME, Alice's git identity, ``scratch``
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


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    _isolate(monkeypatch, home, tmp_path_factory.mktemp("tmp"))
    return home


@pytest.fixture(scope="session")
def memrepo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``agentmem init`` once per test process, in the same isolated environment as a test."""
    from agentmem.store.init import init_repository

    template = tmp_path_factory.mktemp("memrepo-template") / "mem"
    with pytest.MonkeyPatch.context() as monkeypatch:
        _isolate(monkeypatch, template.parent, tmp_path_factory.mktemp("tmp"))
        init_repository(template)
    return template


@pytest.fixture
def memrepo(memrepo_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh memory repository; alice (alice@example.com) is its admin; cwd is its root.

    Each test gets its own copy of one repository initialised per test process, so tests stay
    independent without paying for ``agentmem init`` each time.
    """
    root = tmp_path / "mem"
    shutil.copytree(memrepo_template, root, symlinks=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()
