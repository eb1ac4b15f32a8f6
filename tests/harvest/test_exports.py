"""ChatGPT and Claude.ai ``conversations.json`` exports as sessions (tests/data/imports, see
SOURCES.md): one session per conversation, only the person's typed words are theirs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke

from agentmem.errors import TranscriptError
from agentmem.harvest.exports import is_conversation_export, read_export

IMPORTS = DATA / "imports"


def test_claude_ai_export_one_session_per_conversation_thinking_dropped():
    (session,) = read_export(IMPORTS / "claude-ai" / "conversations.json")
    assert session.format == "claude-ai"
    assert session.session_id == "b49c0fc0-85d8-475c-bd2d-ee89f31f592c"
    user = session.user_turns()
    assert user[0].text.startswith("Tell me about the facts behind the belief that dog saliva")
    assert user[0].line == 13  # the line of the message's uuid in the export
    assistant = [t for t in session.turns if t.role == "assistant"]
    assert assistant
    # The thinking block ("The user is asking about…") is not a turn.
    assert not any("The user is asking about" in t.text for t in session.turns)


def test_chatgpt_export_reads_the_branch_shown(tmp_path: Path):
    export = [
        {
            "id": "conv-1",
            "title": "t",
            "current_node": "c",
            "mapping": {
                "root": {"parent": None, "children": ["sys"], "message": None},
                "sys": {
                    "parent": "root",
                    "message": {
                        "author": {"role": "system"},
                        "content": {"content_type": "text", "parts": ["You are ChatGPT"]},
                    },
                },
                "ctx": {
                    "parent": "sys",
                    "message": {
                        "author": {"role": "user"},
                        "content": {
                            "content_type": "user_editable_context",
                            "user_profile": "I like tables",
                        },
                    },
                },
                "old": {
                    "parent": "ctx",
                    "message": {
                        "author": {"role": "user"},
                        "content": {"content_type": "text", "parts": ["first wording, edited"]},
                    },
                },
                "a": {
                    "parent": "ctx",
                    "message": {
                        "author": {"role": "user"},
                        "content": {
                            "content_type": "text",
                            "parts": ["Remember that I sign as Dr."],
                        },
                    },
                },
                "b": {
                    "parent": "a",
                    "message": {
                        "author": {"role": "assistant"},
                        "content": {"content_type": "code", "text": "print(1)"},
                    },
                },
                "c": {
                    "parent": "b",
                    "message": {
                        "author": {"role": "assistant"},
                        "content": {"content_type": "text", "parts": ["Noted."]},
                    },
                },
            },
        }
    ]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export, indent=1), encoding="utf-8")
    assert is_conversation_export(path.read_bytes())
    (session,) = read_export(path)
    assert session.session_id == "conv-1"
    assert [(t.role, t.text) for t in session.turns] == [
        ("user", "Remember that I sign as Dr."),
        ("tool", "[tool call code: print(1)]"),
        ("assistant", "Noted."),
    ]


def test_a_half_written_export_names_its_line(tmp_path: Path):
    whole = (IMPORTS / "chatgpt" / "conversations.json").read_text(encoding="utf-8")
    cut = tmp_path / "conversations.json"
    cut.write_text(whole[:1500], encoding="utf-8")
    with pytest.raises(TranscriptError) as caught:
        read_export(cut)
    assert str(caught.value).startswith(f"{cut}:")
    assert "invalid JSON" in str(caught.value)
    assert "half-written" in str(caught.value)


def _commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def test_harvest_an_export_then_only_the_new_conversations(memrepo, runner):
    export = IMPORTS / "chatgpt" / "convonaut_conversations.json"
    first = invoke(runner, "harvest", str(export), "--provider", "offline", "--format", "json")
    assert first.exit_code == 0, first.stderr
    sessions = json.loads(first.stdout)
    assert len(sessions) == 7
    assert sessions[0]["session"] == "4o85deuk-t7gy-bz98-uclp-764b8b8zpwdr"
    assert sessions[0]["user_turns"] == 3
    again = invoke(runner, "harvest", str(export), "--provider", "offline", "--format", "json")
    assert again.exit_code == 0
    assert json.loads(again.stdout) == []
    assert "7 conversation(s) skipped: already harvested" in again.stderr


def test_harvest_one_conversation_and_file_its_request(memrepo, runner, tmp_path):
    export = json.loads((IMPORTS / "claude-ai" / "conversations.json").read_text("utf-8"))
    second = json.loads(json.dumps(export[0]))
    second["uuid"] = "c2"
    second["chat_messages"][0]["content"][0]["text"] = (
        "From now on, answer in two short paragraphs at most."
    )
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([export[0], second], indent=1), encoding="utf-8")
    before = _commits(memrepo)
    result = invoke(runner, "harvest", str(path), "--conversation", "c2", "--provider", "offline")
    assert result.exit_code == 0, result.stderr
    assert "session c2" in result.stdout
    assert "Answer in two short paragraphs at most." in result.stdout
    assert _commits(memrepo) == before + 1
    unknown = invoke(runner, "harvest", str(path), "--conversation", "nope")
    assert unknown.exit_code == 2
    assert "no conversation 'nope' in this export (2 conversation(s))" in unknown.stderr


def test_harvest_a_half_written_export_commits_nothing(memrepo, runner, tmp_path):
    whole = (IMPORTS / "claude-ai" / "conversations.json").read_text(encoding="utf-8")
    cut = tmp_path / "conversations.json"
    cut.write_text(whole[: len(whole) // 2], encoding="utf-8")
    before = _commits(memrepo)
    result = invoke(runner, "harvest", str(cut), "--provider", "offline")
    assert result.exit_code == 1
    assert "invalid JSON" in result.stderr and "Traceback" not in result.stderr
    assert _commits(memrepo) == before
