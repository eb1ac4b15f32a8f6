"""Transcript readers (docs/design/harvest.md §Harvest): one session file in, a list of turns out.

Readers are chosen by content, never by file name:

- ``claude-code``: Claude Code session JSONL (``{"type": "user"|"assistant", "message": …}``).
- ``codex``: OpenAI Codex rollout JSONL, legacy (bare items after an ``{id, instructions}`` meta
  line) or envelope (``{"type": "session_meta"|"response_item"|"event_msg", "payload": …}``).
- ``messages``: a JSON array ``[{role, content}]``, content a string or a list of blocks.
- ``text``: plain text or Markdown with ``User:`` / ``Assistant:`` turns.

Tool calls keep the first ``TOOL_INPUT_HEAD`` characters of their input; tool results keep none:
both carry a visible elision marker. Assistant text is kept in full.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentmem import notices
from agentmem.errors import TranscriptError, TranscriptUnavailableError
from agentmem.harvest.own import OwnText, split_own
from agentmem.nesting import MAX_DEPTH, too_deep
from agentmem.store import regular

#: What a parse that met the recursion limit gives (``null`` is a value).
_TOO_DEEP = object()

Role = Literal["user", "assistant", "tool"]

TOOL_INPUT_HEAD = 200  # characters of a tool call's input kept before the elision marker
UNDERSTOOD = (
    "understood formats: Claude Code session JSONL, Codex rollout JSONL, "
    "a ChatGPT or Claude.ai export (conversations.json), "
    "a Messages JSON array [{role, content}], text with User:/Assistant: turns"
)
#: The next step for a file that is not a session but is close to one.
IMPORT_HINT = (
    "an instruction file (CLAUDE.md, AGENTS.md, rules)? 'agentmem import PATH' turns what it "
    "asks into proposals"
)
HOOK_HINT = (
    "a Claude Code hook payload, not a session: harvest the session file its transcript_path names"
)


def _hook_hint(value: object) -> str | None:
    """``HOOK_HINT`` when ``value`` (a JSON object, or the first of an array) is a hook payload."""
    first = value[0] if isinstance(value, list) and value else value
    return HOOK_HINT if isinstance(first, dict) and "hook_event_name" in first else None


@dataclass(frozen=True)
class Turn:
    """One turn of a session.

    ``role`` is ``user`` only for text the person typed themselves; injected text (command
    caveats, compaction summaries, hook output, tool results) is ``tool`` or dropped.
    ``line`` is the 1-based line of the source file the turn came from (0 when unknown).
    """

    role: Role
    text: str
    line: int = 0


@dataclass(frozen=True)
class Transcript:
    """A read session: ``format`` is one of ``claude-code``, ``codex``, ``messages``, ``text``;
    ``folder`` the project folder the session ran in, as the transcript wrote it (Claude Code's
    first ``cwd``, Codex's ``session_meta`` ``cwd`` or ``<cwd>`` of its environment context;
    None when the format does not say)."""

    path: Path
    format: str
    session_id: str
    turns: list[Turn] = field(default_factory=list)
    folder: str | None = None

    def user_turns(self) -> list[Turn]:
        """The turns the person typed themselves, in order."""
        return [t for t in self.turns if t.role == "user"]

    def own_turns(self) -> list[tuple[Turn, OwnText]]:
        """The person's turns, each split into their own words and the rest
        (:func:`agentmem.harvest.own.split_own`: injected blocks, quotations, pasted text)."""
        return [(t, split_own(t.text)) for t in self.user_turns()]

    def not_own(self) -> list[str]:
        """Text inside the person's turns that is not theirs (quotations, pasted documents)."""
        return [part for _, own in self.own_turns() for part in own.other]

    def render(self) -> str:
        """Plain text for a prompt: ``User: …`` / ``Assistant: …`` / ``Tool: …`` blocks.

        A user turn shows only the person's own words; what they pasted or quoted follows in
        ``<pasted>…</pasted>`` (not their words), and injected blocks are elided with a count.
        """
        labels = {"user": "User", "assistant": "Assistant", "tool": "Tool"}
        blocks = []
        for t in self.turns:
            if t.role != "user":
                blocks.append(f"{labels[t.role]}: {t.text}")
                continue
            own = split_own(t.text)
            parts = [own.own] if own.own else []
            parts += [f"<pasted>\n{o}\n</pasted>" for o in own.other]
            if own.injected:
                size = sum(len(i) for i in own.injected)
                parts.append(f"[{len(own.injected)} injected block(s), {_chars(size)} elided]")
            blocks.append("User: " + "\n".join(parts))
        return "\n\n".join(blocks)


