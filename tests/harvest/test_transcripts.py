"""Transcript readers (docs/design/harvest.md §Harvest): format detection by content, the person's own
turns, elision, session ids and errors. Data files are described in
``tests/data/transcripts/SOURCES.md``."""

from __future__ import annotations

import hashlib
import json
import shutil
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from agentmem.errors import TranscriptError
from agentmem.harvest.exports import read_export
from agentmem.harvest.transcripts import Transcript, Turn, read_transcript

DATA = Path(__file__).parents[1] / "data" / "transcripts"
CORPUS = Path(__file__).parents[1] / "data" / "corpus"  # real files: see its SOURCES.md


def read(name: str) -> Transcript:
    return read_transcript(DATA / name)


def texts(transcript: Transcript, role: str) -> list[str]:
    return [t.text for t in transcript.turns if t.role == role]


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- Claude Code ------------------------------------------------------------------------------


def test_claude_code_tool_heavy_keeps_only_typed_prompts() -> None:
    t = read("spotter_tool_heavy.jsonl")
    assert t.format == "claude-code"
    assert t.session_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    assert t.user_turns() == [
        Turn("user", "start phoenix in background", 4),
        Turn(
            "user",
            "scrolling back in xterm.js still does not work (maybe because outer web catches it)?"
            " websearch xterm.js tmux interactions",
            26,
        ),
    ]
    assert len(t.turns) == 19
    # The /mcp command, its caveat and its output are not the person's words.
    assert Turn("tool", "[command /mcp]", 21) in t.turns
    assert Turn("tool", "[local-command-stdout: 69 characters elided]", 22) in t.turns
    assert texts(t, "tool").count("[request interrupted by user]") == 2
    assert not any("Caveat" in turn.text for turn in t.turns)
    # Thinking blocks (line 28) are dropped.
    assert not any("The user wants me to research" in turn.text for turn in t.turns)


def test_claude_code_tool_calls_and_results_are_elided() -> None:
    t = read("spotter_tool_heavy.jsonl")
    assert t.turns[1] == Turn(
        "tool",
        '[tool call Bash: {"command": "mix phx.server", "description": '
        '"Start Phoenix server in background", "run_in_background": true}]',
        5,
    )
    assert t.turns[2] == Turn("tool", "[tool result: 141 characters elided]", 11)
    assert Turn("tool", "[tool result: 3,061 characters elided]", 33) in t.turns
    fetch = next(turn for turn in t.turns if turn.text.startswith("[tool call WebFetch:"))
    assert fetch.text.endswith(" … 29 characters elided]")
    head = fetch.text.removeprefix("[tool call WebFetch: ").split(" … ")[0]
    assert len(head) == 200
    # Assistant text is kept in full.
    assert t.turns[3] == Turn(
        "assistant",
        "Phoenix server is starting in the background.\n\nLet me check the MCP servers status.",
        12,
    )


def test_each_session_names_the_folder_it_ran_in(tmp_path: Path) -> None:
    """Claude Code's first ``cwd`` (a later one follows the agent's ``cd``), Codex's
    ``session_meta`` ``cwd`` or its environment context's ``<cwd>``; none for Messages/text."""
    folders = {
        name: read_transcript(DATA / name).folder
        for name in (
            "spotter_tool_heavy.jsonl",
            "spotter_compaction_lines50-66.jsonl",
            "viewer_init_1af7fc5e.jsonl",
            "codex_legacy_excerpt.jsonl",
            "codex_modern_single_turn.jsonl",
        )
    }
    assert folders == {
        "spotter_tool_heavy.jsonl": "/home/USER/projects/spotter",
        "spotter_compaction_lines50-66.jsonl": "/home/USER/projects/spotter-worktrees/spotter-4te",
        "viewer_init_1af7fc5e.jsonl": "/path/to/Demo",
        "codex_legacy_excerpt.jsonl": "/home/user/projects/codex-session-viewer",
        "codex_modern_single_turn.jsonl": "/redacted/path/da0ba47443",
    }
    moved = tmp_path / "moved.jsonl"
    lines = (DATA / "viewer_init_1af7fc5e.jsonl").read_text("utf-8").splitlines()
    later = [ln.replace('"cwd":"/path/to/Demo"', '"cwd":"/path/to/Demo/sub"') for ln in lines[5:]]
    moved.write_text("\n".join(lines[:5] + later) + "\n", encoding="utf-8")
    assert read_transcript(moved).folder == "/path/to/Demo"
    text = tmp_path / "session.md"
    text.write_text("User: remember that I like tables.\nAssistant: noted.\n", encoding="utf-8")
    assert read_transcript(text).folder is None


