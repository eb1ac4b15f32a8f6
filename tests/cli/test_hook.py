"""Claude Code hooks (``agentmem hook …``) with the real payloads of ``tests/data/hooks/`` (JSON
arrays, one payload per event, see SOURCES.md); the queue they fill is harvested in
``tests/harvest/test_queue.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke, payloads, set_identity
from tests.helpers.context import MEMORY_ENTRIES, write_memory, write_rules
from tests.helpers.memory import commit_by_owner
from typer.testing import CliRunner


def queue_lines(root: Path) -> list[dict]:
    path = root / ".agentmem" / "queue.jsonl"
    if not path.exists():
        return []
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines()]


# -- session-start -----------------------------------------------------------------------------


@pytest.mark.slow
def test_session_start_prints_the_memory_for_every_real_payload(
    memrepo: Path, runner: CliRunner
) -> None:
    write_memory(memrepo, runner)
    write_rules(memrepo)
    for payload in payloads("macos_session_start") + payloads("windows_session_start"):
        result = invoke(runner, "hook", "session-start", input=json.dumps(payload))
        assert result.exit_code == 0, result.stderr
        assert result.stdout.startswith(
            '<agentmem-memory person="alice">\nRemembered preferences of alice ['
        )
        assert "1. Keep a collaborative tone with long-standing suppliers." in result.stdout
        assert "Title of" not in result.stdout and "agentmem-doctrine" not in result.stdout
        assert len(result.stdout) <= 10_000


@pytest.mark.slow
def test_session_start_finds_the_repository_from_the_payload_cwd(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_memory(memrepo, runner)
    (memrepo / "project").mkdir()
    payload = {**payloads("macos_session_start")[0], "cwd": str(memrepo / "project")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = invoke(runner, "hook", "session-start", input=json.dumps(payload))
    assert (
        result.exit_code == 0 and "2. Prefer short sentences in the active voice." in result.stdout
    )


def test_a_session_start_that_gives_no_entry_says_why(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries scoped elsewhere are not 'no memory entries yet': the note numbers them and
    says how a session gets a scope."""
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    (memrepo / "memories" / "alice.md").write_text(
        "# Memory: alice\n\n## Writing style\n- Quote the lease index. <!-- am: basis=declared "
        "scope=contracts/lease since=2026-11-01 review=2027-11-01 -->\n- Gone. <!-- am: "
        "basis=inferred since=2026-08-01 review=2026-09-01 expires=2026-10-30 -->\n\n"
        "## Priorities & scope\n\n## Recurring patterns\n\n## Rule dependencies\n",
        encoding="utf-8",
    )
    commit_by_owner(memrepo, "memories/alice.md")
    payload = json.dumps(payloads("macos_session_start")[0])
    result = invoke(runner, "hook", "session-start", input=payload)
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "systemMessage": "agentmem: none of your 2 memory entries was given to this session "
        "(no scope): 1 is scoped contracts/lease (no folder of the scopes: map has that "
        "scope); 1 expired. To fix: agentmem scope map /Users/USER/Development/chicken-tracker-t3 "
        "contracts/lease (if this folder is part of contracts/lease)."
    }
    assert "has no memory entries yet" not in result.stderr
    assert (
        "none of alice's entries is given to this session (no scope): #2 expired; "
        "#1 out of scope ($AGENTMEM_SCOPE or the scopes: map of agentmem.yaml" in result.stderr
    )
    monkeypatch.setenv("AGENTMEM_SCOPE", "contracts/lease")
    given = invoke(runner, "hook", "session-start", input=payload)
    assert "1. [scope contracts/lease] Quote the lease index." in given.stdout