#: ``harvest.max_transcript_mb`` default: a larger transcript is refused before it is read.
DEFAULT_MAX_TRANSCRIPT_MB = 20


def check_size(path: Path, max_mb: float = DEFAULT_MAX_TRANSCRIPT_MB) -> None:
    """Refuse a transcript over ``max_mb`` megabytes (10^6 bytes) before reading it, with the
    figures. Raises :class:`TranscriptError`."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # read_transcript says why it cannot read the file
    if size > max_mb * 1_000_000:
        raise TranscriptUnavailableError(
            f"{path}: {size / 1_000_000:.1f} MB is over harvest.max_transcript_mb "
            f"({max_mb:g} MB); nothing was read",
            hint="harvest a shorter session, or raise harvest.max_transcript_mb in agentmem.yaml",
        )


def read_transcript(path: Path, max_mb: float = DEFAULT_MAX_TRANSCRIPT_MB) -> Transcript:
    """Read one session file, choosing the reader by content (docs/design/harvest.md §Harvest).

    ``session_id`` comes from the content when it has one (Claude Code ``sessionId``, Codex
    session meta ``id``), else it is the first 16 hex digits of the sha256 of the file's bytes.
    Raises ``TranscriptError("{path}:{line}: {reason}")`` for a missing, empty, binary or
    malformed file, or one in no understood format, and for a file over ``max_mb`` megabytes
    (``harvest.max_transcript_mb``), refused before it is read. JSON Lines are parsed one line
    at a time: the peak memory stays within about three times the file's size.
    """
    check_size(path, max_mb)
    try:
        data = regular.given_bytes(path)  # a FIFO or device refused by name, never opened
    except OSError as exc:
        raise TranscriptUnavailableError(f"{path}: cannot read: {exc.strerror or exc}") from None
    text = _decode(path, data)
    fallback_id = hashlib.sha256(data).hexdigest()[:16]
    del data
    first = _FIRST_CHAR.search(text)  # not text.lstrip(): that would copy the whole text
    if first is None:
        raise TranscriptError(f"{path}:1: empty file, not a transcript")
    folder = None
    if first.group() == "{":
        fmt, session_id, turns, folder = _read_jsonl(path, text)
    elif first.group() == "[":
        fmt, session_id, turns = _read_json_array(path, text)
    else:
        fmt, session_id, turns = "text", None, _text_turns(path, text)
    return Transcript(path, fmt, session_id or fallback_id, turns, folder)


_FIRST_CHAR = re.compile(r"\S")  # the same whitespace as str.lstrip's


def _decode(path: Path, data: bytes) -> str:
    """UTF-8 text of ``data`` (a BOM is dropped); NUL bytes or invalid UTF-8 mean binary."""
    bad = data.find(b"\0")
    if bad < 0:
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            bad = exc.start
    raise TranscriptError(f"{path}:{_line_at(data, bad)}: binary file, not a transcript")


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# --- JSON Lines: Claude Code and Codex --------------------------------------------------------

# Tuples, not sets: a line's "type" may be any JSON value, and membership must not raise.
_CODEX_ENVELOPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
_CODEX_ITEMS = ("message", "reasoning", "function_call", "function_call_output")
_CLAUDE_TYPES = ("user", "assistant", "summary", "system", "file-history-snapshot", "progress")


def _read_jsonl(path: Path, text: str) -> tuple[str, str | None, list[Turn], str | None]:
    """Parse the non-blank lines as JSON objects, one at a time (a parsed line is dropped once
    its turns are taken, so memory stays near the text's size), and hand them to the reader of
    the first line that tells the format."""
    fmt = next((f for _, obj in _parse_lines(path, text) if (f := _jsonl_kind(obj))), None)
    if fmt == "claude-code":
        return (fmt, *_claude_turns(_parse_lines(path, text)))
    if fmt == "codex":
        events = any(_codex_event(obj) == "user_message" for _, obj in _parse_lines(path, text))
        return (fmt, *_codex_turns(_parse_lines(path, text), events))
    first = next((obj for _, obj in _parse_lines(path, text)), None)
    raise TranscriptError(
        f"{path}:1: JSON Lines in an unknown format ({UNDERSTOOD})", hint=_hook_hint(first)
    )


def _parse_lines(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line, read lazily."""
    seen = False
    start, number = 0, 0
    while start < len(text):
        number += 1
        end = text.find("\n", start)
        ended = end >= 0
        line = text[start:end] if ended else text[start:]
        start = end + 1 if ended else len(text)
        if not line.strip():
            continue
        try:
            obj = _loads(path, line, number)
        except TranscriptError as exc:
            if number == 1 and _parses(path, text):  # one pretty-printed object, not JSON Lines
                raise TranscriptError(f"{path}:1: a single JSON object ({UNDERSTOOD})") from None
            if not ended and seen:
                # The last line has no line end: the session was still being written (or its
                # writer was killed). Keep what is complete and say so.
                notices.warn(
                    f"{exc.message}; it has no line end (a session still being written?) and "
                    "was skipped"
                )
                break
            raise
        if not isinstance(obj, dict):
            kind = type(obj).__name__
            raise TranscriptError(f"{path}:{number}: expected a JSON object, found {kind}")
        seen = True
        yield number, obj


def _loads(path: Path, text: str, first_line: int) -> Any:
    """``json.loads`` whose failures are ``TranscriptError("{path}:{line}: invalid JSON: …")``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON: {exc.msg} (column {exc.colno})"
        raise TranscriptError(f"{path}:{first_line + exc.lineno - 1}: {reason}") from None
    except RecursionError:
        value = _TOO_DEEP
    if value is _TOO_DEEP or too_deep(value):
        raise TranscriptError(
            f"{path}:{first_line}: JSON nested more than {MAX_DEPTH} levels deep: refused unread",
            hint="a conversation is a list of messages; export it again",
        )
    return value


def _parses(path: Path, text: str) -> bool:
    try:
        _loads(path, text, 1)
    except TranscriptError:
        return False
    return True


def _jsonl_kind(obj: dict[str, Any]) -> str | None:
    """``claude-code``, ``codex`` or None when this line alone does not tell."""
    kind = obj.get("type")
    if kind in _CODEX_ENVELOPES and isinstance(obj.get("payload"), dict):
        return "codex"
    if "record_type" in obj or ("instructions" in obj and "id" in obj and kind is None):
        return "codex"
    if kind in _CODEX_ITEMS and "message" not in obj:
        return "codex"
    if kind in _CLAUDE_TYPES and ("sessionId" in obj or "leafUuid" in obj or "messageId" in obj):
        return "claude-code"
    return None


def _claude_turns(
    records: Iterable[tuple[int, dict[str, Any]]],
) -> tuple[str | None, list[Turn], str | None]:
    """Turns of a Claude Code session: sidechain, meta, thinking and bookkeeping lines dropped;
    and the session's folder, the first ``cwd`` (a later one follows the agent's ``cd``)."""
    session_id: str | None = None
    folder: str | None = None
    turns: list[Turn] = []
    for line, obj in records:
        session_id = session_id or _str(obj.get("sessionId"))
        folder = folder or _str(obj.get("cwd"))
        message = obj.get("message")
        if obj.get("isSidechain") or not isinstance(message, dict):
            continue
        if obj.get("type") == "user":
            turns.extend(_claude_user(line, obj, message.get("content")))
        elif obj.get("type") == "assistant":
            turns.extend(_blocks(line, "assistant", message.get("content")))
    return session_id, turns, folder


def _claude_user(line: int, obj: dict[str, Any], content: Any) -> list[Turn]:
    """A Claude Code ``user`` line: the person's words, or injected text made ``tool``."""
    if obj.get("isCompactSummary"):
        return [
            Turn("tool", f"[compaction summary: {_chars(len(_flatten(content)))} elided]", line)
        ]
    if obj.get("isMeta"):  # command caveats, skill bodies and prompts injected by a command
        return []
    if isinstance(content, str):
        return _claude_user_text(line, content)
    return _blocks(line, "user", content)


