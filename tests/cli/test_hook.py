"""Claude Code hooks and the harvest queue with the real payloads of
``tests/data/hooks/`` (JSON arrays, one payload per event, see SOURCES.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke, set_identity
from tests.helpers.context import MEMORY_ENTRIES, write_memory, write_rules
from tests.helpers.memory import commit_by_owner
from typer.testing import CliRunner

HOOKS = DATA / "hooks"
TRANSCRIPT = DATA / "transcripts" / "viewer_init_1af7fc5e.jsonl"
TRANSCRIPT_SESSION = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"


def payloads(name: str) -> list[dict]:
    """The real payloads of one file, without the logging template's ``logged_at``."""
    items = json.loads((HOOKS / f"{name}.json").read_text(encoding="utf-8"))
    return [{k: v for k, v in item.items() if k != "logged_at"} for item in items]


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


# -- the queue, the inbox count and harvest --queue ---------------------------------------------


def _queue_transcript(
    runner: CliRunner,
    tmp_path: Path,
    name: str = "session.jsonl",
    session: str = TRANSCRIPT_SESSION,
) -> Path:
    """A real transcript where Claude Code would leave it, and its SessionEnd in the queue."""
    transcript = tmp_path / "claude" / name
    transcript.parent.mkdir(exist_ok=True)
    shutil.copy(TRANSCRIPT, transcript)
    payload = {
        **payloads("macos_session_end")[0],
        "session_id": session,
        "transcript_path": str(transcript),
    }
    assert invoke(runner, "hook", "session-end", input=json.dumps(payload)).exit_code == 0
    return transcript


def _replay(tmp_path: Path) -> Path:
    path = tmp_path / "answer.json"
    proposals = [
        {
            "action": "add",
            "route": "memory",
            "section": "Recurring patterns",
            "text": "Start every review with the CLAUDE.md of the project.",
            "justification": "asked in the session",
            "basis": "declared",
        }
    ]
    path.write_text(json.dumps({"proposals": proposals}), encoding="utf-8")
    return path