def test_claude_code_init_command_without_arguments_has_no_user_turn() -> None:
    t = read("viewer_init_1af7fc5e.jsonl")
    assert t.format == "claude-code"
    assert t.session_id == "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
    assert t.user_turns() == []
    assert t.turns[0] == Turn("tool", "[command /init]", 1)
    # The prompt injected by /init (an isMeta line) is not kept.
    assert not any("Please analyze this codebase" in turn.text for turn in t.turns)
    assert Turn("tool", "[tool error: 97 characters elided]", 26) in t.turns
    assert len(texts(t, "assistant")) == 3


def test_claude_code_command_arguments_are_the_persons_words_japanese() -> None:
    t = read("viewer_orchestrator_ja_lines1-20.jsonl")
    assert t.user_turns() == [Turn("user", "@CLAUDE.md を最新の状態にアップデートしてください", 1)]
    assert t.turns[0] == Turn("tool", "[command /orchestrator]", 1)
    # Lines 16 and 19 are sidechain (subagent) lines: skipped.
    assert not any(turn.line in (16, 19) for turn in t.turns)
    # The skill body injected on line 2 (isMeta) is not kept.
    assert not any(turn.line == 2 for turn in t.turns)


def test_claude_code_detected_from_an_old_summary_line() -> None:
    t = read("viewer_todo_app_lines1-8.jsonl")
    assert t.format == "claude-code"
    assert t.session_id == "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
    assert [turn.text for turn in t.user_turns()] == ["create TODO app by Next.js"]


def test_claude_code_compaction_summary_is_not_a_user_turn() -> None:
    t = read("spotter_compaction_lines50-66.jsonl")
    assert t.user_turns() == [
        Turn("user", "and continue with the reamining tasks", 6),
        Turn("user", "continue implementation", 13),
    ]
    assert Turn("tool", "[compaction summary: 16,162 characters elided]", 4) in t.turns
    assert Turn("tool", "[command /compact]", 6) in t.turns
    assert not any("being continued from a previous" in turn.text for turn in t.turns)


def test_claude_code_injected_wrappers_and_reminders(tmp_path: Path) -> None:
    def line(content: object, **extra: object) -> str:
        base = {"type": "user", "sessionId": "s-1", "isSidechain": False}
        return json.dumps({**base, **extra, "message": {"role": "user", "content": content}})

    lines = [
        line("Please fix it.<system-reminder>Todo list is empty.</system-reminder>"),
        line("<task-notification><status>done</status></task-notification>"),
        line("<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>"),
        line("<user-memory-input>always use tabs</user-memory-input>"),
        line("Caveat text", isMeta=True),
        line("a subagent prompt", isSidechain=True),
        line([{"type": "text", "text": "see screenshot"}, {"type": "image", "source": {}}]),
        line("Why does <command-name>/x</command-name> show up in my logs?"),
    ]
    t = read_transcript(write(tmp_path, "session.jsonl", "\n".join(lines) + "\n"))
    assert t.session_id == "s-1"
    assert t.turns == [
        Turn("user", "Please fix it.", 1),
        Turn("tool", "[task-notification: 60 characters elided]", 2),
        Turn("tool", "[bash-stdout: 56 characters elided]", 3),
        Turn("user", "always use tabs", 4),
        Turn("user", "see screenshot", 7),
        Turn("tool", "[image]", 7),
        Turn("user", "Why does <command-name>/x</command-name> show up in my logs?", 8),
    ]