_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_TAG = re.compile(r"<(command-name|command-args|user-memory-input)>(.*?)</\1>", re.S)
_WRAPPED = re.compile(r"(?:\s*<([a-z][a-z0-9-]*)\b[^>]*>.*?</\1>)+", re.S)  # only XML elements


def _claude_user_text(line: int, text: str) -> list[Turn]:
    """Classify text on a user line: typed prompt, slash command, or injected wrapper."""
    text = _REMINDER.sub("", text).strip()
    if not text or text.startswith("<local-command-caveat>"):
        return []
    if text.startswith("[Request interrupted by user"):
        return [Turn("tool", "[request interrupted by user]", line)]
    if not (text.startswith("<") and _WRAPPED.fullmatch(text)):
        return [Turn("user", text, line)]  # typed by the person (XML inside it is theirs too)
    tags = {name: value.strip() for name, value in _TAG.findall(text)}
    if "user-memory-input" in tags:  # "# note" typed to add to memory: the person's own words
        return [Turn("user", tags["user-memory-input"], line)]
    if "command-name" in tags:
        turns = [Turn("tool", f"[command {tags['command-name']}]", line)]
        if tags.get("command-args"):
            turns.append(Turn("user", tags["command-args"], line))
        return turns
    tag = text[1:].split(">", 1)[0].split()[0]  # local-command-stdout, bash-stdout, …
    return [Turn("tool", f"[{tag}: {_chars(len(text))} elided]", line)]


