"""``agentmem serve`` (docs/design/web.md §Web, who may talk to it): it listens on 127.0.0.1
unless ``--host`` names another address, and then it warns who may decide as the clone's
identity; the link it prints carries the token."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import invoke
from typer.testing import CliRunner

from agentmem.web import server


@pytest.fixture
def bound(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The address each ``agentmem serve`` listened on; the server is not run (no Ctrl-C in a
    test) and the process's lock holder keeps its name."""
    seen: list[tuple[str, int]] = []

    def run(sock: socket.socket, app: Any, on_start: Any = None) -> None:
        seen.append(sock.getsockname()[:2])
        sock.close()

    monkeypatch.setattr(server, "run", run)
    monkeypatch.setattr(server, "name_lock_holder", lambda name: None)
    return seen


def test_serve_listens_on_the_loopback_address_and_prints_the_token_link(
    memrepo: Path, runner: CliRunner, bound: list[tuple[str, int]]
) -> None:
    result = invoke(runner, "serve", "--port", "0")
    assert result.exit_code == 0, result.stderr
    assert bound[0][0] == "127.0.0.1"
    assert result.stdout.strip().startswith(f"http://127.0.0.1:{bound[0][1]}/?token=")
    assert "warning" not in result.stderr


def test_another_address_only_with_host_and_a_warning(
    memrepo: Path, runner: CliRunner, bound: list[tuple[str, int]]
) -> None:
    result = invoke(runner, "serve", "--port", "0", "--host", "0.0.0.0")
    assert result.exit_code == 0, result.stderr
    assert bound[0][0] == "0.0.0.0"
    assert (
        "listening on 0.0.0.0, not only on this machine: anyone who can reach it and has the "
        "link decides as alice" in " ".join(result.stderr.split())
    )