# --- Codex ------------------------------------------------------------------------------------


def test_codex_legacy_skips_injected_context_and_reasoning() -> None:
    t = read("codex_legacy_excerpt.jsonl")
    assert t.format == "codex"
    assert t.session_id == "cf4def41-21e0-4b91-adb4-5397c1492084"
    assert t.user_turns() == [
        Turn(
            "user",
            "What's the next task I should work on? Please consider dependencies and priorities.",
            6,
        ),
        Turn("user", "check codebase to see progress on it", 15),
    ]
    assert t.turns[2] == Turn(
        "tool",
        '[tool call task-master-ai__next_task: {"projectRoot":"/home/user/projects/'
        'codex-session-viewer"}]',
        11,
    )
    assert t.turns[3] == Turn("tool", "[tool result: 1,199 characters elided]", 12)
    assert not any("environment_context" in turn.text for turn in t.turns)
    assert not any("Deciding task execution" in turn.text for turn in t.turns)
    assert len(t.turns) == 7


def test_codex_modern_user_turn_is_not_duplicated() -> None:
    t = read("codex_modern_single_turn.jsonl")
    assert t.format == "codex"
    assert t.session_id == "019c8a70-dda7-7f33-98ea-f30553347322"
    # The prompt is on line 9 (response_item) and line 10 (event_msg): one turn, from the event.
    # Developer messages and the injected user messages on lines 4, 5 and 11 are not kept.
    assert t.turns == [
        Turn("user", "[REDACTED_MESSAGE len=86 sha=2239bcba]", 10),
        Turn("assistant", "[REDACTED_TEXT len=124 sha=7a220b7e]", 17),
        Turn("tool", "[tool call exec_command: [REDACTED_ARGUMENTS len=456 sha=df6be51a]]", 18),
    ]


def test_codex_modern_tools_assistant_from_response_items_only() -> None:
    t = read("codex_modern_tools.jsonl")
    assert t.session_id == "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"
    assert [turn.text for turn in t.user_turns()] == ["[REDACTED_MESSAGE len=98 sha=c002ff99]"]
    assistant = texts(t, "assistant")
    assert len(assistant) == 6  # agent_message events are not counted twice
    assert assistant[-1] == "[REDACTED_TEXT len=647 sha=10502814]"
    tools = texts(t, "tool")
    assert sum(text.startswith("[tool call ") for text in tools) == 5
    assert sum(text.startswith("[tool result: ") for text in tools) == 5


def test_codex_envelope_without_events_filters_injected_user_messages(tmp_path: Path) -> None:
    def item(role: str, text: str) -> str:
        content = [{"type": "input_text", "text": text}]
        payload = {"type": "message", "role": role, "content": content}
        return json.dumps({"timestamp": "t", "type": "response_item", "payload": payload})

    lines = [
        item("user", "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"),
        item("user", "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>…</INSTRUCTIONS>"),
        item("developer", "You are Codex."),
        item("user", "From now on, answer in French."),
    ]
    path = write(tmp_path, "rollout.jsonl", "\n".join(lines))
    t = read_transcript(path)
    assert t.format == "codex"
    assert t.turns == [Turn("user", "From now on, answer in French.", 4)]
    assert t.session_id == hashlib.sha256(path.read_bytes()).hexdigest()[:16]


# --- Messages JSON ----------------------------------------------------------------------------


def test_messages_json_string_and_block_content(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Remember that I prefer short answers."},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Noted."},
                {"type": "tool_use", "name": "Read", "input": {"file_path": "a.md"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "content": "x" * 1234}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "shell", "arguments": '{"cmd": "ls"}'}}],
        },
        {"role": "tool", "content": "file.txt"},
    ]
    path = write(tmp_path, "chat.json", json.dumps(messages, indent=2))
    t = read_transcript(path)
    assert t.format == "messages"
    assert t.session_id == hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    assert t.turns == [
        Turn("user", "Remember that I prefer short answers."),
        Turn("assistant", "Noted."),
        Turn("tool", '[tool call Read: {"file_path": "a.md"}]'),
        Turn("tool", "[tool result: 1,234 characters elided]"),
        Turn("tool", '[tool call shell: {"cmd": "ls"}]'),
        Turn("tool", "[tool result: 8 characters elided]"),
    ]


