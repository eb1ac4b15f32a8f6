"""Starting git (``store/gitrun.run``): prompts are off in every git process, whether git is
given a copy of the environment or inherits the one the console script set."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.store import gitrun


def _git_env(root: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a git process started by ``gitrun.run`` sees (a shell alias prints it)."""
    proc = gitrun.run(root, ["-c", "alias.shown=!env", "shown"], None, env, text=True)
    assert proc.returncode == 0, proc.stderr
    return dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)


def test_git_never_prompts_with_or_without_a_copy_of_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GIT_TERMINAL_PROMPT", raising=False)
    monkeypatch.setenv("AGENTMEM_PROBE", "copied")
    copied = _git_env(tmp_path)  # not set here: a copy of the environment, prompts off
    assert copied["GIT_TERMINAL_PROMPT"] == "0" and copied["AGENTMEM_PROBE"] == "copied"
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")  # as entry.main sets it: inherited
    monkeypatch.setenv("AGENTMEM_PROBE", "inherited")
    inherited = _git_env(tmp_path)
    assert inherited["GIT_TERMINAL_PROMPT"] == "0" and inherited["AGENTMEM_PROBE"] == "inherited"
    extra = _git_env(tmp_path, {"AGENTMEM_EXTRA": "1"})  # an env of its own: still a copy
    assert extra["AGENTMEM_EXTRA"] == "1" and extra["GIT_TERMINAL_PROMPT"] == "0"
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "1")  # the person's own setting is kept
    assert _git_env(tmp_path)["GIT_TERMINAL_PROMPT"] == "1"
