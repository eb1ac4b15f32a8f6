"""The usage log's file (docs/design/context.md §Context): appending one line, rotating by size, and
writing a chat block's line. The records and their readers are :mod:`agentmem.delivery.usage`;
this part is apart so that the hot path (docs/design/code.md §Hot path) logs a chat block without
building them. Standard library only.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.delivery.context import ChatContext
    from agentmem.store.root import StrPath

USAGE_FILE = ".agentmem/usage.jsonl"
ROTATED_FILE = ".agentmem/usage.1.jsonl"
#: The size past which the log rotates (4 MiB: thousands of audits and chat blocks; the two
#: files stay under 8 MiB).
USAGE_MAX_BYTES = 4 * 1024 * 1024
CHAT_KIND = "chat"


def append_line(root: StrPath, data: bytes, *, limit: int = USAGE_MAX_BYTES) -> None:
    """Append one line (``data``, newline included) to the usage log in a single ``write`` on an
    ``O_APPEND`` descriptor held under ``flock`` (two writers never interleave their lines nor
    both rotate); when the line would take the log past ``limit`` bytes, the log first becomes
    ``usage.1.jsonl``. Raises OSError."""
    path = os.path.join(root, USAGE_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for _attempt in range(10):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                continue  # rotated while this one waited for the lock: open the new log
            if (current.st_ino, current.st_dev) != (held.st_ino, held.st_dev):
                continue
            if held.st_size and held.st_size + len(data) > limit:
                os.replace(path, os.path.join(root, ROTATED_FILE))
                continue
            os.write(fd, data)
            return
        finally:
            os.close(fd)
    raise OSError(0, "the log kept moving")


def chat_stamp(now: datetime | None = None) -> tuple[str, str]:
    """A chat line's ``(run_id, time)``: ``c-YYYYMMDDTHHMMSS-xxxxxx`` (24 random bits) and the
    ISO 8601 UTC time, both from ``now`` (default: the current time)."""
    now = now or datetime.now(UTC)
    return f"c-{now:%Y%m%dT%H%M%S}-{os.urandom(3).hex()}", now.strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_hash(text: str) -> str:
    """16 hex digits of the SHA-256 of an entry's text as given (marker stripped): enough to
    tell entries apart, nothing to read back."""
    # lazy: hashlib only when a chat line is written (typer commands that import this do not pay)
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def chat_line(ctx: ChatContext, actor: str, via: str) -> dict[str, Any]:
    """The usage line of a chat block (``ctx`` from :func:`agentmem.delivery.context.build_chat`)
    as written: ``kind``, ``run_id``, ``time``, ``actor``, ``person``, ``scope``, ``via``,
    ``file``, ``blob``, ``entries`` (numbers and :func:`entry_hash`, never text), ``withheld``,
    ``left_out`` (:class:`agentmem.delivery.usage.ChatUsage` reads it back)."""
    run_id, time = chat_stamp()
    return {
        "kind": CHAT_KIND,
        "run_id": run_id,
        "time": time,
        "actor": actor,
        "person": ctx.person,
        "scope": ctx.scope,
        "via": via,
        "file": ctx.path,
        "blob": ctx.blob,
        "entries": [{"number": e.number, "sha256": entry_hash(e.text)} for e in ctx.entries],
        "withheld": list(ctx.withheld),
        "left_out": [{"number": n, "reason": r} for n, r in ctx.left_out],
    }


def write_chat(root: StrPath, record: dict[str, Any]) -> str | None:
    """Append a chat line (:func:`chat_line`) to the log (:func:`append_line`). Returns
    None, or the reason it could not be written: a chat block is still given (a session never
    breaks on its log) and the caller says so on stderr."""
    line = json.dumps(record, separators=(",", ":")) + "\n"
    try:
        append_line(root, line.encode("utf-8"))
    except OSError as exc:
        return f"{USAGE_FILE}: the chat block was not logged ({exc.strerror})"
    return None
