"""Conversation exports as sessions: ChatGPT and Claude.ai ``conversations.json``.

Both are a JSON array of conversations; each conversation is one session whose id is the
conversation's own id (``id``/``conversation_id`` for ChatGPT, ``uuid`` for Claude.ai), made safe
for a commit trailer. Whose words, as for every other format: a turn is ``user`` only for text
the person typed in that conversation; custom instructions, hidden context, attachments, tool
output and code execution are ``tool`` or dropped; thinking is dropped.

- ChatGPT: ``mapping`` is a tree of nodes ``{id, parent, children, message}``; the conversation
  shown is the path from ``current_node`` up to the root (edited prompts leave other branches,
  which are not read). ``message.author.role`` is user, assistant, tool or system;
  ``content.content_type`` is text, multimodal_text, code, execution_output, thoughts, …
- Claude.ai: ``chat_messages`` in order, ``sender`` human or assistant, ``content`` a list of
  blocks (text, thinking, tool_use, tool_result) or only ``text``.

``Turn.line`` is the line of the export where the message's id first appears (0 when not found).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from agentmem.errors import TranscriptError
from agentmem.harvest.transcripts import (
    Role,
    Transcript,
    Turn,
    _message_turns,
    _tool_call,
    _tool_result,
)
from agentmem.nesting import MAX_DEPTH, too_deep
from agentmem.store import regular

#: What a parse that met the recursion limit gives (``null`` is a value).
_TOO_DEEP = object()

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


def is_conversation_export(data: bytes) -> bool:
    """Cheap look at the first bytes: a JSON array whose first object has ``mapping`` (ChatGPT)
    or ``chat_messages`` (Claude.ai) before its first 64 KiB end."""
    head = data[:65536].lstrip()
    if not head.startswith((b"[", b"\xef\xbb\xbf[")):
        return False
    return b'"mapping"' in head or b'"chat_messages"' in head


def read_export(path: Path) -> list[Transcript]:
    """Every conversation of an export, in file order (empty ones kept: they have no turns).

    Raises :class:`TranscriptError` ``{path}:{line}: reason`` for an unreadable or binary file,
    invalid JSON (a half-written download) or an array that is not a conversation export.
    """
    try:
        data = regular.given_bytes(path)
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise TranscriptError(f"{path}:{line}: binary file, not a conversation export") from None
    del data  # the bytes, the text and the parsed tree are never all alive at once
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}, column {exc.colno})",
            hint="a half-written or cut download? Export your data again and harvest the new file",
        ) from None
    except RecursionError:
        value = _TOO_DEEP
    if value is _TOO_DEEP or too_deep(value):
        raise TranscriptError(
            f"{path}:1: JSON nested more than {MAX_DEPTH} levels deep: refused unread",
            hint="export your data again and harvest the new file",
        )
    if not isinstance(value, list) or not all(isinstance(c, dict) for c in value):
        raise TranscriptError(f"{path}:1: not a conversation export (expected a JSON array)")
    lines = _LineFinder(text, _ids(value))
    del text  # the turns are built from the tree; the lines are known
    found: list[Transcript] = []
    for index, conversation in enumerate(value, start=1):
        if isinstance(conversation.get("mapping"), dict):
            raw_id, turns = _chatgpt(conversation, lines)
            fmt = "chatgpt"
        elif isinstance(conversation.get("chat_messages"), list):
            raw_id, turns = _claude_ai(conversation, lines)
            fmt = "claude-ai"
        else:
            raise TranscriptError(
                f"{path}:{lines.of(conversation.get('id') or conversation.get('uuid'))}: "
                f"conversation {index} has neither 'mapping' (ChatGPT) nor 'chat_messages' "
                "(Claude.ai)"
            )
        found.append(Transcript(path, fmt, session_id(raw_id, index, path), turns))
    return found


def session_id(raw: Any, index: int, path: Path) -> str:
    """The conversation's id when it is a plain id (letters, digits, ``.``, ``_``, ``-``; at
    most 80 characters), else ``conv-`` and 16 hex digits of a hash of it (or of the file name
    and position when it has none)."""
    if isinstance(raw, str) and _SAFE_ID.fullmatch(raw):
        return raw
    seed = raw if isinstance(raw, str) and raw else f"{path.name}#{index}"
    return "conv-" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]


def read_messages(messages: list[dict[str, Any]], session: str) -> Transcript:
    """A Messages list ``[{role, content}]`` given in memory (the Python API) as a transcript
    named ``<messages>``: the same turns as a Messages JSON file. Raises
    :class:`TranscriptError` when an item has no ``role``."""
    for index, message in enumerate(messages, start=1):
        if "role" not in message:
            raise TranscriptError(f"<messages>:{index}: a message without 'role'")
    turns = [t for m in messages for t in _message_turns(m)]
    return Transcript(Path("<messages>"), "messages", session, turns)


# A JSON string token, quotes included (the text has parsed: every unescaped quote delimits one).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


def _ids(value: list[dict[str, Any]]) -> set[str]:
    """Every id whose line a turn or an error may name: conversation ids, ChatGPT node ids,
    Claude.ai message uuids."""
    ids: set[str] = set()
    for conversation in value:
        ids.update(v for k in ("id", "uuid") if isinstance(v := conversation.get(k), str))
        mapping = conversation.get("mapping")
        if isinstance(mapping, dict):
            ids.update(mapping)
        messages = conversation.get("chat_messages")
        for message in messages if isinstance(messages, list) else []:
            if isinstance(message, dict) and isinstance(message.get("uuid"), str):
                ids.add(message["uuid"])
    return ids


class _LineFinder:
    """The 1-based line where a string first appears in the export's text as a JSON string
    (0: nowhere), for the ``wanted`` strings: one pass over the text, which is not kept."""

    def __init__(self, text: str, wanted: set[str]) -> None:
        needles = {json.dumps(v) for v in wanted if v}
        sizes = {len(n) for n in needles}
        self.lines: dict[str, int] = {}
        line, last = 1, 0
        for match in _STRING.finditer(text):
            start, end = match.span()
            if end - start not in sizes or (token := match.group()) not in needles:
                continue
            line += text.count("\n", last, start)
            last = start
            self.lines.setdefault(token, line)

    def of(self, value: Any) -> int:
        if not isinstance(value, str) or not value:
            return 0
        return self.lines.get(json.dumps(value), 0)


# --- ChatGPT -----------------------------------------------------------------------------------

_CHATGPT_TOOL_TYPES = ("code", "execution_output", "tether_browsing_display", "tether_quote")
_CHATGPT_DROPPED = (
    "thoughts",
    "reasoning_recap",
    "user_editable_context",
    "model_editable_context",
)


def _chatgpt(conversation: dict[str, Any], lines: _LineFinder) -> tuple[Any, list[Turn]]:
    mapping: dict[str, Any] = conversation["mapping"]
    raw_id = conversation.get("conversation_id") or conversation.get("id")
    turns: list[Turn] = []
    for node_id in _chatgpt_path(mapping, conversation.get("current_node")):
        node = mapping.get(node_id)
        message = node.get("message") if isinstance(node, dict) else None
        if isinstance(message, dict):
            turns.extend(_chatgpt_message(message, lines.of(node_id)))
    return raw_id, turns


def _chatgpt_path(mapping: dict[str, Any], current: Any) -> list[str]:
    """Node ids from the root to ``current_node`` (else to the last leaf in file order),
    following ``parent`` links; a cycle stops the walk."""
    if not isinstance(current, str) or current not in mapping:
        parents = {n.get("parent") for n in mapping.values() if isinstance(n, dict)}
        leaves = [k for k in mapping if k not in parents]
        current = leaves[-1] if leaves else None
    path: list[str] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        path.append(current)
        node = mapping[current]
        current = node.get("parent") if isinstance(node, dict) else None
    return path[::-1]


def _chatgpt_message(message: dict[str, Any], line: int) -> list[Turn]:
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    content = message.get("content")
    content = content if isinstance(content, dict) else {}
    kind = content.get("content_type")
    metadata = message.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    if role == "system" or kind in _CHATGPT_DROPPED:
        return []  # instructions, custom instructions, hidden reasoning
    if metadata.get("is_visually_hidden_from_conversation") or metadata.get(
        "is_user_system_message"
    ):
        return []
    if role == "tool" or kind in ("execution_output", "tether_browsing_display", "tether_quote"):
        return [_tool_result(line, _chatgpt_text(content), False)]
    if kind == "code":
        return [_tool_call(line, "code", _chatgpt_text(content))]
    text = _chatgpt_text(content).strip()
    turns: list[Turn] = []
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict):  # an image or a file the person attached
            turns.append(Turn("tool", f"[{part.get('content_type') or 'attachment'}]", line))
    if text and role in ("user", "assistant"):
        turns.insert(0, Turn(role, text, line))
    return turns


def _chatgpt_text(content: dict[str, Any]) -> str:
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(p for p in parts if isinstance(p, str))
    text = content.get("text")
    return text if isinstance(text, str) else ""


# --- Claude.ai ---------------------------------------------------------------------------------


def _claude_ai(conversation: dict[str, Any], lines: _LineFinder) -> tuple[Any, list[Turn]]:
    turns: list[Turn] = []
    for message in conversation["chat_messages"]:
        if isinstance(message, dict):
            turns.extend(_claude_ai_message(message, lines.of(message.get("uuid"))))
    return conversation.get("uuid"), turns


def _claude_ai_message(message: dict[str, Any], line: int) -> list[Turn]:
    sender = message.get("sender")
    role: Role
    if sender == "human":
        role = "user"
    elif sender == "assistant":
        role = "assistant"
    else:
        return []
    turns: list[Turn] = []
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        texts: list[str] = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_use":
                turns.append(_tool_call(line, block.get("name"), block.get("input")))
            elif kind == "tool_result":
                turns.append(_tool_result(line, block.get("content"), bool(block.get("is_error"))))
        text = "\n".join(texts).strip()  # thinking and unknown blocks are dropped
    else:
        raw = message.get("text")
        text = raw.strip() if isinstance(raw, str) else ""
    if text:
        turns.insert(0, Turn(role, text, line))
    for attachment in (message.get("attachments") or []) + (message.get("files") or []):
        if isinstance(attachment, dict):  # pasted or uploaded: not typed in this conversation
            name = attachment.get("file_name") or attachment.get("file_type") or "attachment"
            turns.append(Turn("tool", f"[attachment {name}]", line))
    return turns
