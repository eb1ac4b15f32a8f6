"""Where the judge's walk starts, and whether an earlier ``agentmem.yaml`` was stricter
(``check/history/start.py``, docs/design/served.md §Served view)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers import git

from agentmem.check.history import start
from agentmem.store import gitrun

REQUIRED = "signing:\n  decisions: required\n"


def _relaxed(root: Path) -> tuple[bytes, bytes]:
    """``signing.decisions: required`` committed, then dropped: (strict text, lenient text)."""
    config = root / "agentmem.yaml"
    lenient = config.read_bytes()
    config.write_text(lenient.decode("utf-8") + REQUIRED, encoding="utf-8")
    git(root, "commit", "-qam", "settings: decisions are signed")
    strict = config.read_bytes()
    config.write_bytes(lenient)
    git(root, "commit", "-qam", "settings: no more signatures")
    return strict, lenient


def _processes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    run = gitrun.run

    def counted(*args: object, **kwargs: object) -> object:
        seen.append(str(args[1][0]))  # type: ignore[index]
        return run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrun, "run", counted)
    return seen


def test_a_version_already_read_is_not_read_again(
    memrepo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    strict, lenient = _relaxed(memrepo)
    names = ["signing.decisions", "doctrine.require_signed"]
    assert start.stricter(memrepo, ["HEAD"], names) == ["signing.decisions"]
    seen = _processes(monkeypatch)
    assert start.stricter(memrepo, ["HEAD"], names, [lenient, strict]) == ["signing.decisions"]
    assert seen == ["log"]  # every version known: no cat-file
    seen.clear()
    assert start.stricter(memrepo, ["HEAD"], names, [lenient]) == ["signing.decisions"]
    assert seen == ["log", "cat-file"]  # the strict version read from git


def test_a_known_text_that_is_no_version_changes_nothing(memrepo: Path) -> None:
    """What is known only spares reading a version whose blob id it hashes to: a text that
    is none of them is not taken for the strict version it is not."""
    _strict, lenient = _relaxed(memrepo)
    other = lenient + b"# not a version\n"
    assert start.stricter(memrepo, ["HEAD"], ["signing.decisions"], [other, lenient]) == [
        "signing.decisions"
    ]
    git(memrepo, "commit", "-q", "--allow-empty", "-m", "nothing")
    assert start.stricter(memrepo, ["HEAD~3"], ["signing.decisions"], [lenient]) == []