def test_messages_json_french(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "À l'avenir, ne me propose plus de résumé."},
        {"role": "assistant", "content": "D'accord, je n'en proposerai plus."},
    ]
    t = read_transcript(write(tmp_path, "echange.json", json.dumps(messages, ensure_ascii=False)))
    assert [(turn.role, turn.text) for turn in t.turns] == [
        ("user", "À l'avenir, ne me propose plus de résumé."),
        ("assistant", "D'accord, je n'en proposerai plus."),
    ]


# --- Plain text and Markdown ------------------------------------------------------------------

TEXT_SAMPLES = {
    "plain": "User: Remember that I use tabs.\nAssistant: Noted.\nUser: Thanks.\n",
    "bold": "**User:** Remember that I use tabs.\n\n**Assistant:** Noted.\n\n**User**: Thanks.\n",
    "heading": "## User\n\nRemember that I use tabs.\n\n## Assistant\n\nNoted.\n\n# User\nThanks.",
    "human": "Human: Remember that I use tabs.\n\nAssistant: Noted.\n\nHuman: Thanks.\n",
}


@pytest.mark.parametrize("sample", TEXT_SAMPLES)
def test_text_turn_markers(tmp_path: Path, sample: str) -> None:
    t = read_transcript(write(tmp_path, "session.md", TEXT_SAMPLES[sample]))
    assert t.format == "text"
    assert [(turn.role, turn.text) for turn in t.turns] == [
        ("user", "Remember that I use tabs."),
        ("assistant", "Noted."),
        ("user", "Thanks."),
    ]


def test_text_french_multiline_preamble_and_code_fence(tmp_path: Path) -> None:
    text = (
        "# Séance du 3 mars\n"
        "\n"
        "Utilisateur : Retiens que je préfère le tutoiement.\n"
        "Et pas d'emoji.\n"
        "\n"
        "**Assistant :** Entendu. Exemple :\n"
        "```\n"
        "User: ceci est du code\n"
        "```\n"
        "Utilisateur: À l'avenir, réponds en français.\n"
    )
    path = write(tmp_path, "notes.txt", text)
    t = read_transcript(path)
    assert t.format == "text"
    assert t.session_id == hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    assert t.turns == [
        Turn("user", "Retiens que je préfère le tutoiement.\nEt pas d'emoji.", 3),
        Turn("assistant", "Entendu. Exemple :\n```\nUser: ceci est du code\n```", 6),
        Turn("user", "À l'avenir, réponds en français.", 10),
    ]
    assert t.render().startswith("User: Retiens que je préfère le tutoiement.")


def test_text_with_windows_line_endings(tmp_path: Path) -> None:
    path = write(tmp_path, "s.txt", "User: line one\r\nline two\r\nAssistant: ok\r\n")
    assert read_transcript(path).turns == [
        Turn("user", "line one\nline two", 1),
        Turn("assistant", "ok", 3),
    ]


def test_format_is_chosen_by_content_not_name(tmp_path: Path) -> None:
    claude = tmp_path / "notes.txt"
    shutil.copy(DATA / "viewer_todo_app_lines1-8.jsonl", claude)
    assert read_transcript(claude).format == "claude-code"
    text = write(tmp_path, "session.jsonl", "User: hi\nAssistant: hello\n")
    assert read_transcript(text).format == "text"
    bracketed = write(tmp_path, "x.json", "[draft] notes\nUser: hi\nAssistant: hello\n")
    assert read_transcript(bracketed).format == "text"


# --- Errors -----------------------------------------------------------------------------------


def error(path: Path) -> str:
    with pytest.raises(TranscriptError) as info:
        read_transcript(path)
    return str(info.value)