@pytest.mark.slow
def test_session_start_never_fails_the_session(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = json.dumps(payloads("macos_session_start")[0])
    empty = invoke(runner, "hook", "session-start", input=payload)
    assert (empty.exit_code, empty.stdout) == (0, "")
    assert "alice has no memory entries yet" in empty.stderr
    write_memory(memrepo, runner)
    garbled = invoke(runner, "hook", "session-start", input="{not json")
    assert garbled.exit_code == 0 and "1. Keep a collaborative tone" in garbled.stdout
    assert "hook payload is not JSON" in garbled.stderr
    set_identity(memrepo, "Mallory", "mallory@example.com")
    stranger = invoke(runner, "hook", "session-start", input=payload)
    assert stranger.exit_code == 0
    assert "not a person in roles.yaml" in stranger.stderr
    # Claude Code hides stderr outside verbose mode: the person is told on stdout, one line.
    message = json.loads(stranger.stdout)["systemMessage"]
    assert message.startswith("agentmem: no memory was given to this session: ")
    assert "not a person in roles.yaml" in message and "To fix: " in message
    assert "\n" not in message
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    lost = invoke(runner, "hook", "session-start", input=payload)
    assert lost.exit_code == 0
    assert "not a memory repository" in lost.stderr
    assert json.loads(lost.stdout) == {
        "systemMessage": "agentmem: no memory was given to this session: not a memory "
        f"repository: no agentmem.yaml in {outside.resolve()} or any parent. To fix: set "
        "AGENTMEM_REPO or pass --repo PATH in the hook's command."
    }


# -- session-end / pre-compact -----------------------------------------------------------------


def test_session_end_and_pre_compact_queue_the_real_payloads(
    memrepo: Path, runner: CliRunner
) -> None:
    expected = []
    for name, command in (
        ("macos_session_end", "session-end"),
        ("windows_session_end", "session-end"),
        ("macos_pre_compact", "pre-compact"),
        ("windows_pre_compact", "pre-compact"),
    ):
        for payload in payloads(name):
            result = invoke(runner, "hook", command, input=json.dumps(payload))
            assert (result.exit_code, result.stdout) == (0, ""), result.stderr
            assert f"session {payload['session_id']} queued" in result.stderr
            reason = payload.get("reason") or payload.get("trigger")
            expected.append(
                (
                    payload["session_id"],
                    payload["transcript_path"],
                    payload["cwd"],
                    reason,
                    payload["hook_event_name"],
                )
            )
    lines = queue_lines(memrepo)
    assert [
        (q["session_id"], q["transcript_path"], q["cwd"], q["reason"], q["event"]) for q in lines
    ] == expected
    assert lines[2]["transcript_path"].startswith("C:\\Users\\USER\\.claude\\projects\\")
    assert git(memrepo, "status", "--porcelain") == ""  # .agentmem/ is local and ignored
    from agentmem.harvest.queue import read_queue

    distinct = {
        p["session_id"] for p in payloads("macos_session_end") + payloads("windows_session_end")
    }
    distinct |= {
        p["session_id"] for p in payloads("macos_pre_compact") + payloads("windows_pre_compact")
    }
    assert len(read_queue(memrepo).sessions) == len(distinct)


@pytest.mark.parametrize(
    "stdin",
    [
        "",
        "   ",
        "not json",
        "[]",
        '"text"',
        "{}",
        '{"session_id": "../../etc/passwd", "transcript_path": "/x"}',
        '{"session_id": "abc"}',
        '{"session_id": 7, "transcript_path": "/x"}',
    ],
)
@pytest.mark.slow
def test_a_malformed_payload_exits_0_with_a_note_and_queues_nothing(
    memrepo: Path, runner: CliRunner, stdin: str
) -> None:
    for command in ("session-end", "pre-compact"):
        result = invoke(runner, "hook", command, input=stdin)
        assert result.exit_code == 0
        assert result.stderr.startswith("agentmem hook: ") and "nothing queued" in result.stderr
        message = json.loads(result.stdout)["systemMessage"]
        assert message.startswith("agentmem: this session was not queued for a harvest: ")
    assert queue_lines(memrepo) == []


@pytest.mark.parametrize(
    ("stdin", "kind"),
    [("null", "null"), ("[]", "array"), ('"x"', "string"), ("3", "number"), ("true", "boolean")],
)
def test_a_payload_that_is_not_an_object_is_named_in_json_terms(
    memrepo: Path, runner: CliRunner, stdin: str, kind: str
) -> None:
    result = invoke(runner, "hook", "session-end", input=stdin)
    assert result.exit_code == 0
    assert f"hook payload is a JSON {kind}; expected an object" in result.stderr


def test_session_end_needs_neither_settings_nor_git(memrepo: Path, tmp_path: Path) -> None:
    """The SessionEnd budget is 1.5 s: the hook loads no agentmem.yaml and spawns no git (here
    the settings are broken and git is not on PATH) and imports nothing heavy."""
    (memrepo / "agentmem.yaml").write_text("memory: [this is: not valid\n", encoding="utf-8")
    payload = json.dumps(payloads("macos_session_end")[0])
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('LOADED=' + repr(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'anthropic', 'git', 'ruamel', 'rapidfuzz', 'mcp', 'httpx2', 'pydantic', 'typer', 'rich', 'yaml'})) + '\\n'))\n"
        "sys.argv = ['agentmem', 'hook', 'session-end']\n"
        "from agentmem.entry import main\n"
        "main()\n"
    )
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    env = {**os.environ, "PATH": str(empty_bin)}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=memrepo,
        input=payload,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "LOADED=[]" in proc.stderr
    assert queue_lines(memrepo)[0]["session_id"] == "dea1da88-7470-4a4b-bc87-38f8aa16288c"


@pytest.mark.slow
def test_hooks_through_the_installed_entry_point(memrepo: Path, runner: CliRunner) -> None:
    write_memory(memrepo, runner)
    start = subprocess.run(
        [sys.executable, "-m", "agentmem", "hook", "session-start"],
        cwd=memrepo,
        input=json.dumps(payloads("windows_session_start")[0]),
        capture_output=True,
        text=True,
    )
    assert (
        start.returncode == 0
        and "3. Do not propose revisions on confidentiality clauses." in start.stdout
    )
    end = subprocess.run(
        [sys.executable, "-m", "agentmem", "--repo", str(memrepo), "hook", "pre-compact"],
        cwd=memrepo.parent,
        input=json.dumps(payloads("windows_pre_compact")[0]),
        capture_output=True,
        text=True,
    )
    assert end.returncode == 0 and queue_lines(memrepo)[0]["reason"] == "auto"


# -- what the hooks print ----------------------------------------------------------------------


def test_memory_entries_fixture_is_what_the_hooks_print(memrepo: Path, runner: CliRunner) -> None:
    write_memory(memrepo, runner)
    result = invoke(
        runner, "hook", "session-start", input=json.dumps(payloads("macos_session_start")[3])
    )
    printed = [ln.split(". ", 1)[1] for ln in result.stdout.splitlines() if ln[:1].isdigit()]
    assert sorted(printed) == sorted(text for _section, text in MEMORY_ENTRIES)