def _blocks(line: int, role: Role, content: Any) -> list[Turn]:
    """Turns from Anthropic Messages content: a string or ``[{type: text|tool_use|…}]``."""
    if isinstance(content, str):
        if role == "user":
            return _claude_user_text(line, content)
        return [Turn(role, content, line)] if content.strip() else []
    turns: list[Turn] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            turns.extend(_blocks(line, role, _str(block.get("text")) or ""))
        elif kind == "tool_use":
            turns.append(_tool_call(line, block.get("name"), block.get("input")))
        elif kind == "tool_result":
            turns.append(_tool_result(line, block.get("content"), bool(block.get("is_error"))))
        elif kind in ("image", "document"):
            turns.append(Turn("tool", f"[{kind}]", line))
    return turns  # thinking, redacted_thinking and unknown blocks are dropped


# Codex injects these as user messages; they are not the person's words.
_CODEX_INJECTED: tuple[str, ...] = ("<environment_context>", "<user_instructions>")
_CODEX_INJECTED += ("<user_shell_command>", "<turn_aborted>", "# AGENTS.md instructions")


def _codex_turns(
    records: Iterable[tuple[int, dict[str, Any]]], events: bool
) -> tuple[str | None, list[Turn], str | None]:
    """Turns of a Codex rollout, legacy or envelope format, and the session's folder
    (``session_meta``'s ``cwd``, else the first ``<cwd>`` of an injected environment context).

    The envelope format records each prompt twice (``response_item`` user message and
    ``event_msg`` ``user_message``); when ``user_message`` events exist they are the only source
    of user turns, since ``response_item`` user messages also carry injected context.
    """
    session_id: str | None = None
    folder: str | None = None
    turns: list[Turn] = []
    for line, obj in records:
        kind = obj.get("type")
        payload = obj.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            session_id = session_id or _str(payload.get("id"))
            folder = folder or _str(payload.get("cwd"))
        elif kind is None and "instructions" in obj:  # legacy meta line
            session_id = session_id or _str(obj.get("id"))
        elif _codex_event(obj) == "user_message" and isinstance(payload, dict):
            turns.extend(_codex_user(line, _str(payload.get("message")) or ""))
        elif kind == "response_item" and isinstance(payload, dict):
            turns.extend(_codex_item(line, payload, skip_user=events))
        elif kind in _CODEX_ITEMS:
            turns.extend(_codex_item(line, obj, skip_user=events))
        if folder is None and kind in ("message", "response_item"):
            folder = _environment_cwd(payload if kind == "response_item" else obj)
    return session_id, turns, folder