def test_invalid_json_line_names_the_line(tmp_path: Path) -> None:
    lines = (DATA / "spotter_tool_heavy.jsonl").read_text(encoding="utf-8").splitlines()
    lines[6] = lines[6][:50]  # a truncated line 7
    path = write(tmp_path, "s.jsonl", "\n".join(lines))
    message = error(path)
    assert message.startswith(f"{path}:7: invalid JSON: ")
    assert "Unterminated string" in message


def test_json_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "s.jsonl", '{"type": "user", "sessionId": "a"}\n[1, 2]\n')
    assert error(path) == f"{path}:2: expected a JSON object, found list"


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 3),
        (b"User: hi\nAssistant: ok\n\xff\xfe broken", 3),
        (b"\x00", 1),
    ],
)
def test_binary_file(tmp_path: Path, content: bytes, line: int) -> None:
    path = write(tmp_path, "blob", content)
    assert error(path) == f"{path}:{line}: binary file, not a transcript"


@pytest.mark.parametrize("content", ["", "  \n\n\t\n", "\ufeff"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    path = write(tmp_path, "empty.jsonl", content)
    assert error(path) == f"{path}:1: empty file, not a transcript"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("# Notes\n\nNothing that looks like a conversation.\n", "no User:/Assistant: turns"),
        ('{"hook_event_name": "Stop", "session_id": "x"}\n', "JSON Lines in an unknown format"),
        ('[{"title": "chat", "mapping": {}}]', "not a Messages list"),
        ("[]", "not a Messages list"),
        ('{\n  "messages": []\n}\n', "a single JSON object"),
    ],
)
def test_unknown_format_says_what_is_understood(tmp_path: Path, content: str, reason: str) -> None:
    path = write(tmp_path, "mystery", content)
    message = error(path)
    assert message.startswith(f"{path}:1: ")
    assert reason in message
    assert "understood formats: Claude Code session JSONL, Codex rollout JSONL" in message


@pytest.mark.parametrize(
    ("messages", "reason"),
    [
        ([{"role": "user", "content": 42}], "message 1 (user): its content is a number, not text"),
        ([{"role": "bogus", "content": "x"}], "no message has the role user or human"),
        (
            [{"role": "system", "content": "Be brief."}, {"role": "assistant", "content": "ok"}],
            "no message has the role user or human",
        ),
        (
            [{"role": "assistant", "content": "hi"}, {"role": "user"}],
            "message 2 (user): its content is null",
        ),
        ([{"role": "human", "content": [{"type": "image"}]}], "message 1 (user) holds no text"),
    ],
)
def test_a_messages_list_without_a_readable_user_turn_is_refused(
    tmp_path: Path, messages: list[dict[str, object]], reason: str
) -> None:
    path = write(tmp_path, "chat.json", json.dumps(messages))
    message = error(path)
    assert message.startswith(f"{path}:1: no readable user turn: {reason}")
    assert "bogus" not in message and "Be brief" not in message


def test_malformed_json_array_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "chat.json", '[\n  {"role": "user", "content": "hi"},\n  {"role"\n]')
    # The decoder reports the position of the token it expected ':' before, on line 4.
    assert error(path) == f"{path}:4: invalid JSON: Expecting ':' delimiter (column 1)"


def test_lines_are_split_on_newlines_only(tmp_path: Path) -> None:
    # JSON.stringify leaves U+2028 raw inside strings; it must not split a JSONL line.
    record = {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "a\u2028b"}}
    text = json.dumps(record, ensure_ascii=False) + "\r\n"
    assert read_transcript(write(tmp_path, "s.jsonl", text)).turns == [Turn("user", "a\u2028b", 1)]


def test_deeply_nested_json_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = write(tmp_path, "deep.jsonl", '{"type": "user"}\n{"a": ' + "[" * 100_000 + "\n")
    assert error(path).startswith(f"{path}:2: JSON nested more than 32 levels deep: refused")


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    assert error(missing) == f"{missing}: cannot read: No such file or directory"
    assert error(tmp_path).startswith(f"{tmp_path}: cannot read: ")


