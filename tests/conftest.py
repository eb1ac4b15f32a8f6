"""Test isolation that fails loudly: no real home, no real git config, no API key. Fixtures
only: the helpers the test modules share live in tests/helpers/."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.helpers import isolate
from typer.testing import CliRunner

# Machines that set PYTHONDONTWRITEBYTECODE=1 (this project's CI does) make every test process,
# and every `python -m agentmem` a test starts, compile agentmem's source and rewrite the test
# modules again. Byte code is a cache Python checks against its source: writing it changes no
# result, and the default run costs about a third less.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    isolate(monkeypatch, home, tmp_path_factory.mktemp("tmp"))
    return home


@pytest.fixture(scope="session")
def memrepo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``agentmem init`` once per test process, in the same isolated environment as a test."""
    from agentmem.store.init import init_repository

    template = tmp_path_factory.mktemp("memrepo-template") / "mem"
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, template.parent, tmp_path_factory.mktemp("tmp"))
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


@pytest.fixture(scope="session")
def history_team_template(memrepo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`tests.helpers.history.setup_team` once per test process, on a copy of
    :func:`memrepo_template`, in the same isolated environment as a test."""
    from tests.helpers.history import setup_team

    template = tmp_path_factory.mktemp("team-template") / "mem"
    shutil.copytree(memrepo_template, template, symlinks=True)
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, template.parent, tmp_path_factory.mktemp("tmp"))
        setup_team(template)
    return template


@pytest.fixture
def history_team(
    history_team_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """``memrepo`` after :func:`tests.helpers.history.setup_team` (alice and carol admins, bob
    member, dave user; bob's draft 'warranty' committed): a copy of its own of the team built
    once per test process (its plain-git commits are the same for every test), cwd its root."""
    root = tmp_path / "mem"
    shutil.copytree(history_team_template, root, symlinks=True)
    monkeypatch.chdir(root)
    return root


def _built_once(
    base: Path, name: str, factory: pytest.TempPathFactory, build: Callable[[Path], None]
) -> Path:
    """A copy of ``base`` on which ``build(root)`` ran once, cwd its root, in the same isolated
    environment as a test: the template a per-test fixture copies."""
    template = factory.mktemp(name) / "mem"
    shutil.copytree(base, template, symlinks=True)
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, template.parent, factory.mktemp("tmp"))
        monkeypatch.chdir(template)
        build(template)
    return template


def _become(memrepo: Path, template: Path) -> Path:
    """``memrepo`` (the test's own repository, cwd) replaced by a copy of ``template``."""
    os.chdir(memrepo.parent)  # the memrepo fixture's monkeypatch restores the cwd after the test
    shutil.rmtree(memrepo)
    shutil.copytree(template, memrepo, symlinks=True)
    os.chdir(memrepo)
    return memrepo


@pytest.fixture(scope="session")
def remembered_template(memrepo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alice's ``MEMORY_ENTRIES`` remembered and accepted through the CLI
    (:func:`tests.helpers.context.write_memory`), once per test process."""
    from tests.helpers.context import write_memory

    return _built_once(
        memrepo_template,
        "remembered-template",
        tmp_path_factory,
        lambda root: write_memory(root, CliRunner()),
    )


@pytest.fixture(scope="session")
def remembered_and_rules_template(
    remembered_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """:func:`remembered_template` and the doctrine ``RULES`` committed as decisions
    (:func:`tests.helpers.context.write_rules`), once per test process."""
    from tests.helpers.context import write_rules

    return _built_once(remembered_template, "both-template", tmp_path_factory, write_rules)


@pytest.fixture
def remembered(memrepo: Path, remembered_template: Path) -> Path:
    """``memrepo`` once ``write_memory(memrepo, runner)`` ran: a copy of its own of
    :func:`remembered_template` (the same commands, run once per test process)."""
    return _become(memrepo, remembered_template)


@pytest.fixture
def remembered_and_rules(memrepo: Path, remembered_and_rules_template: Path) -> Path:
    """``memrepo`` once ``write_memory`` and ``write_rules`` ran: a copy of its own of
    :func:`remembered_and_rules_template`."""
    return _become(memrepo, remembered_and_rules_template)


@pytest.fixture
def anyio_backend() -> str:
    """Every ``pytest.mark.anyio`` test runs on asyncio, the loop the MCP SDK's stdio server and
    ``agentmem mcp`` use. Without this, anyio's plugin also runs each on trio whenever trio is
    importable (CI's interpreter has it), where the SDK's in-memory client is not supported."""
    return "asyncio"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def signed_team(memrepo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """``memrepo`` where alice (admin) has an SSH signing key roles.yaml lists, bob is a member
    and ``signing.decisions: required`` holds, committed unsigned; her git does not sign yet
    (``tests.helpers.team.use_key``). Returns the repository and her private key. Needs
    ``ssh-keygen``."""
    from tests.helpers.team import alice_signs

    return memrepo, alice_signs(memrepo, tmp_path)