_ENV_CWD = re.compile(r"<environment_context>.*?<cwd>([^<\n]+)</cwd>", re.S)


def _environment_cwd(item: Any) -> str | None:
    """The ``<cwd>`` of a Codex user message holding its injected environment context."""
    if not isinstance(item, dict) or item.get("role") != "user":
        return None
    match = _ENV_CWD.search("\n".join(_texts(item.get("content"))))
    return match.group(1).strip() or None if match else None


def _codex_event(obj: dict[str, Any]) -> str | None:
    payload = obj.get("payload")
    if obj.get("type") == "event_msg" and isinstance(payload, dict):
        return _str(payload.get("type"))
    return None


def _codex_item(line: int, item: dict[str, Any], *, skip_user: bool) -> list[Turn]:
    """A Responses API item: ``message``, ``function_call``/``custom_tool_call`` or output."""
    kind = item.get("type")
    if kind == "message":
        text = "\n".join(_texts(item.get("content")))
        if item.get("role") == "assistant" and text.strip():
            return [Turn("assistant", text, line)]
        if item.get("role") == "user" and not skip_user:
            return _codex_user(line, text)
        return []  # developer and system messages are instructions, not turns
    if kind in ("function_call", "custom_tool_call"):
        return [_tool_call(line, item.get("name"), item.get("arguments", item.get("input")))]
    if kind in ("function_call_output", "custom_tool_call_output"):
        return [_tool_result(line, item.get("output"), False)]
    return []


def _codex_user(line: int, text: str) -> list[Turn]:
    text = text.strip()
    if not text or text.startswith(_CODEX_INJECTED):
        return []
    return [Turn("user", text, line)]


# --- JSON array: Messages ---------------------------------------------------------------------

_MESSAGE_ROLES: dict[str, Role | None] = {"user": "user", "human": "user", "assistant": "assistant"}
_MESSAGE_ROLES.update(model="assistant", ai="assistant", tool="tool", function="tool")
_MESSAGE_ROLES.update(system=None, developer=None)  # instructions, not turns


def _read_json_array(path: Path, text: str) -> tuple[str, str | None, list[Turn]]:
    """A Messages-style array, or (when it does not parse) text that happens to start with '['."""
    try:
        value = _loads(path, text, 1)
    except TranscriptError:
        turns = _text_turns(path, text, strict=False)
        if turns:
            return "text", None, turns
        raise
    if not value or not all(isinstance(m, dict) and "role" in m for m in value):
        raise TranscriptError(
            f"{path}:1: a JSON array but not a Messages list [{{role, content}}] ({UNDERSTOOD})",
            hint=_hook_hint(value),
        )
    turns = [t for m in value for t in _message_turns(m)]
    if not any(t.role == "user" for t in turns):
        raise TranscriptError(f"{path}:1: no readable user turn: {_unread(value)} ({UNDERSTOOD})")
    return "messages", None, turns


#: What a message's content is when it is neither text nor blocks, in JSON's words.
_JSON_KINDS = {int: "a number", float: "a number", bool: "true or false", dict: "an object"}


def _unread(messages: list[dict[str, Any]]) -> str:
    """Why no message of a Messages list gives a user turn (no value from the file is shown)."""
    for number, message in enumerate(messages, start=1):
        if _MESSAGE_ROLES.get(str(message.get("role")).lower()) != "user":
            continue
        content = message.get("content")
        if isinstance(content, str | list):
            return f"message {number} (user) holds no text"
        kind = _JSON_KINDS.get(type(content), "null")
        return f"message {number} (user): its content is {kind}, not text or a list of blocks"
    return "no message has the role user or human"