# --- The whole research corpus ----------------------------------------------------------------

# (format, user turns) checked by hand against each file.
CORPUS_EXPECTED = {
    "claude-code-transcripts/spotter_compaction_excerpt.jsonl": ("claude-code", 2),
    "claude-code-transcripts/spotter_subagent_aac57f5.jsonl": ("claude-code", 0),
    "claude-code-transcripts/spotter_tool_heavy.jsonl": ("claude-code", 2),
    "claude-code-transcripts/viewer_init_1af7fc5e.jsonl": ("claude-code", 0),
    "claude-code-transcripts/viewer_orchestrator_ja_5c0375b4.jsonl": ("claude-code", 1),
    "claude-code-transcripts/viewer_todo_app_excerpt_fe5e1c67.jsonl": ("claude-code", 1),
    "codex-rollouts/legacy_format_rollout_excerpt_2025-09-10.jsonl": ("codex", 3),
    "codex-rollouts/modern_redacted_rollout-2026-02-23T13-19-38-"
    "019c8a70-dda7-7f33-98ea-f30553347322.jsonl": ("codex", 1),
    "codex-rollouts/modern_redacted_rollout-2026-02-23T20-34-25-"
    "019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl": ("codex", 1),
}
DIRECTORY_FORMAT = {"claude-code-transcripts": "claude-code", "codex-rollouts": "codex"}


def corpus_files(*folders: str) -> list[Path]:
    files = sorted(p for folder in folders for p in (CORPUS / folder).iterdir() if p.is_file())
    assert files, folders
    return files


def test_every_corpus_session_reads() -> None:
    for path in corpus_files(*DIRECTORY_FORMAT):
        name = path.relative_to(CORPUS).as_posix()
        t = read_transcript(path)
        expected_format, expected_users = CORPUS_EXPECTED.get(
            name, (DIRECTORY_FORMAT[path.parent.name], None)
        )
        assert t.format == expected_format, name
        assert t.session_id and t.session_id != hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        if expected_users is not None:
            assert len(t.user_turns()) == expected_users, name
        for turn in t.user_turns():
            assert not turn.text.startswith(("<", "[tool", "This session is being continued")), name


def test_other_corpus_json_is_refused_as_unknown() -> None:
    for path in corpus_files("claude-code-hooks", "chat-exports/chatgpt_export"):
        if path.suffix == ".json":
            assert "understood formats" in error(path), path.name


def _peak(read: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_text_transcript_and_export_read_within_three_times_their_size(tmp_path: Path) -> None:
    # docs/design/harvest.md §Harvest: the text is walked line by line (no list of every line) and an
    # export's bytes are dropped before its tree is built, its text before the turns are.
    result = "a line of a file the agent printed\n" * 300
    text = tmp_path / "session.md"
    text.write_text(
        "".join(f"User: step {i}\r\n\r\nAssistant: done\n```\n{result}```\n" for i in range(150)),
        encoding="utf-8",
    )
    turns = read_transcript(text).turns
    assert [t.role for t in turns[:2]] == ["user", "assistant"]
    assert turns[0].text == "step 0" and turns[2].line == 306
    assert _peak(lambda: read_transcript(text)) <= 3 * text.stat().st_size
    chatgpt = tmp_path / "conversations.json"
    nodes = {"root": {"parent": None, "message": None}}
    for i in range(150):
        parts = [f"step {i}" if i % 2 == 0 else result]
        role = "user" if i % 2 == 0 else "tool"
        message = {"author": {"role": role}, "content": {"content_type": "text", "parts": parts}}
        nodes[f"n{i}"] = {"parent": "root" if i == 0 else f"n{i - 1}", "message": message}
    chatgpt.write_text(json.dumps([{"id": "c1", "mapping": nodes}], indent=1), encoding="utf-8")
    (conversation,) = read_export(chatgpt)
    assert conversation.turns[0] == Turn("user", "step 0", 9)
    assert _peak(lambda: read_export(chatgpt)) <= 3 * chatgpt.stat().st_size
