"""Transcript readers (SPEC §7): one session file in, a list of turns out.

Readers are chosen by content, never by file name. The data shapes are fixed here; the readers
fill them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Role = Literal["user", "assistant", "tool"]


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
    """A read session: ``format`` is one of ``claude-code``, ``codex``, ``messages``, ``text``."""

    path: Path
    format: str
    session_id: str
    turns: list[Turn] = field(default_factory=list)

    def user_turns(self) -> list[Turn]:
        """The turns the person typed themselves, in order."""
        return [t for t in self.turns if t.role == "user"]

    def render(self) -> str:
        """Plain text for a prompt: ``User: …`` / ``Assistant: …`` / ``Tool: …`` blocks."""
        labels = {"user": "User", "assistant": "Assistant", "tool": "Tool"}
        return "\n\n".join(f"{labels[t.role]}: {t.text}" for t in self.turns)
