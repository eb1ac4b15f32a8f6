"""One mapping from an exception to an exit code and its words (``errors.failure``), used by
both entry points: the hot path (``agentmem.entry``) and the typer group (``agentmem.cli``)."""

from __future__ import annotations

import errno
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

from agentmem import entry
from agentmem.cli import build_app
from agentmem.errors import ConfigError, UsageError, failure

DISK_FULL = OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize(
    ("exc", "code", "words"),
    [
        (ConfigError("agentmem.yaml: bad", hint="fix it"), 1, "agentmem.yaml: bad\n  hint: fix it"),
        (UsageError("--edit needs ID=TEXT"), 2, "--edit needs ID=TEXT"),
        (KeyboardInterrupt(), 130, "interrupted"),
        (EOFError(), 2, "end of input before every question was answered"),
        (DISK_FULL, 1, "the disk refused a write: No space left on device (ENOSPC)"),
        (ValueError("boom"), 3, "unexpected error (ValueError: boom); rerun with AGENTMEM_DEBUG=1"),
        (BrokenPipeError(), 0, ""),
    ],
)
def test_each_failure_has_one_exit_code_and_words(
    exc: BaseException, code: int, words: str
) -> None:
    mapped = failure(exc)
    assert mapped is not None
    assert mapped[0] == code and mapped[1].startswith(words)


def test_debug_lets_the_unexpected_error_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTMEM_DEBUG", "1")
    assert failure(ValueError("boom")) is None
    assert failure(ConfigError("x")) == (1, "x")  # an expected failure is never a traceback


def _raising(exc: BaseException) -> Callable[[], None]:
    def run() -> None:
        raise exc

    return run


@pytest.mark.parametrize("exc", [DISK_FULL, ValueError("boom"), ConfigError("bad", hint="h")])
def test_the_hot_path_and_the_cli_give_the_same_code_and_words(
    exc: BaseException, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(entry, "plan", lambda argv: _raising(exc))
    hot_code = entry.run(["hook", "session-start"])
    hot_err = capsys.readouterr().err

    app = build_app()
    app.command("probe")(_raising(exc))
    result = CliRunner().invoke(app, ["probe"])
    expected = failure(exc)
    assert expected is not None
    assert hot_code == result.exit_code == expected[0]
    assert hot_err == f"error: {expected[1]}\n"
    assert f"error: {expected[1]}" in result.stderr
