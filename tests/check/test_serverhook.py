"""``agentmem install-server-hook`` (docs/design/governance.md §Trust boundary): it writes a bare repository's ``hooks/pre-receive``, which calls the installed agentmem; it refuses a clone and a hook it did not write (unless ``--force``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.helpers import invoke
from tests.helpers.team import served_repository
from typer.testing import CliRunner

from agentmem.check.serverhook import MARKER


@pytest.fixture
def served(memrepo: Path, tmp_path: Path, runner: CliRunner) -> tuple[Path, Path]:
    """``(server.git, alice's clone)``: see ``tests.helpers.team.served_repository``."""
    return served_repository(memrepo, tmp_path, runner)


@pytest.mark.slow
def test_the_hook_calls_the_installed_agentmem(served: tuple[Path, Path]) -> None:
    server, _clone = served
    hook = server / "hooks" / "pre-receive"
    text = hook.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n") and MARKER in text
    assert text.rstrip().endswith("-m agentmem check --pre-receive")
    assert os.access(hook, os.X_OK)


def test_install_refuses_a_clone_and_a_foreign_hook(
    served: tuple[Path, Path], runner: CliRunner, tmp_path: Path
) -> None:
    server, clone = served
    result = invoke(runner, "install-server-hook", str(clone))
    assert result.exit_code == 2
    assert "not a bare repository (it has a work tree)" in result.stderr
    result = invoke(runner, "install-server-hook", str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "no such folder" in result.stderr
    hook = server / "hooks" / "pre-receive"
    assert hook.read_text(encoding="utf-8").rstrip().endswith("-m agentmem check --pre-receive")
    again = invoke(runner, "install-server-hook", str(server))  # ours: replaced quietly
    assert again.exit_code == 0 and "replaced agentmem's earlier hook" in again.stdout
    hook.write_text("#!/bin/sh\nexec /opt/ci/check\n", encoding="utf-8")
    foreign = invoke(runner, "install-server-hook", str(server))
    assert foreign.exit_code == 1, foreign.stderr
    assert "a pre-receive hook is already there, not written by agentmem" in foreign.stderr
    assert "--force" in foreign.stderr
    assert hook.read_text(encoding="utf-8") == "#!/bin/sh\nexec /opt/ci/check\n"
    forced = invoke(runner, "install-server-hook", str(server), "--force")
    assert forced.exit_code == 0 and "(replaced: --force)" in forced.stdout
    assert MARKER in hook.read_text(encoding="utf-8")
