"""The harvest queue (``harvest/queue.py``, ``harvest --queue``, ``--forget``) with a real Claude Code transcript queued by its real SessionEnd payload (``tests/data/hooks/``): harvested once, a failure reported once, the others go on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke, payloads
from typer.testing import CliRunner

TRANSCRIPT = DATA / "transcripts" / "viewer_init_1af7fc5e.jsonl"


TRANSCRIPT_SESSION = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"


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
