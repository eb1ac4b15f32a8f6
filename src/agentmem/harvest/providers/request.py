"""Harvest providers (docs/design/providers.md §Providers): ``offline``, ``replay`` and ``anthropic``.

Each provider takes a :class:`HarvestRequest` and returns a :class:`RawAnswer` whose proposals are
*untrusted* dicts; :mod:`agentmem.proposals.model` validates them. Only
``agentmem.harvest.providers.anthropic_provider`` imports the anthropic SDK, and only when called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmem.harvest.transcripts import Transcript


@dataclass(frozen=True)
class Outcome:
    """What the person did with one of the agent's suggestions (the outcomes file,
    docs/design/harvest.md §Harvest)."""

    suggestion: str
    decision: str  # accepted | reworked | ignored
    final_text: str | None = None


@dataclass(frozen=True)
class HarvestRequest:
    """Everything one harvest call may see.

    ``memory_text`` is the person's current memory file, ``doctrine_text`` the active rules in
    scope (rendered, for a model), ``doctrine_rules`` their instructions (for the offline
    extractor), ``sections`` the configured section names, ``max_proposals`` the cap
    (``harvest.max_proposals`` of docs/design/settings.md §Settings, default 6).
    """

    person: str
    transcript: Transcript
    memory_text: str
    doctrine_text: str
    sections: tuple[str, ...]
    max_proposals: int
    scope: str | None
    model: str
    outcomes: tuple[Outcome, ...] = ()
    timeout_s: float = 120.0  # seconds the whole model call may take (harvest.timeout_s)
    doctrine_rules: tuple[str, ...] = ()  # the instructions of the active rules in scope


@dataclass
class RawAnswer:
    """A provider's answer before validation: ``proposals`` are untrusted dicts."""

    provider: str
    proposals: list[dict[str, Any]]
    model: str | None = None
    notes: list[str] = field(default_factory=list)
