"""``agentmem doctor``: what it finds on real set-ups, and exit 1 only when something is wrong."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity

SETTINGS = {
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup|resume|clear|compact",
                "hooks": [{"type": "command", "command": "agentmem", "args": ["hook", "session-start"]}],
            }
        ],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "agentmem hook session-end"}]}],
        "PreCompact": [{"hooks": [{"type": "command", "command": "agentmem", "args": ["hook", "pre-compact"]}]}],
    }
}  # fmt: skip
MCP = {"mcpServers": {"agentmem": {"type": "stdio", "command": "agentmem", "args": ["mcp"]}}}


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding an ``agentmem`` executable (and git's folder)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "agentmem"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    import shutil

    git_dir = str(Path(shutil.which("git") or "/usr/bin/git").parent)
    monkeypatch.setenv("PATH", os.pathsep.join([str(folder), git_dir]))
    return folder


def _checks(result) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in json.loads(result.stdout)}


def test_a_complete_set_up_is_all_ok(memrepo: Path, runner, on_path: Path):
    (memrepo / ".claude").mkdir()
    (memrepo / ".claude" / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
    (memrepo / ".mcp.json").write_text(json.dumps(MCP), encoding="utf-8")
    (memrepo / "agentmem.yaml").write_text("harvest:\n  provider: offline\n", encoding="utf-8")
    git(memrepo, "commit", "-qam", "offline provider")
    result = invoke(runner, "doctor", "--format", "json")
    assert result.exit_code == 0, result.stdout
    checks = _checks(result)
    assert {name: c["status"] for name, c in checks.items()} == {
        "repository": "ok",
        "identity": "ok",
        "scopes": "ok",
        "command": "ok",
        "hooks": "ok",
        "mcp": "ok",
        "provider": "ok",
        "queue": "ok",
    }
    assert checks["identity"]["message"] == "you are alice (admin) in roles.yaml"


def test_missing_hooks_and_mcp_are_warnings_with_a_fix(memrepo: Path, runner, on_path: Path):
    result = invoke(runner, "doctor")
    assert result.exit_code == 0
    assert "warn  hooks: Claude Code hooks missing for SessionStart, SessionEnd, PreCompact" in (
        result.stdout
    )
    assert "fix: claude mcp add agentmem -- agentmem mcp" in result.stdout
    assert "thing(s) to look at" in result.stderr


def test_problems_fail_with_what_to_do(memrepo: Path, runner, on_path: Path, monkeypatch):
    (memrepo / ".claude").mkdir()
    (memrepo / ".claude" / "settings.json").write_text('{"hooks": {,}}', encoding="utf-8")
    (memrepo / "agentmem.yaml").write_text("harvest:\n  provider: anthropic\n", encoding="utf-8")
    set_identity(memrepo, "Mallory", "mallory@example.com")
    result = invoke(runner, "doctor", "--format", "json")
    assert result.exit_code == 1
    checks = _checks(result)
    assert checks["identity"]["status"] == "fail"
    assert (
        "mallory@example.com" in checks["identity"]["message"]
        or "roles.yaml" in (checks["identity"]["message"])
    )
    assert checks["hooks"]["status"] == "fail"
    assert checks["hooks"]["message"].endswith(
        "settings.json:1: not valid JSON (Expecting property name enclosed in double quotes)"
    )
    assert checks["provider"] == {
        "name": "provider",
        "status": "fail",
        "message": "harvest.provider is anthropic but ANTHROPIC_API_KEY is not set",
        "fix": "export ANTHROPIC_API_KEY, or set harvest.provider: offline",
    }


def test_no_repository_and_no_command(tmp_path: Path, runner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    result = invoke(runner, "doctor")
    assert result.exit_code == 1
    assert "FAIL  repository: not a memory repository" in result.stdout
    assert "FAIL  command: agentmem is not on PATH" in result.stdout
    assert "2 problem(s) to fix" in result.stderr


def test_queued_sessions_are_reported(memrepo: Path, runner, on_path: Path, tmp_path: Path):
    transcript = tmp_path / "s.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    payload = {
        "session_id": "0b1c2d3e-1111-2222-3333-444455556666",
        "transcript_path": str(transcript),
        "cwd": str(memrepo),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    invoke(runner, "hook", "session-end", input=json.dumps(payload))
    checks = _checks(invoke(runner, "doctor", "--format", "json"))
    assert checks["queue"]["message"] == "1 session(s) wait in the harvest queue"
    transcript.unlink()
    checks = _checks(invoke(runner, "doctor", "--format", "json"))
    assert (
        checks["queue"]["fix"] == "agentmem harvest --forget 0b1c2d3e-1111-2222-3333-444455556666"
    )