def test_harvest_queue_harvests_a_queued_real_session_once(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    _queue_transcript(runner, tmp_path)
    before = invoke(runner, "inbox")
    assert "1 session waits in the harvest queue: run agentmem harvest --queue" in before.stderr
    first = invoke(runner, "harvest", "--queue", "--proposals", str(_replay(tmp_path)))
    assert first.exit_code == 0, first.stderr
    assert (
        f"session {TRANSCRIPT_SESSION} (session.jsonl, 28 turns, 0 of them yours) via replay: 1 proposal kept, 0 rejected"
        in first.stdout
    )
    assert "1 queued session harvested" in first.stderr
    assert "harvesting queued sessions" not in first.stderr  # no progress bar off a terminal
    trailers = git(memrepo, "log", "-1", "--format=%(trailers:key=Agentmem-Session,valueonly)")
    assert trailers.strip() == TRANSCRIPT_SESSION
    after = invoke(runner, "inbox")
    assert (
        "Start every review with the CLAUDE.md" in after.stdout
        and "harvest queue" not in after.stderr
    )
    commits = git(memrepo, "rev-list", "--count", "HEAD")
    second = invoke(runner, "harvest", "--queue", "--proposals", str(_replay(tmp_path)))
    assert second.exit_code == 0 and second.stdout == ""
    assert "nothing to harvest: no queued session waits (1 already harvested)" in second.stderr
    assert git(memrepo, "rev-list", "--count", "HEAD") == commits
    as_json = invoke(runner, "harvest", "--queue", "--format", "json")
    assert json.loads(as_json.stdout) == []


def test_harvest_queue_with_no_proposal_still_counts_as_harvested(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    _queue_transcript(runner, tmp_path)
    first = invoke(runner, "harvest", "--queue", "--provider", "offline", "--format", "json")
    assert first.exit_code == 0, first.stderr
    (only,) = json.loads(first.stdout)
    assert (only["session"], only["provider"], only["proposals"]) == (
        TRANSCRIPT_SESSION,
        "offline",
        [],
    )
    second = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert "nothing to harvest" in second.stderr
    record = json.loads((memrepo / ".agentmem" / "harvested.jsonl").read_text(encoding="utf-8"))
    assert (record["session_id"], record["actor"], record["proposals"], record["commit"]) == (
        TRANSCRIPT_SESSION,
        "alice",
        0,
        None,
    )


def test_a_session_harvested_by_hand_or_on_another_clone_is_not_harvested_again(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    transcript = _queue_transcript(runner, tmp_path)
    by_hand = invoke(runner, "harvest", str(transcript), "--proposals", str(_replay(tmp_path)))
    assert by_hand.exit_code == 0, by_hand.stderr
    assert "harvest queue" not in invoke(runner, "inbox").stderr
    (memrepo / ".agentmem" / "harvested.jsonl").unlink()  # local record lost: the trailers remain
    again = invoke(runner, "harvest", "--queue", "--proposals", str(_replay(tmp_path)))
    assert again.exit_code == 0 and again.stdout == ""
    assert "(1 already harvested)" in again.stderr


def test_a_missing_transcript_stays_queued_and_the_others_go_on(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    gone = _queue_transcript(runner, tmp_path, "gone.jsonl", "11111111-2222-3333-4444-555555555555")
    gone.unlink()
    _queue_transcript(runner, tmp_path)
    result = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert result.exit_code == 1
    assert (
        f"session {TRANSCRIPT_SESSION} (session.jsonl, 28 turns, 0 of them yours) via offline"
        in result.stdout
    )
    assert "error: session 11111111-2222-3333-4444-555555555555:" in result.stderr
    assert "transcript not found" in result.stderr
    assert "1 session waits in the harvest queue" in invoke(runner, "inbox").stderr


def test_a_refused_transcript_is_reported_once_and_not_retried_until_queued_again(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    text_id, messages_id = (
        "11111111-2222-3333-4444-555555555555",
        "66666666-7777-8888-9999-000000000000",
    )
    notes = _queue_transcript(runner, tmp_path, "notes.md", text_id)
    notes.write_text("# Notes\n\nNothing that looks like a conversation.\n", encoding="utf-8")
    chat = _queue_transcript(runner, tmp_path, "chat.json", messages_id)
    chat.write_text('[{"role": "user", "content": 42}]', encoding="utf-8")
    first = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert first.exit_code == 1 and first.stdout == ""
    assert f"error: session {text_id}: {notes}:1: no User:/Assistant: turns found" in first.stderr
    assert (
        f"error: session {messages_id}: {chat}:1: no readable user turn: message 1 (user): its "
        "content is a number" in first.stderr
    )
    assert (
        "2 queued session(s) refused: recorded in .agentmem/queue.jsonl, not tried again "
        "unless queued again" in first.stderr
    )
    assert not (memrepo / ".agentmem" / "harvested.jsonl").exists()
    assert "harvest queue" not in invoke(runner, "inbox").stderr
    second = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert second.exit_code == 0, second.stderr
    assert "nothing to harvest: no queued session waits (0 already harvested)" in second.stderr
    # the session goes on and ends again: queued again, it is read again
    payload = {
        **payloads("macos_session_end")[0],
        "session_id": messages_id,
        "transcript_path": str(chat),
    }
    shutil.copy(TRANSCRIPT, chat)
    assert invoke(runner, "hook", "session-end", input=json.dumps(payload)).exit_code == 0
    third = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert third.exit_code == 0, third.stderr
    assert "1 queued session harvested" in third.stderr


def test_a_queued_session_can_be_forgotten_and_is_never_tried_again(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    gone_id = "11111111-2222-3333-4444-555555555555"
    _queue_transcript(runner, tmp_path, "gone.jsonl", gone_id).unlink()
    failed = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert failed.exit_code == 1
    assert f"drop it: agentmem harvest --forget {gone_id}" in failed.stderr
    forgotten = invoke(runner, "harvest", "--forget", gone_id)
    assert forgotten.exit_code == 0, forgotten.stderr
    assert f"session {gone_id} dropped from the harvest queue" in forgotten.stderr
    lines = (memrepo / ".agentmem" / "harvested.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[-1])
    assert (record["session_id"], record["proposals"], record["commit"], record["forgotten"]) == (
        gone_id,
        0,
        None,
        True,
    )
    assert "harvest queue" not in invoke(runner, "inbox").stderr
    again = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert again.exit_code == 0
    assert "nothing to harvest: no queued session waits (1 already harvested)" in again.stderr
    twice = invoke(runner, "harvest", "--forget", gone_id)
    assert twice.exit_code == 1 and "already harvested or forgotten" in twice.stderr
    unknown = invoke(runner, "harvest", "--forget", "not-queued")
    assert (
        unknown.exit_code == 2
        and "session not-queued is not in the harvest queue" in unknown.stderr
    )
    mixed = invoke(runner, "harvest", "--forget", gone_id, "--queue")
    assert mixed.exit_code == 2 and "--forget SESSION goes alone" in mixed.stderr


@pytest.mark.slow
def test_the_progress_bar_is_drawn_on_a_terminal(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: the console is a terminal
    _queue_transcript(runner, tmp_path)
    result = invoke(runner, "harvest", "--queue", "--provider", "offline")
    assert result.exit_code == 0, result.stderr
    assert "harvesting queued sessions" in result.stderr and "1/1" in result.stderr


def test_harvest_needs_transcripts_or_queue(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    neither = invoke(runner, "harvest")
    assert neither.exit_code == 2 and "give transcript file(s) or --queue" in neither.stderr
    both = invoke(runner, "harvest", str(TRANSCRIPT), "--queue")
    assert both.exit_code == 2
    empty = invoke(runner, "harvest", "--queue")
    assert (
        empty.exit_code == 0
        and "nothing to harvest: no queued session waits (0 already harvested)" in empty.stderr
    )


def test_memory_entries_fixture_is_what_the_hooks_print(memrepo: Path, runner: CliRunner) -> None:
    write_memory(memrepo, runner)
    result = invoke(
        runner, "hook", "session-start", input=json.dumps(payloads("macos_session_start")[3])
    )
    printed = [ln.split(". ", 1)[1] for ln in result.stdout.splitlines() if ln[:1].isdigit()]
    assert sorted(printed) == sorted(text for _section, text in MEMORY_ENTRIES)


@pytest.mark.parametrize(
    ("argv", "fast"),
    [
        (["context", "chat"], True),
        (["context", "chat", "--person", "bob", "--format", "json"], True),
        (["context", "chat", "-p", "bob", "-f", "markdown"], True),
        (["context", "chat", "--format=json"], True),
        (["--repo", "/x", "hook", "session-end"], True),
        (["--repo=/x", "hook", "pre-compact"], True),
        (["hook", "session-start"], True),
        (["context", "chat", "--help"], False),
        (["context", "chat", "--person"], False),
        (["context", "chat", "--format", "yaml"], False),
        (["context", "chat", "--verbose"], False),
        (["context", "audit", "--scope", "x"], False),
        (["hook", "session-end", "--help"], False),
        (["hook", "stop"], False),
        (["--repo"], False),
        (["memory", "show"], False),
        ([], False),
    ],
)
def test_the_fast_path_takes_only_exact_hot_command_lines(
    argv: list[str], fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.entry import plan

    monkeypatch.delenv("AGENTMEM_REPO", raising=False)
    assert (plan(argv) is not None) is fast
    if not fast:
        assert "AGENTMEM_REPO" not in os.environ  # nothing changed before typer parses it


@pytest.mark.slow
def test_usage_errors_of_hot_commands_still_come_from_typer(memrepo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", "context", "chat", "--format", "yaml"],
        cwd=memrepo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert (
        "Invalid value for '--format'" in proc.stderr
        and "expected one of text, markdown, json (the value typed is not shown)" in proc.stderr
    )
    helped = subprocess.run(
        [sys.executable, "-m", "agentmem", "hook", "session-end", "--help"],
        cwd=memrepo,
        capture_output=True,
        text=True,
    )
    assert helped.returncode == 0 and "SessionEnd: queue the session" in helped.stdout
