"""The usage log records which entries each chat block carried — numbers and content hashes,
never text — so that what a session saw can be rebuilt from history (docs/design/context.md §Context)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from tests.helpers.context import MEMORY_ENTRIES, add_person
from tests.helpers.memory import commit_by_owner
from typer.testing import CliRunner

import agentmem

USAGE = Path(".agentmem") / "usage.jsonl"
SCOPED = "Quote the lease index. <!-- am: basis=declared scope=contracts/lease -->"


def _lines(root: Path) -> list[dict]:
    text = (root / USAGE).read_text(encoding="utf-8")
    return [json.loads(ln) for ln in text.splitlines()]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_context_chat_logs_entry_numbers_and_hashes_never_text(
    memrepo: Path, remembered: Path, runner: CliRunner
) -> None:
    result = invoke(runner, "context", "chat")
    assert result.exit_code == 0, result.stderr
    (line,) = _lines(memrepo)
    assert line["kind"] == "chat" and line["via"] == "context chat"
    assert (line["actor"], line["person"], line["scope"]) == ("alice", "alice", None)
    assert line["file"] == "memories/alice.md"
    # the file's git object id: the investigator finds that exact version in history
    assert line["blob"] == git(memrepo, "rev-parse", "HEAD:memories/alice.md").strip()
    texts = {
        1: MEMORY_ENTRIES[0][1],
        2: MEMORY_ENTRIES[2][1],
        3: MEMORY_ENTRIES[1][1],
    }
    assert line["entries"] == [{"number": n, "sha256": _hash(t)} for n, t in texts.items()]
    raw = (memrepo / USAGE).read_text(encoding="utf-8")
    assert all(text not in raw for _section, text in MEMORY_ENTRIES)


def test_left_out_entries_and_the_scope_are_logged(
    memrepo: Path, remembered: Path, runner: CliRunner
) -> None:
    memory = memrepo / "memories" / "alice.md"
    memory.write_text(
        memory.read_text(encoding="utf-8").replace(
            "## Recurring patterns\n", f"## Recurring patterns\n- {SCOPED}\n"
        ),
        encoding="utf-8",
    )
    commit_by_owner(memrepo, "memories/alice.md")  # a scoped entry
    assert invoke(runner, "context", "chat").exit_code == 0
    assert invoke(runner, "context", "chat", "--scope", "contracts/lease").exit_code == 0
    first, second = _lines(memrepo)
    assert [e["number"] for e in first["entries"]] == [1, 2, 3]
    assert first["left_out"] == [{"number": 4, "reason": "out of scope"}]
    assert second["scope"] == "contracts/lease"
    assert second["entries"][-1] == {"number": 4, "sha256": _hash("Quote the lease index.")}
    assert second["left_out"] == []


@pytest.mark.slow
def test_the_hook_the_api_and_an_admin_reading_another_memory_are_logged(
    memrepo: Path, remembered: Path, runner: CliRunner
) -> None:
    payload = json.loads(
        (Path(__file__).parents[1] / "data/hooks/macos_session_start.json").read_text()
    )
    result = invoke(
        runner, "hook", "session-start", input=json.dumps({**payload[0], "cwd": str(memrepo)})
    )
    assert result.exit_code == 0 and "agentmem-memory" in result.stdout
    agentmem.open(memrepo).chat_context()
    add_person(memrepo, "bob", "bob@example.com", "member")
    assert invoke(runner, "context", "chat", "--person", "bob").exit_code == 0
    hook, api, other = _lines(memrepo)
    assert hook["via"] == "session-start" and len(hook["entries"]) == 3
    assert api["via"] == "api" and api["entries"] == hook["entries"]
    assert (other["actor"], other["person"], other["entries"]) == ("alice", "bob", [])
    assert other["blob"] == ""


@pytest.mark.slow
def test_usage_reads_chat_lines_back_and_audits_ignore_them(
    memrepo: Path, remembered: Path, runner: CliRunner
) -> None:
    assert invoke(runner, "context", "chat").exit_code == 0
    audits = invoke(runner, "usage")
    assert audits.exit_code == 0
    assert "unreadable" not in audits.stderr and "no audit recorded yet" in audits.stderr
    chats = invoke(runner, "usage", "--chat")
    assert chats.exit_code == 0, chats.stderr
    head, hashes = chats.stdout.splitlines()
    assert "alice  context chat  scope -: 3 entries of memories/alice.md@" in head
    assert hashes.split() == [
        f"#1:{_hash(MEMORY_ENTRIES[0][1])}",
        f"#2:{_hash(MEMORY_ENTRIES[2][1])}",
        f"#3:{_hash(MEMORY_ENTRIES[1][1])}",
    ]
    data = json.loads(invoke(runner, "usage", "--chat", "--format", "json").stdout)
    assert [d["via"] for d in data] == ["context chat"]


def test_a_log_that_cannot_be_written_does_not_stop_the_chat_block(
    memrepo: Path, remembered: Path, runner: CliRunner
) -> None:
    (memrepo / USAGE).mkdir(parents=True)  # a folder where the log should be
    result = invoke(runner, "context", "chat")
    assert result.exit_code == 0
    assert "agentmem-memory" in result.stdout
    assert ".agentmem/usage.jsonl: the chat block was not logged" in result.stderr


def test_a_usage_log_that_cannot_be_read_is_named_not_a_traceback(
    memrepo: Path, runner: CliRunner
) -> None:
    (memrepo / ".agentmem").mkdir(exist_ok=True)
    (memrepo / ".agentmem" / "usage.jsonl").mkdir()  # a folder where the log should be
    result = invoke(runner, "usage")
    assert result.exit_code == 1
    assert ".agentmem/usage.jsonl: cannot read the usage log" in result.stderr
    assert "Traceback" not in result.stderr