def _message_turns(message: dict[str, Any]) -> list[Turn]:
    """One ``{role, content}`` message (Anthropic blocks or OpenAI ``tool_calls``)."""
    role = _MESSAGE_ROLES.get(str(message.get("role")).lower())
    content = message.get("content")
    if role is None:
        return []
    if role == "tool":
        return [_tool_result(0, content, False)]
    turns = _blocks(0, role, content)
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            turns.append(_tool_call(0, function.get("name"), function.get("arguments")))
    return turns


# --- Plain text and Markdown ------------------------------------------------------------------

_SPEAKERS: dict[str, Role] = {"user": "user", "human": "user", "utilisateur": "user"}
_SPEAKERS.update(assistant="assistant", ai="assistant", claude="assistant", chatgpt="assistant")
_NAMES = "|".join(_SPEAKERS)
# "User: …", "**User:** …", "**User**: …", "Assistant : …" (French spacing), "## User".
_LABEL = re.compile(rf"^\s*(?:\*\*|__)?({_NAMES})\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$", re.I)
_HEADING = re.compile(rf"^\s*#{{1,6}}\s+(?:\*\*)?({_NAMES})(?:\*\*)?\s*:?\s*(.*)$", re.I)


def _text_turns(path: Path, text: str, *, strict: bool = True) -> list[Turn]:
    """Turns of a text transcript; text before the first speaker label is a preamble, dropped.

    A label inside a fenced code block does not start a turn. With ``strict``, a text with no
    ``User:``-like label raises ``TranscriptError`` (unknown format).
    """
    turns: list[Turn] = []
    role: Role | None = None
    start, body = 0, list[str]()
    fenced = False
    for number, raw in enumerate(_lines(text), start=1):
        if raw.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else (_HEADING.match(raw) or _LABEL.match(raw))
        if match:
            turns.extend(_text_turn(role, body, start))
            role, start, body = _SPEAKERS[match.group(1).lower()], number, [match.group(2)]
        elif role is not None:
            body.append(raw)
    turns.extend(_text_turn(role, body, start))
    if strict and not any(t.role == "user" for t in turns):
        raise TranscriptError(
            f"{path}:1: no User:/Assistant: turns found ({UNDERSTOOD})", hint=IMPORT_HINT
        )
    return turns


def _lines(text: str) -> Iterator[str]:
    """The pieces of ``text.replace("\\r\\n", "\\n").split("\\n")``, one at a time (no copy of
    the text, no list of every line)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start : end - 1] if end > start and text[end - 1] == "\r" else text[start:end]
        start = end + 1


def _text_turn(role: Role | None, body: list[str], line: int) -> list[Turn]:
    text = "\n".join(body).strip()
    return [Turn(role, text, line)] if role is not None and text else []


# --- Shared helpers ---------------------------------------------------------------------------


def _tool_call(line: int, name: Any, arguments: Any) -> Turn:
    """``[tool call NAME: <first 200 characters> … N characters elided]``."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    label = f"tool call {name}" if name else "tool call"
    if len(text) <= TOOL_INPUT_HEAD:
        return Turn("tool", f"[{label}: {text}]", line)
    elided = len(text) - TOOL_INPUT_HEAD
    return Turn("tool", f"[{label}: {text[:TOOL_INPUT_HEAD]} … {_chars(elided)} elided]", line)


def _tool_result(line: int, content: Any, is_error: bool) -> Turn:
    """``[tool result: N characters elided]`` (``tool error`` when the call failed)."""
    label = "tool error" if is_error else "tool result"
    return Turn("tool", f"[{label}: {_chars(len(_flatten(content)))} elided]", line)


def _flatten(content: Any) -> str:
    """The text of a string or of a list of blocks (their ``text`` fields joined by newlines)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_texts(content))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _texts(blocks: Any) -> list[str]:
    items = blocks if isinstance(blocks, list) else []
    return [b["text"] for b in items if isinstance(b, dict) and isinstance(b.get("text"), str)]


def _chars(count: int) -> str:
    return f"{count:,} character" + ("" if count == 1 else "s")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
