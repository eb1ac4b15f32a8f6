"""Domain warnings (``agentmem.notices``): to the CLI's ``warning: …`` line when the CLI runs,
to the ``logging`` logger ``agentmem`` for an application embedding agentmem; a command that
gives none does not load ``logging``."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from agentmem import notices


def test_a_warning_goes_to_the_installed_sink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notices, "_SINK", [])
    given: list[str] = []
    notices.send_to(given.append)
    notices.warn("100% of [it]", "agentmem.delivery.mcp_server")
    assert given == ["100% of [it]"]


def test_without_a_sink_a_warning_is_logged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notices, "_SINK", [])
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("agentmem.delivery.mcp_server")
    logger.addHandler(handler)
    try:
        notices.warn("100% of it", "agentmem.delivery.mcp_server")
    finally:
        logger.removeHandler(handler)
    assert [(r.name, r.levelno, r.getMessage()) for r in records] == [
        ("agentmem.delivery.mcp_server", logging.WARNING, "100% of it")
    ]


def test_the_cli_prints_a_warning_as_a_warning_line(capsys: pytest.CaptureFixture[str]) -> None:
    import agentmem.cli  # noqa: F401  (installs its sink)

    notices.warn("a [bold]note[/] \x1b[2J")
    assert capsys.readouterr().err == "warning: a [bold]note[/] \\x1b[2J\n"


def test_reading_commands_do_not_load_logging(memrepo: Path) -> None:
    code = (
        "import sys\n"
        "from agentmem import cli\n"
        "for argv in (['memory', 'show'], ['doctrine', 'list'], ['usage'], ['log']):\n"
        "    try:\n"
        "        cli.build_app(cli.command_named(argv), cli.subcommand_named(argv))(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('logging' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=memrepo, capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip().splitlines()[-1] == "False"
