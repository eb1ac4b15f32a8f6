"""A Claude Code hook's payload (docs/design/harvest.md §Harvest): what every hook reads from stdin.

Apart from :mod:`agentmem.harvest.queue` so that the SessionStart hook, which only needs the
payload's ``cwd``, does not load the queue (docs/design/code.md §Hot path). Standard library and
``agentmem.errors`` only.
"""

from __future__ import annotations

import json
import re

from agentmem.errors import AgentmemError
from agentmem.nesting import MAX_DEPTH, too_deep

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

#: What a parse that met the recursion limit gives (``null`` is a value).
_TOO_DEEP = object()

#: A session id as Claude Code and Codex write it (a UUID); anything else is refused, because it
#: ends up in commit trailers and file names.
SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
PAYLOAD_MAX_BYTES = 1_000_000
#: Characters of a payload's ``cwd`` (PATH_MAX): a longer one is not a folder and is refused.
CWD_MAX_CHARS = 4096


class HookPayloadError(AgentmemError):
    """The JSON a hook received on stdin is not a Claude Code hook payload."""


class HookPayload:
    """The fields agentmem reads from a Claude Code hook payload.

    ``reason`` is SessionEnd's ``reason`` or PreCompact's ``trigger`` (None when absent). A
    plain class, not a dataclass: the SessionStart hook reads its ``cwd`` on the hot path
    (docs/design/code.md §Hot path).
    """

    __slots__ = ("session_id", "transcript_path", "cwd", "event", "reason", "source")

    def __init__(
        self,
        session_id: str,
        transcript_path: str,
        cwd: str | None,
        event: str | None,
        reason: str | None,
        source: str | None,
    ) -> None:
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.cwd = cwd
        self.event = event
        self.reason = reason
        self.source = source

    def _values(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HookPayload) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"HookPayload({shown})"


def _str_field(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value.strip() else None


#: JSON's names for what ``json.loads`` returns (never Python's: ``NoneType``, ``str``).
_JSON_KINDS = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def parse_payload(text: str) -> HookPayload:
    """Parse a hook's stdin. Raises :class:`HookPayloadError` when it is not a JSON object with
    a ``session_id`` (UUID-like) and a ``transcript_path`` string."""
    data = _object(text)
    session_id = _str_field(data, "session_id")
    if session_id is None or not SESSION_ID.match(session_id):
        raise HookPayloadError("hook payload has no valid 'session_id'")
    transcript = _str_field(data, "transcript_path")
    if transcript is None:
        raise HookPayloadError(f"hook payload of session {session_id} has no 'transcript_path'")
    event = _str_field(data, "hook_event_name")
    reason = _str_field(data, "reason") or _str_field(data, "trigger")
    return HookPayload(
        session_id, transcript, _str_field(data, "cwd"), event, reason, _str_field(data, "source")
    )


def payload_cwd(text: str) -> str | None:
    """The ``cwd`` of a hook's stdin (None when it has none): all that SessionStart reads, so a
    payload without a transcript (a start typed by hand, a tool that sends only the folder)
    still gives its folder. Raises :class:`HookPayloadError` when it is not a JSON object."""
    cwd = _str_field(_object(text), "cwd")
    if cwd is not None and (
        len(cwd) > CWD_MAX_CHARS or "\x00" in cwd or any(len(p) > 255 for p in cwd.split("/"))
    ):
        raise HookPayloadError(
            f"the payload's cwd is not a usable folder ({len(cwd):,} characters, a name over 255 "
            f"or a NUL; at most {CWD_MAX_CHARS:,})"
        )
    return cwd


def _object(text: str) -> dict[str, Any]:
    if len(text) > PAYLOAD_MAX_BYTES:
        raise HookPayloadError(
            f"hook payload is {len(text)} characters; expected a small JSON object"
        )
    if not text.strip():
        raise HookPayloadError("no hook payload on stdin (expected the JSON Claude Code sends)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HookPayloadError(f"hook payload is not JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        data = _TOO_DEEP
    if data is _TOO_DEEP or too_deep(data):
        raise HookPayloadError(
            f"hook payload is nested more than {MAX_DEPTH} levels deep; expected a small JSON object"
        )
    if not isinstance(data, dict):
        kind = _JSON_KINDS.get(type(data), "value")
        raise HookPayloadError(f"hook payload is a JSON {kind}; expected an object")
    return data
